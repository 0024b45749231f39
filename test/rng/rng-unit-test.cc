// SPDX-License-Identifier: GPL-2.0-only
// Unit tests of the rng module: random regular graphs, ShuffleBox construction and expansion,
// Spraypoint levels, loop freedom, determinism, the two VRFs, baselines, models, bad input.
#include "ns3/boolean.h"
#include "ns3/ecmp-routing.h"
#include "ns3/failure-mask-routing.h"
#include "ns3/ksp-routing.h"
#include "ns3/link-load.h"
#include "ns3/rng-failures.h"
#include "ns3/rng-models.h"
#include "ns3/shuffle-box.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/traffic-pattern.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace ns3;

namespace
{
SpraypointParams
Params(uint32_t p, uint32_t h, uint64_t key = 7)
{
    SpraypointParams prm;
    prm.p = p;
    prm.h = h;
    prm.key = key;
    return prm;
}

/// A flow key from server a to server b with a given UDP source port.
FlowKey
Key(uint32_t a, uint32_t b, uint16_t port)
{
    FlowSpec f;
    f.src = a;
    f.dst = b;
    f.srcPort = port;
    return f.Key();
}
} // namespace

TEST(RandomRegular, SimpleRegularAndReproducible)
{
    for (auto [n, d] : std::vector<std::pair<uint32_t, uint32_t>>{{10, 3}, {100, 8}, {300, 64}})
    {
        RandomRegularReport rep;
        RouterGraph g = MakeRandomRegularGraph(n, d, 5, &rep);
        EXPECT_TRUE(g.IsRegular(d)) << n << " " << d;
        EXPECT_FALSE(g.HasMultiEdges()) << n << " " << d;
        EXPECT_EQ(g.GetNEdges(), n * d / 2);
        RouterGraph g2 = MakeRandomRegularGraph(n, d, 5);
        EXPECT_EQ(g.GetEdges(), g2.GetEdges());
        RouterGraph g3 = MakeRandomRegularGraph(n, d, 6);
        EXPECT_NE(g.GetEdges(), g3.GetEdges());
        if (d == 64)
        {
            // The pairing model draws many repeats at this density: they were repaired.
            EXPECT_GT(rep.selfLoops + rep.multiEdges, 0u);
            EXPECT_GT(rep.swaps, 0u); // one swap can fix two bad edges
        }
    }
}

TEST(RandomRegular, BadParametersNamed)
{
    auto msg = [](auto f)
    {
        try
        {
            f();
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("no throw");
    };
    EXPECT_NE(msg([] { MakeRandomRegularGraph(10, 10, 1); }).find("d=10 must be in [1, n-1]"),
              std::string::npos);
    EXPECT_NE(msg([] { MakeRandomRegularGraph(11, 3, 1); }).find("n*d = 11*3 must be even"),
              std::string::npos);
    EXPECT_NE(msg([] { MakeRandomRegularGraph(2, 1, 1); }).find("n=2 must be >= 3"),
              std::string::npos);
    RouterGraph g = MakeRandomRegularGraph(50, 8, 1);
    EXPECT_NE(msg([&] { SpraypointTables(g, Params(8, 2)); }).find("p=8 must be in [1, d-1]"),
              std::string::npos);
    EXPECT_NE(msg([&] { SpraypointTables(g, Params(0, 2)); }).find("p=0"), std::string::npos);
    EXPECT_NE(msg([&] { SpraypointTables(g, Params(2, 9)); }).find("h=9 must be in [1, d]"),
              std::string::npos);
    EXPECT_NE(msg([&] { SpraypointTables(g, Params(2, 0)); }).find("h=0"), std::string::npos);
    EXPECT_NE(msg([] { ShuffleBoxFabric({4}, 6, 0, 1); }).find("d=6 must be a positive multiple"),
              std::string::npos);
    EXPECT_NE(msg([] { RngFabric(RouterGraph(4), 0); }).find("s=0"), std::string::npos);
}

TEST(Spraypoint, PaperLevelCount)
{
    EXPECT_EQ(SpraypointTables::PaperLevels(1000, 64, 2), 1u);  // n/2d^2 < 1
    EXPECT_EQ(SpraypointTables::PaperLevels(10000, 16, 2), 5u); // 19.5 -> ceil(log2) = 5
    EXPECT_EQ(SpraypointTables::PaperLevels(10000, 16, 4), 3u);
    EXPECT_EQ(SpraypointTables::PaperLevels(2048, 16, 2), 2u); // exactly 4 = 2^2
}

TEST(Spraypoint, LevelSizes)
{
    // n=1000, d=64, p=2: |WP_0| = d, |WP_1| = p d, IR the rest but ~ n e^{-pd^2/n} in OR.
    RouterGraph g = MakeRandomRegularGraph(1000, 64, 3);
    SpraypointTables tab(g, Params(2, 2));
    EXPECT_EQ(tab.GetLevels(), 1u);
    for (uint32_t t : {0u, 17u, 999u})
    {
        auto sz = tab.LevelSizes(t);
        ASSERT_EQ(sz.size(), 4u);
        EXPECT_EQ(sz[0], 64u);
        EXPECT_EQ(sz[1], 128u);
        EXPECT_EQ(sz[0] + sz[1] + sz[2] + sz[3], 999u);
        EXPECT_LE(sz[3], 5u);
    }
    // Several levels: n=2000, d=8, p=2 -> l = ceil(log2(2000/128)) = 4, |WP_l| = d p^l
    // while the graph has room.
    RouterGraph g2 = MakeRandomRegularGraph(2000, 8, 3);
    SpraypointTables tab2(g2, Params(2, 2));
    EXPECT_EQ(tab2.GetLevels(), 4u);
    auto sz = tab2.LevelSizes(5);
    EXPECT_EQ(sz[0], 8u);
    for (uint32_t l = 1; l <= 4; ++l)
    {
        EXPECT_EQ(sz[l], sz[l - 1] * 2) << l;
    }
    // Every node knows its rule: WP_l candidates are in WP_{l-1}, IR in WP_L, OR closer.
    for (uint32_t v = 0; v < 2000; ++v)
    {
        const int32_t lv = tab2.Level(5, v);
        if (lv < 0)
        {
            continue;
        }
        ASSERT_GE(tab2.NCandidates(5, v), 1u);
        for (uint32_t i = 0; i < tab2.NCandidates(5, v); ++i)
        {
            const uint32_t w = g2.Neighbours(v)[tab2.Candidate(5, v, i)];
            EXPECT_EQ(tab2.Distance(5, w) + 1, tab2.Distance(5, v));
        }
    }
}

TEST(Spraypoint, LoopFreeEveryPairSeveralGraphs)
{
    for (auto [n, d, p, h, seed] :
         std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint64_t>>{
             {40, 6, 2, 2, 1}, {60, 4, 1, 1, 2}, {80, 10, 3, 3, 3}, {128, 8, 2, 2, 4}})
    {
        RngFabric fab(MakeRandomRegularGraph(n, d, seed), 1);
        auto graph = std::shared_ptr<const FabricGraph>(fab.Build());
        auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), Params(p, h, seed));
        auto sp = MakeSpraypointRouting(graph, tab, seed);
        const uint32_t maxLen = tab->GetLevels() + 2 + 64;
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t t = 0; t < n; ++t)
            {
                if (s == t)
                {
                    continue;
                }
                for (uint16_t port = 0; port < 4; ++port)
                {
                    FabricPath path = TracePath(*sp, s, t, Key(s, t, 49152 + port), 4 * maxLen);
                    ASSERT_TRUE(path.delivered) << n << ": " << s << "->" << t;
                    // The source router is visited at most twice (spray, then pointing).
                    uint32_t srcVisits = 0;
                    std::set<uint32_t> seen;
                    for (size_t i = 1; i + 1 < path.nodes.size(); ++i)
                    {
                        const uint32_t v = path.nodes[i];
                        srcVisits += (v == fab.RouterNode(s)) ? 1 : 0;
                        if (v != fab.RouterNode(s))
                        {
                            EXPECT_TRUE(seen.insert(v).second) << "router revisited";
                        }
                    }
                    EXPECT_LE(srcVisits, 2u);
                }
            }
        }
    }
}

