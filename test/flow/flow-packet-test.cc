// SPDX-License-Identifier: GPL-2.0-only
// Flow level against packet level: the same paths for the same routing TypeId, attributes and
// seed; long uncontended flows within 2% of the packet level's FCT.
#include "../ns3-sim-fixture.h"

#include "ns3/boolean.h"
#include "ns3/core-module.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class FlowVsPacket : public Ns3SimTest
{
};

} // namespace

TEST_F(FlowVsPacket, SamePathsForSameSeedAndAttributes)
{
    // A leaf-spine with flow-hash ECMP: many flows, many hash choices, and the packet level's
    // routing is a different object from the flow level's, built from TypeId + attributes.
    RoftLayout layout(16, 4, 4);
    RoftHelper roft(layout, 7, true);
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = roft.Install(links);
    TrafficPatternParams tp;
    tp.hosts = 16;
    tp.bytes = 20000;
    tp.seed = 3;
    std::vector<FlowSpec> flows = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    const auto extra = MakeTraffic(TrafficPattern::ELEPHANTS, tp);
    for (auto f : extra)
    {
        f.id += 100;
        f.srcPort = static_cast<uint16_t>(f.srcPort + 7);
        flows.push_back(f);
    }
    FabricRoceRunOptions opt;
    opt.stopAt = MilliSeconds(50);
    const FabricRoceRunResult packet = RunFabricRoce(net, flows, opt);

    ObjectFactory factory(
        "ns3::EcmpRouting", "Seed", UintegerValue(7), "MixSwitchId", BooleanValue(true));
    Ptr<FabricRouting> routing = factory.Create<FabricRouting>();
    routing->SetGraph(roft.GetGraph());
    Ptr<FlowSimulator> sim = FlowSimHelper().Run(routing, flows);
    ASSERT_EQ(packet.flows.size(), sim->GetRecords().size());
    std::set<std::vector<uint32_t>> distinct;
    for (size_t f = 0; f < flows.size(); ++f)
    {
        ASSERT_TRUE(packet.flows[f].complete) << f;
        EXPECT_EQ(packet.flows[f].path, sim->GetRecords()[f].path) << "flow " << f;
        distinct.insert(sim->GetRecords()[f].path);
    }
    EXPECT_GT(distinct.size(), flows.size() / 2); // the comparison is not trivial
    // A different seed changes some path (so equality above is not an accident).
    Ptr<FabricRouting> other
        = ObjectFactory(
              "ns3::EcmpRouting", "Seed", UintegerValue(8), "MixSwitchId", BooleanValue(true))
              .Create<FabricRouting>();
    other->SetGraph(roft.GetGraph());
    size_t differ = 0;
    for (const auto& f : flows)
    {
        differ += TracePath(*other, f.src, f.dst, f.Key()).nodes
                       != TracePath(*routing, f.src, f.dst, f.Key()).nodes
                    ? 1
                    : 0;
    }
    EXPECT_GT(differ, 0u);
}

TEST_F(FlowVsPacket, LongUncontendedFlowsAgreeWithin2Percent)
{
    // ZCube(16, 4): a shift permutation i -> i + 4 puts every flow on its own unique path
    // (checked), no contention anywhere: only serialization, propagation and headers count.
    // Without congestion-control dynamics (the condition): with DCQCN one of these
    // flows draws a CNP from a queue its ACKs share with another flow's data, and is 4% slow.
    ZCubeHelper z(16, 4);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 4; ++i)
    {
        FlowSpec f;
        f.id = i;
        f.src = i * 5 % 16;
        f.dst = (f.src + 6) % 16;
        f.bytes = 20000000;
        f.srcPort = static_cast<uint16_t>(49152 + i);
        flows.push_back(f);
    }
    std::map<uint32_t, int> use;
    for (const auto& f : flows)
    {
        for (uint32_t d : TracePath(*z.GetRouting(), f.src, f.dst, f.Key()).dirLinks)
        {
            ASSERT_EQ(use[d]++, 0) << "flows share a link; pick other pairs";
        }
    }
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = z.Install(links);
    FabricRoceRunOptions opt;
    opt.stopAt = MilliSeconds(50);
    opt.senderAttributes["RateControl"] = std::make_shared<TypeIdValue>(NoRateControl::GetTypeId());
    const FabricRoceRunResult packet = RunFabricRoce(net, flows, opt);

    ZCubeHelper z2(16, 4);
    Ptr<FlowSimulator> sim = FlowSimHelper().Run(z2.GetRouting(), flows);
    for (size_t f = 0; f < flows.size(); ++f)
    {
        ASSERT_TRUE(packet.flows[f].complete);
        const double p = packet.flows[f].FctSeconds();
        const double q = sim->GetRecords()[f].FctSeconds();
        EXPECT_NEAR(q / p, 1.0, 0.02)
            << "flow " << f << " packet " << p << " flow " << q << " cnps " << packet.flows[f].cnps
            << " retx " << packet.flows[f].retxPackets << " ideal " << packet.flows[f].idealSeconds;
        EXPECT_NEAR(sim->GetRecords()[f].idealS, packet.flows[f].idealSeconds, 1e-12);
        EXPECT_EQ(packet.flows[f].path, sim->GetRecords()[f].path);
    }
}
