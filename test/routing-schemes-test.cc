// SPDX-License-Identifier: GPL-2.0-only
// Every routing scheme: Candidates() is exactly the set SelectPort() chooses from (all-up
// view and a view with failed links), routing objects built by TypeId (ObjectFactory with
// attributes) and by code take the same paths, and KspRouting (moved from rng to fabric and
// made generic) gives the same paths as before on RNG graphs.
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-addressing.h"
#include "ns3/fabric-choice.h"
#include "ns3/failure-mask-routing.h"
#include "ns3/ksp-routing.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/link-load.h"
#include "ns3/object-factory.h"
#include "ns3/rng-topology.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/traffic-pattern.h"
#include "ns3/uinteger.h"
#include "ns3/zcube-routing.h"
#include "ns3/zcube-topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace ns3;

namespace
{

FlowKey
Key(uint32_t src, uint32_t dst, uint16_t port)
{
    FlowSpec f;
    f.src = src;
    f.dst = dst;
    f.srcPort = port;
    return f.Key();
}

/**
 * For every node, arrival port (none and each port) and destination host: every SelectPort
 * over many keys (every source host, several source ports) is NO_PORT or in Candidates, and
 * (with \p allChosen) the ports chosen are all of Candidates. Returns the number of non-empty
 * candidate sets checked (so a test can assert it checked something).
 *
 * allChosen is false for ECMP with failures in its view: its resilient hashing keeps a flow on
 * its all-up port while that port is still a candidate, so after a failure that lengthened
 * the shortest paths a candidate may be chosen by no existing flow.
 */
uint32_t
CheckCandidates(const FabricRouting& r, uint32_t portsPerSource = 12, bool allChosen = true)
{
    const FabricGraph& g = r.GetGraph();
    uint32_t checked = 0;
    for (uint32_t node = 0; node < g.GetNNodes(); ++node)
    {
        std::vector<uint32_t> inPorts{FabricRouting::NO_PORT};
        for (uint32_t p = 0; p < g.GetNPorts(node); ++p)
        {
            inPorts.push_back(p);
        }
        for (uint32_t inPort : inPorts)
        {
            for (uint32_t dst = 0; dst < g.GetNHosts(); ++dst)
            {
                auto cand = r.Candidates(node, inPort, dst);
                std::set<uint32_t> candSet(cand.begin(), cand.end());
                EXPECT_EQ(candSet.size(), cand.size()) << "duplicates at node " << node;
                std::set<uint32_t> chosen;
                for (uint32_t src = 0; src < g.GetNHosts(); ++src)
                {
                    if (src == dst || (g.IsHost(node) && node != src))
                    {
                        continue;
                    }
                    for (uint16_t i = 0; i < portsPerSource; ++i)
                    {
                        const uint32_t p
                            = r.SelectPort(node, inPort, dst, Key(src, dst, 49152 + i));
                        if (p != FabricRouting::NO_PORT)
                        {
                            EXPECT_TRUE(candSet.count(p))
                                << r.GetName() << ": node " << node << " in " << inPort << " dst "
                                << dst << " chose port " << p << " outside Candidates";
                            chosen.insert(p);
                        }
                    }
                }
                if (allChosen && (!g.IsHost(node) || node != dst))
                {
                    EXPECT_EQ(chosen, candSet)
                        << r.GetName() << ": node " << node << " in " << inPort << " dst " << dst;
                }
                checked += cand.empty() ? 0 : 1;
            }
        }
    }
    return checked;
}

/// Fail a few switch-switch links in the routing's own view.
void
FailSomeFabricLinks(FabricRouting& r, uint32_t count)
{
    const FabricGraph& g = r.GetGraph();
    uint32_t done = 0;
    for (uint32_t l = 0; l < g.GetNLinks() && done < count; l += 3)
    {
        const FabricLink& link = g.GetLink(l);
        if (!g.IsHost(link.node[0]) && !g.IsHost(link.node[1]))
        {
            r.GetView()->FailLink(l);
            ++done;
        }
    }
    ASSERT_EQ(done, count);
}

/// Paths of every ordered host pair over a few keys.
std::vector<std::vector<uint32_t>>
AllPaths(const FabricRouting& r)
{
    std::vector<std::vector<uint32_t>> paths;
    const uint32_t n = r.GetGraph().GetNHosts();
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            for (uint16_t i = 0; a != b && i < 4; ++i)
            {
                FabricPath p = TracePath(r, a, b, Key(a, b, 49152 + i));
                EXPECT_TRUE(p.delivered) << r.GetName() << " " << a << "->" << b;
                paths.push_back(p.nodes);
            }
        }
    }
    return paths;
}

