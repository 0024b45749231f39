// SPDX-License-Identifier: GPL-2.0-only
// Runs the rng programs as a user would, at small sizes, and checks what they write:
// rng-models' summary.json (path lengths, edge-disjoint paths, oversubscription side by side
// with the models), rng-vs-fattree's RoCE runs (every flow completes, packets accounted for,
// path lengths from packets agree with the routed paths, blast radius measured = predicted,
// same seed same output), bench-rng-tables, and "error: ..." with exit code 2 on bad input.
#include "../program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using json = nlohmann::json;

namespace
{

using namespace programtest;

/// Sum of a {"hops": fraction} object.
double
Sum(const json& fractions)
{
    double s = 0;
    for (const auto& [k, v] : fractions.items())
    {
        s += v.get<double>();
    }
    return s;
}

const std::string SMALL_VS = " --n=16 --d=4 --s=2 --k=4 --perm-bytes=65536 --a2a-bytes=8192 "
                             "--a2a-steps=6";

} // namespace

TEST(RngModelsScenario, SummaryHasModelAndSimulatedSideBySide)
{
    const std::string dir = TempDir("models");
    Outcome o = RunProgram(BIN
                           + "/rng-models --n=100 --d=8 --p=2 --h=2 --dests=20 --pairs=2 "
                             "--p-compare=4 --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["params"]["n"], 100);
    EXPECT_EQ(s["params"]["d"], 8);
    // Path length: fractions keyed by hop count, simulated and model, each summing to 1.
    const json& pl = s["path_length"];
    ASSERT_TRUE(pl.contains("simulated"));
    ASSERT_TRUE(pl.contains("model"));
    EXPECT_NEAR(Sum(pl["simulated"]), 1.0, 1e-9);
    EXPECT_NEAR(Sum(pl["model"]), 1.0, 1e-9);
    for (const auto& [k, v] : pl["simulated"].items())
    {
        EXPECT_GE(std::stoi(k), 1) << k;
        EXPECT_GE(v.get<double>(), 0.0) << k;
    }
    // One hop: a neighbour of t (d of the n - 1 sources) sprays straight to t with
    // probability 1/d, so exactly 1/(n-1) over all spray choices; the model says 1/n.
    EXPECT_NEAR(pl["simulated"]["1"].get<double>(), 1.0 / 99, 1e-9);
    EXPECT_NEAR(pl["model"]["1"].get<double>(), 1.0 / 100, 1e-9);
    EXPECT_TRUE(s.contains("path_length_p_compare"));
    // Edge-disjoint paths: h = 1, 2, 4 and the §F.3 table.
    const json& ed = s["edge_disjoint"];
    for (const std::string h : {"1", "2", "4"})
    {
        ASSERT_TRUE(ed["per_h"].contains(h)) << h;
        for (const std::string key : {"simulated_non_neighbour",
                                      "model_non_neighbour",
                                      "simulated_neighbour",
                                      "model_neighbour"})
        {
            const double x = ed["per_h"][h][key].get<double>();
            EXPECT_GT(x, 0.0) << h << key;
            EXPECT_LE(x, 1.0 + 1e-9) << h << key;
        }
    }
    EXPECT_EQ(ed["f3_table"].size(), 4u);
    // Oversubscription: the §7.3 model next to the measured values.
    const json& os = s["oversubscription"];
    EXPECT_GT(os["model"].get<double>(), 1.0);
    EXPECT_GT(os["measured_max_min"].get<double>(), 1.0);
    EXPECT_GT(os["measured_uniform"].get<double>(), 1.0);
    EXPECT_GT(os["mean_path_hops"].get<double>(), 1.0);
    EXPECT_TRUE(std::filesystem::exists(dir + "/path-length.plt"));
    std::filesystem::remove_all(dir);
}

TEST(RngVsFatTreeScenario, RoceRunsCompleteAndAccountForEveryPacket)
{
    const std::string dir = TempDir("vs");
    Outcome o = RunProgram(BIN + "/rng-vs-fattree" + SMALL_VS + " --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["params"]["transport"], "roce");
    EXPECT_EQ(s["params"]["rate_control"], "dcqcn");
    EXPECT_EQ(s["params"]["servers"], 32);
    EXPECT_EQ(s["flows_incomplete_total"], 0);
    const std::map<std::string, uint64_t> bytes{{"permutation", 65536}, {"all-to-all", 8192}};
    const std::map<std::string, uint64_t> flows{{"permutation", 32}, {"all-to-all", 32 * 6}};
    for (const auto& [pat, fabrics] : s["runs"].items())
    {
        ASSERT_TRUE(bytes.count(pat)) << pat;
        std::vector<std::pair<std::string, std::string>> expected{
            {"rng", "spraypoint"}, {"rng", "ecmp"}, {"rng", "ksp"}, {"fat_tree", "ecmp"}};
        for (const auto& [fab, routing] : expected)
        {
            const std::string what = pat + " " + fab + " " + routing;
            ASSERT_TRUE(fabrics.contains(fab) && fabrics[fab].contains(routing)) << what;
            const json& r = fabrics[fab][routing];
            EXPECT_EQ(r["flows"].get<uint64_t>(), flows.at(pat)) << what;
            EXPECT_EQ(r["flows_incomplete"], 0) << what;
            EXPECT_EQ(r["flows_complete"], r["flows"]) << what;
            // Packet accounting: every packet the transport sent arrived or was dropped.
            EXPECT_GT(r["sent_packets"].get<uint64_t>(), 0u) << what;
            EXPECT_EQ(r["in_flight_at_stop"], 0) << what;
            EXPECT_EQ(r["sent_packets"].get<uint64_t>(),
                      r["delivered_packets"].get<uint64_t>() + r["dropped_packets"].get<uint64_t>())
                << what;
            // Data packets counted on arrival: every packet of every message, plus the
            // retransmissions, when nothing was dropped.
            const uint64_t perFlow = (bytes.at(pat) + 4095) / 4096;
            if (r["dropped_packets"] == 0)
            {
                EXPECT_EQ(r["path_length_data_packets"].get<uint64_t>(),
                          flows.at(pat) * perFlow + r["retransmitted_packets"].get<uint64_t>())
                    << what;
            }
            // Path lengths from packets agree with the routed paths (equal-size flows, no
            // retransmission: each flow contributes the same number of packets).
            EXPECT_NEAR(Sum(r["path_length_hist"]), 1.0, 1e-9) << what;
            if (r["retransmitted_packets"] == 0)
            {
                for (const auto& [k, v] : r["routed_path_length_hist_per_flow"].items())
                {
                    ASSERT_TRUE(r["path_length_hist"].contains(k)) << what << " " << k;
                    EXPECT_NEAR(r["path_length_hist"][k].get<double>(), v.get<double>(), 1e-9)
                        << what << " " << k;
                }
            }
            if (fab == "fat_tree")
            {
                // Leaf-spine-leaf, or 0 links when both servers share a leaf.
                for (const auto& [k, v] : r["path_length_hist"].items())
                {
                    EXPECT_TRUE(k == "0" || k == "2") << what << " " << k;
                }
            }
            // Per-flow throughput and slowdown statistics are ordered.
            const json& t = r["throughput_gbps"];
            EXPECT_GT(t["min"].get<double>(), 0.0) << what;
            EXPECT_LE(t["min"].get<double>(), t["p1"].get<double>()) << what;
            EXPECT_LE(t["p1"].get<double>(), t["mean"].get<double>()) << what;
            EXPECT_LE(t["mean"].get<double>(), t["max"].get<double>()) << what;
            EXPECT_LE(t["max"].get<double>(), 100.0) << what; // line rate
            const json& sd = r["fct_slowdown"];
            EXPECT_GT(sd["p50"].get<double>(), 0.9) << what;
            EXPECT_LE(sd["p50"].get<double>(), sd["p99"].get<double>()) << what;
        }
    }
    // Blast radius: the flows measured as hit are the ones the routing sends into the failure
    // (data or ACK path); after reconvergence every flow completes.
    for (const std::string kind : {"router", "links-1pct"})
    {
        for (const std::string fab : {"rng", "fat_tree"})
        {
            const json& b = s["blast_radius"][kind][fab];
            const std::string what = kind + " " + fab;
            ASSERT_FALSE(b.is_null()) << what;
            EXPECT_EQ(b["before"]["flows_incomplete"], b["flows_blackholed_predicted"]) << what;
            EXPECT_GT(b["flows_blackholed_predicted"].get<uint32_t>(), 0u) << what;
            EXPECT_EQ(b["after"]["flows_incomplete"], 0) << what;
            EXPECT_EQ(b["after"]["in_flight_at_stop"], 0) << what;
            EXPECT_EQ(b["after"]["dropped_packets"], 0) << what;
            EXPECT_GT(b["before"]["drops"]["no-route"].get<uint64_t>(), 0u) << what;
        }
    }
    // A failed RNG router's own servers are left out (2 servers, up to 4 permutation flows).
    EXPECT_LT(s["blast_radius"]["router"]["rng"]["flows"].get<uint32_t>(), 32u);
    EXPECT_GE(s["blast_radius"]["router"]["rng"]["flows"].get<uint32_t>(), 28u);
    for (const std::string f : {"flows.csv",
                                "path-lengths.csv",
                                "blast-radius.csv",
                                "fct-slowdown-cdf-permutation.plt",
                                "fct-slowdown-cdf-all-to-all.plt"})
    {
        EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
    }
    // Same seed, same output.
    const std::string dir2 = TempDir("vs2");
    o = RunProgram(BIN + "/rng-vs-fattree" + SMALL_VS + " --out=" + dir2);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    EXPECT_EQ(ReadText(dir + "/flows.csv"), ReadText(dir2 + "/flows.csv"));
    EXPECT_EQ(ReadText(dir + "/blast-radius.csv"), ReadText(dir2 + "/blast-radius.csv"));
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(dir2);
}

TEST(BenchRngTables, TinySizesRun)
{
    const std::string dir = TempDir("bench");
    Outcome o = RunProgram(BIN + "/bench-rng-tables --sizes=100:8,60:6 --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    ASSERT_EQ(s["runs"].size(), 2u);
    EXPECT_EQ(s["runs"][0]["n"], 100);
    EXPECT_EQ(s["runs"][1]["d"], 6);
    EXPECT_GE(s["runs"][0]["tables_s"].get<double>(), 0.0);
    EXPECT_GT(s["runs"][0]["peak_rss_mb"].get<double>(), 0.0);
    std::filesystem::remove_all(dir);
}

TEST(RngScenarioCli, BadInputExitsTwoWithNamedError)
{
    const std::string out = " --out=" + TempDir("cli");
    const std::vector<std::pair<std::string, std::string>> cases = {
        // rng-models
        {"/rng-models --n=10 --d=10", "d=10 must be in [1, n-1] = [1, 9]"},
        {"/rng-models --n=11 --d=3", "n*d = 11*3 must be even"},
        {"/rng-models --n=20 --d=4 --p=4", "p=4 must be in [1, d-1] = [1, 3]"},
        {"/rng-models --n=20 --d=4 --h=5", "h=5 must be in [1, d] = [1, 4]"},
        {"/rng-models --p=0", "--p=0 is out of range"},
        {"/rng-models --bogus=1", "unknown flag '--bogus'"},
        // rng-vs-fattree
        {"/rng-vs-fattree --n=10 --d=10", "d=10 must be in [1, n-1] = [1, 9]"},
        {"/rng-vs-fattree --n=11 --d=3", "n*d = 11*3 must be even"},
        {"/rng-vs-fattree --n=20 --d=4 --p=4", "p=4 must be in [1, d-1] = [1, 3]"},
        {"/rng-vs-fattree --n=20 --d=4 --h=5", "h=5 must be in [1, d] = [1, 4]"},
        {"/rng-vs-fattree --h=0", "--h=0 is out of range"},
        {"/rng-vs-fattree --routings=spraypoint,ospf", "'ospf' must be spraypoint|ecmp|ksp"},
        {"/rng-vs-fattree --patterns=incast", "'incast' must be permutation|all-to-all"},
        {"/rng-vs-fattree --rate-control=hpcc", "--rate-control='hpcc' must be dcqcn, none"},
        {"/rng-vs-fattree --bogus=1", "unknown flag '--bogus'"},
        // bench-rng-tables
        {"/bench-rng-tables --sizes=10:10", "d=10 must be in [2, n-1] = [2, 9]"},
        {"/bench-rng-tables --sizes=11:3", "n*d = 11*3 must be even"},
        {"/bench-rng-tables --sizes=20:4 --p=4", "--p=4 must be in [1, d-1] = [1, 3]"},
        {"/bench-rng-tables --sizes=20:4 --h=5", "--h=5 must be in [1, d] = [1, 4]"},
        {"/bench-rng-tables --sizes=20x4", "'20x4' must be n:d"},
        {"/bench-rng-tables --sizes=20:four", "d must be a non-negative integer"},
        {"/bench-rng-tables --bogus=1", "unknown flag '--bogus'"},
    };
    for (const auto& [args, needle] : cases)
    {
        Outcome o = RunProgram(BIN + args + out);
        EXPECT_EQ(o.exitCode, 2) << args << ": " << o.stderrText;
        EXPECT_EQ(o.stderrText.rfind("error: ", 0), 0u) << args << ": " << o.stderrText;
        EXPECT_NE(o.stderrText.find(needle), std::string::npos) << args << ": " << o.stderrText;
    }
    // Rejected input leaves no results behind.
    EXPECT_FALSE(std::filesystem::exists(out.substr(7)));
}