TEST(Spraypoint, RoutersComputeTheSameTables)
{
    RouterGraph g = MakeRandomRegularGraph(200, 12, 9);
    SpraypointTables shared(g, Params(2, 3, 11));
    SpraypointTables again(g, Params(2, 3, 11));
    for (uint32_t r : {0u, 57u, 199u})
    {
        auto rows = SpraypointTables::ComputeRouterRows(g, Params(2, 3, 11), r);
        for (uint32_t t = 0; t < 200; ++t)
        {
            ASSERT_EQ(rows[t].size(), shared.NCandidates(t, r));
            for (uint32_t i = 0; i < rows[t].size(); ++i)
            {
                EXPECT_EQ(rows[t][i], shared.Candidate(t, r, i));
                EXPECT_EQ(again.Candidate(t, r, i), shared.Candidate(t, r, i));
            }
        }
    }
    // Another key draws other waypoints.
    SpraypointTables other(g, Params(2, 3, 12));
    uint32_t differ = 0;
    for (uint32_t v = 0; v < 200; ++v)
    {
        differ += other.Distance(0, v) != shared.Distance(0, v) ? 1 : 0;
    }
    EXPECT_GT(differ, 0u);
}

TEST(Spraypoint, TablesDependOnlyOnTheGraphAndKey)
{
    // The same links listed in another order (as another router, or a rebuilt graph, might
    // hold them) give the same levels and the same next-hop routers.
    RouterGraph g = MakeRandomRegularGraph(200, 12, 9);
    const auto& edges = g.GetEdges();
    RouterGraph reordered(200);
    for (auto it = edges.rbegin(); it != edges.rend(); ++it)
    {
        reordered.AddEdge(it->second, it->first);
    }
    for (const bool distinct : {true, false})
    {
        SpraypointParams prm = Params(2, 2, 11);
        prm.distinctPicks = distinct;
        SpraypointTables a(g, prm);
        SpraypointTables b(reordered, prm);
        for (uint32_t t = 0; t < 200; t += 7)
        {
            for (uint32_t v = 0; v < 200; ++v)
            {
                ASSERT_EQ(a.Distance(t, v), b.Distance(t, v)) << t << " " << v;
                ASSERT_EQ(a.NCandidates(t, v), b.NCandidates(t, v));
                std::set<uint32_t> na;
                std::set<uint32_t> nb;
                for (uint32_t i = 0; i < a.NCandidates(t, v); ++i)
                {
                    na.insert(g.Neighbours(v)[a.Candidate(t, v, i)]);
                    nb.insert(reordered.Neighbours(v)[b.Candidate(t, v, i)]);
                }
                ASSERT_EQ(na, nb) << t << " " << v;
            }
        }
    }
}

