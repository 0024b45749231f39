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

class ZCubePacketTestSuite : public TestSuite
{
  public:
    ZCubePacketTestSuite()
        : TestSuite("zcube-packet", UNIT)
    {
        AddTestCase(new ZCubePacketLinkTestCase(FabricSwitchMode::FAST), TestCase::QUICK);
        AddTestCase(new ZCubePacketLinkTestCase(FabricSwitchMode::IPV4), TestCase::QUICK);
    }
};

static ZCubePacketTestSuite g_zcubePacketTestSuite;

} // namespace
