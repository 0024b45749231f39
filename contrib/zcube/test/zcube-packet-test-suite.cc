// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite: a small packet-level run on ZCube, asserting that bytes arrive on exactly the
// links Eq. 1 predicts, in both switch modes, and that every packet is accounted for.
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-link-monitor.h"
#include "ns3/fabric-traffic-helper.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/link-load.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/udp-flow-sender.h"
#include "ns3/zcube-helper.h"

using namespace ns3;

namespace
{

class ZCubePacketLinkTestCase : public TestCase
{
  public:
    explicit ZCubePacketLinkTestCase(FabricSwitchMode mode)
        : TestCase(mode == FabricSwitchMode::FAST ? "bytes on Eq. 1 links, switch fast path"
                                                  : "bytes on Eq. 1 links, switches with IPv4"),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        ZCubeHelper zcube(16, 4);
        FabricNetworkHelper links;
        links.SetSwitchMode(m_mode);
        Ptr<FabricNetwork> net = zcube.Install(links);
        auto monitor = CreateObject<FabricLinkMonitor>();
        monitor->Install(net);
        TrafficPatternParams tp;
        tp.hosts = 16;
        tp.bytes = 20000;
        auto flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
        FabricTrafficHelper traffic(net);
        const uint32_t payload = 4096;
        traffic.SetPacketSize(payload);
        // 15 flows per GPU at 1/15 of 400 Gb/s each: no link is oversubscribed.
        traffic.Install(flows, std::vector<double>(flows.size(), 400e9 / 15));
        Simulator::Run();

        // Expected IPv4 bytes per flow: payload + 28 bytes of headers per packet.
        std::vector<double> wire(flows.size());
        for (size_t f = 0; f < flows.size(); ++f)
        {
            const uint64_t pkts = (flows[f].bytes + payload - 1) / payload;
            wire[f] = double(flows[f].bytes + 28 * pkts);
        }
        auto expected = ComputeDirLinkLoads(*zcube.GetRouting(), flows, wire);
        const auto& got = monitor->GetLinks();
        NS_TEST_ASSERT_MSG_EQ(got.size(), expected.size(), "one counter per directed link");
        for (size_t d = 0; d < got.size(); ++d)
        {
            NS_TEST_EXPECT_MSG_EQ(got[d].txBytes,
                                  static_cast<uint64_t>(expected[d]),
                                  "bytes on " << net->GetGraph().GetDirLinkLabel(d));
        }
        // E -> O core direction is never used by Eq. 1.
        const ZCubeLayout& zl = zcube.GetLayout();
        for (uint32_t b = 0; b < zl.GetM(); ++b)
        {
            const uint32_t eToO = net->GetGraph().GetEgressDirLink(zl.EvenNode(b), zl.GetK() + 0);
            NS_TEST_EXPECT_MSG_EQ(got[eToO].txBytes, 0u, "E->O link carried traffic");
        }
        NS_TEST_EXPECT_MSG_EQ(monitor->GetTotalDrops(), 0u, "no drops expected");
        NS_TEST_EXPECT_MSG_EQ(traffic.GetTxPackets(),
                              traffic.GetRxPackets() + monitor->GetTotalDrops(),
                              "sent = delivered + dropped");
        for (const auto& r : traffic.GetRecords())
        {
            NS_TEST_EXPECT_MSG_EQ(r.rxBytes, tp.bytes, "every flow delivered in full");
        }
        Simulator::Destroy();
    }

    FabricSwitchMode m_mode;
};

/// ROFT with ECMP at packet level: bytes follow the hash, and with a tiny egress queue at
/// full load the overflow drops are counted so that sent = delivered + dropped.
class RoftPacketAccountingTestCase : public TestCase
{
  public:
    RoftPacketAccountingTestCase()
        : TestCase("ROFT ECMP bytes follow the hash; overflow drops are accounted for")
    {
    }

