// SPDX-License-Identifier: GPL-2.0-only
// OCS paper §3-§5: the four wirings' cabling, half-port bookkeeping, the Uniform -> Cross
// Wiring fibre moves, logical-topology validation and LTCR (Eq. 1).
#include "ns3/ocs-configuration.h"
#include "ns3/ocs-matrix.h"
#include "ns3/ocs-setup.h"
#include "ns3/ocs-wiring.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

const OcsWiringType kAll[] = {OcsWiringType::SINGLE,
                              OcsWiringType::UNIFORM,
                              OcsWiringType::TWO_UNIFORM,
                              OcsWiringType::CROSS};

} // namespace

TEST(OcsWiring, CountsFollowFromTheWiring)
{
    const uint32_t E = 6;
    const uint32_t P = 4;
    EXPECT_EQ(OcsWiring(OcsWiringType::SINGLE, E, P).GetNumOcs(), 1u);
    EXPECT_EQ(OcsWiring(OcsWiringType::SINGLE, E, P).GetRadix(), E * P);
    EXPECT_EQ(OcsWiring(OcsWiringType::UNIFORM, E, P).GetNumOcs(), P);
    EXPECT_EQ(OcsWiring(OcsWiringType::UNIFORM, E, P).GetRadix(), E);
    EXPECT_EQ(OcsWiring(OcsWiringType::TWO_UNIFORM, E, P).GetNumOcs(), P / 2);
    EXPECT_EQ(OcsWiring(OcsWiringType::TWO_UNIFORM, E, P).GetRadix(), 2 * E);
    EXPECT_EQ(OcsWiring(OcsWiringType::CROSS, E, P).GetNumOcs(), P);
    EXPECT_EQ(OcsWiring(OcsWiringType::CROSS, E, P).GetRadix(), E);
    EXPECT_FALSE(OcsWiring(OcsWiringType::UNIFORM, E, P).IsMirrorSymmetric());
    EXPECT_TRUE(OcsWiring(OcsWiringType::CROSS, E, P).IsMirrorSymmetric());
    EXPECT_TRUE(OcsWiring(OcsWiringType::TWO_UNIFORM, E, P).IsMirrorSymmetric());
}

// Every TX and every RX half of every EG port lands on exactly one half-port, and the two
// lookup directions agree.
TEST(OcsWiring, CablingIsABijection)
{
    for (OcsWiringType t : kAll)
    {
        const OcsWiring w(t, 5, 6);
        std::set<std::pair<uint32_t, uint32_t>> tx;
        std::set<std::pair<uint32_t, uint32_t>> rx;
        for (uint32_t o = 0; o < w.GetNumOcs(); ++o)
        {
            for (uint32_t i = 0; i < w.GetRadix(); ++i)
            {
                const OcsEgPort n = w.GetNPort(o, i);
                const OcsEgPort s = w.GetSPort(o, i);
                EXPECT_TRUE(tx.insert({n.eg, n.port}).second);
                EXPECT_TRUE(rx.insert({s.eg, s.port}).second);
                EXPECT_EQ(w.GetTxHalfPort(n.eg, n.port), (OcsHalfPort{o, i}));
                EXPECT_EQ(w.GetRxHalfPort(s.eg, s.port), (OcsHalfPort{o, i}));
            }
        }
        EXPECT_EQ(tx.size(), 30u) << OcsWiringTypeName(t);
        EXPECT_EQ(rx.size(), 30u) << OcsWiringTypeName(t);
    }
}

// The cabling rules exactly as the issue and §4.4 / §4.6 state them.
TEST(OcsWiring, CablingRules)
{
    const uint32_t E = 3;
    const uint32_t P = 4;
    const OcsWiring u(OcsWiringType::UNIFORM, E, P);
    const OcsWiring c(OcsWiringType::CROSS, E, P);
    const OcsWiring d(OcsWiringType::TWO_UNIFORM, E, P);
    for (uint32_t e = 0; e < E; ++e)
    {
        for (uint32_t k = 0; k < P; ++k)
        {
            EXPECT_EQ(u.GetTxHalfPort(e, k).ocs, k);
            EXPECT_EQ(u.GetRxHalfPort(e, k).ocs, k);
            EXPECT_EQ(d.GetTxHalfPort(e, k).ocs, k / 2);
            EXPECT_EQ(d.GetRxHalfPort(e, k).ocs, k / 2);
        }
        for (uint32_t j = 0; j < P / 2; ++j)
        {
            // TX of port 2j and RX of port 2j+1 to OCS 2j; TX of 2j+1 and RX of 2j to 2j+1.
            EXPECT_EQ(c.GetTxHalfPort(e, 2 * j).ocs, 2 * j);
            EXPECT_EQ(c.GetRxHalfPort(e, 2 * j + 1).ocs, 2 * j);
            EXPECT_EQ(c.GetTxHalfPort(e, 2 * j + 1).ocs, 2 * j + 1);
            EXPECT_EQ(c.GetRxHalfPort(e, 2 * j).ocs, 2 * j + 1);
        }
    }
}

