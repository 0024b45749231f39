// SPDX-License-Identifier: GPL-2.0-only
// ZCube's reverse-plane core-link detours (ZCubeRouting::DetourShape = reverse-plane): every
// affected pair i -> j of a dead core link O_a -> E_b goes i's E side -> E_{e(i)} -> O_{o(j)}
// -> j's O side, over links steady-state Eq. 1 never loads; the paper's 4-switch detour is the
// fallback. Routing function (TracePath) and RoCE packets.
#include "ns3-sim-fixture.h"
#include "roce/roce-test-fabrics.h"

#include "ns3/core-module.h"
#include "ns3/fabric-failure-detector.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/flow-simulator.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/traffic-pattern.h"
#include "ns3/zcube-routing.h"

#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>

using namespace ns3;

namespace
{

class ZCubeDetourTest : public Ns3SimTest
{
};

FlowKey
Key(uint32_t src, uint32_t dst, uint16_t port)
{
    FlowSpec f;
    f.src = src;
    f.dst = dst;
    f.srcPort = port;
    return f.Key();
}

uint32_t
SwitchHops(const FabricPath& p)
{
    return p.nodes.size() < 2 ? 0 : static_cast<uint32_t>(p.nodes.size() - 2);
}

/// Every node and the controller of \p r believe \p state.
void
EveryoneKnows(FabricRouting& r, const FabricState& state)
{
    auto view = std::make_shared<FabricState>(r.GetGraphPtr());
    view->CopyFrom(state);
    r.SetView(view);
    r.SetControllerView(view);
}

Ptr<ZCubeRouting>
MakeZCube(std::shared_ptr<FabricGraph> g, const std::string& shape)
{
    return MakeRouting<ZCubeRouting>(g, "DetourShape", StringValue(shape));
}

/// Whether \p p visits a node twice.
bool
Loops(const FabricPath& p)
{
    std::set<uint32_t> seen(p.nodes.begin(), p.nodes.end());
    return seen.size() != p.nodes.size();
}

std::string
PathText(const FabricPath& p)
{
    std::string s;
    for (uint32_t v : p.nodes)
    {
        s += " " + std::to_string(v);
    }
    return s;
}

const std::vector<uint16_t> PORTS{49152, 49153, 49154};

/// Fail every parallel link between O_a and E_b (both directions).
void
FailCore(const ZCubeLayout& zl, const FabricGraph& g, FabricState& s, uint32_t a, uint32_t b)
{
    for (uint32_t r = 0; r < zl.GetParallel(); ++r)
    {
        s.FailLink(g.GetPortLink(zl.OddNode(a), zl.OddCorePort(b, r)));
    }
}

} // namespace

TEST_F(ZCubeDetourTest, AttributeDefaultIsPaperAndNamesParse)
{
    ZCubeLayout zl(16, 4);
    auto g = zl.Build();
    EXPECT_EQ(MakeRouting<ZCubeRouting>(g)->GetDetourShape(), ZCubeRouting::PAPER);
    EXPECT_EQ(MakeZCube(g, "reverse-plane")->GetDetourShape(), ZCubeRouting::REVERSE_PLANE);
    EXPECT_EQ(MakeZCube(g, "paper")->GetDetourShape(), ZCubeRouting::PAPER);
}

