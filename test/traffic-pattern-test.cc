// SPDX-License-Identifier: GPL-2.0-only
#include "ns3/leaf-spine-layout.h"
#include "ns3/traffic-pattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace ns3;

TEST(TrafficPattern, Shapes)
{
    TrafficPatternParams p;
    p.hosts = 16;
    p.bytes = 1000;
    EXPECT_EQ(MakeTraffic(TrafficPattern::ALLREDUCE, p).size(), 16u * 15);
    p.prefillFraction = 0.25;
    auto pre = MakeTraffic(TrafficPattern::PREFILL, p);
    EXPECT_EQ(pre.size(), 4u * 12);
    for (const auto& f : pre)
    {
        EXPECT_LT(f.src, 4u);
        EXPECT_GE(f.dst, 4u);
    }
    p.allToOneDst = 5;
    auto a2o = MakeTraffic(TrafficPattern::ALL_TO_ONE, p);
    EXPECT_EQ(a2o.size(), 15u);
    for (const auto& f : a2o)
    {
        EXPECT_EQ(f.dst, 5u);
    }
    auto perm = MakeTraffic(TrafficPattern::PERMUTATION, p);
    std::set<uint32_t> dsts;
    for (const auto& f : perm)
    {
        EXPECT_NE(f.src, f.dst);
        dsts.insert(f.dst);
    }
    EXPECT_EQ(dsts.size(), 16u);
    p.elephants = 8;
    auto el = MakeTraffic(TrafficPattern::ELEPHANTS, p);
    std::set<uint32_t> srcs;
    for (const auto& f : el)
    {
        EXPECT_NE(f.src, f.dst);
        srcs.insert(f.src);
    }
    EXPECT_EQ(srcs.size(), 8u);
}

TEST(TrafficPattern, PortsUniquePerSourceAndSeedReproduces)
{
    TrafficPatternParams p;
    p.hosts = 32;
    auto ar = MakeTraffic(TrafficPattern::ALLREDUCE, p);
    std::set<std::pair<uint32_t, uint16_t>> seen;
    for (const auto& f : ar)
    {
        EXPECT_TRUE(seen.insert({f.src, f.srcPort}).second);
        EXPECT_EQ(f.dstPort, ROCEV2_UDP_PORT);
    }
    p.seed = 9;
    auto a = MakeTraffic(TrafficPattern::PERMUTATION, p);
    auto b = MakeTraffic(TrafficPattern::PERMUTATION, p);
    p.seed = 10;
    auto c = MakeTraffic(TrafficPattern::PERMUTATION, p);
    auto dsts = [](const std::vector<FlowSpec>& fs)
    {
        std::vector<uint32_t> d;
        for (const auto& f : fs)
        {
            d.push_back(f.dst);
        }
        return d;
    };
    EXPECT_EQ(dsts(a), dsts(b));
    EXPECT_NE(dsts(a), dsts(c));
}

TEST(TrafficPattern, BadParametersNamed)
{
    TrafficPatternParams p;
    p.hosts = 16;
    p.prefillFraction = 1.5;
    EXPECT_THROW(MakeTraffic(TrafficPattern::PREFILL, p), std::invalid_argument);
    p.elephants = 17;
    EXPECT_THROW(MakeTraffic(TrafficPattern::ELEPHANTS, p), std::invalid_argument);
    p.hosts = 1;
    EXPECT_THROW(MakeTraffic(TrafficPattern::ALLREDUCE, p), std::invalid_argument);
    try
    {
        ParseTrafficPattern("alltoall");
        FAIL();
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("allreduce|prefill"), std::string::npos);
    }
}

TEST(TrafficPattern, ShiftedAllToAllSteps)
{
    const uint32_t n = 10;
    auto all = MakeShiftedAllToAll(n, 4096, 0, 3);
    ASSERT_EQ(all.size(), n * (n - 1));
    // Every ordered pair once; step j uses source port 49152 + j and chains on step j-1.
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const auto& f : all)
    {
        EXPECT_NE(f.src, f.dst);
        EXPECT_EQ(f.bytes, 4096u);
        pairs.insert({f.src, f.dst});
        const uint32_t step = f.id / n;
        EXPECT_EQ(f.srcPort, 49152 + step);
        if (step == 0)
        {
            EXPECT_EQ(f.after, -1);
        }
        else
        {
            EXPECT_EQ(all[f.after].src, f.src);
            EXPECT_EQ(all[f.after].id / n, step - 1);
        }
    }
    EXPECT_EQ(pairs.size(), size_t(n) * (n - 1));
    auto some = MakeShiftedAllToAll(n, 4096, 3, 3);
    EXPECT_EQ(some.size(), 3u * n);
    for (size_t i = 0; i < some.size(); ++i)
    {
        EXPECT_EQ(some[i].dst, all[i].dst); // the first steps of the same shuffle
    }
    // Another seed, another order of the shifts.
    auto other = MakeShiftedAllToAll(n, 4096, 0, 4);
    std::vector<uint32_t> shifts3;
    std::vector<uint32_t> shifts4;
    for (uint32_t j = 0; j + 1 < n; ++j)
    {
        shifts3.push_back(all[j * n].dst);
        shifts4.push_back(other[j * n].dst);
    }
    EXPECT_NE(shifts3, shifts4);
    EXPECT_THROW(MakeShiftedAllToAll(1, 4096, 0, 1), std::invalid_argument);
    EXPECT_THROW(MakeShiftedAllToAll(4, 0, 0, 1), std::invalid_argument);
}

