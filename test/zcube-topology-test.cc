// SPDX-License-Identifier: GPL-2.0-only
// ZCube paper §2.1 (Rules 1 and 2, K_{m,m} core), §5.3 (Theorem 3), §5.4 (uniform load).
#include "ns3/link-load.h"
#include "ns3/traffic-pattern.h"
#include "ns3/zcube-routing.h"
#include "ns3/zcube-topology.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

namespace
{

// GPUs (0-based) attached to a switch node, from the graph itself.
std::set<uint32_t>
AttachedGpus(const FabricGraph& g, uint32_t sw)
{
    std::set<uint32_t> s;
    for (uint32_t p = 0; p < g.GetNPorts(sw); ++p)
    {
        if (g.IsHost(g.GetPeer(sw, p)))
        {
            s.insert(g.GetPeer(sw, p));
        }
    }
    return s;
}

} // namespace

TEST(ZCubeTopology, PaperExampleN32K8)
{
    // Paper: n=32, k=8, m=4; O_1 = {1,5,9,...,29}, E_1 = {1..8}, |S_ab| = 2 (1-based).
    ZCubeLayout zl(32, 8);
    EXPECT_EQ(zl.GetM(), 4u);
    auto g = zl.Build();
    std::set<uint32_t> o1;
    for (uint32_t i = 1; i <= 29; i += 4)
    {
        o1.insert(i - 1);
    }
    EXPECT_EQ(AttachedGpus(*g, zl.OddNode(0)), o1);
    std::set<uint32_t> e1;
    for (uint32_t i = 1; i <= 8; ++i)
    {
        e1.insert(i - 1);
    }
    EXPECT_EQ(AttachedGpus(*g, zl.EvenNode(0)), e1);
    for (uint32_t a = 0; a < 4; ++a)
    {
        for (uint32_t b = 0; b < 4; ++b)
        {
            EXPECT_EQ(zl.CellSize(a, b), 2u);
        }
    }
}

TEST(ZCubeTopology, RulesAndCoreForManySizes)
{
    for (auto [n, k] : std::vector<std::pair<uint32_t, uint32_t>>{
             {32, 8}, {128, 16}, {24, 4}, {30, 5}, {36, 12}, {1024, 32}, {2, 1}})
    {
        ZCubeLayout zl(n, k);
        const uint32_t m = n / k;
        auto g = zl.Build();
        ASSERT_EQ(g->GetNHosts(), n);
        ASSERT_EQ(g->GetNNodes(), n + 2 * m);
        ASSERT_EQ(g->GetNLinks(), 2 * n + m * m);
        for (uint32_t i = 0; i < n; ++i)
        {
            ASSERT_EQ(g->GetNPorts(i), 2u);
            // Rule 1 with the paper's 1-based formula o(i) = ((i-1) mod m) + 1.
            EXPECT_EQ(g->GetPeer(i, 0), zl.OddNode((((i + 1) - 1) % m + 1) - 1));
            // Rule 2: e(i) = ceil(i / k), 1-based.
            EXPECT_EQ(g->GetPeer(i, 1), zl.EvenNode((i + 1 + k - 1) / k - 1));
        }
        for (uint32_t a = 0; a < m; ++a)
        {
            EXPECT_EQ(AttachedGpus(*g, zl.OddNode(a)).size(), k);
            EXPECT_EQ(AttachedGpus(*g, zl.EvenNode(a)).size(), k);
            for (uint32_t b = 0; b < m; ++b)
            {
                EXPECT_EQ(g->GetPeer(zl.OddNode(a), zl.OddCorePort(b)), zl.EvenNode(b));
            }
        }
        // Cells sum to n; uniform exactly when m divides k, else sizes differ by at most one.
        uint32_t total = 0;
        uint32_t lo = UINT32_MAX;
        uint32_t hi = 0;
        for (uint32_t a = 0; a < m; ++a)
        {
            for (uint32_t b = 0; b < m; ++b)
            {
                total += zl.CellSize(a, b);
                lo = std::min(lo, zl.CellSize(a, b));
                hi = std::max(hi, zl.CellSize(a, b));
            }
        }
        EXPECT_EQ(total, n);
        EXPECT_LE(hi - lo, 1u);
        EXPECT_EQ(zl.CellsUniform(), hi == lo) << "n=" << n << " k=" << k;
    }
}