// Every core link (all its parallels) failed in turn, both shapes, ZCubes with k = m, k < m,
// k > m and parallel core links: loop freedom, delivery over usable links, the fault domain
// (exactly the pairs o(i) = a, e(j) = b change path), the reverse-plane path's shape and load.
TEST_F(ZCubeDetourTest, EveryCoreLinkFailureBothShapesLoopFreeAndExactFaultDomain)
{
    for (auto [n, k, par] : std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{
             {16, 4, 1}, {24, 4, 1}, {16, 4, 2}, {9, 3, 1}, {18, 6, 1}})
    {
        ZCubeLayout zl(n, k, par);
        const uint32_t m = zl.GetM();
        auto g = zl.Build();
        auto allUp = MakeRouting<ZCubeRouting>(g);
        // Eq. 1 load per directed link: every ordered pair, every key.
        std::vector<uint32_t> eq1(2 * g->GetNLinks(), 0);
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                for (uint16_t port : PORTS)
                {
                    if (i != j)
                    {
                        for (uint32_t d : TracePath(*allUp, i, j, Key(i, j, port)).dirLinks)
                        {
                            ++eq1[d];
                        }
                    }
                }
            }
        }
        for (uint32_t a = 0; a < m; ++a)
        {
            for (uint32_t b = 0; b < m; ++b)
            {
                FabricState truth(g);
                FailCore(zl, *g, truth, a, b);
                for (const std::string shape : {"paper", "reverse-plane"})
                {
                    const std::string what = "n=" + std::to_string(n) + " k=" + std::to_string(k)
                                           + " par=" + std::to_string(par) + " O_"
                                           + std::to_string(a) + "-E_" + std::to_string(b) + " "
                                           + shape;
                    auto r = MakeZCube(g, shape);
                    EveryoneKnows(*r, truth);
                    uint32_t changed = 0;
                    uint32_t reversePlane = 0;
                    std::map<uint32_t, std::set<std::pair<uint32_t, uint32_t>>> pairsOnEO;
                    for (uint32_t i = 0; i < n; ++i)
                    {
                        for (uint32_t j = 0; j < n; ++j)
                        {
                            if (i == j)
                            {
                                continue;
                            }
                            const bool affected = zl.OddGroup(i) == a && zl.EvenGroup(j) == b;
                            // The pair whose path would need E_b -> O_a (the dead link's other
                            // direction): i = j when k <= m, so only k > m has such pairs.
                            const bool needsDeadReverse
                                = zl.EvenGroup(i) == b && zl.OddGroup(j) == a;
                            bool pairChanged = false;
                            for (uint16_t port : PORTS)
                            {
                                const FabricPath before = TracePath(*allUp, i, j, Key(i, j, port));
                                const FabricPath p = TracePath(*r, i, j, Key(i, j, port), 16);
                                ASSERT_TRUE(p.delivered) << what << ": " << i << "->" << j;
                                ASSERT_FALSE(Loops(p)) << what << ": " << i << "->" << j;
                                for (uint32_t d : p.dirLinks)
                                {
                                    ASSERT_TRUE(truth.IsDirLinkUsable(d)) << what;
                                }
                                pairChanged = pairChanged || p.dirLinks != before.dirLinks;
                                if (!affected)
                                {
                                    ASSERT_EQ(p.dirLinks, before.dirLinks)
                                        << what << ": unaffected " << i << "->" << j;
                                    continue;
                                }
                                if (shape == "paper" || needsDeadReverse)
                                {
                                    ASSERT_EQ(SwitchHops(p), 4u) << what << " " << i << "->" << j;
                                    ASSERT_EQ(p.dirLinks.front(), g->GetEgressDirLink(i, 0));
                                    continue;
                                }
                                // i -> E_{e(i)} -> O_{o(j)} -> j, links Eq. 1 never loads.
                                const std::vector<uint32_t> nodes{
                                    i, zl.EvenNode(zl.EvenGroup(i)), zl.OddNode(zl.OddGroup(j)), j};
                                ASSERT_EQ(p.nodes, nodes) << what << " " << i << "->" << j;
                                for (uint32_t d : p.dirLinks)
                                {
                                    ASSERT_EQ(eq1[d], 0u)
                                        << what << " " << i << "->" << j << " link " << d;
                                }
                                pairsOnEO[p.dirLinks[1]].insert({i, j});
                            }
                            changed += pairChanged ? 1 : 0;
                            reversePlane += (affected && !needsDeadReverse) ? 1 : 0;
                        }
                    }
                    // §6.2: k^2 pairs less those with i = j.
                    EXPECT_EQ(changed, k * k - zl.CellSize(a, b)) << what;
                    if (shape == "paper")
                    {
                        EXPECT_EQ(r->GetNPairDetours(), 0u) << what;
                        continue;
                    }
                    if (k <= m)
                    {
                        // Orthogonality: the affected pairs map onto distinct E -> O links.
                        EXPECT_EQ(pairsOnEO.size(), reversePlane) << what;
                        for (const auto& [d, pairs] : pairsOnEO)
                        {
                            EXPECT_EQ(pairs.size(), 1u) << what << " link " << d;
                        }
                        // Three entries per pair (host, E, O).
                        EXPECT_EQ(r->GetNPairDetours(), 3u * reversePlane) << what;
                    }
                    // The paper detours stay at O_a for whatever still reaches it.
                    for (uint32_t j = b * k; j < (b + 1) * k; ++j)
                    {
                        EXPECT_NE(r->GetDetour(zl.OddNode(a), j), FabricRouting::NO_PORT)
                            << what << " j=" << j;
                    }
                }
            }
        }
    }
}

