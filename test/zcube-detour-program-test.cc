// SPDX-License-Identifier: GPL-2.0-only
// The failover program with ZCube's reverse-plane core-link detours (--detour-shape): the
// event report under AllReduce, packet by packet, and the flag's errors.
#include "program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

using json = nlohmann::json;
using namespace programtest;

TEST(ZCubeDetourProgram, ReversePlaneCoreLinkEventUnderAllReduce)
{
    const std::string dir = TempDir("failover-reverse-plane");
    Outcome o = RunProgram(BIN
                           + "/failover --fabric=zcube --n=12 --k=4 --pattern=allreduce "
                             "--controller-latency-us=200 --sweep-latency-us=50 "
                             "--no-failure-run=true "
                             "--detour-shape=reverse-plane --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["params"]["detour_shape"], "reverse-plane");
    EXPECT_EQ(s["unaccounted_packets"], 0);
    EXPECT_EQ(s["accounting_closed"], true);
    ASSERT_EQ(s["events"].size(), 3u);
    const json& core = s["events"][0];
    EXPECT_EQ(core["kind"], "core-link");
    EXPECT_EQ(core["affected_pairs"], core["fault_domain_pairs"]);
    // Every affected pair delivers again after the install, before the repair.
    EXPECT_EQ(core["recovered_before_repair"]["pairs"], core["affected_pairs"]);
    EXPECT_EQ(core["affected_not_recovered_in_window"], 0);
    // 2 switches during (the paper's detour: 4).
    EXPECT_DOUBLE_EQ(core["switch_hops"]["before"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(core["switch_hops"]["during"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(core["switch_hops"]["after"].get<double>(), 2.0);
    // Detection (5) + controller (200), at most one transport timeout (RtoHigh 320 us) and
    // the 2-switch path (15 us with queueing).
    EXPECT_GE(core["stall_us"]["median"].get<double>(), 205.0);
    EXPECT_LE(core["stall_us"]["max"].get<double>(), 205.0 + 320 + 15);
    // Unaffected pairs lose nothing to the failure (transmit-queue drops only).
    for (const json& e : s["events"])
    {
        EXPECT_EQ(e["unaffected_lost_packets"], e["unaffected_lost_in_queue_packets"]) << e["kind"];
    }
    // The sweep uses the same shape: only the affected pairs run (2 MB each, still sending at
    // the install), so the stall is detection + latency + the path.
    ASSERT_EQ(s["latency_sweep"].size(), 1u);
    EXPECT_GE(s["latency_sweep"][0]["zcube"]["median"].get<double>(), 55.0);
    EXPECT_LE(s["latency_sweep"][0]["zcube"]["max"].get<double>(), 70.0);
    std::filesystem::remove_all(dir);
}

TEST(ZCubeDetourProgram, FlagErrors)
{
    const std::string dir = TempDir("failover-reverse-plane-errors");
    Outcome o = RunProgram(BIN + "/failover --detour-shape=zigzag --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("error:"), std::string::npos) << o.stderrText;
    EXPECT_NE(o.stderrText.find("detour-shape"), std::string::npos) << o.stderrText;
    o = RunProgram(BIN + "/failover --fabric=roft --detour-shape=paper --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("--detour-shape applies to --fabric=zcube only"), std::string::npos)
        << o.stderrText;
    // The program sets the attribute itself: an override would be silently replaced.
    o = RunProgram(BIN + "/failover --ns3::ZCubeRouting::DetourShape=reverse-plane --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("use --detour-shape"), std::string::npos) << o.stderrText;
    std::filesystem::remove_all(dir);
}
