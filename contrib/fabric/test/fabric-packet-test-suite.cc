// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite of fabric's packet-level adapters (FabricNetworkHelper, the switch fast path
// and FabricIpv4Routing, the link monitor and its drop accounting) on a leaf-spine tree with
// ECMP, so that it needs no other module. Only public headers.
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-hop-counter.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/link-load.h"
#include "ns3/queue-size.h"
#include "ns3/test.h"
#include "ns3/traffic-pattern.h"
#include "ns3/udp-flow-sender.h"
#include "ns3/uinteger.h"

using namespace ns3;

namespace
{

/// Leaf-spine with ECMP at packet level: bytes follow the hash, and with a tiny egress queue
/// at full load the overflow drops are counted so that sent = delivered + dropped.
class EcmpPacketAccountingTestCase : public TestCase
{
  public:
    explicit EcmpPacketAccountingTestCase(FabricSwitchMode mode)
        : TestCase(mode == FabricSwitchMode::FAST
                       ? "ECMP bytes follow the hash; overflow drops accounted, fast path"
                       : "ECMP bytes follow the hash; overflow drops accounted, IPv4 switches"),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        auto graph = std::shared_ptr<const FabricGraph>(LeafSpineLayout(32, 8, 4).Build());
        auto routing = MakeRouting<EcmpRouting>(
            graph, "Seed", UintegerValue(42), "MixSwitchId", BooleanValue(true));
        TrafficPatternParams tp;
        tp.hosts = 32;
        tp.bytes = 40960;
        tp.prefillFraction = 0.25;
        auto flows = MakeTraffic(TrafficPattern::PREFILL, tp);
        std::vector<double> wire(flows.size(), double(UdpFlowSender::Ipv4BytesOf(40960, 4096)));
        auto expected = ComputeDirLinkLoads(*routing, flows, wire);

        // Unsaturated: every byte where the hash says.
        {
            FabricNetworkHelper links;
            links.SetSwitchMode(m_mode);
            auto r = RunFabricUdp(links.Install(graph, routing),
                                  flows,
                                  std::vector<double>(flows.size(), 400e9 / 24 / 4),
                                  4096);
            for (size_t d = 0; d < r.links.size(); ++d)
            {
                NS_TEST_EXPECT_MSG_EQ(r.links[d].txBytes,
                                      uint64_t(expected[d]),
                                      "link " << graph->GetDirLinkLabel(d));
            }
            NS_TEST_EXPECT_MSG_EQ(r.droppedPackets, 0u, "no drops when unsaturated");
            NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
        }
        // Full load into 8-packet queues: drops happen and every one has a reason.
        {
            FabricNetworkHelper links;
            links.SetSwitchMode(m_mode);
            links.SetQueueAttribute("MaxSize", QueueSizeValue(QueueSize("8p")));
            auto r = RunFabricUdp(links.Install(graph, routing),
                                  flows,
                                  std::vector<double>(flows.size(), 400e9 / 24),
                                  4096);
            NS_TEST_EXPECT_MSG_GT(r.droppedPackets, 0u, "a 2:1 oversubscribed uplink drops");
            NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
            uint64_t linkDrops = 0;
            for (const auto& c : r.links)
            {
                linkDrops += c.queueDrops;
                NS_TEST_EXPECT_MSG_LT_OR_EQ(c.maxQueueBytes, 8u * 4126, "queue bound");
            }
            const uint64_t overflow
                = r.drops.count("queue-overflow") ? r.drops.at("queue-overflow") : 0;
            NS_TEST_EXPECT_MSG_EQ(linkDrops, overflow, "per-link drops are the overflow drops");
            // A packet that meets a stopped (full) device queue on a node with a traffic-control
            // layer (hosts; switches too in IPv4 mode) is dropped there: host-queue-full, not
            // attributed to a link (doc/fabric.md, Scope and limitations).
            const uint64_t tc
                = r.drops.count("host-queue-full") ? r.drops.at("host-queue-full") : 0;
            NS_TEST_EXPECT_MSG_EQ(overflow + tc, r.droppedPackets, "every drop has a reason");
            if (m_mode == FabricSwitchMode::FAST)
            {
                NS_TEST_EXPECT_MSG_GT(overflow, 0u, "fast-path switches drop at the device queue");
            }
        }
    }

    FabricSwitchMode m_mode;
};

/// A routing function with a hole: packets it cannot route are dropped as "no-route" at the
/// switch (fast path and IPv4 path alike) and still accounted for.
class NoRouteTestCase : public TestCase
{
  public:
    explicit NoRouteTestCase(FabricSwitchMode mode)
        : TestCase(mode == FabricSwitchMode::FAST ? "no-route drops, fast path"
                                                  : "no-route drops, IPv4 switches"),
          m_mode(mode)
    {
    }

