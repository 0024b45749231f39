// SPDX-License-Identifier: GPL-2.0-only
// Packet-level: Spraypoint and k-shortest-paths over FabricNetworkHelper, every packet
// delivered and accounted for.
#include "ns3/config.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/spraypoint-routing.h"

#include <gtest/gtest.h>

using namespace ns3;

class RngPacket : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

TEST_F(RngPacket, SpraypointAndKspDeliverEveryPacket)
{
    RngFabric fab(MakeRandomRegularGraph(16, 4, 3), 2);
    auto graph = std::shared_ptr<const FabricGraph>(fab.Build());
    SpraypointParams prm;
    prm.p = 2;
    prm.h = 2;
    auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), prm);
    std::vector<std::shared_ptr<const FabricRouting>> routings{
        std::make_shared<SpraypointRouting>(graph, fab, tab, 1),
        std::make_shared<KspRouting>(graph, fab, 4, 1)};
    TrafficPatternParams tp;
    tp.hosts = fab.GetNServers();
    tp.bytes = 40960;
    tp.seed = 2;
    const auto flows = MakeTraffic(TrafficPattern::PERMUTATION, tp);
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