// A second failure on a piece of a pair's reverse-plane path puts that pair (and only the
// pairs sharing the piece) on the paper detour, still delivered and loop-free.
TEST_F(ZCubeDetourTest, SecondFailureOnAReversePlanePieceFallsBackToThePaperDetour)
{
    ZCubeLayout zl(16, 4);
    auto g = zl.Build();
    const uint32_t a = 1;
    const uint32_t b = 2;
    // Affected: sources 1, 5, 9, 13 (o = 1), destinations 8..11 (e = 2).
    // Pair (1, 10): 1 -> E_0 -> O_2 -> 10. Pair (1, 9): 1 -> E_0 -> O_1 -> 9 (O_a itself).
    // Pair (5, 10): 5 -> E_1 -> O_2 -> 10.
    struct Case
    {
        std::string name;
        uint32_t link;
        std::set<std::pair<uint32_t, uint32_t>> fallBack; // affected pairs on the paper detour
    };

    std::vector<Case> cases{
        {"E_0-O_2 core", g->GetPortLink(zl.OddNode(2), zl.OddCorePort(0)), {{1, 10}}},
        {"GPU 1's E side", g->GetPortLink(1, 1), {{1, 8}, {1, 9}, {1, 10}, {1, 11}}},
        {"O_2-GPU 10 (10's O side)", g->GetPortLink(10, 0), {{1, 10}, {5, 10}, {9, 10}, {13, 10}}}};
    for (const auto& c : cases)
    {
        FabricState truth(g);
        FailCore(zl, *g, truth, a, b);
        truth.FailLink(c.link);
        auto r = MakeZCube(g, "reverse-plane");
        EveryoneKnows(*r, truth);
        for (uint32_t i = 0; i < 16; ++i)
        {
            for (uint32_t j = 0; j < 16; ++j)
            {
                if (i == j)
                {
                    continue;
                }
                const FabricPath p = TracePath(*r, i, j, Key(i, j, 49152), 16);
                ASSERT_TRUE(p.delivered) << c.name << ": " << i << "->" << j;
                ASSERT_FALSE(Loops(p)) << c.name;
                for (uint32_t d : p.dirLinks)
                {
                    ASSERT_TRUE(truth.IsDirLinkUsable(d)) << c.name;
                }
                if (zl.OddGroup(i) != a || zl.EvenGroup(j) != b)
                {
                    continue;
                }
                if (c.fallBack.count({i, j}))
                {
                    // The paper detour O_a -> E_c -> O_d -> E_b; 3 switches when O_d is the
                    // O_{o(j)} of another pair's reverse-plane path from E_c, whose entry
                    // delivers it on j's O side.
                    EXPECT_GE(SwitchHops(p), 3u) << c.name << ": " << i << "->" << j;
                    EXPECT_LE(SwitchHops(p), 4u) << c.name << ": " << i << "->" << j;
                    EXPECT_EQ(p.nodes[1], zl.OddNode(a)) << c.name << ": " << i << "->" << j;
                }
                else
                {
                    EXPECT_EQ(SwitchHops(p), 2u) << c.name << ": " << i << "->" << j;
                    EXPECT_EQ(p.nodes[1], zl.EvenNode(zl.EvenGroup(i))) << c.name;
                }
            }
        }
    }
}

