// SPDX-License-Identifier: GPL-2.0-only
// Runs packet-vs-flow, flow-scale, bench-flow and rng-vs-fattree --level=flow as a user would,
// at small sizes: the summary.json keys of the issue, a --flows CSV, "error: ..." with exit
// code 2 naming the line and field of a bad CSV, and bench-flow's cold and warm timing keys.
#include "../program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using json = nlohmann::json;
using namespace programtest;

TEST(FlowPrograms, PacketVsFlowFromCsv)
{
    const std::string dir = TempDir("flow-pvf", true);
    const std::string csv = dir + "/flows.csv";
    std::ofstream(csv) << "src,dst,bytes,start_us\n0,5,200000,0\n3,9,300000,1.5\n7,1,100000,0\n";
    const Outcome o = RunProgramArgs({BIN + "/packet-vs-flow",
                                      "--fabric=zcube,roft",
                                      "--flows=" + csv,
                                      "--out=" + dir + "/out"});
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json s = ReadJson(dir + "/out/summary.json");
    EXPECT_EQ(s["line_rate_gbps"].get<double>(), 400);
    ASSERT_EQ(s["runs"].size(), 2u);
    for (const auto& run : s["runs"])
    {
        for (const char* key : {"fabric", "pattern", "wall_packet_s", "wall_flow_s", "flows"})
        {
            EXPECT_TRUE(run.contains(key)) << key;
        }
        ASSERT_EQ(run["flows"].size(), 3u);
        EXPECT_EQ(run["path_mismatches"].get<int>(), 0);
        for (const auto& f : run["flows"])
        {
            for (const char* key :
                 {"id", "src", "dst", "bytes", "start_us", "path", "fct_packet_us", "fct_flow_us"})
            {
                EXPECT_TRUE(f.contains(key)) << key;
            }
            EXPECT_GT(f["fct_packet_us"].get<double>(), 0);
            EXPECT_GT(f["fct_flow_us"].get<double>(), 0);
            EXPECT_EQ(f["path"].front().get<uint32_t>(), f["src"].get<uint32_t>());
            EXPECT_EQ(f["path"].back().get<uint32_t>(), f["dst"].get<uint32_t>());
        }
        // Uncontended flows: the levels agree within 2%.
        EXPECT_NEAR(run["fct_ratio_median"].get<double>(), 1.0, 0.02);
    }
    EXPECT_EQ(s["runs"][0]["flows"][1]["start_us"].get<double>(), 1.5);
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/fct-ratio-cdf.png")
                || std::filesystem::exists(dir + "/out/fct-ratio-cdf.plt"));
}

TEST(FlowPrograms, BadCsvNamesLineAndField)
{
    const std::string dir = TempDir("flow-badcsv", true);
    const std::string csv = dir + "/bad.csv";
    std::ofstream(csv) << "src,dst,bytes,start_us\n0,5,100000,0\n1,2,abc,3\n";
    Outcome o = RunProgramArgs(
        {BIN + "/packet-vs-flow", "--fabric=zcube", "--flows=" + csv, "--out=" + dir + "/o"});
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("bad.csv:3: field 'bytes'"), std::string::npos) << o.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir + "/o"));
    std::ofstream(csv) << "src,dst,bytes\n";
    o = RunProgramArgs({BIN + "/packet-vs-flow", "--flows=" + csv, "--out=" + dir + "/o"});
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("bad.csv:1: header"), std::string::npos) << o.stderrText;
    std::ofstream(csv) << "src,dst,bytes,start_us\n4,4,10,0\n";
    o = RunProgramArgs({BIN + "/packet-vs-flow", "--flows=" + csv, "--out=" + dir + "/o"});
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("field 'dst'"), std::string::npos) << o.stderrText;
    o = RunProgramArgs({BIN + "/packet-vs-flow", "--fabric=mesh", "--out=" + dir + "/o"});
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("--fabric"), std::string::npos) << o.stderrText;
}