namespace
{
/// Whether two tables hold the same levels and candidates for every (destination, router).
::testing::AssertionResult
SameTables(const SpraypointTables& a, const SpraypointTables& b)
{
    if (a.GetN() != b.GetN() || a.GetLevels() != b.GetLevels())
    {
        return ::testing::AssertionFailure() << "sizes or level counts differ";
    }
    for (uint32_t t = 0; t < a.GetN(); ++t)
    {
        for (uint32_t v = 0; v < a.GetN(); ++v)
        {
            if (a.Distance(t, v) != b.Distance(t, v) || a.NCandidates(t, v) != b.NCandidates(t, v))
            {
                return ::testing::AssertionFailure() << "t " << t << " v " << v << " differ";
            }
            for (uint32_t i = 0; i < a.NCandidates(t, v); ++i)
            {
                if (a.Candidate(t, v, i) != b.Candidate(t, v, i))
                {
                    return ::testing::AssertionFailure() << "t " << t << " v " << v << " differ";
                }
            }
        }
    }
    return ::testing::AssertionSuccess();
}

/// A routing by attributes (through SetGraph's cache) routes every server pair as one over
/// tables computed here from \p prm (never cached), with the same flow-hash seed.
void
ExpectAsUncached(const Ptr<SpraypointRouting>& r,
                 const RngFabric& fab,
                 const std::shared_ptr<const FabricGraph>& graph,
                 const SpraypointParams& prm,
                 uint64_t seed)
{
    auto fresh = std::make_shared<SpraypointTables>(fab.GetRouters(), prm);
    ASSERT_TRUE(SameTables(r->GetTables(), *fresh));
    auto ref = MakeSpraypointRouting(graph, fresh, seed);
    const uint32_t n = fab.GetNServers();
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            if (a == b)
            {
                continue;
            }
            const FlowKey k = Key(a, b, static_cast<uint16_t>(49152 + a + b));
            ASSERT_EQ(TracePath(*r, a, b, k, 64).nodes, TracePath(*ref, a, b, k, 64).nodes)
                << a << "->" << b;
        }
    }
}
} // namespace

// SetGraph reuses the last graph's tables (and what the wiring alone determines) when the
// wiring and the table attributes are the same, and never otherwise: each case below that
// must miss would route over the previous case's tables if it hit.
TEST(Spraypoint, TablesCachedPerWiringAndAttributes)
{
    const RngFabric fab(MakeRandomRegularGraph(40, 6, 101), 2);
    const std::shared_ptr<const FabricGraph> graph = fab.Build();
    SpraypointParams prm = Params(2, 2, 7);
    auto make = [](std::shared_ptr<const FabricGraph> g, const SpraypointParams& q, uint64_t seed)
    {
        return MakeRouting<SpraypointRouting>(g,
                                              "P",
                                              UintegerValue(q.p),
                                              "H",
                                              UintegerValue(q.h),
                                              "Levels",
                                              UintegerValue(q.levels),
                                              "Key",
                                              UintegerValue(q.key),
                                              "DistinctPicks",
                                              BooleanValue(q.distinctPicks),
                                              "Seed",
                                              UintegerValue(seed));
    };
    uint64_t builds = SpraypointRouting::GetTableBuilds();
    auto a = make(graph, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), ++builds);
    ExpectAsUncached(a, fab, graph, prm, 3);

    // Hits: another flow-hash seed, and another graph object with the same wiring.
    auto b = make(graph, prm, 4);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), builds);
    EXPECT_EQ(&a->GetTables(), &b->GetTables());
    ExpectAsUncached(b, fab, graph, prm, 4);
    const std::shared_ptr<const FabricGraph> rebuilt = fab.Build();
    auto c = make(rebuilt, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), builds);
    ExpectAsUncached(c, fab, rebuilt, prm, 3);

    // Misses: each table attribute changed alone.
    std::vector<SpraypointParams> variants(5, prm);
    variants[0].p = 3;
    variants[1].h = 3;
    variants[2].levels = 3;
    variants[3].key = 8;
    variants[4].distinctPicks = false;
    for (const SpraypointParams& q : variants)
    {
        auto v = make(graph, q, 3);
        EXPECT_EQ(SpraypointRouting::GetTableBuilds(), ++builds);
        ExpectAsUncached(v, fab, graph, q, 3);
    }
    // Back to the first attributes: the cache holds the last tables only.
    ExpectAsUncached(make(graph, prm, 3), fab, graph, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), ++builds);

    // Misses: another mesh of the same size and degree, the same mesh with other servers per
    // router, then the first graph again.
    const RngFabric other(MakeRandomRegularGraph(40, 6, 102), 2);
    const std::shared_ptr<const FabricGraph> otherGraph = other.Build();
    ExpectAsUncached(make(otherGraph, prm, 3), other, otherGraph, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), ++builds);
    const RngFabric oneServer(fab.GetRouters(), 1);
    const std::shared_ptr<const FabricGraph> oneServerGraph = oneServer.Build();
    ExpectAsUncached(make(oneServerGraph, prm, 3), oneServer, oneServerGraph, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), ++builds);
    auto d = make(graph, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), ++builds);
    ExpectAsUncached(d, fab, graph, prm, 3);

    // Failure state: a router of d recomputes its levels over a view without a link; a
    // routing made afterwards still gets the intact tables (from the cache), and d's own
    // intact tables are untouched.
    const uint32_t edge = 0;
    const uint32_t link = fab.RouterLink(*graph, edge);
    auto view = std::make_shared<FabricState>(graph);
    view->FailLink(link);
    const uint32_t node = fab.RouterNode(fab.GetRouters().GetEdges()[edge].first);
    uint32_t changed = 0;
    d->TraceConnectWithoutContext(
        "TableChange",
        Callback<void, uint32_t, uint32_t>([&changed](uint32_t, uint32_t n) { changed += n; }));
    d->SetNodeView(node, view);
    d->NotifyNodeConverged(node);
    EXPECT_GT(changed, 0u);
    auto e = make(graph, prm, 3);
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), builds);
    ExpectAsUncached(e, fab, graph, prm, 3);
    EXPECT_TRUE(SameTables(d->GetTables(), e->GetTables()));

    // Tables given by the caller are used as given, and leave the cache as it was.
    auto given = std::make_shared<SpraypointTables>(fab.GetRouters(), variants[3]);
    auto f = MakeSpraypointRouting(graph, given, 3);
    EXPECT_EQ(&f->GetTables(), given.get());
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), builds);
    EXPECT_EQ(&make(graph, prm, 3)->GetTables(), &e->GetTables());
    EXPECT_EQ(SpraypointRouting::GetTableBuilds(), builds);
}

