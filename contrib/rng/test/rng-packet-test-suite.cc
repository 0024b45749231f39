// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite of the rng module at packet level: Spraypoint over an RNG (16 routers of
// degree 4, 2 servers each) with constant-rate UDP flows delivers every packet on the paths
// its hash gives, and falls back to its other candidates once its view learns that a link
// failed (before that, packets sent into the dead link are dropped with reason link-down).
// Only public headers; needs fabric only.
#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/link-load.h"
#include "ns3/rng-topology.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/test.h"
#include "ns3/traffic-pattern.h"
#include "ns3/udp-flow-sender.h"

#include <algorithm>

using namespace ns3;

namespace
{

constexpr uint32_t kPacketBytes = 4096;
constexpr uint64_t kFlowBytes = 40960;
constexpr double kRateBps = 1e9;

/// The RNG, its Spraypoint routing and a permutation of the servers.
struct RngSetup
{
    RngFabric fab{MakeRandomRegularGraph(16, 4, 3), 2};
    std::shared_ptr<const FabricGraph> graph{fab.Build()};
    std::shared_ptr<SpraypointTables> tables{
        std::make_shared<SpraypointTables>(fab.GetRouters(), SpraypointParams{2, 2})};

    Ptr<SpraypointRouting> Routing() const { return MakeSpraypointRouting(graph, tables, 1); }

    std::vector<FlowSpec> Permutation() const
    {
        TrafficPatternParams tp;
        tp.hosts = fab.GetNServers();
        tp.bytes = kFlowBytes;
        tp.seed = 2;
        return MakeTraffic(TrafficPattern::PERMUTATION, tp);
    }
};

uint64_t
DropsOf(const FabricUdpRunResult& r, const std::string& reason)
{
    const auto it = r.drops.find(reason);
    return it == r.drops.end() ? 0 : it->second;
}

/// Every packet delivered, every byte on the directed links the flow hash chose.
class SpraypointDeliversTestCase : public TestCase
{
  public:
    SpraypointDeliversTestCase()
        : TestCase("Spraypoint UDP packets over an RNG: all delivered, bytes on the hashed paths")
    {
    }

  private:
    void DoRun() override
    {
        RngSetup x;
        const auto flows = x.Permutation();
        auto routing = x.Routing();
        const std::vector<double> wire(
            flows.size(), double(UdpFlowSender::Ipv4BytesOf(kFlowBytes, kPacketBytes)));
        const auto expected = ComputeDirLinkLoads(*routing, flows, wire);
        FabricNetworkHelper links;
        const FabricUdpRunResult r = RunFabricUdp(links.Install(x.graph, routing),
                                                  flows,
                                                  std::vector<double>(flows.size(), kRateBps),
                                                  kPacketBytes);
        NS_TEST_ASSERT_MSG_GT(r.sentPackets, 0u, "packets were sent");
        NS_TEST_EXPECT_MSG_EQ(r.deliveredPackets, r.sentPackets, "every packet delivered");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped");
        for (size_t f = 0; f < flows.size(); ++f)
        {
            NS_TEST_EXPECT_MSG_EQ(r.flows[f].rxBytes, flows[f].bytes, "flow " << f);
        }
        for (size_t d = 0; d < r.links.size(); ++d)
        {
            NS_TEST_EXPECT_MSG_EQ(
                r.links[d].txBytes, uint64_t(expected[d]), "link " << x.graph->GetDirLinkLabel(d));
        }
    }
};

/// A loaded router link fails. Known from the start: the link stays idle, flows with another
/// candidate deliver everything, the others are no-route drops (as the routing function
/// predicts). Failed mid-run and learnt 20 us later: link-down drops only in that window,
/// fewer than when the view never learns.
class SpraypointFallbackTestCase : public TestCase
{
  public:
    SpraypointFallbackTestCase()
        : TestCase("Spraypoint falls back to its other candidates after a failed link")
    {
    }

  private:
    /// \p learn < 0: the routing's view never learns the failure.
    FabricUdpRunResult Run(const RngSetup& x, uint32_t link, Time failAt, Time learn)
    {
        const auto flows = x.Permutation();
        auto routing = x.Routing();
        FabricNetworkHelper links;
        auto net = links.Install(x.graph, routing);
        FabricFailureHelper failures(net);
        if (learn >= Time(0))
        {
            failures.LearnAfter(routing, learn);
        }
        failures.FailLink(link, failAt);
        return RunFabricUdp(
            net, flows, std::vector<double>(flows.size(), kRateBps), kPacketBytes, MilliSeconds(5));
    }