// The core link O_1-E_2 dead and any other single link or switch as well: neither shape ever
// loops, every path uses usable links, and both deliver every pair.
TEST_F(ZCubeDetourTest, CoreLinkPlusAnySecondFailureNoLoopAndNoPairLostToTheOption)
{
    for (auto [n, k] : std::vector<std::pair<uint32_t, uint32_t>>{{16, 4}, {24, 4}})
    {
        ZCubeLayout zl(n, k);
        auto g = zl.Build();
        std::vector<std::function<void(FabricState&)>> second;
        for (uint32_t l = 0; l < g->GetNLinks(); ++l)
        {
            second.emplace_back([l](FabricState& s) { s.FailLink(l); });
        }
        for (uint32_t v = n; v < g->GetNNodes(); ++v)
        {
            second.emplace_back([v](FabricState& s) { s.FailNode(v); });
        }
        uint32_t deliveredBoth = 0;
        uint32_t revisits[2] = {0, 0}; // paths that visit a switch twice: paper, reverse
        for (size_t f = 0; f < second.size(); ++f)
        {
            FabricState truth(g);
            FailCore(zl, *g, truth, 1, 2);
            second[f](truth);
            auto paper = MakeZCube(g, "paper");
            auto reverse = MakeZCube(g, "reverse-plane");
            EveryoneKnows(*paper, truth);
            EveryoneKnows(*reverse, truth);
            for (uint32_t i = 0; i < n; ++i)
            {
                for (uint32_t j = 0; j < n; ++j)
                {
                    if (i == j)
                    {
                        continue;
                    }
                    const FabricPath pp = TracePath(*paper, i, j, Key(i, j, 49152), 16);
                    const FabricPath pr = TracePath(*reverse, i, j, Key(i, j, 49152), 16);
                    for (const FabricPath* p : {&pp, &pr})
                    {
                        // A forwarding loop repeats a directed link (a decision depends on
                        // the node, the port the packet came in on, destination and key).
                        // Visiting a switch twice from different ports is not one: the paper
                        // shape does that under some double failures (a GPU failed over to
                        // its E side, E_c's upward rule to O_a, whose detour goes back to
                        // E_c and across), and delivers.
                        const std::set<uint32_t> links(p->dirLinks.begin(), p->dirLinks.end());
                        ASSERT_EQ(links.size(), p->dirLinks.size())
                            << "failure " << f << ": " << i << "->" << j
                            << (p == &pp ? " paper" : " reverse-plane") << PathText(*p);
                        ASSERT_LT(p->dirLinks.size(), 16u);
                        for (uint32_t d : p->dirLinks)
                        {
                            ASSERT_TRUE(truth.IsDirLinkUsable(d)) << "failure " << f;
                        }
                    }
                    revisits[0] += Loops(pp) ? 1 : 0;
                    revisits[1] += Loops(pr) ? 1 : 0;
                    // Every pair stays connected (a GPU keeps one port), and both deliver.
                    ASSERT_TRUE(pp.delivered) << "failure " << f << ": " << i << "->" << j;
                    ASSERT_TRUE(pr.delivered) << "failure " << f << ": " << i << "->" << j;
                    ++deliveredBoth;
                }
            }
        }
        EXPECT_EQ(deliveredBoth, second.size() * n * (n - 1));
        std::cout << "n=" << n << " k=" << k << ": " << deliveredBoth
                  << " paths delivered by both shapes; paths visiting a switch twice: paper "
                  << revisits[0] << ", reverse-plane " << revisits[1] << "\n";
        EXPECT_LE(revisits[1], revisits[0]); // the option adds none
    }
}

