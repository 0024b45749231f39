// SPDX-License-Identifier: GPL-2.0-only
// RouteDemandEcmp: hand cases (direct, two hops, equal split over paths, parallel links,
// disconnected pairs, bad input) and equality with the logical solver's single-hop MLU when
// the topology is the solver's own.
#include "ns3/fabric-rng.h"
#include "ns3/ocs-logical-solver.h"
#include "ns3/ocs-routed-mlu.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

OcsMatrix
Links(uint32_t n, std::initializer_list<std::tuple<uint32_t, uint32_t, int64_t>> links)
{
    OcsMatrix m(n);
    for (auto [a, b, k] : links)
    {
        m(a, b) = m(b, a) = k;
    }
    return m;
}

std::vector<double>
Demand(uint32_t n, std::initializer_list<std::tuple<uint32_t, uint32_t, double>> entries)
{
    std::vector<double> d(size_t(n) * n, 0.0);
    for (auto [a, b, x] : entries)
    {
        d[size_t(a) * n + b] = x;
    }
    return d;
}

} // namespace

TEST(OcsRoutedMlu, HandCases)
{
    // Direct link.
    auto r = RouteDemandEcmp(Links(3, {{0, 1, 1}, {1, 2, 1}, {0, 2, 1}}), Demand(3, {{0, 1, 1}}));
    EXPECT_DOUBLE_EQ(r.mlu, 1.0);
    EXPECT_DOUBLE_EQ(r.multiHopDemand, 0.0);
    // Two hops on a line: both links carry it.
    r = RouteDemandEcmp(Links(3, {{0, 1, 1}, {1, 2, 1}}), Demand(3, {{0, 2, 1}, {1, 2, 0.5}}));
    EXPECT_DOUBLE_EQ(r.mlu, 1.5); // link 1->2 carries 1 + 0.5
    EXPECT_DOUBLE_EQ(r.multiHopDemand, 1.0);
    // A square: 0 -> 3 splits equally over 0-1-3 and 0-2-3.
    r = RouteDemandEcmp(Links(4, {{0, 1, 1}, {1, 3, 1}, {0, 2, 1}, {2, 3, 1}}),
                        Demand(4, {{0, 3, 2}}));
    EXPECT_DOUBLE_EQ(r.mlu, 1.0);
    // The split counts parallel links: 0-1 twice, 0-2 once -> 2/3 and 1/3 of 3.
    r = RouteDemandEcmp(Links(4, {{0, 1, 2}, {1, 3, 2}, {0, 2, 1}, {2, 3, 1}}),
                        Demand(4, {{0, 3, 3}}));
    EXPECT_DOUBLE_EQ(r.mlu, 1.0);
    // Parallel links share a direct demand; capacity scales.
    r = RouteDemandEcmp(Links(2, {{0, 1, 2}}), Demand(2, {{0, 1, 1}}), 0.25);
    EXPECT_DOUBLE_EQ(r.mlu, 2.0);
    // Disconnected pairs are reported, not routed.
    r = RouteDemandEcmp(Links(4, {{0, 1, 1}}), Demand(4, {{0, 1, 1}, {2, 3, 5}}));
    EXPECT_DOUBLE_EQ(r.mlu, 1.0);
    EXPECT_DOUBLE_EQ(r.unroutedDemand, 5.0);
    // Bad input.
    EXPECT_THROW(RouteDemandEcmp(Links(2, {}), std::vector<double>(3, 0.0)), std::invalid_argument);
    EXPECT_THROW(RouteDemandEcmp(Links(2, {}), Demand(2, {{0, 1, -1}})), std::invalid_argument);
    EXPECT_THROW(RouteDemandEcmp(Links(2, {}), Demand(2, {}), 0), std::invalid_argument);
}

TEST(OcsRoutedMlu, EqualsTheSolversBoundOnItsOwnTopology)
{
    FabricRng rng(5);
    for (uint32_t k = 0; k < 200; ++k)
    {
        const uint32_t egs = 3 + uint32_t(rng.Below(10));
        const uint32_t ports = 2 + uint32_t(rng.Below(6));
        std::vector<double> d(size_t(egs) * egs, 0.0);
        // Each EG demands toward at most `ports` others (single hop must be possible).
        for (uint32_t a = 0; a < egs; ++a)
        {
            for (uint32_t j = 1; j <= ports / 2 && j < egs; ++j)
            {
                d[size_t(a) * egs + (a + j) % egs] = double(1 + rng.Below(100));
            }
        }
        const OcsLogicalSolution sol = SolveLogicalTopologyMlu(d, egs, ports, 10.0);
        const OcsRoutedLoad r = RouteDemandEcmp(sol.logical, d, 10.0);
        EXPECT_NEAR(r.mlu, sol.mlu, 1e-9 * sol.mlu) << egs << " x " << ports;
        EXPECT_DOUBLE_EQ(r.unroutedDemand, 0.0);
        EXPECT_DOUBLE_EQ(r.multiHopDemand, 0.0);
    }
}