TEST(Spraypoint, TwoVrfs)
{
    const uint32_t s = 2;
    RngFabric fab(MakeRandomRegularGraph(60, 6, 4), s);
    auto graph = std::shared_ptr<const FabricGraph>(fab.Build());
    auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), Params(2, 2));
    auto sp = MakeSpraypointRouting(graph, tab, 1);
    const uint32_t r = 10;
    const uint32_t node = fab.RouterNode(r);
    const uint32_t t = fab.GetRouters().Neighbours(r)[0]; // a neighbouring destination
    const uint32_t dst = t * s;
    // Server-facing VRF: sprays over all uplinks, even toward a neighbour.
    std::set<uint32_t> sprayed;
    for (uint16_t port = 0; port < 400; ++port)
    {
        const uint32_t out = sp->SelectPort(node, 0, dst, Key(r * s, dst, 1000 + port));
        ASSERT_GE(out, s);
        sprayed.insert(out);
    }
    EXPECT_EQ(sprayed.size(), 6u);
    // Fabric-facing VRF: only the pointing candidates (WP_0 -> the link to t).
    for (uint16_t port = 0; port < 50; ++port)
    {
        const uint32_t out = sp->SelectPort(node, s + 3, dst, Key(r * s, dst, 1000 + port));
        EXPECT_EQ(graph->GetPeer(node, out), fab.RouterNode(t));
    }
    // Local destination: delivered directly from either VRF.
    EXPECT_EQ(sp->SelectPort(node, 0, r * s + 1, Key(r * s, r * s + 1, 5)), 1u);
    EXPECT_EQ(sp->SelectPort(node, s + 2, r * s + 1, Key(7, r * s + 1, 5)), 1u);
    // A far destination from the fabric side: one of its h candidates.
    const uint32_t far = 59;
    std::set<uint32_t> pointed;
    for (uint16_t port = 0; port < 200; ++port)
    {
        pointed.insert(sp->SelectPort(node, s, far * s, Key(0, far * s, port)));
    }
    EXPECT_EQ(pointed.size(), tab->NCandidates(far, r));
}

TEST(Baselines, KspAndEcmpDeliver)
{
    RngFabric fab(MakeRandomRegularGraph(30, 4, 2), 1);
    auto graph = std::shared_ptr<const FabricGraph>(fab.Build());
    auto ksp = MakeRouting<KspRouting>(graph, "K", UintegerValue(4), "Seed", UintegerValue(1));
    auto ecmp = MakeRouting<EcmpRouting>(graph, "Seed", UintegerValue(1));
    for (uint32_t a = 0; a < 30; ++a)
    {
        for (uint32_t b = 0; b < 30; ++b)
        {
            if (a == b)
            {
                continue;
            }
            const auto& paths = ksp->GetPaths(a, b);
            ASSERT_EQ(paths.size(), 4u);
            for (size_t i = 1; i < paths.size(); ++i)
            {
                EXPECT_LE(paths[i - 1].size(), paths[i].size());
                EXPECT_NE(paths[i - 1], paths[i]);
            }
            EXPECT_TRUE(TracePath(*ksp, a, b, Key(a, b, 3)).delivered);
            EXPECT_TRUE(TracePath(*ecmp, a, b, Key(a, b, 3)).delivered);
        }
    }
}

TEST(Models, PaperFormulasAndF3Table)
{
    auto pl = ModelPathLength(1000, 64, 2);
    EXPECT_DOUBLE_EQ(pl[1], 0.001);
    EXPECT_DOUBLE_EQ(pl[2], 0.064);
    EXPECT_DOUBLE_EQ(pl[3], 0.128);
    EXPECT_NEAR(pl[5], std::exp(-8.192), 1e-12);
    // §F.3 table.
    const double table[4][3]
        = {{0.63, 0.86, 0.98}, {0.53, 0.75, 0.75}, {0.49, 0.66, 0.66}, {0.39, 0.5, 0.5}};
    const uint32_t ps[4] = {0, 16, 21, 32};
    const uint32_t hs[3] = {1, 2, 4};
    for (int i = 0; i < 4; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            EXPECT_NEAR(ModelEdgeDisjointFraction(64, ps[i], hs[j], ps[i] > 0), table[i][j], 0.012)
                << i << "," << j;
        }
    }
    const OversubModel m = ModelOversubscription(1000, 64, 2, 2);
    EXPECT_NEAR(m.mu2, 0.064, 1e-12);
    EXPECT_GT(m.oversub, 1.0);
}