// With the detector: the hosts of O_a are told (node-view listeners, which the RoCE queue
// pairs use to re-resolve their cached routes) exactly when the controller installs and when
// it removes their per-pair entries; no other host is; the paper shape tells no host.
TEST_F(ZCubeDetourTest, HostsAreToldAtTheControllersInstallAndRemoval)
{
    for (const std::string shape : {"paper", "reverse-plane"})
    {
        ZCubeLayout zl(16, 4);
        auto g = zl.Build();
        auto truth = std::make_shared<FabricState>(g);
        auto r = MakeZCube(g, shape);
        const Time latency = MicroSeconds(100);
        auto det = CreateObjectWithAttributes<FabricFailureDetector>(
            "RoutingUpdates", BooleanValue(false), "ControllerLatency", TimeValue(latency));
        det->Install(truth, r);
        std::map<uint32_t, std::vector<Time>> told;
        for (uint32_t h = 0; h < 16; ++h)
        {
            r->AddNodeViewListener(
                h,
                FabricRouting::NodeViewListener([&told](uint32_t node, bool, uint32_t, bool)
                                                { told[node].push_back(Simulator::Now()); }));
        }
        const uint32_t link = g->GetPortLink(zl.OddNode(1), zl.OddCorePort(2));
        const Time tFail = MicroSeconds(10);
        const Time tRepair = MicroSeconds(500);
        Simulator::Schedule(tFail, [&] { truth->FailLink(link); });
        Simulator::Schedule(tRepair, [&] { truth->RepairLink(link); });
        const Time install = tFail + MicroSeconds(5) + latency;
        const Time removal = tRepair + MicroSeconds(5) + latency;
        const uint32_t want = shape == "paper" ? 0u : 1u;
        Simulator::Schedule(
            install - NanoSeconds(1),
            [&] { EXPECT_EQ(r->SelectPort(1, FabricRouting::NO_PORT, 10, Key(1, 10, 0)), 0u); });
        Simulator::Schedule(
            install + NanoSeconds(1),
            [&]
            {
                EXPECT_EQ(r->SelectPort(1, FabricRouting::NO_PORT, 10, Key(1, 10, 0)), want);
                // Unaffected destinations of the same host stay on port 0.
                EXPECT_EQ(r->SelectPort(1, FabricRouting::NO_PORT, 6, Key(1, 6, 0)), 0u);
            });
        Simulator::Schedule(
            removal + NanoSeconds(1),
            [&]
            {
                EXPECT_EQ(r->SelectPort(1, FabricRouting::NO_PORT, 10, Key(1, 10, 0)), 0u);
                EXPECT_EQ(r->GetNPairDetours(), 0u);
            });
        Simulator::Run();
        for (uint32_t h = 0; h < 16; ++h)
        {
            if (shape == "reverse-plane" && zl.OddGroup(h) == 1)
            {
                EXPECT_EQ(told[h], (std::vector<Time>{install, removal})) << shape << " host " << h;
            }
            else
            {
                EXPECT_TRUE(told[h].empty()) << shape << " host " << h;
            }
        }
        Simulator::Destroy();
    }
}

