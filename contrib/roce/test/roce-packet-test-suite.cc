// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite of the roce module: small packet-level runs of its main behaviour. A RoCE
// flow recovers a forced drop with go-back-N; a PFC incast on a leaf-spine fabric is
// lossless (zero drops, pauses sent); a ring with a cyclic buffer dependency is reported as
// a deadlock instead of hanging. Every run checks sent = delivered + dropped (+ in flight).
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ecmp-routing.h"
#include "ns3/error-model.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/pfc-helper.h"
#include "ns3/pfc-ring.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;

namespace
{

FlowSpec
MakeFlow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
{
    FlowSpec f;
    f.id = id;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.srcPort = static_cast<uint16_t>(49152 + id);
    return f;
}

/// 16 hosts, 4 leaves of 4, 4 spines, ECMP; links from \p links (400 Gb/s, 1 us default).
Ptr<FabricNetwork>
LeafSpine16(FabricNetworkHelper& links)
{
    std::shared_ptr<FabricGraph> g = LeafSpineLayout(16, 4, 4).Build();
    auto routing = CreateObject<EcmpRouting>();
    routing->SetGraph(g);
    return links.Install(g, routing);
}

class RoceGoBackNTestCase : public TestCase
{
  public:
    RoceGoBackNTestCase()
        : TestCase("a RoCE flow completes with go-back-N after a forced drop")
    {
    }

  private:
    void DoRun() override
    {
        FabricNetworkHelper links;
        Ptr<FabricNetwork> net = LeafSpine16(links);
        // The receiver's NIC loses the 6th data packet it receives.
        auto lose = CreateObject<ReceiveListErrorModel>();
        lose->SetList({5});
        FabricLinkDevice::SetReceiveErrorModel(net->GetDevice(15, 0), lose);
        const uint64_t bytes = 400000;
        FabricRoceRunResult r = RunFabricRoce(net, {MakeFlow(0, 0, 15, bytes)});
        NS_TEST_ASSERT_MSG_EQ(r.flows.size(), 1u, "one flow");
        const RoceFlowRecord& f = r.flows[0];
        NS_TEST_EXPECT_MSG_EQ(f.complete, true, "the flow completed");
        NS_TEST_EXPECT_MSG_EQ(f.rxBytes, bytes, "every byte delivered once, in order");
        NS_TEST_EXPECT_MSG_GT(f.retxPackets, 0u, "go-back-N resent from the lost packet");
        NS_TEST_EXPECT_MSG_EQ(r.droppedPackets, 1u, "exactly the forced drop");
        NS_TEST_EXPECT_MSG_EQ(r.drops[FabricDropReason::PHY_RX_ERROR], 1u, "reason phy-rx-error");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
    }
};

class PfcIncastLosslessTestCase : public TestCase
{
  public:
    PfcIncastLosslessTestCase()
        : TestCase("PFC incast 12-to-1 at line rate is lossless")
    {
    }

  private:
    void DoRun() override
    {
        FabricNetworkHelper links;
        PfcHelper pfcHelper;
        pfcHelper.ConfigureLinks(links);
        Ptr<FabricNetwork> net = LeafSpine16(links);
        Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
        std::vector<FlowSpec> flows;
        for (uint32_t i = 0; i < 12; ++i)
        {
            flows.push_back(MakeFlow(i, 4 + i, 0, 1000000));
        }
        FabricRoceRunOptions o;
        o.senderAttributes["RateControl"]
            = std::make_shared<TypeIdValue>(NoRateControl::GetTypeId());
        uint64_t pauseFrames = 0;
        size_t deadlocks = 0;
        o.afterRun = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
        {
            pauseFrames = pfc->GetPauseFrames();
            deadlocks = pfc->GetDeadlocks().size();
        };
        FabricRoceRunResult r = RunFabricRoce(net, flows, o);
        NS_TEST_EXPECT_MSG_EQ(r.droppedPackets, 0u, "lossless: no drop");
        NS_TEST_EXPECT_MSG_EQ(r.sentPackets, r.deliveredPackets, "sent = delivered");
        NS_TEST_EXPECT_MSG_EQ(r.incompleteFlows, 0u, "every flow completed");
        NS_TEST_EXPECT_MSG_GT(pauseFrames, 0u, "the incast made the switches pause");
        NS_TEST_EXPECT_MSG_EQ(deadlocks, 0u, "an incast tree has no cyclic dependency");
        for (const RoceFlowRecord& f : r.flows)
        {
            NS_TEST_EXPECT_MSG_EQ(f.retxPackets, 0u, "no retransmission in flow " << f.spec.id);
        }
        // 12 MB through one 400 Gb/s port: 240 us at line rate; PFC keeps it near that.
        NS_TEST_EXPECT_MSG_LT(r.lastCompletionSeconds, 2 * 12e6 * 8 / 400e9, "near line rate");
    }
};

class PfcRingDeadlockTestCase : public TestCase
{
  public:
    PfcRingDeadlockTestCase()
        : TestCase("a cyclic buffer dependency is reported as a deadlock, not a hang")
    {
    }

  private:
    void DoRun() override
    {
        auto graph = MakePfcRingGraph(4);
        auto routing = CreateObject<ClockwiseRingRouting>();
        routing->SetGraph(graph);
        FabricNetworkHelper links;
        PfcHelper pfcHelper;
        pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(0));
        pfcHelper.SetSwitchAttribute("XoffBytes", UintegerValue(64000));
        pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
        pfcHelper.SetNetworkAttribute("StopOnDeadlock", BooleanValue(true));
        pfcHelper.ConfigureLinks(links);
        Ptr<FabricNetwork> net = links.Install(graph, routing);
        Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
        std::vector<FlowSpec> flows;
        for (uint32_t i = 0; i < 4; ++i)
        {
            flows.push_back(MakeFlow(i, i, (i + 3) % 4, 20000000));
        }
        FabricRoceRunOptions o;
        o.stopAt = Seconds(0.1);
        o.senderAttributes["RateControl"]
            = std::make_shared<TypeIdValue>(NoRateControl::GetTypeId());
        std::vector<PfcNetwork::DeadlockReport> reports;
        o.afterRun = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
        {
            reports = pfc->GetDeadlocks();
        };
        FabricRoceRunResult r = RunFabricRoce(net, flows, o);
        NS_TEST_ASSERT_MSG_EQ(reports.size(), 1u, "one deadlock report");
        NS_TEST_EXPECT_MSG_EQ(reports[0].dirLinks.size(), 4u, "the four ring links");
        NS_TEST_EXPECT_MSG_LT(r.simSeconds, 0.1, "the run ended at the report");
        NS_TEST_EXPECT_MSG_EQ(r.droppedPackets, 0u, "a deadlock loses nothing");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "every packet accounted for");
    }
};

class RocePacketTestSuite : public TestSuite
{
  public:
    RocePacketTestSuite()
        : TestSuite("roce-packet", UNIT)
    {
        AddTestCase(new RoceGoBackNTestCase, TestCase::QUICK);
        AddTestCase(new PfcIncastLosslessTestCase, TestCase::QUICK);
        AddTestCase(new PfcRingDeadlockTestCase, TestCase::QUICK);
    }

  private:
    // Before a test case builds a network: the programs' resolution, which the run drivers
    // require for links of 100 Gb/s and beyond (a suite's setup runs before its cases).
    void DoSetup() override { UseFabricTimeResolution(); }
};

static RocePacketTestSuite g_rocePacketTestSuite;

} // namespace