    void DoRun() override
    {
        RngSetup x;
        // The busiest router-router link of the intact routing.
        std::vector<double> ones(x.Permutation().size(), 1.0);
        const auto load = ComputeDirLinkLoads(*x.Routing(), x.Permutation(), ones);
        uint32_t busiest = 0;
        for (uint32_t d = 0; d < load.size(); ++d)
        {
            if (!x.graph->IsHost(x.graph->GetDirLinkTail(d))
                && !x.graph->IsHost(x.graph->GetDirLinkHead(d)) && load[d] > load[busiest])
            {
                busiest = d;
            }
        }
        NS_TEST_ASSERT_MSG_GT(load[busiest], 0.0, "some flow crosses a router link");
        const uint32_t link = busiest / 2;

        // What the routing function does once its view knows: flows whose every candidate path
        // crosses the dead link have no route (Spraypoint filters its choices by the view; it
        // does not recompute its tables), the others fall back to another candidate.
        const auto flows = x.Permutation();
        auto aware = x.Routing();
        auto view = std::make_shared<FabricState>(x.graph);
        view->FailLink(link);
        aware->SetView(view);
        auto intact = x.Routing();
        const uint64_t packetsPerFlow = (kFlowBytes + kPacketBytes - 1) / kPacketBytes;
        uint64_t noRoute = 0;
        uint32_t rerouted = 0;
        std::vector<bool> delivered(flows.size());
        for (size_t f = 0; f < flows.size(); ++f)
        {
            const FabricPath before
                = TracePath(*intact, flows[f].src, flows[f].dst, flows[f].Key());
            const FabricPath after = TracePath(*aware, flows[f].src, flows[f].dst, flows[f].Key());
            delivered[f] = after.delivered;
            noRoute += after.delivered ? 0 : packetsPerFlow;
            const bool crossed
                = std::count(before.dirLinks.begin(), before.dirLinks.end(), 2 * link)
                + std::count(before.dirLinks.begin(), before.dirLinks.end(), 2 * link + 1);
            rerouted += crossed && after.delivered ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_GT(rerouted, 0u, "some flow that used the link has another candidate");

        const FabricUdpRunResult known = Run(x, link, Time(0), Time(0));
        NS_TEST_EXPECT_MSG_EQ(DropsOf(known, FabricDropReason::LINK_DOWN),
                              0u,
                              "failure known from the start: nothing sent into it");
        NS_TEST_EXPECT_MSG_EQ(DropsOf(known, FabricDropReason::NO_ROUTE),
                              noRoute,
                              "no-route drops: the flows without a candidate left");
        NS_TEST_EXPECT_MSG_EQ(known.droppedPackets, noRoute, "no other drops");
        NS_TEST_EXPECT_MSG_EQ(known.Unaccounted(), 0, "sent = delivered + dropped");
        for (size_t f = 0; f < flows.size(); ++f)
        {
            NS_TEST_EXPECT_MSG_EQ(known.flows[f].rxBytes,
                                  delivered[f] ? flows[f].bytes : 0,
                                  "flow " << f << (delivered[f] ? " falls back" : " has no route"));
        }
        NS_TEST_EXPECT_MSG_EQ(known.links[2 * link].txBytes + known.links[2 * link + 1].txBytes,
                              0u,
                              "the failed link carries nothing");

        const FabricUdpRunResult late = Run(x, link, MicroSeconds(50), MicroSeconds(20));
        const FabricUdpRunResult never = Run(x, link, MicroSeconds(50), Time(-1));
        for (const auto* r : {&late, &never})
        {
            NS_TEST_EXPECT_MSG_EQ(r->Unaccounted(), 0, "sent = delivered + dropped");
            NS_TEST_EXPECT_MSG_EQ(DropsOf(*r, FabricDropReason::LINK_DOWN)
                                      + DropsOf(*r, FabricDropReason::NO_ROUTE),
                                  r->droppedPackets,
                                  "every drop is link-down or no-route");
        }
        NS_TEST_EXPECT_MSG_GT(DropsOf(late, FabricDropReason::LINK_DOWN),
                              0u,
                              "packets sent into the window are lost");
        NS_TEST_EXPECT_MSG_LT(DropsOf(late, FabricDropReason::LINK_DOWN),
                              DropsOf(never, FabricDropReason::LINK_DOWN),
                              "after learning, Spraypoint stops sending into the dead link");
    }
};

class RngPacketTestSuite : public TestSuite
{
  public:
    RngPacketTestSuite()
        : TestSuite("rng-packet", UNIT)
    {
        AddTestCase(new SpraypointDeliversTestCase, TestCase::QUICK);
        AddTestCase(new SpraypointFallbackTestCase, TestCase::QUICK);
    }

  private:
    // Before a test case builds a network: the programs' resolution, which the run drivers
    // require for links of 100 Gb/s and beyond (a suite's setup runs before its cases).
    void DoSetup() override { UseFabricTimeResolution(); }
};

static RngPacketTestSuite g_rngPacketTestSuite;

} // namespace
