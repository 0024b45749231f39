// SPDX-License-Identifier: GPL-2.0-only
#include "ns3/traffic-pattern.h"

#include <gtest/gtest.h>

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