TEST(OcsWiring, BadParametersThrow)
{
    EXPECT_THROW(OcsWiring(OcsWiringType::CROSS, 4, 3), std::invalid_argument);
    EXPECT_THROW(OcsWiring(OcsWiringType::TWO_UNIFORM, 4, 5), std::invalid_argument);
    EXPECT_THROW(OcsWiring(OcsWiringType::UNIFORM, 0, 4), std::invalid_argument);
    EXPECT_THROW(OcsWiring(OcsWiringType::UNIFORM, 4, 0), std::invalid_argument);
    EXPECT_THROW(OcsSetup::WiringByName("clos"), std::invalid_argument);
    try
    {
        OcsWiring(OcsWiringType::CROSS, 4, 3);
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("even number of ports"), std::string::npos);
    }
    const OcsWiring w(OcsWiringType::UNIFORM, 4, 2);
    EXPECT_THROW(w.GetNPort(2, 0), std::invalid_argument);
    EXPECT_THROW(w.GetTxHalfPort(4, 0), std::invalid_argument);
}

// §5: applying the moves to a Uniform cabling gives exactly Cross Wiring; only RX fibres
// move, each once, within its OCS pair.
TEST(OcsWiring, UniformToCrossMovesProduceCrossWiring)
{
    const uint32_t E = 7;
    const uint32_t P = 6;
    const OcsWiring u(OcsWiringType::UNIFORM, E, P);
    const OcsWiring c(OcsWiringType::CROSS, E, P);
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>> rx; // port -> S
    for (uint32_t e = 0; e < E; ++e)
    {
        for (uint32_t p = 0; p < P; ++p)
        {
            const OcsHalfPort h = u.GetRxHalfPort(e, p);
            rx[{e, p}] = {h.ocs, h.index};
        }
    }
    const auto moves = UniformToCrossMoves(E, P);
    EXPECT_EQ(moves.size(), size_t(E) * P);
    std::set<std::pair<uint32_t, uint32_t>> moved;
    for (const auto& m : moves)
    {
        const auto key = std::make_pair(m.egPort.eg, m.egPort.port);
        EXPECT_TRUE(moved.insert(key).second);
        EXPECT_EQ(rx[key], std::make_pair(m.from.ocs, m.from.index));
        EXPECT_EQ(m.from.ocs / 2, m.to.ocs / 2); // stays within its OCS pair
        rx[key] = {m.to.ocs, m.to.index};
    }
    for (uint32_t e = 0; e < E; ++e)
    {
        for (uint32_t p = 0; p < P; ++p)
        {
            const OcsHalfPort h = c.GetRxHalfPort(e, p);
            EXPECT_EQ(rx[std::make_pair(e, p)], std::make_pair(h.ocs, h.index));
            EXPECT_EQ(u.GetTxHalfPort(e, p), c.GetTxHalfPort(e, p)); // TX untouched
        }
    }
    EXPECT_THROW(UniformToCrossMoves(4, 5), std::invalid_argument);
}

TEST(OcsLogical, ValidationNamesTheProblem)
{
    auto expectError = [](const OcsMatrix& l, uint32_t e, uint32_t p, const std::string& text)
    {
        try
        {
            ValidateLogicalTopology(l, e, p);
            ADD_FAILURE() << "no error for " << text;
        }
        catch (const std::invalid_argument& ex)
        {
            EXPECT_NE(std::string(ex.what()).find(text), std::string::npos) << ex.what();
        }
    };
    OcsMatrix l(3);
    l(0, 1) = l(1, 0) = 2;
    EXPECT_NO_THROW(ValidateLogicalTopology(l, 3, 2));
    expectError(l, 4, 2, "does not match --egs=4");
    expectError(l, 3, 1, "row 0 sums to 2, over the 1 ports");
    OcsMatrix a = l;
    a(0, 2) = 1;
    expectError(a, 3, 4, "not symmetric");
    OcsMatrix n = l;
    n(0, 2) = n(2, 0) = -1;
    expectError(n, 3, 4, "negative");
    OcsMatrix d = l;
    d(1, 1) = 1;
    expectError(d, 3, 4, "diagonal");
}

