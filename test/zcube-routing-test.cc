// SPDX-License-Identifier: GPL-2.0-only
// ZCube Eq. 1: exactly one path i -> O_o(i) -> E_e(j) -> j for every pair.
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-addressing.h"
#include "ns3/imbalance-study.h"
#include "ns3/uinteger.h"
#include "ns3/zcube-routing.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace ns3;

TEST(ZCubeRouting, UniquePathEveryPairSeveralSizes)
{
    for (auto [n, k] :
         std::vector<std::pair<uint32_t, uint32_t>>{{32, 8}, {128, 16}, {30, 5}, {12, 12}, {16, 1}})
    {
        ZCubeLayout zl(n, k);
        auto g = zl.Build();
        auto r = MakeRouting<ZCubeRouting>(g);
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                if (i == j)
                {
                    continue;
                }
                // Different 5-tuples of the same pair must not change the path.
                std::set<std::vector<uint32_t>> paths;
                for (uint16_t sport : {49152, 50000, 65535})
                {
                    FlowKey key{FabricAddressing::HostAddress(i),
                                FabricAddressing::HostAddress(j),
                                sport,
                                ROCEV2_UDP_PORT,
                                17};
                    FabricPath p = TracePath(*r, i, j, key);
                    ASSERT_TRUE(p.delivered) << i << "->" << j;
                    paths.insert(p.nodes);
                }
                ASSERT_EQ(paths.size(), 1u);
                const std::vector<uint32_t> expect{
                    i, zl.OddNode(zl.OddGroup(i)), zl.EvenNode(zl.EvenGroup(j)), j};
                ASSERT_EQ(*paths.begin(), expect)
                    << "n=" << n << " k=" << k << " " << i << "->" << j;
            }
        }
    }
}

TEST(ZCubeRouting, GpusNeverForwardAndOffPathDrops)
{
    ZCubeLayout zl(32, 8);
    auto g = zl.Build();
    auto r = MakeRouting<ZCubeRouting>(g);
    FlowKey key;
    // A GPU only ever emits on its O-side port 0, and delivers locally to itself.
    EXPECT_EQ(r->SelectPort(5, FabricRouting::NO_PORT, 9, key), 0u);
    EXPECT_EQ(r->SelectPort(5, 1, 5, key), FabricRouting::NO_PORT);
    // E_0 holds GPUs 0..7; a packet for GPU 20 there is off its unique path.
    EXPECT_EQ(r->SelectPort(zl.EvenNode(0), 8, 20, key), FabricRouting::NO_PORT);
    EXPECT_EQ(g->GetPeer(zl.EvenNode(0), r->SelectPort(zl.EvenNode(0), 8, 3, key)), 3u);
}

TEST(ZCubeRouting, ParallelCoreLinksSpreadByHash)
{
    ZCubeLayout zl(32, 8, 2);
    auto g = zl.Build();
    auto r = MakeRouting<ZCubeRouting>(g, "Seed", UintegerValue(7));
    std::set<uint32_t> used;
    for (uint16_t sport = 49152; sport < 49152 + 64; ++sport)
    {
        FlowKey key{FabricAddressing::HostAddress(0),
                    FabricAddressing::HostAddress(31),
                    sport,
                    ROCEV2_UDP_PORT,
                    17};
        FabricPath p = TracePath(*r, 0, 31, key);
        ASSERT_TRUE(p.delivered);
        ASSERT_EQ(p.nodes[1], zl.OddNode(0));
        ASSERT_EQ(p.nodes[2], zl.EvenNode(3));
        used.insert(p.dirLinks[1]);
    }
    EXPECT_EQ(used.size(), 2u); // both parallel links of the one switch-level path
}

TEST(ImbalanceStudy, PlotPointsPerFabricAndSizeCheck)
{
    FabricChoiceParams fp;
    fp.n = 16;
    fp.k = 4;
    fp.spines = 4;
    std::vector<FabricChoice> fabrics;
    for (const auto& name : FabricChoiceNames())
    {
        fabrics.push_back(MakeFabricChoice(name, fp));
    }
    ImbalancePlot plot(fabrics);
    SeedImbalance a;
    a.imbalance = {1, 1};
    SeedImbalance b;
    b.imbalance = {2, 4};
    EXPECT_THROW(plot.Add("x", {a}), std::invalid_argument);
    plot.Add("allreduce", {a, b});
    plot.Add("prefill", {b, a});
    std::ostringstream os;
    plot.Build("t").GenerateOutput(os);
    const std::string text = os.str();
    EXPECT_NE(text.find("set xtics (\"allreduce\" 0, \"prefill\" 1)"), std::string::npos) << text;
    EXPECT_NE(text.find("set xrange [-0.5:1.500000]"), std::string::npos) << text;
    EXPECT_NE(text.find("ZCube"), std::string::npos);
    EXPECT_NE(text.find("ROFT + ECMP"), std::string::npos);
    // ROFT's point at pattern 0: x = 0 + 0.12 - 0.24, mean 3, population std 1.
    EXPECT_NE(text.find("-0.12 3 1"), std::string::npos) << text;

    const auto patterns = ParsePatternCases({"allreduce"}, 0.25);
    EXPECT_NO_THROW(CheckImbalanceStudySize(16, patterns, 0, 10, true, "--n=16", "--seeds=10"));
    try
    {
        CheckImbalanceStudySize(1u << 20, patterns, 0, 1, false, "--n=1048576", "--seeds=1");
        ADD_FAILURE() << "accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("--n=1048576"), std::string::npos) << e.what();
    }
}