TEST(Models, MeasuredPathLengthMatchesModel72)
{
    // The check at n=1000, d=64, p=2 (100 destinations here for speed).
    RouterGraph g = MakeRandomRegularGraph(1000, 64, 1);
    SpraypointTables tab(g, Params(2, 2, 1));
    std::vector<uint32_t> dests;
    for (uint32_t t = 0; t < 1000; t += 10)
    {
        dests.push_back(t);
    }
    auto sim = MeasurePathLength(tab, g, dests);
    auto model = ModelPathLength(1000, 64, 2);
    for (uint32_t i : {2u, 3u, 4u})
    {
        EXPECT_NEAR(sim[i], model[i], 0.01) << i;
    }
    EXPECT_EQ(sim.count(0), 0u); // every path arrives
    // Max-flow: a non-neighbour source gets most of d with h = 2.
    const RngFabric fab(g, 1);
    const uint32_t f = CandidateMaxFlow(
        *MakeSpraypointRouting(fab.Build(), std::make_shared<SpraypointTables>(tab), 1),
        fab,
        500,
        0);
    EXPECT_GT(f, 40u);
    EXPECT_LE(f, 64u);
}

namespace
{
/// The paper's S_{s,t} built from the tables alone (independent of SpraypointRouting): the
/// spray links of s plus every router's pointing candidates toward t; its max-flow.
uint32_t
ReferenceMaxFlow(const SpraypointTables& tab, const RouterGraph& g, uint32_t s, uint32_t t)
{
    // Augmenting paths on a unit-capacity residual matrix (small graphs only).
    const uint32_t n = g.GetN();
    std::vector<std::vector<int>> cap(n, std::vector<int>(n, 0));
    for (uint32_t w : g.Neighbours(s))
    {
        cap[s][w] = 1;
    }
    for (uint32_t v = 0; v < n; ++v)
    {
        for (uint32_t i = 0; v != s && v != t && i < tab.NCandidates(t, v); ++i)
        {
            cap[v][g.Neighbours(v)[tab.Candidate(t, v, i)]] = 1;
        }
    }
    uint32_t flow = 0;
    for (;;)
    {
        std::vector<int> prev(n, -1);
        prev[s] = int(s);
        std::vector<uint32_t> queue{s};
        for (size_t q = 0; q < queue.size() && prev[t] < 0; ++q)
        {
            for (uint32_t w = 0; w < n; ++w)
            {
                if (prev[w] < 0 && cap[queue[q]][w] > 0)
                {
                    prev[w] = int(queue[q]);
                    queue.push_back(w);
                }
            }
        }
        if (prev[t] < 0)
        {
            return flow;
        }
        for (uint32_t w = t; w != s; w = uint32_t(prev[w]))
        {
            cap[prev[w]][w]--;
            cap[w][prev[w]]++;
        }
        ++flow;
    }
}

/// Spraypoint's fluid split from the tables alone: s evenly over its d links, every router
/// evenly over its pointing candidates; share per (router, neighbour index).
std::map<std::pair<uint32_t, uint32_t>, double>
ReferenceFluidSplit(const SpraypointTables& tab, const RouterGraph& g, uint32_t s, uint32_t t)
{
    std::map<std::pair<uint32_t, uint32_t>, double> share;
    std::map<uint32_t, double> at; // routers still holding traffic, by router
    const auto& nb = g.Neighbours(s);
    for (uint32_t j = 0; j < nb.size(); ++j)
    {
        share[{s, j}] += 1.0 / nb.size();
        at[nb[j]] += 1.0 / nb.size();
    }
    for (uint32_t hop = 0; hop < 64 && !at.empty(); ++hop)
    {
        std::map<uint32_t, double> next;
        for (const auto& [v, x] : at)
        {
            const uint32_t k = v == t ? 0 : tab.NCandidates(t, v);
            for (uint32_t i = 0; i < k; ++i)
            {
                const uint32_t j = tab.Candidate(t, v, i);
                share[{v, j}] += x / k;
                next[g.Neighbours(v)[j]] += x / k;
            }
        }
        at.swap(next);
    }
    return share;
}
} // namespace