TEST(ZCubeTopology, Theorem3ClusterDispersion)
{
    // Any h consecutive GPUs meet every odd group floor(h/m) or ceil(h/m) times.
    for (auto [n, k] :
         std::vector<std::pair<uint32_t, uint32_t>>{{128, 16}, {96, 8}, {60, 12}, {100, 10}})
    {
        ZCubeLayout zl(n, k);
        auto g = zl.Build();
        const uint32_t m = zl.GetM();
        for (uint32_t h = 1; h <= n; ++h)
        {
            for (uint32_t off = 0; off + h <= n; off += (h < 8 ? 1 : 3))
            {
                std::vector<uint32_t> count(m, 0);
                for (uint32_t i = off; i < off + h; ++i)
                {
                    // The group is read off the wiring, not recomputed from the formula.
                    count[g->GetPeer(i, 0) - zl.OddNode(0)]++;
                }
                for (uint32_t a = 0; a < m; ++a)
                {
                    ASSERT_GE(count[a], h / m) << "h=" << h << " off=" << off;
                    ASSERT_LE(count[a], (h + m - 1) / m) << "h=" << h << " off=" << off;
                }
            }
        }
    }
}

TEST(ZCubeTopology, UniformLoadCorollary)
{
    // AllReduce f_ij = c: L_ab = c (k^2 - |S_ab|) = c (k^2 - k/m) when m | k.
    const double c = 3.0;
    for (auto [n, k] : std::vector<std::pair<uint32_t, uint32_t>>{
             {128, 16}, {32, 8}, {64, 16}, {30, 5}, {36, 12}})
    {
        ZCubeLayout zl(n, k);
        const uint32_t m = zl.GetM();
        auto g = zl.Build();
        auto routing = MakeRouting<ZCubeRouting>(g);
        TrafficPatternParams tp;
        tp.hosts = n;
        auto flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
        std::vector<double> w(flows.size(), c);
        auto L = ZCubeCoreLoadMatrix(zl, flows, w);
        uint32_t undelivered = 0;
        auto walked = ComputeDirLinkLoads(*routing, flows, w, &undelivered);
        EXPECT_EQ(undelivered, 0u);
        for (uint32_t a = 0; a < m; ++a)
        {
            for (uint32_t b = 0; b < m; ++b)
            {
                const double expect = c * (double(k) * k - zl.CellSize(a, b));
                EXPECT_DOUBLE_EQ(L[a * m + b], expect);
                if (zl.CellsUniform())
                {
                    EXPECT_DOUBLE_EQ(L[a * m + b], c * (double(k) * k - double(k) / m));
                }
                // Eq. 3 equals the load the routing function puts on the link.
                EXPECT_DOUBLE_EQ(walked[g->GetEgressDirLink(zl.OddNode(a), zl.OddCorePort(b))],
                                 L[a * m + b]);
            }
        }
        auto st = ComputeImbalance(walked, zl.CoreDirLinks(*g));
        if (zl.CellsUniform())
        {
            EXPECT_DOUBLE_EQ(st.imbalance, 1.0);
        }
    }
}

TEST(ZCubeTopology, InvalidSizesNamed)
{
    auto expectMsg = [](auto fn, const std::string& needle)
    {
        try
        {
            fn();
            FAIL() << "no exception; expected one mentioning " << needle;
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectMsg([] { ZCubeLayout(32, 7); }, "must divide n");
    expectMsg([] { ZCubeLayout(32, 0); }, "k (GPUs per switch) must be in [1, n=32]");
    expectMsg([] { ZCubeLayout(0, 4); }, "n (GPUs) must be in [2,");
    expectMsg([] { ZCubeLayout(32, 64); }, "k (GPUs per switch)");
    expectMsg([] { ZCubeLayout(32, 8, 0); }, "parallel");
    expectMsg([] { RoftLayout(32, 8, 0); }, "spines must be in [1, 1024]");
    expectMsg([] { RoftLayout(30, 8, 4); }, "must divide n");
    expectMsg([] { ParseLeafAttachment("zigzag"); }, "contiguous|rail");
}

TEST(RoftTopology, AttachmentModes)
{
    RoftLayout contiguous(128, 16, 8, RoftAttachment::CONTIGUOUS);
    RoftLayout rail(128, 16, 8, RoftAttachment::RAIL);
    auto gc = contiguous.Build();
    auto gr = rail.Build();
    for (uint32_t i = 0; i < 128; ++i)
    {
        EXPECT_EQ(gc->GetPeer(i, 0), contiguous.LeafNode(i / 16));
        // Server-major: 8 GPUs per server (one per rail), GPU j of every server on rail leaf j.
        EXPECT_EQ(gr->GetPeer(i, 0), rail.LeafNode(i % 8));
    }
    for (uint32_t l = 0; l < 8; ++l)
    {
        EXPECT_EQ(AttachedGpus(*gr, rail.LeafNode(l)).size(), 16u);
        EXPECT_EQ(gc->GetNPorts(contiguous.LeafNode(l)), 16u + 8u);
    }
    EXPECT_EQ(contiguous.FabricDirLinks(*gc).size(), 2u * 8 * 8);
    RoftLayout moreSpines(128, 16, 12, RoftAttachment::CONTIGUOUS, 2);
    auto gm = moreSpines.Build();
    EXPECT_EQ(moreSpines.FabricDirLinks(*gm).size(), 2u * 8 * 12 * 2);
}
