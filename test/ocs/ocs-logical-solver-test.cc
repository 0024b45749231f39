// SPDX-License-Identifier: GPL-2.0-only
// The demand -> logical topology solver (MLU-optimal for single-hop routing) against brute
// force, and the §7 workload generator.
#include "ocs-test-util.h"

#include "ns3/ocs-configurator.h"
#include "ns3/ocs-logical-solver.h"
#include "ns3/ocs-toe-workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace ns3;

namespace
{

/// Least MLU over every assignment of link counts (each demanded pair >= 1, rows <= P).
double
BruteForceMlu(const std::vector<double>& d, uint32_t egs, uint32_t ports)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::vector<double> m;
    for (uint32_t a = 0; a < egs; ++a)
    {
        for (uint32_t b = a + 1; b < egs; ++b)
        {
            const double x = std::max(d[a * egs + b], d[b * egs + a]);
            if (x > 0)
            {
                pairs.emplace_back(a, b);
                m.push_back(x);
            }
        }
    }
    double best = INFINITY;
    std::vector<uint32_t> row(egs, 0);
    std::function<void(size_t, double)> rec = [&](size_t k, double mlu)
    {
        if (mlu >= best)
        {
            return;
        }
        if (k == pairs.size())
        {
            best = mlu;
            return;
        }
        const auto [a, b] = pairs[k];
        for (uint32_t n = 1; row[a] + n <= ports && row[b] + n <= ports; ++n)
        {
            row[a] += n;
            row[b] += n;
            rec(k + 1, std::max(mlu, m[k] / n));
            row[a] -= n;
            row[b] -= n;
        }
    };
    rec(0, 0);
    return pairs.empty() ? 0 : best;
}

} // namespace

TEST(OcsLogicalSolver, MluOptimalAgainstBruteForce)
{
    FabricRng rng(11);
    uint32_t checked = 0;
    for (uint32_t k = 0; k < 400; ++k)
    {
        const uint32_t egs = 3 + uint32_t(rng.Below(3));
        const uint32_t ports = 2 + uint32_t(rng.Below(4));
        std::vector<double> d(egs * egs, 0.0);
        for (uint32_t a = 0; a < egs; ++a)
        {
            uint32_t partners = 0;
            for (uint32_t b = 0; b < egs; ++b)
            {
                if (a != b && rng.Below(3) != 0 && partners + 1 < ports)
                {
                    d[a * egs + b] = double(1 + rng.Below(20));
                    ++partners;
                }
            }
        }
        OcsLogicalSolution s;
        try
        {
            s = SolveLogicalTopologyMlu(d, egs, ports);
        }
        catch (const std::invalid_argument&)
        {
            continue; // some EG talks to more EGs than it has ports (symmetrized)
        }
        ValidateLogicalTopology(s.logical, egs, ports);
        const double bf = BruteForceMlu(d, egs, ports);
        EXPECT_NEAR(s.mlu, bf, 1e-9 * bf) << "case " << k;
        ++checked;
        // Spare filling never raises the MLU and leaves at most one idle port per EG pair.
        for (uint32_t a = 0; a < egs; ++a)
        {
            for (uint32_t b = 0; b < egs; ++b)
            {
                const double x = std::max(d[a * egs + b], d[b * egs + a]);
                if (x > 0)
                {
                    ASSERT_GE(s.logical(a, b), 1);
                    EXPECT_LE(x / s.logical(a, b), s.mlu + 1e-12);
                }
            }
        }
    }
    EXPECT_GT(checked, 150u);
}

TEST(OcsLogicalSolver, FillsIdlePortsAndRejectsBadDemand)
{
    std::vector<double> d(16, 0.0);
    d[0 * 4 + 1] = 3; // only 0 <-> 1 talk
    const OcsLogicalSolution s = SolveLogicalTopologyMlu(d, 4, 4);
    EXPECT_EQ(s.logical(0, 1), 4); // all of 0's and 1's ports go to the demanded pair
    EXPECT_DOUBLE_EQ(s.mlu, 0.75);
    EXPECT_EQ(s.logical(2, 3), 4); // idle ports paired
    const OcsLogicalSolution n = SolveLogicalTopologyMlu(d, 4, 4, 1.0, false);
    EXPECT_EQ(n.logical(2, 3), 0);
    EXPECT_THROW(SolveLogicalTopologyMlu(std::vector<double>(15, 0.0), 4, 4),
                 std::invalid_argument);
    d[2] = -1;
    EXPECT_THROW(SolveLogicalTopologyMlu(d, 4, 4), std::invalid_argument);
    std::vector<double> all(16, 1.0); // 3 partners each, 2 ports
    EXPECT_THROW(SolveLogicalTopologyMlu(all, 4, 2), std::invalid_argument);
}

// §7 workload: the cluster is always exactly full, the same seed gives the same jobs, and
// the pipeline demand -> logical -> exact Cross Wiring configuration is exact at 2k GPUs.
TEST(OcsToeWorkload, ChurnKeepsTheClusterFullAndPipelineRuns)
{
    OcsToeWorkload w(64, 32, 3);
    OcsToeWorkload same(64, 32, 3);
    const OcsConfigurator cross(OcsWiring(OcsWiringType::CROSS, 64, 32));
    for (uint32_t step = 0; step < 30; ++step)
    {
        std::vector<uint32_t> owner(64, 0);
        for (const auto& j : w.GetJobs())
        {
            EXPECT_GE(j.gpus, 192u);
            EXPECT_LE(j.gpus, 1024u);
            EXPECT_EQ(j.egs.size() * 32, j.gpus);
            for (uint32_t e : j.egs)
            {
                owner[e]++;
            }
        }
        for (uint32_t e = 0; e < 64; ++e)
        {
            ASSERT_EQ(owner[e], 1u) << "EG " << e << " step " << step;
        }
        const auto d = w.Demand();
        ASSERT_EQ(d, same.Demand());
        const OcsLogicalSolution s = SolveLogicalTopologyMlu(d, 64, 32);
        const OcsConfigResult r = cross.Configure(s.logical, OcsAlgorithm::EXACT);
        ASSERT_DOUBLE_EQ(r.ltcr, 1.0);
        w.Step();
        same.Step();
    }
    EXPECT_THROW(OcsToeWorkload(3, 32, 1), std::invalid_argument); // 3 EGs cannot be filled
    EXPECT_THROW(OcsToeWorkload(64, 32, 1, 0.0), std::invalid_argument);
    EXPECT_THROW(OcsToeWorkload(64, 30, 1), std::invalid_argument); // 192 % 30 != 0
}
