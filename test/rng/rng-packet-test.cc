// SPDX-License-Identifier: GPL-2.0-only
// Packet-level: Spraypoint and k-shortest-paths over FabricNetworkHelper, with constant-rate
// UDP and with RoCE flows: every packet delivered and accounted for, every flow complete.
#include "../ns3-sim-fixture.h"

#include "ns3/config.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/failure-mask-routing.h"
#include "ns3/ksp-routing.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/simulator.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

class RngPacket : public Ns3SimTest
{
  protected:
    /// A random permutation of flows of \p bytes among the servers.
    std::vector<FlowSpec> Permutation(uint64_t bytes) const
    {
        TrafficPatternParams tp;
        tp.hosts = fab.GetNServers();
        tp.bytes = bytes;
        tp.seed = 2;
        return MakeTraffic(TrafficPattern::PERMUTATION, tp);
    }

    // 16 routers of degree 4, 2 servers each; Spraypoint (p = h = 2) and 4-shortest paths.
    RngFabric fab{MakeRandomRegularGraph(16, 4, 3), 2};
    std::shared_ptr<const FabricGraph> graph{fab.Build()};
    std::shared_ptr<SpraypointTables> tab{
        std::make_shared<SpraypointTables>(fab.GetRouters(), SpraypointParams{2, 2})};
    std::vector<Ptr<FabricRouting>> routings{
        MakeSpraypointRouting(graph, tab, 1),
        MakeRouting<KspRouting>(graph, "K", UintegerValue(4), "Seed", UintegerValue(1))};
};

TEST_F(RngPacket, SpraypointAndKspDeliverEveryPacket)
{
    const auto flows = Permutation(40960);
    for (const auto& routing : routings)
    {
        FabricNetworkHelper links;
        auto net = links.Install(graph, routing);
        FabricUdpRunResult r
            = RunFabricUdp(net, flows, std::vector<double>(flows.size(), 1e9), 4096);
        EXPECT_GT(r.sentPackets, 0u) << routing->GetName();
        EXPECT_EQ(r.deliveredPackets, r.sentPackets) << routing->GetName();
        EXPECT_EQ(r.Unaccounted(), 0) << routing->GetName();
        for (size_t f = 0; f < flows.size(); ++f)
        {
            EXPECT_EQ(r.flows[f].rxBytes, flows[f].bytes) << routing->GetName();
        }
    }
}

TEST_F(RngPacket, RoceFlowsCompleteOverSpraypointAndKsp)
{
    const auto flows = Permutation(100000);
    for (const auto& routing : routings)
    {
        FabricNetworkHelper links;
        auto net = links.Install(graph, routing);
        FabricRoceRunOptions opt;
        opt.stopAt = MilliSeconds(50);
        FabricRoceRunResult r = RunFabricRoce(net, flows, opt);
        EXPECT_EQ(r.Unaccounted(), 0) << routing->GetName();
        ASSERT_EQ(r.flows.size(), flows.size());
        for (const auto& rec : r.flows)
        {
            EXPECT_TRUE(rec.complete) << routing->GetName() << " flow " << rec.spec.id;
            EXPECT_EQ(rec.rxBytes, rec.spec.bytes) << routing->GetName();
            EXPECT_GE(rec.Slowdown(), 0.9) << routing->GetName();
            // The routed path starts and ends at the flow's servers.
            ASSERT_GE(rec.path.size(), 3u);
            EXPECT_EQ(rec.path.front(), rec.spec.src);
            EXPECT_EQ(rec.path.back(), rec.spec.dst);
        }
    }
}