// Max-flow and fluid splits go through SpraypointRouting::Candidates (the packets' rule);
// they must equal the paper's definitions computed from the tables directly.
TEST(Models, CandidateAnalysesMatchThePapersDefinitions)
{
    for (uint64_t seed : {1u, 2u, 3u})
    {
        const RouterGraph g = MakeRandomRegularGraph(40, 6, seed);
        const RngFabric fab(g, 2);
        const auto graph = fab.Build();
        for (uint32_t p : {1u, 3u})
        {
            for (uint32_t h : {1u, 2u})
            {
                auto tab = std::make_shared<SpraypointTables>(g, Params(p, h, seed));
                Ptr<SpraypointRouting> r = MakeSpraypointRouting(graph, tab, seed);
                for (uint32_t s = 0; s < 40; s += 3)
                {
                    for (uint32_t t = 1; t < 40; t += 7)
                    {
                        if (s == t)
                        {
                            continue;
                        }
                        EXPECT_EQ(CandidateMaxFlow(*r, fab, s, t), ReferenceMaxFlow(*tab, g, s, t))
                            << s << "->" << t << " p=" << p << " h=" << h;
                        std::vector<std::pair<uint32_t, double>> shares;
                        // From server 1 of router s to server 0 of router t.
                        const double delivered = FluidSplit(*r, 2 * s + 1, 2 * t, shares);
                        EXPECT_NEAR(delivered, 1.0, 1e-12);
                        const auto ref = ReferenceFluidSplit(*tab, g, s, t);
                        uint32_t routerLinks = 0;
                        for (const auto& [d, x] : shares)
                        {
                            const uint32_t a = graph->GetDirLinkTail(d);
                            const uint32_t b = graph->GetDirLinkHead(d);
                            if (a < fab.GetNServers() || b < fab.GetNServers())
                            {
                                continue;
                            }
                            ++routerLinks;
                            uint32_t port = 0;
                            while (graph->GetEgressDirLink(a, port) != d)
                            {
                                ++port;
                            }
                            const auto it = ref.find({a - fab.GetNServers(), port - 2});
                            ASSERT_NE(it, ref.end()) << d;
                            EXPECT_NEAR(x, it->second, 1e-12) << d;
                        }
                        EXPECT_EQ(routerLinks, ref.size());
                    }
                }
            }
        }
    }
}

// CandidateMaxFlow finds its links by a reachability walk (CandidateDirLinks) instead of a
// whole fluid split: the two must name the same links, for loop-free schemes and for KSP,
// whose hop-by-hop candidates loop (there the hop limit decides, in both).
TEST(Models, CandidateDirLinksAreTheFluidSplitsLinks)
{
    const RouterGraph g = MakeRandomRegularGraph(30, 6, 5);
    const RngFabric fab(g, 2);
    const auto graph = fab.Build();
    const std::vector<Ptr<FabricRouting>> schemes{
        MakeSpraypointRouting(graph, std::make_shared<SpraypointTables>(g, Params(2, 2, 5)), 5),
        MakeRouting<EcmpRouting>(graph, "Seed", UintegerValue(5)),
        MakeRouting<KspRouting>(graph, "K", UintegerValue(4), "Seed", UintegerValue(5))};
    for (const auto& r : schemes)
    {
        for (uint32_t maxHops : {3u, 6u, 64u})
        {
            uint32_t compared = 0;
            for (uint32_t a = 0; a < fab.GetNServers(); a += 5)
            {
                for (uint32_t b = 1; b < fab.GetNServers(); b += 7)
                {
                    if (a == b)
                    {
                        continue;
                    }
                    std::vector<std::pair<uint32_t, double>> shares;
                    FluidSplit(*r, a, b, shares, maxHops);
                    std::vector<uint32_t> expected;
                    for (const auto& [d, x] : shares)
                    {
                        expected.push_back(d);
                    }
                    ASSERT_FALSE(expected.empty());
                    EXPECT_EQ(CandidateDirLinks(*r, a, b, maxHops), expected)
                        << r->GetName() << " " << a << "->" << b << " maxHops " << maxHops;
                    ++compared;
                }
            }
            EXPECT_GT(compared, 50u);
        }
    }
}

TEST(Models, SampleRoutersAreDistinctAndSeeded)
{
    const auto a = SampleRouters(50, 20, 3);
    ASSERT_EQ(a.size(), 20u);
    EXPECT_EQ(std::set<uint32_t>(a.begin(), a.end()).size(), 20u);
    EXPECT_LT(*std::max_element(a.begin(), a.end()), 50u);
    EXPECT_EQ(SampleRouters(50, 20, 3), a);
    EXPECT_NE(SampleRouters(50, 20, 4), a);
    EXPECT_EQ(SampleRouters(50, 80, 3).size(), 50u); // all of them
}

// The sampler draws its sources in a fixed order from the generator it is given, and its
// means lie between 1 and d (every neighbour source has its direct link at least).
TEST(Models, SampleCandidateMaxFlowIsSeededAndBounded)
{
    const RouterGraph g = MakeRandomRegularGraph(40, 6, 2);
    const RngFabric fab(g, 1);
    auto tab = std::make_shared<SpraypointTables>(g, Params(2, 2, 2));
    auto r = MakeSpraypointRouting(fab.Build(), tab, 2);
    const auto dests = SampleRouters(40, 5, 2);
    FabricRng a(9);
    FabricRng b(9);
    const MaxFlowSample x = SampleCandidateMaxFlow(*r, *tab, fab, dests, 3, true, a);
    const MaxFlowSample y = SampleCandidateMaxFlow(*r, *tab, fab, dests, 3, true, b);
    EXPECT_EQ(x.samples, 30u);
    EXPECT_EQ(x.neighbour, y.neighbour);
    EXPECT_EQ(x.nonNeighbour, y.nonNeighbour);
    for (double m : {x.neighbour, x.nonNeighbour})
    {
        EXPECT_GE(m, 1.0);
        EXPECT_LE(m, 6.0);
    }
    FabricRng c(9);
    const MaxFlowSample z = SampleCandidateMaxFlow(*r, *tab, fab, dests, 3, false, c);
    EXPECT_EQ(z.samples, 15u);
    EXPECT_EQ(z.nonNeighbour, 0.0);
    // One destination, one neighbour source: the mean is that pair's max-flow.
    FabricRng d1(1);
    FabricRng d2(1);
    const uint32_t t = dests[0];
    const uint32_t s = g.Neighbours(t)[d2.Below(g.Neighbours(t).size())];
    EXPECT_EQ(SampleCandidateMaxFlow(*r, *tab, fab, {t}, 1, false, d1).neighbour,
              double(CandidateMaxFlow(*r, fab, s, t)));
}