// RoCE packets: the affected queue pairs move to their E-side NIC port at the controller's
// install and back after the repair is learnt; they stall detection + latency (+ the path);
// unaffected flows lose nothing; every packet is accounted for.
TEST_F(ZCubeDetourTest, PacketAffectedQueuePairsMoveToTheirEvenPortAtTheInstall)
{
    ZCubeLayout zl(16, 4);
    auto g = zl.Build();
    auto routing = MakeZCube(g, "reverse-plane");
    FabricNetworkHelper links;
    auto net = links.Install(g, routing);
    const Time latency = MicroSeconds(100);
    auto det = CreateObjectWithAttributes<FabricFailureDetector>(
        "RoutingUpdates", BooleanValue(false), "ControllerLatency", TimeValue(latency));
    det->Install(net);
    const Time tFail = MicroSeconds(50);
    const Time tRepair = MicroSeconds(400);
    FabricFailureHelper failures(net);
    const uint32_t link = g->GetPortLink(zl.OddNode(1), zl.OddCorePort(2));
    failures.FailLink(link, tFail);
    failures.RepairLink(link, tRepair);
    // Affected: 1 -> 9 (reverse plane through O_1 = O_a), 5 -> 10; unaffected: 1 -> 5, 2 -> 9,
    // 6 -> 13.
    const uint64_t bytes = 32u << 20; // outlasts the removal
    std::vector<FlowSpec> flows{Flow(0, 1, 9, bytes, 49152),
                                Flow(1, 5, 10, bytes, 49153),
                                Flow(2, 1, 5, bytes, 49154),
                                Flow(3, 2, 9, bytes, 49155),
                                Flow(4, 6, 13, bytes, 49156)};
    // Per flow: NIC port moves (time, to port), and the first arrival of a packet sent after
    // the failure.
    std::map<uint32_t, std::vector<std::pair<Time, uint32_t>>> moves;
    std::unordered_map<uint64_t, uint32_t> flowOfUid;
    std::map<uint32_t, Time> firstArrival;
    FabricRoceRunOptions opt;
    opt.stopAt = MilliSeconds(20);
    opt.senderCreated = [&](uint32_t flow, Ptr<RoceSender> s)
    {
        s->TraceConnectWithoutContext("Reroute",
                                      Callback<void, uint32_t, uint32_t, uint32_t>(
                                          [&moves, flow](uint32_t, uint32_t, uint32_t to)
                                          { moves[flow].emplace_back(Simulator::Now(), to); }));
        s->TraceConnectWithoutContext(
            "Tx",
            Callback<void, Ptr<const Packet>, uint32_t, bool>(
                [&flowOfUid, flow, tFail](Ptr<const Packet> p, uint32_t, bool)
                {
                    if (Simulator::Now() >= tFail)
                    {
                        flowOfUid.emplace(p->GetUid(), flow);
                    }
                }));
    };
    opt.beforeRun = [&](Ptr<FabricNetwork> nw, const ApplicationContainer&)
    {
        for (uint32_t h : {9u, 10u, 5u, 13u})
        {
            for (uint32_t p = 0; p < 2; ++p)
            {
                nw->GetDevice(h, p)->TraceConnectWithoutContext(
                    "MacRx",
                    Callback<void, Ptr<const Packet>>(
                        [&](Ptr<const Packet> pkt)
                        {
                            auto it = flowOfUid.find(pkt->GetUid());
                            if (it != flowOfUid.end() && !firstArrival.count(it->second))
                            {
                                firstArrival[it->second] = Simulator::Now();
                            }
                        }));
            }
        }
    };
    auto r = RunFabricRoce(net, flows, opt);
    EXPECT_EQ(r.Unaccounted(), 0);
    const Time install = tFail + MicroSeconds(5) + latency;
    const Time removal = tRepair + MicroSeconds(5) + latency;
    for (uint32_t f : {0u, 1u})
    {
        EXPECT_TRUE(r.flows[f].complete) << f;
        // Moved to port 1 at the install (a zero-delay event after it), back to 0 at removal.
        ASSERT_EQ(moves[f].size(), 2u) << f;
        EXPECT_EQ(moves[f][0].first, install) << f;
        EXPECT_EQ(moves[f][0].second, 1u) << f;
        EXPECT_EQ(moves[f][1].first, removal) << f;
        EXPECT_EQ(moves[f][1].second, 0u) << f;
        ASSERT_TRUE(firstArrival.count(f)) << f;
        const double stall = (firstArrival[f] - tFail).GetMicroSeconds();
        EXPECT_GE(stall, 5 + latency.GetMicroSeconds()) << f;
        EXPECT_LE(stall, 5 + latency.GetMicroSeconds() + 20) << f;
    }
    for (uint32_t f : {2u, 3u, 4u})
    {
        EXPECT_TRUE(r.flows[f].complete) << f;
        EXPECT_TRUE(moves[f].empty()) << f;
        EXPECT_EQ(r.flows[f].retxPackets, 0u) << "unaffected flow " << f << " lost packets";
    }
}