TEST(TrafficPattern, PatternCasesAndHostBudgets)
{
    auto cases = ParsePatternCases({"allreduce", "prefill", "prefill:0.5"}, 0.25);
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_EQ(cases[0].pattern, TrafficPattern::ALLREDUCE);
    EXPECT_EQ(cases[1].prefillFraction, 0.25);
    EXPECT_EQ(cases[2].key, "prefill:0.5");
    EXPECT_EQ(cases[2].prefillFraction, 0.5);
    EXPECT_THROW(ParsePatternCases({"allreduce:0.5"}, 0.25), std::invalid_argument);
    EXPECT_THROW(ParsePatternCases({"prefill:1.5"}, 0.25), std::invalid_argument);
    EXPECT_THROW(ParsePatternCases({"prefill:x"}, 0.25), std::invalid_argument);
    EXPECT_THROW(ParsePatternCases({"nosuch"}, 0.25), std::invalid_argument);

    // Host 0 has three flows, host 1 one: host 0's budget sets the per-flow size.
    std::vector<FlowSpec> flows(4);
    flows[3].src = 1;
    EXPECT_EQ(HostBudgetFlowBytes(flows, 2, 30000, 4096), 2u * 4096); // 10000 / 4096 -> 2
    EXPECT_EQ(HostBudgetFlowBytes(flows, 2, 100, 4096), 4096u);       // at least one packet
    auto rates = HostShareRates(flows, 2, 300e9);
    EXPECT_DOUBLE_EQ(rates[0], 100e9);
    EXPECT_DOUBLE_EQ(rates[3], 300e9);
    EXPECT_THROW(HostShareRates(flows, 1, 1e9), std::invalid_argument);
}

TEST(TrafficPattern, FlowCountMatchesTheFlowsMade)
{
    for (const TrafficPattern pat : {TrafficPattern::ALLREDUCE,
                                     TrafficPattern::PREFILL,
                                     TrafficPattern::ELEPHANTS,
                                     TrafficPattern::ALL_TO_ONE,
                                     TrafficPattern::PERMUTATION})
    {
        for (uint32_t n : {2u, 7u, 16u, 33u})
        {
            for (double f : {0.25, 0.5, 0.7})
            {
                TrafficPatternParams tp;
                tp.hosts = n;
                tp.prefillFraction = f;
                tp.elephants = std::min(n, 3u);
                if (pat == TrafficPattern::PREFILL
                    && (std::llround(f * n) < 1 || std::llround(f * n) >= n))
                {
                    continue; // not a valid prefill split of n hosts
                }
                EXPECT_EQ(TrafficFlowCount(pat, tp), MakeTraffic(pat, tp).size())
                    << TrafficPatternName(pat) << " n=" << n << " f=" << f;
            }
        }
    }
}

TEST(TrafficPattern, LeafPairFlowsShareTheirLeaves)
{
    // 32 hosts, 8 per leaf (4 leaves): pair p is leaf p -> leaf p + 2, host j -> host j.
    const LeafSpineLayout contiguous(32, 8, 4);
    const auto flows = contiguous.LeafPairFlows(2, 3, 5000);
    ASSERT_EQ(flows.size(), 6u);
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        const uint32_t p = i / 3;
        const uint32_t j = i % 3;
        EXPECT_EQ(flows[i].id, i);
        EXPECT_EQ(flows[i].src, p * 8 + j);
        EXPECT_EQ(flows[i].dst, (p + 2) * 8 + j);
        EXPECT_EQ(contiguous.LeafOf(flows[i].src), p);
        EXPECT_EQ(contiguous.LeafOf(flows[i].dst), p + 2);
        EXPECT_EQ(flows[i].bytes, 5000u);
        EXPECT_EQ(flows[i].srcPort, 49152 + i);
    }
    // Rail attachment: the same leaves, hosts numbered server-major.
    const LeafSpineLayout rail(32, 8, 4, LeafAttachment::RAIL);
    for (const auto& f : rail.LeafPairFlows(2, 8, 1))
    {
        EXPECT_EQ(rail.LeafOf(f.dst), rail.LeafOf(f.src) + 2);
    }
    EXPECT_EQ(rail.HostOn(1, 2), 1u + 2 * 4);
    EXPECT_THROW(contiguous.LeafPairFlows(0, 1, 1), std::invalid_argument);
    EXPECT_THROW(contiguous.LeafPairFlows(3, 1, 1), std::invalid_argument);
    EXPECT_THROW(contiguous.LeafPairFlows(1, 9, 1), std::invalid_argument);
    EXPECT_THROW(contiguous.HostOn(4, 0), std::invalid_argument);
}