TEST(FlowPrograms, FlowScaleSmallWritesTables)
{
    const std::string dir = TempDir("flow-scale", true);
    const Outcome o = RunProgramArgs({BIN + "/flow-scale",
                                      "--parts=A,B",
                                      "--rng-n=16",
                                      "--rng-d=4",
                                      "--rng-s=2", // 2 servers per leaf: the fat tree has 32
                                      "--gpus=64",
                                      "--k=8",
                                      "--allreduce-mb=4",
                                      "--kv-mb=4",
                                      "--perm-mb=1",
                                      "--out=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json s = ReadJson(dir + "/summary.json");
    for (const char* fab : {"rng-random-regular", "fat-tree"})
    {
        EXPECT_EQ(s["A"][fab]["complete"].get<uint64_t>(), s["A"][fab]["flows"].get<uint64_t>());
        EXPECT_EQ(s["A"][fab]["flows"].get<uint64_t>(), 32u);
    }
    for (const char* pat : {"allreduce-hd", "prefill-decode"})
    {
        EXPECT_EQ(s["B"][pat]["zcube"]["complete"].get<uint64_t>(),
                  s["B"][pat]["zcube"]["flows"].get<uint64_t>());
        EXPECT_GT(s["B"][pat]["roft_over_zcube"].get<double>(), 0);
    }
    EXPECT_TRUE(std::filesystem::exists(dir + "/tables.md"));
}

TEST(FlowPrograms, RngVsFatTreeAtFlowLevel)
{
    // The same graphs, routing objects and flows through FlowSimulator, on a random regular
    // and on a ShuffleBox-built router graph: every flow completes, hashed and fluid rows, a
    // verdict against the fat tree per pattern.
    for (const std::string graph : {"random-regular", "shufflebox"})
    {
        const std::string dir = TempDir("flow-rvf-" + graph, true);
        const bool sb = graph == "shufflebox";
        const Outcome o = RunProgramArgs({BIN + "/rng-vs-fattree",
                                          "--level=flow",
                                          "--graph=" + graph,
                                          // ShuffleBox drops over-limit optical paths: at
                                          // 16 routers the graph is disconnected, at 64 with
                                          // d = 8 in 4 rooms it is not
                                          sb ? "--n=64" : "--n=16",
                                          sb ? "--d=8" : "--d=4",
                                          "--rooms=4",
                                          "--s=2",
                                          "--k=4",
                                          "--a2a-steps=2",
                                          "--out=" + dir + "/out"});
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        const json s = ReadJson(dir + "/out/summary.json");
        EXPECT_EQ(s["params"]["level"], "flow");
        EXPECT_EQ(s["params"]["graph"], graph);
        EXPECT_EQ(s["flows_incomplete_total"].get<int>(), 0);
        for (const char* pat : {"permutation", "all-to-all"})
        {
            const json& rng = s["runs"][pat]["rng"];
            for (const char* routing : {"spraypoint", "spraypoint-fluid", "ecmp", "ksp"})
            {
                ASSERT_TRUE(rng.contains(routing)) << pat << " " << routing;
                EXPECT_EQ(rng[routing]["flows_incomplete"].get<int>(), 0);
                EXPECT_GT(rng[routing]["completion_us"].get<double>(), 0);
                EXPECT_GT(rng[routing]["mean_router_links"].get<double>(), 0);
            }
            EXPECT_FALSE(rng.contains("ksp-fluid"));
            EXPECT_TRUE(s["runs"][pat]["fat_tree"].contains("ecmp"));
            EXPECT_TRUE(s["verdict"][pat]["spraypoint"].contains("matches_or_exceeds"));
        }
    }
    // The blast-radius cases are packet level only: asked for at flow level, a clear error.
    const std::string dir = TempDir("flow-rvf-bad", true);
    const Outcome bad = RunProgramArgs(
        {BIN + "/rng-vs-fattree", "--level=flow", "--blast=true", "--out=" + dir + "/out"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("--blast"), std::string::npos) << bad.stderrText;
    const Outcome odd = RunProgramArgs({BIN + "/rng-vs-fattree",
                                        "--level=flow",
                                        "--graph=shufflebox",
                                        "--d=6",
                                        "--out=" + dir + "/out2"});
    EXPECT_EQ(odd.exitCode, 2);
    EXPECT_NE(odd.stderrText.find("multiple of 4"), std::string::npos) << odd.stderrText;
}

TEST(FlowPrograms, BenchFlowTimesColdAndWarmRunsWithTheirPageFaults)
{
    // Part 1's flow side alone on two rows: each row records its cold run (the first flow
    // run of that row) and the warm median, in CPU and wall seconds, and the minor page
    // faults of both windows (getrusage: a count, never the -1 of a failed call).
    const std::string dir = TempDir("bench-flow-cold", true);
    const Outcome o = RunProgramArgs({BIN + "/bench-flow",
                                      "--flow-only",
                                      "--rows=zcube:prefill,rng:permutation",
                                      "--flow-repeat=3",
                                      "--skip-16k",
                                      "--random-flows=20",
                                      "--out=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json s = ReadJson(dir + "/summary.json");
    const json& c = s["comparison"];
    EXPECT_TRUE(c["flow_only"].get<bool>());
    EXPECT_TRUE(c["subset"].get<bool>());
    EXPECT_EQ(c["flow_repeat"].get<int>(), 3);
    ASSERT_EQ(c["runs"].size(), 2u);
    EXPECT_EQ(c["runs"][0]["fabric"], "zcube");
    EXPECT_EQ(c["runs"][1]["pattern"], "permutation");
    for (const auto& row : c["runs"])
    {
        EXPECT_GT(row["cpu_flow_first_s"].get<double>(), 0);
        EXPECT_GT(row["cpu_flow_s"].get<double>(), 0);
        // -1 would mean getrusage failed (MinorPageFaultsSince)
        EXPECT_GE(row["minor_faults_flow_first"].get<double>(), 0);
        EXPECT_GE(row["minor_faults_flow"].get<double>(), 0);
        EXPECT_FALSE(row.contains("cpu_packet_s")); // no packet run with --flow-only
    }
}