TEST(OcsLogical, ReadsTheTextFormat)
{
    std::istringstream ok("3\n0 1 1\n1 0 1\n1 1 0\n");
    const OcsMatrix m = OcsMatrix::Read(ok);
    EXPECT_EQ(m.GetN(), 3u);
    EXPECT_EQ(m(2, 1), 1);
    std::istringstream shortInput("3\n0 1 1\n1 0 1\n");
    EXPECT_THROW(OcsMatrix::Read(shortInput), std::invalid_argument);
    std::istringstream extra("2\n0 1\n1 0\n5\n");
    EXPECT_THROW(OcsMatrix::Read(extra), std::invalid_argument);
    std::istringstream bad("2\n0 x\n1 0\n");
    EXPECT_THROW(OcsMatrix::Read(bad), std::invalid_argument);
    std::stringstream round;
    m.Write(round);
    EXPECT_EQ(OcsMatrix::Read(round), m);
}

// Eq. (1): mean over non-zero target entries of min(realized / target, 1).
TEST(OcsLogical, LtcrArithmetic)
{
    OcsMatrix l(3);
    l(0, 1) = l(1, 0) = 2;
    l(0, 2) = l(2, 0) = 1;
    OcsMatrix r(3);
    EXPECT_DOUBLE_EQ(ComputeLtcr(l, r), 0.0);
    EXPECT_DOUBLE_EQ(ComputeLtcr(l, l), 1.0);
    r(0, 1) = r(1, 0) = 1; // half of {0,1}, none of {0,2}: (0.5+0.5+0+0)/4
    EXPECT_DOUBLE_EQ(ComputeLtcr(l, r), 0.25);
    r(0, 2) = r(2, 0) = 3; // more than asked counts as 1
    EXPECT_DOUBLE_EQ(ComputeLtcr(l, r), 0.75);
    r(1, 2) = r(2, 1) = 5; // links nobody asked for do not count
    EXPECT_DOUBLE_EQ(ComputeLtcr(l, r), 0.75);
    EXPECT_DOUBLE_EQ(ComputeLtcr(OcsMatrix(3), r), 1.0);
    EXPECT_THROW(ComputeLtcr(l, OcsMatrix(2)), std::invalid_argument);
}

// The symmetry constraint: a link needs both directions between the same two EG ports.
TEST(OcsLogical, OneWayCircuitsAreNotLinks)
{
    const OcsWiring u(OcsWiringType::UNIFORM, 3, 2);
    // EG0.0 -> EG1.0 only: one-way.
    auto r = RealizeCircuits(u, {{0, 0, 1}});
    EXPECT_EQ(r.logical(0, 1), 0);
    EXPECT_EQ(r.oneWayCircuits, 1u);
    // Both directions on OCS 0: a link.
    r = RealizeCircuits(u, {{0, 0, 1}, {0, 1, 0}});
    EXPECT_EQ(r.logical(0, 1), 1);
    EXPECT_EQ(r.logical(1, 0), 1);
    EXPECT_EQ(r.oneWayCircuits, 0u);
    // TX(0.0)->RX(1.0) on OCS 0 and TX(1.1)->RX(0.1) on OCS 1: two EG pairs of ports that do
    // not match, so no link even though both EGs send to each other.
    r = RealizeCircuits(u, {{0, 0, 1}, {1, 1, 0}});
    EXPECT_EQ(r.logical(0, 1), 0);
    EXPECT_EQ(r.oneWayCircuits, 2u);
    // Physical constraint: a half-port carries one circuit.
    EXPECT_THROW(RealizeCircuits(u, {{0, 0, 1}, {0, 0, 2}}), std::invalid_argument);
    EXPECT_THROW(RealizeCircuits(u, {{0, 0, 1}, {0, 2, 1}}), std::invalid_argument);
    EXPECT_THROW(RealizeCircuits(u, {{2, 0, 1}}), std::invalid_argument);
    // Cross Wiring: TX(0.0)->RX(1.1) on OCS 0 and TX(1.1)->RX(0.0) on OCS 1.
    const OcsWiring c(OcsWiringType::CROSS, 3, 2);
    r = RealizeCircuits(c, {{0, 0, 1}, {1, 1, 0}});
    EXPECT_EQ(r.logical(0, 1), 1);
    EXPECT_EQ(r.oneWayCircuits, 0u);
}