// At flow level (max-min rates, no transport), with O_0 -> E_1 dead and the controller's
// detours in force, reverse-plane leaves every unaffected pair of an all-pairs AllReduce at
// exactly its rate without the failure (the affected pairs run on links no other pair uses),
// while the paper's 4-switch detours take capacity from unaffected pairs. So the dip of the
// unaffected flows that remains at packet level under reverse-plane (doc/failures.md) is the
// transport's response, not the routing's.
TEST_F(ZCubeDetourTest, FlowLevelReversePlaneLeavesEveryUnaffectedRateUnchanged)
{
    ZCubeLayout zl(16, 4);
    auto g = zl.Build();
    TrafficPatternParams tp;
    tp.hosts = 16;
    tp.bytes = 1000000000; // nobody finishes before the rates are read
    const std::vector<FlowSpec> flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
    auto ratesWith = [&](const std::string& shape, bool failed)
    {
        Ptr<ZCubeRouting> r = MakeZCube(g, shape);
        FabricState truth(g);
        if (failed)
        {
            FailCore(zl, *g, truth, 0, 1);
        }
        EveryoneKnows(*r, truth);
        Ptr<FlowSimulator> sim = CreateObject<FlowSimulator>();
        sim->SetRouting(r);
        sim->AddFlows(flows);
        sim->Run(10e-6);
        std::vector<double> rates;
        for (uint32_t f = 0; f < flows.size(); ++f)
        {
            rates.push_back(sim->GetRateBps(f));
        }
        return rates;
    };
    const std::vector<double> allUp = ratesWith("paper", false);
    const std::vector<double> reverse = ratesWith("reverse-plane", true);
    const std::vector<double> paper = ratesWith("paper", true);
    uint32_t affected = 0;
    uint32_t slowerOnPaper = 0;
    double affectedReverse = 0;
    double affectedAllUp = 0;
    for (uint32_t f = 0; f < flows.size(); ++f)
    {
        ASSERT_GT(allUp[f], 0) << f;
        if (zl.OddGroup(flows[f].src) == 0 && zl.EvenGroup(flows[f].dst) == 1)
        {
            ++affected;
            EXPECT_GT(reverse[f], 0) << f;
            EXPECT_GT(paper[f], 0) << f;
            affectedReverse += reverse[f];
            affectedAllUp += allUp[f];
            continue;
        }
        EXPECT_NEAR(reverse[f], allUp[f], 1e-9 * allUp[f]) << f;
        slowerOnPaper += paper[f] < allUp[f] * (1 - 1e-6) ? 1 : 0;
    }
    // §6.2's fault domain: k^2 pairs, less the one GPU in both O_0's and E_1's group.
    uint32_t both = 0;
    for (uint32_t i = 0; i < 16; ++i)
    {
        both += zl.OddGroup(i) == 0 && zl.EvenGroup(i) == 1 ? 1 : 0;
    }
    EXPECT_EQ(affected, 16u - both);
    EXPECT_GT(slowerOnPaper, 0u);
    // On the idle plane the affected pairs get at least what they had before the failure.
    EXPECT_GE(affectedReverse, affectedAllUp * (1 - 1e-9));
    std::cout << "flow level, unaffected pairs slower than all-up: reverse-plane 0, paper "
              << slowerOnPaper << " of " << flows.size() - affected << "; affected pairs "
              << affectedReverse / 1e9 << " Gb/s (all-up " << affectedAllUp / 1e9 << ")\n";
}