  private:
    /// ECMP whose leaves (tier 1) refuse everything for host 15.
    struct Holey : EcmpRouting
    {
        uint32_t SelectPort(uint32_t node,
                            uint32_t inPort,
                            uint32_t dst,
                            const FlowKey& key) const override
        {
            if (GetGraph().GetTier(node) == 1 && dst == 15)
            {
                return NO_PORT;
            }
            return EcmpRouting::SelectPort(node, inPort, dst, key);
        }
    };

    void DoRun() override
    {
        auto g = std::shared_ptr<const FabricGraph>(LeafSpineLayout(16, 4, 2).Build());
        Ptr<Holey> routing = CreateObject<Holey>();
        routing->SetGraph(g);
        FabricNetworkHelper links;
        links.SetSwitchMode(m_mode);
        Ptr<FabricNetwork> net = links.Install(g, routing);
        FlowSpec ok{0, 0, 9, 40960, 0, 49152, ROCEV2_UDP_PORT};
        FlowSpec lost{1, 1, 15, 40960, 0, 49152, ROCEV2_UDP_PORT};
        auto r = RunFabricUdp(net, {ok, lost}, {100e9, 100e9}, 4096);
        NS_TEST_EXPECT_MSG_EQ(r.flows[0].rxBytes, 40960u, "routable flow delivered");
        NS_TEST_EXPECT_MSG_EQ(r.flows[1].rxBytes, 0u, "unroutable flow not delivered");
        NS_TEST_EXPECT_MSG_EQ(r.drops.count("no-route"), 1u, "reason recorded");
        NS_TEST_EXPECT_MSG_EQ(r.drops.at("no-route"), 10u, "every packet of the flow");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
    }

    FabricSwitchMode m_mode;
};

/// FabricHopCounter: every delivered packet binned by the switches it crossed, as the routes
/// say (1 within a leaf, 3 across the spine); a filter that refuses everything bins nothing.
class HopCounterTestCase : public TestCase
{
  public:
    HopCounterTestCase()
        : TestCase("hop counter bins delivered packets by switches crossed")
    {
    }

  private:
    void DoRun() override
    {
        auto g = std::shared_ptr<const FabricGraph>(LeafSpineLayout(16, 4, 2).Build());
        // 0 -> 1 stays on leaf 0; 0 -> 9 and 5 -> 14 cross a spine. 10 packets each.
        std::vector<FlowSpec> flows{{0, 0, 1, 40960, 0, 49152, ROCEV2_UDP_PORT},
                                    {1, 0, 9, 40960, 0, 49153, ROCEV2_UDP_PORT},
                                    {2, 5, 14, 40960, 0, 49152, ROCEV2_UDP_PORT}};
        for (bool refuseAll : {false, true})
        {
            FabricNetworkHelper links;
            Ptr<FabricNetwork> net = links.Install(g, links.CreateRouting(g));
            auto hops = CreateObject<FabricHopCounter>();
            hops->Install(net);
            if (refuseAll)
            {
                hops->SetFilter([](Ptr<const Packet>) { return false; });
            }
            auto r = RunFabricUdp(net, flows, {50e9, 50e9, 50e9}, 4096);
            NS_TEST_ASSERT_MSG_EQ(r.deliveredPackets, 30u, "all delivered");
            if (refuseAll)
            {
                NS_TEST_EXPECT_MSG_EQ(hops->GetPackets(), 0u, "filter refuses everything");
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(hops->GetPackets(), 30u, "every delivered packet binned");
            NS_TEST_EXPECT_MSG_EQ(hops->GetHistogram().size(), 2u, "two path lengths");
            NS_TEST_EXPECT_MSG_EQ(hops->GetHistogram().at(1), 10u, "leaf-local flow");
            NS_TEST_EXPECT_MSG_EQ(hops->GetHistogram().at(3), 20u, "flows across a spine");
        }
    }
};

class FabricPacketTestSuite : public TestSuite
{
  public:
    FabricPacketTestSuite()
        : TestSuite("fabric-packet", UNIT)
    {
        AddTestCase(new EcmpPacketAccountingTestCase(FabricSwitchMode::FAST), TestCase::QUICK);
        AddTestCase(new EcmpPacketAccountingTestCase(FabricSwitchMode::IPV4), TestCase::QUICK);
        AddTestCase(new NoRouteTestCase(FabricSwitchMode::FAST), TestCase::QUICK);
        AddTestCase(new NoRouteTestCase(FabricSwitchMode::IPV4), TestCase::QUICK);
        AddTestCase(new HopCounterTestCase, TestCase::QUICK);
    }

  private:
    // Before a test case builds a network: the programs' resolution, which the run drivers
    // require for links of 100 Gb/s and beyond (a suite's setup runs before its cases).
    void DoSetup() override { UseFabricTimeResolution(); }
};

static FabricPacketTestSuite g_fabricPacketTestSuite;

} // namespace