TEST(Failures, PicksAndStates)
{
    const RouterGraph g = MakeRandomRegularGraph(20, 4, 3);
    const RngFabric fab(g, 2);
    const auto graph = fab.Build();
    const std::set<uint32_t> own = RouterEdgesOf(g, 7);
    EXPECT_EQ(own.size(), 4u);
    for (uint32_t e : own)
    {
        EXPECT_TRUE(g.GetEdges()[e].first == 7 || g.GetEdges()[e].second == 7);
    }
    FabricRng a(11);
    FabricRng b(11);
    const auto picked = PickRandomEdges(g, 5, a);
    EXPECT_EQ(picked.size(), 5u);
    EXPECT_EQ(PickRandomEdges(g, 5, b), picked);
    EXPECT_EQ(PickRandomEdges(g, g.GetNEdges(), a).size(), g.GetNEdges());
    EXPECT_THROW(PickRandomEdges(g, g.GetNEdges() + 1, a), std::invalid_argument);
    const auto state = FailRouterEdges(fab, graph, own);
    uint32_t down = 0;
    for (uint32_t d = 0; d < 2 * graph->GetNLinks(); ++d)
    {
        down += state->IsDirLinkUp(d) ? 0 : 1;
    }
    EXPECT_EQ(down, 2 * own.size()); // both directions of each failed edge, nothing else
    for (uint32_t e : own)
    {
        EXPECT_FALSE(state->IsDirLinkUp(2 * fab.RouterLink(*graph, e)));
    }
    TrafficPatternParams tp;
    tp.hosts = 40;
    tp.seed = 2;
    tp.bytes = 1;
    const auto flows = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    const auto kept = FlowsAvoidingRouter(flows, 7, 2);
    EXPECT_LT(kept.size(), flows.size());
    for (uint32_t i = 0; i < kept.size(); ++i)
    {
        EXPECT_EQ(kept[i].id, i);
        EXPECT_NE(kept[i].src / 2, 7u);
        EXPECT_NE(kept[i].dst / 2, 7u);
    }
}

TEST(ShuffleBox, EvenRooms)
{
    EXPECT_EQ(ShuffleBoxFabric::EvenRooms(10, 4), (std::vector<uint32_t>{3, 3, 2, 2}));
    EXPECT_EQ(ShuffleBoxFabric::EvenRooms(8, 4), (std::vector<uint32_t>{2, 2, 2, 2}));
    EXPECT_EQ(ShuffleBoxFabric::EvenRooms(3, 1), (std::vector<uint32_t>{3}));
    EXPECT_THROW(ShuffleBoxFabric::EvenRooms(8, 0), std::invalid_argument);
}

TEST(ShuffleBox, CountsAndConnectorLimit)
{
    ShuffleBoxFabric sb({40, 40, 40, 40}, 16, 0, 3);
    ShuffleCounts c = sb.GetCounts();
    EXPECT_EQ(c.rooms, 4u);
    EXPECT_EQ(c.routers, 160u);
    EXPECT_EQ(c.endpointPairs, c.endpointPairsFormula); // n + R(R-1)/2
    EXPECT_EQ(c.endpointPairs, 160u + 6u);
    EXPECT_GT(c.trunks, 0u);
    EXPECT_EQ(c.lanes, 160u * 16);
    // Every lane pair is a link, a self-loop or over the limit.
    EXPECT_EQ(2 * (c.links + c.selfLoops + c.overConnectorLimit), c.lanes);
    for (uint32_t k = 8; k < c.connectorHistogram.size(); ++k)
    {
        EXPECT_EQ(c.overConnectorLimit > 0 || c.connectorHistogram[k] == 0, true);
    }
    RouterGraph g = sb.GetRouterGraph();
    EXPECT_EQ(g.GetNEdges(), c.links);
    EXPECT_GT(c.minDegree, 8u);
    // Same seed, same wiring.
    ShuffleBoxFabric sb2({40, 40, 40, 40}, 16, 0, 3);
    EXPECT_EQ(sb2.GetRouterGraph().GetEdges(), g.GetEdges());
}

TEST(ShuffleBox, ExpansionChangesFewConnections)
{
    ShuffleBoxFabric sb({40, 40, 40}, 16, 0, 5);
    const uint32_t boxes = sb.GetCounts().boxes / 3;
    const auto before = sb.GetLaneLinks();
    ShuffleExpansion x = sb.AddRoom(40);
    ShuffleCounts c = sb.GetCounts();
    EXPECT_EQ(c.rooms, 4u);
    EXPECT_EQ(c.routers, 160u);
    EXPECT_EQ(c.connectedPanelPairs, 6u);
    uint32_t removed = 0;
    uint32_t added = 0;
    uint32_t plugged = 0;
    for (const auto& ch : x.physical)
    {
        removed += ch.kind == ShuffleChange::TRUNK_REMOVED;
        added += ch.kind == ShuffleChange::TRUNK_ADDED;
        plugged += ch.kind == ShuffleChange::ROUTER_CONNECTED;
    }
    EXPECT_EQ(plugged, 40u * 16 / 4);
    EXPECT_EQ(added, 3 * (boxes * 4 / 4));
    EXPECT_GT(removed, 0u);
    // Only trunk-level work outside the new room: far fewer than re-wiring router lanes.
    EXPECT_LT(removed + added, 120u * 16 / 2);
}