  private:
    void DoRun() override
    {
        RoftHelper roft(RoftLayout(32, 8, 4), 42, true);
        TrafficPatternParams tp;
        tp.hosts = 32;
        tp.bytes = 40960;
        tp.prefillFraction = 0.25;
        auto flows = MakeTraffic(TrafficPattern::PREFILL, tp);
        std::vector<double> wire(flows.size(), double(UdpFlowSender::Ipv4BytesOf(40960, 4096)));
        auto expected = ComputeDirLinkLoads(*roft.GetRouting(), flows, wire);

        // Unsaturated: every byte where the hash says.
        {
            FabricNetworkHelper links;
            auto r = RunFabricUdp(roft.Install(links),
                                  flows,
                                  std::vector<double>(flows.size(), 400e9 / 24 / 4),
                                  4096);
            for (size_t d = 0; d < r.links.size(); ++d)
            {
                NS_TEST_EXPECT_MSG_EQ(r.links[d].txBytes,
                                      uint64_t(expected[d]),
                                      "link " << roft.GetGraph()->GetDirLinkLabel(d));
            }
            NS_TEST_EXPECT_MSG_EQ(r.droppedPackets, 0u, "no drops when unsaturated");
            NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
        }
        // Full load into 8-packet queues: drops happen and every one has a reason.
        {
            FabricNetworkHelper links;
            links.SetQueueAttribute("MaxSize", QueueSizeValue(QueueSize("8p")));
            auto r = RunFabricUdp(
                roft.Install(links), flows, std::vector<double>(flows.size(), 400e9 / 24), 4096);
            NS_TEST_EXPECT_MSG_GT(r.droppedPackets, 0u, "a 2:1 oversubscribed uplink drops");
            NS_TEST_EXPECT_MSG_EQ(
                r.drops.count(FabricDropReason::QUEUE_OVERFLOW), 1u, "drops carry a reason");
            NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
            uint64_t linkDrops = 0;
            for (const auto& c : r.links)
            {
                linkDrops += c.queueDrops;
                NS_TEST_EXPECT_MSG_LT_OR_EQ(c.maxQueueBytes, 8u * 4126, "queue bound");
            }
            NS_TEST_EXPECT_MSG_EQ(
                linkDrops, r.drops.at(FabricDropReason::QUEUE_OVERFLOW), "per-link drops");
        }
    }
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
    struct Holey : ZCubeRouting
    {
        uint32_t SelectPort(uint32_t node,
                            uint32_t inPort,
                            uint32_t dst,
                            const FlowKey& key) const override
        {
            // O switches refuse everything for GPU 15.
            if (!GetGraph().IsHost(node) && node < GetLayout().GetN() + GetLayout().GetM()
                && dst == 15)
            {
                return NO_PORT;
            }
            return ZCubeRouting::SelectPort(node, inPort, dst, key);
        }
    };

    void DoRun() override
    {
        ZCubeLayout zl(16, 4);
        auto g = zl.Build();
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
        NS_TEST_EXPECT_MSG_EQ(r.drops.count(FabricDropReason::NO_ROUTE), 1u, "reason recorded");
        NS_TEST_EXPECT_MSG_EQ(
            r.drops.at(FabricDropReason::NO_ROUTE), 10u, "every packet of the flow");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
    }

    FabricSwitchMode m_mode;
};

class ZCubePacketTestSuite : public TestSuite
{
  public:
    ZCubePacketTestSuite()
        : TestSuite("zcube-packet", UNIT)
    {
        AddTestCase(new ZCubePacketLinkTestCase(FabricSwitchMode::FAST), TestCase::QUICK);
        AddTestCase(new ZCubePacketLinkTestCase(FabricSwitchMode::IPV4), TestCase::QUICK);
        AddTestCase(new RoftPacketAccountingTestCase, TestCase::QUICK);
        AddTestCase(new NoRouteTestCase(FabricSwitchMode::FAST), TestCase::QUICK);
        AddTestCase(new NoRouteTestCase(FabricSwitchMode::IPV4), TestCase::QUICK);
    }
};

static ZCubePacketTestSuite g_zcubePacketTestSuite;

} // namespace
