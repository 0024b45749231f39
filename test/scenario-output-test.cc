// SPDX-License-Identifier: GPL-2.0-only
// Runs the scenario programs as a user would and checks what they write: the Fig. 2 shape of
// the ZCube paper §7.2 at n=128, k=16, 500 seeds (analytic), packet-level agreement with the
// analytic loads, and "error: ..." with exit code 2 on bad input.
#include "program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

using json = nlohmann::json;

namespace
{

using namespace programtest;

} // namespace

TEST(ZCubeVsRoftScenario, Figure2ShapeAnalytic)
{
    const std::string dir = TempDir("fig2");
    Outcome o = RunProgram(BIN + "/zcube-vs-roft --level=analytic --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["params"]["n"], 128);
    EXPECT_EQ(s["params"]["seeds"], 500);
    const json& p = s["patterns"];
    // AllReduce: ZCube exactly uniform; ROFT pays a small hash imbalance (paper: 1.14).
    EXPECT_DOUBLE_EQ(p["allreduce"]["zcube"]["imbalance_mean"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(p["allreduce"]["zcube"]["imbalance_std"].get<double>(), 0.0);
    EXPECT_GT(p["allreduce"]["roft"]["imbalance_mean"].get<double>(), 1.1);
    EXPECT_LT(p["allreduce"]["roft"]["imbalance_mean"].get<double>(), 1.2);
    // Prefill 25%: ZCube 4/3 overall and 1.00 on loaded links; ROFT about 4.5.
    EXPECT_NEAR(p["prefill"]["zcube"]["imbalance_mean"].get<double>(), 4.0 / 3.0, 1e-12);
    EXPECT_DOUBLE_EQ(p["prefill"]["zcube"]["loaded_imbalance_mean"].get<double>(), 1.0);
    EXPECT_GT(p["prefill"]["roft"]["imbalance_mean"].get<double>(), 4.0);
    EXPECT_LT(p["prefill"]["roft"]["imbalance_mean"].get<double>(), 5.0);
    // Prefill 50%: ZCube still exactly 1.00 on loaded links.
    EXPECT_DOUBLE_EQ(p["prefill:0.5"]["zcube"]["loaded_imbalance_mean"].get<double>(), 1.0);
    // Elephants: both far above 1; only ROFT varies with the hash seed.
    EXPECT_GT(p["elephants"]["zcube"]["imbalance_mean"].get<double>(), 4.0);
    EXPECT_GT(p["elephants"]["roft"]["imbalance_mean"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(p["elephants"]["zcube"]["imbalance_std"].get<double>(), 0.0);
    EXPECT_GT(p["elephants"]["roft"]["imbalance_std"].get<double>(), 0.5);
    EXPECT_TRUE(std::filesystem::exists(dir + "/imbalance-seeds.csv"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/link-loads.csv"));
    std::filesystem::remove_all(dir);
}

TEST(ZCubeVsRoftScenario, PacketLevelMatchesAnalytic)
{
    const std::string dir = TempDir("packet");
    Outcome o = RunProgram(BIN
                           + "/zcube-vs-roft --n=32 --k=8 --seeds=20 --level=both "
                             "--pattern=allreduce,prefill,permutation,all-to-one "
                             "--packet-host-bytes=400000 --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    for (const auto& [name, pj] : s["patterns"].items())
    {
        for (const std::string fabric : {"zcube", "roft"})
        {
            const json& run = pj[fabric]["packet"][0];
            const json& low = run["unsaturated"];
            EXPECT_LT(low["max_rel_err_vs_analytic"].get<double>(), 0.01) << name << fabric;
            EXPECT_EQ(low["dropped_packets"], 0) << name << fabric;
            EXPECT_EQ(low["flows_incomplete"], 0) << name << fabric;
            EXPECT_EQ(low["in_flight_at_stop"], 0) << name << fabric;
            EXPECT_EQ(run["full_load"]["in_flight_at_stop"], 0) << name << fabric;
            EXPECT_GT(low["sent_packets"].get<uint64_t>(), 0u);
        }
    }
    std::filesystem::remove_all(dir);
}

TEST(EcmpCollisionScenario, CollidingFlowsShareTheLink)
{
    const std::string dir = TempDir("ecmp");
    // Seeds 1..2 at the defaults collide flows 0 and 1 (the routing function decides it).
    Outcome o = RunProgram(BIN + "/ecmp-collision --seeds=2 --bytes=20000000 --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_DOUBLE_EQ(s["line_rate_gbps"].get<double>(), 400.0);
    ASSERT_EQ(s["runs"].size(), 3u); // ZCube once, ROFT per seed
    bool sawCollision = false;
    for (const auto& run : s["runs"])
    {
        EXPECT_TRUE(run["all_complete"].get<bool>());
        EXPECT_EQ(run["in_flight_at_stop"], 0);
        const bool zcube = run["fabric"] == "zcube";
        if (zcube)
        {
            EXPECT_TRUE(run["collisions"].empty()) << "ZCube paths are collision-free here";
        }
        for (const auto& f : run["flows"])
        {
            ASSERT_TRUE(f.contains("path") && f.contains("fct_us") && f.contains("src"));
            EXPECT_EQ(f["path"].front(), f["src"]);
            EXPECT_EQ(f["path"].back(), f["dst"]);
            const double tput = f["throughput_gbps"].get<double>();
            if (f["collided"].get<bool>())
            {
                sawCollision = true;
                EXPECT_GT(tput, 0.3 * 400); // about half the line rate
                EXPECT_LT(tput, 0.6 * 400);
            }
            else
            {
                EXPECT_GT(tput, 0.9 * 400);
            }
        }
    }
    EXPECT_TRUE(sawCollision);
    EXPECT_TRUE(std::filesystem::exists(dir + "/throughput-series.csv"));
    std::filesystem::remove_all(dir);
}

TEST(ScenarioCli, BadInputExitsTwoWithNamedError)
{
    const std::string out = " --out=" + TempDir("cli");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"/zcube-vs-roft --n=32 --k=7", "--k=7 must divide --n=32"},
        {"/zcube-vs-roft --k=0", "--k=0 is out of range"},
        {"/zcube-vs-roft --n=abc", "--n='abc' must be an integer"},
        {"/zcube-vs-roft --spines=0", "--spines=0 is out of range [1, 1024]"},
        {"/zcube-vs-roft --pattern=alltoall", "allreduce|prefill"},
        {"/zcube-vs-roft --prefill-fraction=1.5", "--prefill-fraction=1.5 is out of range"},
        {"/zcube-vs-roft --level=flow", "analytic|packet|both"},
        {"/zcube-vs-roft --bogus=1", "unknown flag '--bogus'"},
        {"/zcube-vs-roft --attachment=zigzag", "contiguous|rail"},
        {"/bench-packet-rate --variants=fast,warp", "fast|fastdev|ipv4|global"},
        {"/bench-packet-rate --sim-us=0", "--sim-us=0 is out of range"},
        {"/bench-packet-rate --repeat=0", "--repeat=0 is out of range [1, 100]"},
        {"/bench-packet-rate --repeat=101", "--repeat=101 is out of range [1, 100]"},
        {"/bench-packet-rate --roce-rounds=0", "--roce-rounds=0 is out of range [1, 100]"},
        {"/bench-packet-rate --roce-rounds=2x", "--roce-rounds='2x' must be an integer"},
        {"/bench-packet-rate --scaling=zcube:permutation:udp --repeat=0",
         "--repeat=0 is out of range [1, 100]"},
        {"/zcube-one-flow --src=40", "--src and --dst must be distinct GPUs in [0, 31]"},
        {"/ecmp-collision --leaf-pairs=3", "--leaf-pairs=3 is out of range [1, 2]"},
        {"/ecmp-collision --rate-control=timely", "--rate-control='timely' must be dcqcn, none"},
        {"/ecmp-collision --rate-control=ns3::EcnMarker", "derived from ns3::RoceRateControl"},
        {"/ecmp-collision --ns3::RoceSender::PacketSize=abc", "--ns3::RoceSender::PacketSize"},
        {"/ecmp-collision --ns3::RoceSender::RtoHigh=soon", "--ns3::RoceSender::RtoHigh"},
        {"/ecmp-collision --ns3::Nope::X=1", "no such attribute"},
        {"/zcube-vs-roft --RngRun=abc", "--RngRun"},
    };
    for (const auto& [args, needle] : cases)
    {
        const bool takesOut = args.rfind("/zcube-one-flow", 0) != 0;
        Outcome o = RunProgram(BIN + args + (takesOut ? out : ""));
        EXPECT_EQ(o.exitCode, 2) << args << ": " << o.stderrText;
        EXPECT_EQ(o.stderrText.rfind("error: ", 0), 0u) << args << ": " << o.stderrText;
        EXPECT_NE(o.stderrText.find(needle), std::string::npos) << args << ": " << o.stderrText;
    }
}

TEST(BenchPacketRate, SmokeRunWritesRatios)
{
    const std::string dir = TempDir("bench");
    Outcome o = RunProgram(BIN
                           + "/bench-packet-rate --n=32 --k=8 --sim-us=5 --build-n=64 "
                             "--build-k=8 --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    for (const std::string v : {"fast", "ipv4", "global"})
    {
        EXPECT_GT(s["variants"][v]["hop_packets"].get<uint64_t>(), 0u) << v;
        EXPECT_GT(s["variants"][v]["ratio_vs_global"].get<double>(), 0.0) << v;
    }
    EXPECT_GT(s["build"]["nodes"].get<uint64_t>(), 64u);
    std::filesystem::remove_all(dir);
}

namespace
{

/// The median rule of bench-packet-rate (MedianOf): the upper middle of the sorted values.
double
MedianOfJson(const json& values)
{
    std::vector<double> v = values.get<std::vector<double>>();
    std::sort(v.begin(), v.end());
    return v.at(v.size() / 2);
}

/// Run bench-packet-rate with \p args (no quotes in them), its standard output into \p log.
Outcome
RunBenchKeepingStdout(const std::string& args, const std::string& log)
{
    return RunProgram("sh -c '" + BIN + "/bench-packet-rate " + args + " > " + log + "'");
}

} // namespace

// The RoCE rows in alternating rounds: every round's wall times are kept, the rates and
// roce_vs_global come from the medians; the acceptance lines of #12 and the machine's load
// are in the summary.
TEST(BenchPacketRate, RoceRoundsMediansAcceptanceAndLoad)
{
    const std::string dir = TempDir("bench-rounds");
    const std::string log = dir + ".stdout";
    Outcome o = RunBenchKeepingStdout("--n=8 --k=4 --sim-us=2 --build-n=0 --schedulers=none "
                                      "--variants=fast,global --repeat=2 --roce-rounds=3 --out="
                                          + dir,
                                      log);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const std::string text = ReadText(log);
    json s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["params"]["repeat"].get<int>(), 2);
    EXPECT_EQ(s["params"]["roce_rounds"].get<int>(), 3);
    EXPECT_EQ(s["variants"]["fast"]["wall_s_all"].size(), 2u);
    for (const std::string fabric : {"zcube", "roft"})
    {
        for (const std::string pattern : {"permutation", "allreduce"})
        {
            const json& r = s["roce"][fabric][pattern];
            const std::string row = fabric + " " + pattern;
            EXPECT_EQ(r["rounds"].get<int>(), 3) << row;
            EXPECT_TRUE(r["rounds_same_hop_packets"].get<bool>()) << row;
            for (const std::string run :
                 {"global_udp", "udp", "roce", "roce_ipv4", "roce_fast_device"})
            {
                ASSERT_EQ(r[run + "_wall_s_all"].size(), 3u) << row << " " << run;
                EXPECT_DOUBLE_EQ(r[run + "_wall_s"].get<double>(),
                                 MedianOfJson(r[run + "_wall_s_all"]))
                    << row << " " << run;
            }
            EXPECT_DOUBLE_EQ(r["roce_hop_packets_per_s"].get<double>(),
                             r["roce_hop_packets"].get<double>() / r["roce_wall_s"].get<double>())
                << row;
            // the ratio of the medians, not the median of the per-round ratios
            EXPECT_DOUBLE_EQ(r["roce_vs_global"].get<double>(),
                             r["roce_hop_packets_per_s"].get<double>()
                                 / r["global_udp_hop_packets_per_s"].get<double>())
                << row;
            ASSERT_EQ(r["round_cpu_s_all"].size(), 3u) << row;
            ASSERT_EQ(r["round_wall_s_all"].size(), 3u) << row;
            // a round's wall time holds its five runs
            EXPECT_GE(r["round_wall_s_all"][0].get<double>(),
                      r["roce_wall_s_all"][0].get<double>() + r["udp_wall_s_all"][0].get<double>())
                << row;
            ASSERT_EQ(r["roce_vs_global_all"].size(), 3u) << row;
            for (size_t i = 0; i < 3; ++i)
            {
                const double roce
                    = r["roce_hop_packets"].get<double>() / r["roce_wall_s_all"][i].get<double>();
                const double global = r["global_udp_hop_packets"].get<double>()
                                    / r["global_udp_wall_s_all"][i].get<double>();
                EXPECT_DOUBLE_EQ(r["roce_vs_global_all"][i].get<double>(), roce / global)
                    << row << " round " << i;
            }
        }
    }
    const json& a = s["acceptance"];
    EXPECT_EQ(a["issue"].get<int>(), 12);
    EXPECT_EQ(a["lines"].size(), 9u); // 5 on the default device, 4 on the opt-in fast device
    EXPECT_EQ(a["lines"]["roce_vs_global_roft_permutation"]["link_device"], "p2p");
    const json& fd = a["lines"]["roce_vs_global_zcube_permutation_fast_device"];
    EXPECT_EQ(fd["link_device"], "fast");
    EXPECT_DOUBLE_EQ(fd["measured"].get<double>(),
                     s["roce"]["zcube"]["permutation"]["roce_fast_device_vs_global"].get<double>());
    EXPECT_FALSE(a["all_met"].get<bool>()); // n = 8: the lines are defined at 128 GPUs
    const json& line = a["lines"]["roce_vs_global_roft_permutation"];
    EXPECT_DOUBLE_EQ(line["measured"].get<double>(),
                     s["roce"]["roft"]["permutation"]["roce_vs_global"].get<double>());
    EXPECT_DOUBLE_EQ(line["min"].get<double>(), 7.0);
    EXPECT_FALSE(line["applies"].get<bool>());
    EXPECT_FALSE(line["met"].get<bool>());
    EXPECT_DOUBLE_EQ(a["lines"]["udp_fast_vs_global"]["measured"].get<double>(),
                     s["variants"]["fast"]["ratio_vs_global"].get<double>());
    EXPECT_DOUBLE_EQ(a["lines"]["roce_hop_packets_per_s_zcube_permutation"]["min"].get<double>(),
                     700e3);
    const json& m = s["machine"];
    ASSERT_EQ(m["loadavg_start"].size(), 3u); // Linux: /proc/loadavg
    ASSERT_EQ(m["loadavg_end"].size(), 3u);
    EXPECT_GE(m["loadavg_start"][0].get<double>(), 0.0);
    EXPECT_GT(m["wall_s"].get<double>(), 0.0);
    EXPECT_GT(m["cpu_s"].get<double>(), 0.0);
    EXPECT_NE(text.find("Acceptance of issue #12"), std::string::npos) << text;
    EXPECT_NE(text.find("udp_fast_vs_global"), std::string::npos) << text;
    EXPECT_NE(text.find("machine: load "), std::string::npos) << text;
    EXPECT_NE(text.find("roce/global per round:"), std::string::npos) << text;
    std::filesystem::remove_all(dir);
    std::filesystem::remove(log);
}

// A --scaling point with --repeat=N: N runs in the process, every run kept, the rates from the
// median times; without --repeat one run (the point's default).
TEST(BenchPacketRate, ScalingRepeatKeepsEveryRunAndTheMedians)
{
    const std::string dir = TempDir("bench-scaling-repeat");
    const std::string log = dir + ".stdout";
    Outcome o = RunBenchKeepingStdout(
        "--scaling=roft:permutation:roce --n=8 --k=4 --sim-us=2 --repeat=3 --out=" + dir, log);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["repeat"].get<int>(), 3);
    ASSERT_EQ(s["runs"].size(), 3u);
    json walls = json::array();
    json cpus = json::array();
    for (const auto& r : s["runs"])
    {
        walls.push_back(r["run_wall_s"]);
        cpus.push_back(r["run_cpu_s"]);
        EXPECT_TRUE(r.contains("build_s"));
    }
    EXPECT_DOUBLE_EQ(s["run_wall_s"].get<double>(), MedianOfJson(walls));
    EXPECT_DOUBLE_EQ(s["run_cpu_s"].get<double>(), MedianOfJson(cpus));
    // the first run's build (later ones may take a routing's tables from its cache)
    EXPECT_DOUBLE_EQ(s["build_s"].get<double>(), s["runs"][0]["build_s"].get<double>());
    EXPECT_DOUBLE_EQ(s["hop_packets_per_s"].get<double>(),
                     s["hop_packets"].get<double>() / s["run_wall_s"].get<double>());
    EXPECT_GT(s["hop_packets"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["unaccounted_packets"].get<int64_t>(), 0);
    EXPECT_EQ(s["machine"]["loadavg_start"].size(), 3u);
    const std::string text = ReadText(log);
    EXPECT_NE(text.find("median of 3 runs"), std::string::npos) << text;
    EXPECT_NE(text.find("machine: load "), std::string::npos) << text;
    std::filesystem::remove_all(dir);
    std::filesystem::remove(log);
    o = RunProgram(BIN
                   + "/bench-packet-rate --scaling=zcube:permutation:udp --n=8 --k=4 --sim-us=2 "
                     "--out="
                   + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["repeat"].get<int>(), 1);
    EXPECT_EQ(s["runs"].size(), 1u);
    std::filesystem::remove_all(dir);
}

// DCQCN per link speed: three cuts at alpha = 1 leave line / 8; the paper's and the default
// constants take milliseconds to come back at 100 Gb/s, a 10x faster increase timer does not.
TEST(DcqcnProfiles, CutsAndRecoveryPerProfile)
{
    const std::string dir = TempDir("dcqcn");
    Outcome o = RunProgram(BIN + "/dcqcn-profiles --rates-gbps=100 --horizon-ms=30 --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    std::map<std::string, json> byProfile;
    for (const json& r : s["runs"])
    {
        byProfile[r["profile"].get<std::string>()] = r;
    }
    ASSERT_EQ(byProfile.size(), 3u);
    for (const std::string p : {"paper", "default"})
    {
        EXPECT_NEAR(byProfile[p]["rate_after_cuts_gbps"].get<double>(), 100.0 / 8, 1e-9) << p;
        EXPECT_GT(byProfile[p]["reach_us"]["50%"].get<double>(), 1000.0) << p;
    }
    ASSERT_FALSE(byProfile["fast"]["reach_us"]["100%"].is_null());
    ASSERT_FALSE(byProfile["default"]["reach_us"]["90%"].is_null());
    EXPECT_LT(byProfile["fast"]["reach_us"]["100%"].get<double>(),
              byProfile["default"]["reach_us"]["90%"].get<double>() / 10);
    std::filesystem::remove_all(dir);
}

TEST(LosslessScenario, SummaryKeysAndOutcomes)
{
    const std::string dir = TempDir("lossless");
    Outcome o = RunProgram(BIN
                           + "/lossless --n=48 --k=8 --spines=8 --senders=16 --victims=2 "
                             "--bytes=262144 --dcqcn-bytes=262144 --buffer-bytes=4000000 --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    ASSERT_EQ(s["runs"].size(), 4u);
    std::map<std::string, json> byKey;
    for (const json& r : s["runs"])
    {
        // The keys issue 13 names, with these types.
        ASSERT_TRUE(r["scenario"].is_string());
        const std::string mode = r["mode"];
        EXPECT_TRUE(mode == "lossless" || mode == "lossy") << mode;
        EXPECT_TRUE(r["sent_packets"].is_number_unsigned());
        EXPECT_TRUE(r["delivered_packets"].is_number_unsigned());
        EXPECT_TRUE(r["drops"].is_object());
        EXPECT_TRUE(r["pause_frames"].is_number_unsigned());
        EXPECT_EQ(r["unaccounted_packets"], 0) << r["scenario"] << mode;
        byKey[r["scenario"].get<std::string>() + "/" + mode] = r;
    }
    const json& lossless = byKey.at("incast/lossless");
    EXPECT_TRUE(lossless["drops"].empty());
    EXPECT_EQ(lossless["sent_packets"], lossless["delivered_packets"]);
    EXPECT_GT(lossless["pause_frames"].get<uint64_t>(), 0u);
    EXPECT_TRUE(lossless["deadlocks"].empty());
    const json& lossy = byKey.at("incast/lossy");
    EXPECT_EQ(lossy["pause_frames"], 0);
    EXPECT_GT(lossy["drops"]["queue-overflow"].get<uint64_t>(), 0u);
    EXPECT_TRUE(byKey.at("incast-dcqcn/lossless")["drops"].empty());
    const json& cyclic = byKey.at("cyclic/lossless");
    ASSERT_EQ(cyclic["deadlocks"].size(), 1u);
    EXPECT_EQ(cyclic["deadlocks"][0]["links"].size(), 4u);
    EXPECT_GT(cyclic["incomplete_flows"].get<uint64_t>(), 0u);
    EXPECT_TRUE(std::filesystem::exists(dir + "/pause-events.csv"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/flows.csv"));
    std::filesystem::remove_all(dir);
}

TEST(LosslessScenario, BadInputIsAnError)
{
    const std::string dir = TempDir("lossless-bad");
    Outcome o = RunProgram(BIN + "/lossless --alpha=-1 --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("error: "), std::string::npos) << o.stderrText;
    EXPECT_NE(o.stderrText.find("--alpha"), std::string::npos) << o.stderrText;
    o = RunProgram(BIN
                   + "/lossless --buffer-bytes=100000 --n=48 --k=8 --spines=8 --senders=16 "
                     "--victims=2 --out="
                   + dir);
    EXPECT_EQ(o.exitCode, 2) << "a buffer smaller than the reserved headroom is refused";
    EXPECT_NE(o.stderrText.find("BufferSize"), std::string::npos) << o.stderrText;
    std::filesystem::remove_all(dir);
}

// The failover scenario (issue #9): the default event sequence on a small ZCube, with the
// summary keys of the issue, stall >= detection + controller latency on the core link (and
// close to it in the sweep, where only the affected flows run), no loss
// for unaffected pairs there, fault domains of §6.2, the latency sweep, and bad input.
TEST(FailoverScenario, ZCubeEventsSweepAndErrors)
{
    const std::string dir = TempDir("failover");
    Outcome o = RunProgram(BIN
                           + "/failover --fabric=zcube --n=12 --k=4 --pattern=allreduce "
                             "--detect-us=5 --controller-latency-us=200 "
                             "--sweep-latency-us=50,500 --no-failure-run=true "
                             "--queue-sample-us=5 --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    ASSERT_EQ(s["events"].size(), 3u);
    // Duplicates received (data resent for nothing), affected and unaffected, per event; a
    // duplicate is a resend, so over the run there are at most as many as retransmissions.
    uint64_t dups = 0;
    uint64_t retxAll = 0;
    for (const json& e : s["events"])
    {
        dups += e["duplicates_received"].get<uint64_t>()
              + e["unaffected_duplicates_received"].get<uint64_t>();
        retxAll += e["retransmitted_packets"].get<uint64_t>()
                 + e["unaffected_retransmitted_packets"].get<uint64_t>();
    }
    EXPECT_LE(dups, retxAll);
    // The probe mirrors the receivers' go-back-N: over the whole run its duplicates are the
    // receivers' own count, flow by flow (and this run has some).
    const json& check = s["duplicates_received_check"];
    EXPECT_EQ(check["flows_differing"].get<uint64_t>(), 0u);
    EXPECT_EQ(check["probe"].get<uint64_t>(), check["receivers"].get<uint64_t>());
    EXPECT_GE(check["probe"].get<uint64_t>(), dups);
    EXPECT_GT(check["receivers"].get<uint64_t>(), 0u);
    // Egress queue samples of every directed link: the core links queue under AllReduce.
    {
        std::ifstream q(dir + "/queues.csv");
        std::string line;
        ASSERT_TRUE(std::getline(q, line));
        EXPECT_EQ(line, "t_us,dir_link,label,bytes");
        uint64_t maxCore = 0;
        while (std::getline(q, line))
        {
            const auto c = line.rfind(',');
            if (line.find(",O") != std::string::npos && line.find("->E") != std::string::npos)
            {
                maxCore = std::max<uint64_t>(maxCore, std::stoull(line.substr(c + 1)));
            }
        }
        EXPECT_GT(maxCore, 4096u) << "a core link's queue holds at least one packet at times";
    }
    const json& core = s["events"][0];
    EXPECT_EQ(core["fabric"], "zcube");
    EXPECT_EQ(core["kind"], "core-link");
    EXPECT_EQ(core["affected_pairs"], core["fault_domain_pairs"]);
    // The ACKs of the reverse pairs cross the dead core link: as many flows as the §6.2
    // domain under AllReduce (o(j) = a, e(i) = b), counted apart from the affected ones.
    EXPECT_EQ(core["unaffected_ack_path_crossing_flows"], core["fault_domain_pairs"]);
    // Measured: their ACKs/NACKs/CNPs are dropped (link-down, no-route) before the detours;
    // only flows with such a path can be among those that lost control packets.
    EXPECT_GT(core["unaffected_control_lost_packets"].get<uint64_t>(), 0u);
    EXPECT_GT(core["unaffected_ack_path_crossing_flows_control_lost"].get<uint64_t>(), 0u);
    for (const json& e : s["events"])
    {
        EXPECT_LE(e["unaffected_ack_path_crossing_flows_control_lost"].get<uint64_t>(),
                  e["unaffected_ack_path_crossing_flows"].get<uint64_t>());
    }
    // Detection (5) + controller latency (200), plus at most one transport timeout (RtoHigh,
    // 320 us: this AllReduce overflows queues before the failure, so a sender may be waiting
    // on its timer when the detours come) and the 4-switch path (5 links x 1 us + 5 x 0.33 us
    // serialization of a 4 KB packet at 100 Gb/s, ~7 us; 15 us with queueing).
    EXPECT_GE(core["stall_us"]["median"].get<double>(), 205.0);
    EXPECT_LE(core["stall_us"]["max"].get<double>(), 205.0 + 320 + 15);
    EXPECT_GT(core["lost_packets"].get<uint64_t>(), 0u);
    EXPECT_EQ(core["lost_packets"].get<uint64_t>() - core["lost_in_queue_packets"].get<uint64_t>()
                  > 0,
              true); // the failure itself drops (link-down, no-route)
    // Transmit-queue drops are counted per flow too (this AllReduce overflows queues): never
    // more than the run's queue drops.
    uint64_t inQueue = 0;
    for (const json& e : s["events"])
    {
        inQueue += e["lost_in_queue_packets"].get<uint64_t>()
                 + e["unaffected_lost_in_queue_packets"].get<uint64_t>();
    }
    EXPECT_GT(inQueue, 0u);
    EXPECT_LE(inQueue,
              s["drops"].value("queue-overflow", uint64_t(0))
                  + s["drops"].value("host-queue-full", uint64_t(0)));
    for (const json& e : s["events"])
    {
        // Unaffected pairs lose nothing to the failure (only congestion drops in transmit
        // queues, which the same run without failures has too).
        EXPECT_EQ(e["unaffected_lost_packets"], e["unaffected_lost_in_queue_packets"]) << e["kind"];
        EXPECT_TRUE(e["unaffected_gbps"].contains("during_no_failure"));
        EXPECT_TRUE(e["unaffected_gbps"]["sharing_links"].contains("flows"));
    }
    // Stall capped at the repair; the controller (205 us) acts within the hold, so every
    // affected pair of every event recovers before the repair. Steady flows all run at each
    // failure, so none is left out as inactive. The goodput dip (rate below half the rate
    // before the failure) lasts at least the stall's bins and at most the hold.
    for (const json& e : s["events"])
    {
        const double hold = e["t_repair_us"].get<double>() - e["t_fail_us"].get<double>();
        EXPECT_LE(e["stall_us"]["max"].get<double>(), hold) << e["kind"];
        EXPECT_EQ(e["recovered_before_repair"]["pairs"], e["affected_pairs"]) << e["kind"];
        EXPECT_DOUBLE_EQ(e["recovered_before_repair"]["fraction"].get<double>(), 1.0);
        EXPECT_EQ(e["crossing_inactive_flows"], 0) << e["kind"];
        EXPECT_DOUBLE_EQ(e["goodput_dip_fraction"].get<double>(), 0.5);
        EXPECT_GT(e["goodput_dip_us"]["flows"].get<uint64_t>(), 0u) << e["kind"];
        EXPECT_LE(e["goodput_dip_us"]["max"].get<double>(), hold) << e["kind"];
    }
    EXPECT_GE(core["goodput_dip_us"]["median"].get<double>(),
              core["stall_us"]["median"].get<double>() - 40)
        << "cut flows deliver nothing in order until they recover (20 us bins)";
    // The unaffected throughput split at the controller's install, both with the no-failure
    // counterpart.
    for (const char* key :
         {"to_reaction", "from_reaction", "to_reaction_no_failure", "from_reaction_no_failure"})
    {
        EXPECT_TRUE(core["unaffected_gbps"].contains(key)) << key;
    }
    EXPECT_GT(core["retransmitted_packets"].get<uint64_t>(), 0u);
    EXPECT_DOUBLE_EQ(core["switch_hops"]["before"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(core["switch_hops"]["during"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(core["switch_hops"]["after"].get<double>(), 2.0);
    EXPECT_EQ(s["events"][1]["kind"], "switch");
    EXPECT_EQ(s["events"][1]["affected_pairs"], s["events"][1]["fault_domain_pairs"]);
    EXPECT_EQ(s["events"][2]["kind"], "access-link");
    EXPECT_EQ(s["events"][2]["affected_pairs"], s["events"][2]["fault_domain_pairs"]);
    for (const json& e : s["events"])
    {
        for (const char* key : {"element", "t_fail_us", "lost_packets", "retransmitted_packets"})
        {
            EXPECT_TRUE(e.contains(key)) << key;
        }
    }
    EXPECT_EQ(s["unaccounted_packets"], 0);
    ASSERT_EQ(s["latency_sweep"].size(), 2u);
    for (const json& p : s["latency_sweep"])
    {
        const double l = p["controller_latency_us"].get<double>();
        // Only the affected pairs run: detection (5) + latency + the 4-switch path (~7 us)
        // + the affected pairs' first packets serialized on a shared detour link (0.33 us
        // each): within l + 20.
        EXPECT_GE(p["zcube"]["median"].get<double>(), l + 5) << l;
        EXPECT_LE(p["zcube"]["max"].get<double>(), l + 20) << l;
        EXPECT_EQ(p["zcube"]["unaccounted_packets"], 0);
    }
    EXPECT_LT(s["latency_sweep"][1]["roft"]["median"].get<double>(),
              s["latency_sweep"][1]["zcube"]["median"].get<double>());
    EXPECT_TRUE(std::filesystem::exists(dir + "/throughput.csv"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/latency-sweep.csv"));
    std::filesystem::remove_all(dir);

    o = RunProgram(BIN + "/failover --fabric=torus --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("error:"), std::string::npos) << o.stderrText;
    o = RunProgram(BIN + "/failover --n=8 --k=4 --out=" + dir);
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    std::filesystem::remove_all(dir);
}