Ptr<FabricRouting>
ByTypeId(const std::string& tid,
         std::shared_ptr<const FabricGraph> g,
         std::vector<std::pair<std::string, uint64_t>> attrs)
{
    ObjectFactory f(tid);
    for (const auto& [name, v] : attrs)
    {
        f.Set(name, UintegerValue(v));
    }
    auto r = f.Create<FabricRouting>();
    r->SetGraph(std::move(g));
    return r;
}

std::shared_ptr<const FabricGraph>
RngGraph(uint32_t n, uint32_t d, uint64_t seed, uint32_t s)
{
    return RngFabric(MakeRandomRegularGraph(n, d, seed), s).Build();
}

} // namespace

TEST(RoutingCandidates, EcmpLeafSpineAllUpAndFailed)
{
    auto g = std::shared_ptr<const FabricGraph>(LeafSpineLayout(16, 4, 4).Build());
    auto r = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
    EXPECT_GT(CheckCandidates(*r), 100u);
    FailSomeFabricLinks(*r, 3);
    // Shortest paths in a leaf-spine keep their length: every candidate is still chosen.
    EXPECT_GT(CheckCandidates(*r), 100u);
}

TEST(RoutingCandidates, EcmpOnRng)
{
    auto r = MakeRouting<EcmpRouting>(RngGraph(12, 4, 2, 1), "Seed", UintegerValue(5));
    EXPECT_GT(CheckCandidates(*r, 24), 100u);
    FailSomeFabricLinks(*r, 2);
    EXPECT_GT(CheckCandidates(*r, 24, false), 100u);
}

TEST(RoutingCandidates, ZCubeWithParallelLinks)
{
    for (uint32_t parallel : {1u, 2u})
    {
        auto g = std::shared_ptr<const FabricGraph>(ZCubeLayout(16, 4, parallel).Build());
        auto r = MakeRouting<ZCubeRouting>(g, "Seed", UintegerValue(9));
        EXPECT_GT(CheckCandidates(*r), 100u);
        FailSomeFabricLinks(*r, 2);
        EXPECT_GT(CheckCandidates(*r), 100u);
    }
}

TEST(RoutingCandidates, SpraypointBothVrfs)
{
    auto g = RngGraph(16, 4, 1, 2);
    auto r = MakeRouting<SpraypointRouting>(g,
                                            "P",
                                            UintegerValue(2),
                                            "H",
                                            UintegerValue(2),
                                            "Key",
                                            UintegerValue(7),
                                            "Seed",
                                            UintegerValue(1));
    // Server-facing arrival (inPort < s or none) sprays, fabric-facing arrival points: both
    // are in the sweep over every arrival port.
    EXPECT_GT(CheckCandidates(*r), 100u);
    FailSomeFabricLinks(*r, 3);
    EXPECT_GT(CheckCandidates(*r), 100u);
}