TEST(ShuffleBox, ExpansionReportsLogicalLinkChanges)
{
    ShuffleBoxFabric sb({40, 40, 40}, 16, 0, 5);
    const std::vector<ShuffleLaneLink> before = sb.GetLaneLinks();
    ShuffleExpansion x = sb.AddRoom(40);
    const std::vector<ShuffleLaneLink> after = sb.GetLaneLinks();
    const std::set<ShuffleLaneLink> b(before.begin(), before.end());
    const std::set<ShuffleLaneLink> a(after.begin(), after.end());
    ASSERT_EQ(b.size(), before.size()); // one spelling per link, no duplicates
    ASSERT_EQ(a.size(), after.size());
    // before - removed + added == after, exactly.
    std::set<ShuffleLaneLink> rebuilt = b;
    for (const auto& l : x.linksRemoved)
    {
        EXPECT_EQ(b.count(l), 1u);
        EXPECT_EQ(a.count(l), 0u);
        EXPECT_LT(l.routerA, 120u); // only old routers had links before
        EXPECT_LT(l.routerB, 120u);
        rebuilt.erase(l);
    }
    for (const auto& l : x.linksAdded)
    {
        EXPECT_EQ(a.count(l), 1u);
        EXPECT_EQ(b.count(l), 0u);
        rebuilt.insert(l);
    }
    EXPECT_EQ(rebuilt, a);
    EXPECT_EQ(x.linksKept + x.linksAdded.size(), after.size());
    EXPECT_EQ(x.linksKept + x.linksRemoved.size(), before.size());
    // Every link of a new router is new; the old fabric keeps most of its links.
    uint32_t newRouterLinks = 0;
    for (const auto& l : after)
    {
        if (l.routerA >= 120 || l.routerB >= 120)
        {
            ++newRouterLinks;
            EXPECT_EQ(std::count(x.linksAdded.begin(), x.linksAdded.end(), l), 1);
        }
        EXPECT_LT(l.laneA, 16u);
        EXPECT_LT(l.laneB, 16u);
        EXPECT_LE(l.connectors, 7u);
    }
    EXPECT_GT(newRouterLinks, 0u);
    EXPECT_GT(x.linksRemoved.size(), 0u);
    EXPECT_LT(x.linksRemoved.size(), before.size() / 2);
    // Lanes freed by removed links are re-used: each removed link's lanes are in an added link
    // or dark (self-loop / over the limit) now.
    std::set<std::pair<uint32_t, uint32_t>> lanesNow;
    for (const auto& l : after)
    {
        lanesNow.insert({l.routerA, l.laneA});
        lanesNow.insert({l.routerB, l.laneB});
    }
    std::set<std::pair<uint32_t, uint32_t>> lanesAdded;
    for (const auto& l : x.linksAdded)
    {
        lanesAdded.insert({l.routerA, l.laneA});
        lanesAdded.insert({l.routerB, l.laneB});
    }
    for (const auto& l : x.linksRemoved)
    {
        for (auto lane : {std::make_pair(l.routerA, l.laneA), std::make_pair(l.routerB, l.laneB)})
        {
            EXPECT_TRUE(lanesAdded.count(lane) || !lanesNow.count(lane));
        }
    }
    // Same seed, same expansion.
    ShuffleBoxFabric sb2({40, 40, 40}, 16, 0, 5);
    ShuffleExpansion x2 = sb2.AddRoom(40);
    EXPECT_EQ(x2.linksRemoved, x.linksRemoved);
    EXPECT_EQ(x2.linksAdded, x.linksAdded);
    ASSERT_EQ(x2.physical.size(), x.physical.size());
    for (size_t i = 0; i < x.physical.size(); ++i)
    {
        EXPECT_EQ(x2.physical[i].what, x.physical[i].what);
    }
    // A room that does not fit is rejected with the range, and the fabric is unchanged.
    const uint32_t routersNow = sb2.GetNRouters();
    try
    {
        sb2.AddRoom(1000);
        ADD_FAILURE() << "no throw";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("routers=1000"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("must be in [1, "), std::string::npos) << e.what();
    }
    EXPECT_THROW(sb2.AddRoom(0), std::invalid_argument);
    EXPECT_EQ(sb2.GetNRouters(), routersNow);
    EXPECT_EQ(sb2.GetRooms(), 4u);
}

TEST(Failures, MaskDropsOnFailedLink)
{
    RngFabric fab(MakeRandomRegularGraph(20, 4, 2), 1);
    auto graph = std::shared_ptr<const FabricGraph>(fab.Build());
    auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), Params(1, 1));
    auto sp = MakeSpraypointRouting(graph, tab, 1);
    FabricPath p = TracePath(*sp, 0, 19, Key(0, 19, 1));
    ASSERT_TRUE(p.delivered);
    auto masked = CreateObject<FailureMaskRouting>(
        sp, std::set<uint32_t>{p.dirLinks[1] / 2}, std::set<uint32_t>{});
    EXPECT_FALSE(TracePath(*masked, 0, 19, Key(0, 19, 1)).delivered);
}