TEST(RoutingCandidates, KspOnRngAndLeafSpine)
{
    auto r = MakeRouting<KspRouting>(RngGraph(12, 3, 4, 1), "K", UintegerValue(3));
    EXPECT_GT(CheckCandidates(*r), 100u);
    FailSomeFabricLinks(*r, 2);
    EXPECT_GT(CheckCandidates(*r), 100u);
    auto ls = MakeRouting<KspRouting>(
        std::shared_ptr<const FabricGraph>(LeafSpineLayout(8, 2, 3).Build()),
        "K",
        UintegerValue(4));
    EXPECT_GT(CheckCandidates(*ls), 50u);
}

TEST(RoutingCandidates, FailureMaskDropsOnlyMaskedPorts)
{
    auto g = std::shared_ptr<const FabricGraph>(LeafSpineLayout(16, 4, 4).Build());
    LeafSpineLayout ls(16, 4, 4);
    auto failed = std::make_shared<FabricState>(g);
    failed->FailLink(ls.LeafSpineLink(*g, 0, 1));
    failed->FailNode(ls.SpineNode(3));
    auto r = CreateObject<FailureMaskRouting>(MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3)),
                                              failed);
    EXPECT_GT(CheckCandidates(*r), 50u);
    const uint32_t leaf0 = ls.LeafNode(0);
    for (uint32_t dst = 4; dst < 16; ++dst)
    {
        auto c = r->Candidates(leaf0, 0, dst);
        EXPECT_EQ(c, (std::vector<uint32_t>{ls.UplinkPort(0), ls.UplinkPort(2)}));
    }
}

TEST(RoutingByTypeId, SamePathsAsByCode)
{
    auto ls = std::shared_ptr<const FabricGraph>(LeafSpineLayout(16, 4, 4).Build());
    EXPECT_EQ(AllPaths(*ByTypeId("ns3::EcmpRouting", ls, {{"Seed", 11}})),
              AllPaths(*MakeRouting<EcmpRouting>(ls, "Seed", UintegerValue(11))));
    auto zc = std::shared_ptr<const FabricGraph>(ZCubeLayout(16, 4, 2).Build());
    EXPECT_EQ(AllPaths(*ByTypeId("ns3::ZCubeRouting", zc, {{"Seed", 5}})),
              AllPaths(*MakeRouting<ZCubeRouting>(zc, "Seed", UintegerValue(5))));
    RngFabric fab(MakeRandomRegularGraph(16, 4, 1), 2);
    auto rg = std::shared_ptr<const FabricGraph>(fab.Build());
    SpraypointParams prm;
    prm.p = 2;
    prm.h = 2;
    prm.key = 7;
    auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), prm);
    EXPECT_EQ(AllPaths(*ByTypeId(
                  "ns3::SpraypointRouting", rg, {{"P", 2}, {"H", 2}, {"Key", 7}, {"Seed", 3}})),
              AllPaths(*MakeSpraypointRouting(rg, tab, 3)));
    EXPECT_EQ(
        AllPaths(*ByTypeId("ns3::KspRouting", rg, {{"K", 4}, {"Seed", 2}})),
        AllPaths(*MakeRouting<KspRouting>(rg, "K", UintegerValue(4), "Seed", UintegerValue(2))));
}

// Digests of every switch pair's k shortest paths computed by the KspRouting of rng before it
// moved to fabric (KspRouting::ShortestPaths over the RouterGraph, baseline 6b07f93): FNV-1a
// over the vertex sequences (vertex + 1, then 0xffff after each path), pairs in (a, b) order.
TEST(KspRouting, SamePathsAsBeforeOnRngGraphs)
{
    struct Case
    {
        uint32_t n, d, seed, k;
        uint64_t paths, hash;
    };

    for (const Case& c : {Case{16, 4, 1, 4, 960, 0xed6a7e47fd6fa8c6ULL},
                          Case{32, 6, 3, 8, 7936, 0x1843965f53c7cf63ULL},
                          Case{24, 5, 7, 3, 1656, 0x41cf351e4fd0fed2ULL}})
    {
        auto g = RngGraph(c.n, c.d, c.seed, 2);
        auto r = MakeRouting<KspRouting>(g, "K", UintegerValue(c.k));
        uint64_t h = 1469598103934665603ULL;
        uint64_t count = 0;
        for (uint32_t a = 0; a < c.n; ++a)
        {
            for (uint32_t b = 0; b < c.n; ++b)
            {
                for (const auto& p : r->GetPaths(a, b))
                {
                    ++count;
                    for (uint32_t v : p)
                    {
                        h ^= v + 1;
                        h *= 1099511628211ULL;
                    }
                    h ^= 0xffff;
                    h *= 1099511628211ULL;
                }
            }
        }
        EXPECT_EQ(count, c.paths) << "n=" << c.n;
        EXPECT_EQ(h, c.hash) << "n=" << c.n;
    }
}

TEST(KspRouting, GenericLeafSpinePathsAndErrors)
{
    LeafSpineLayout ls(8, 2, 3, LeafAttachment::CONTIGUOUS, 2);
    auto g = std::shared_ptr<const FabricGraph>(ls.Build());
    auto r = MakeRouting<KspRouting>(g, "K", UintegerValue(5));
    // Leaf 0 -> leaf 1: first one 2-hop path per spine (parallel links share the switch
    // path), then the 4-hop detours through another leaf.
    const auto& paths = r->GetPaths(0, 1);
    ASSERT_EQ(paths.size(), 5u);
    for (uint32_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(paths[i].size(), i < 3 ? 3u : 5u) << i;
        EXPECT_EQ(paths[i].front(), 0u);
        EXPECT_EQ(paths[i].back(), 1u);
    }
    AllPaths(*r);
    // A graph with a two-port host is not for KSP.
    auto zc = std::shared_ptr<const FabricGraph>(ZCubeLayout(8, 4).Build());
    EXPECT_THROW(MakeRouting<KspRouting>(zc, "K", UintegerValue(2)), std::invalid_argument);
    EXPECT_THROW(KspRouting::ShortestPaths(3, {{0, 1}}, 0, 5, 2), std::invalid_argument);
}

// The zcube experiments' fabric registry: names to graphs and routing TypeIds; a reseeded
// routing (ECMP tables reused) takes the same paths as one built by TypeId with that seed.
TEST(FabricChoice, RegistryAndReseededRoutings)
{
    EXPECT_EQ(FabricChoiceNames(), (std::vector<std::string>{"zcube", "roft"}));
    const FabricChoiceParams fp{16, 4, 2};
    const FabricChoice roft = MakeFabricChoice("roft", fp);
    EXPECT_EQ(roft.graph->GetKind(), "leaf-spine");
    EXPECT_EQ(roft.metricDirLinks.size(), 2u * 4 * 2);
    EXPECT_FALSE(roft.modelCheck);
    for (uint64_t seed : {1u, 7u})
    {
        EXPECT_EQ(AllPaths(*roft.CreateRouting(seed)),
                  AllPaths(*ByTypeId("ns3::EcmpRouting", roft.graph, {{"Seed", seed}})));
    }
    const FabricChoice zc = MakeFabricChoice("zcube", fp);
    EXPECT_EQ(zc.graph->GetKind(), "zcube");
    EXPECT_EQ(zc.metricDirLinks.size(), 4u * 4);
    ASSERT_TRUE(zc.modelCheck);
    TrafficPatternParams tp;
    tp.hosts = 16;
    const auto flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
    const std::vector<double> w(flows.size(), 1.0);
    auto loads = ComputeDirLinkLoads(*zc.CreateRouting(3), flows, w);
    EXPECT_TRUE(zc.modelCheck(flows, w, loads));
    loads[zc.metricDirLinks[0]] += 1; // a walk that disagrees with Eq. 3 is caught
    EXPECT_FALSE(zc.modelCheck(flows, w, loads));
    try
    {
        MakeFabricChoice("clos", fp);
        ADD_FAILURE() << "no error for an unknown fabric";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("zcube|roft"), std::string::npos) << e.what();
    }
}
