// SPDX-License-Identifier: GPL-2.0-only
// The failover program's --control-priority flag (DscpPriorityQueue on every device, issue
// #9): recorded, in force (the run differs from the drop-tail one), accounting closed, and the
// flag's errors.
#include "program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

using json = nlohmann::json;
using namespace programtest;

TEST(ControlPriorityProgram, FailoverRecordsTheFlagAndTheRunChanges)
{
    json runs[2];
    const std::string values[2] = {"off", "on"};
    for (int i = 0; i < 2; ++i)
    {
        const std::string dir = TempDir("failover-control-priority-" + values[i]);
        Outcome o = RunProgram(BIN
                               + "/failover --fabric=zcube --n=12 --k=4 --pattern=allreduce "
                                 "--controller-latency-us=200 --sweep-latency-us=none "
                                 "--control-priority="
                               + values[i] + " --out=" + dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        runs[i] = ReadJson(dir + "/summary.json");
        std::filesystem::remove_all(dir);
    }
    for (int i = 0; i < 2; ++i)
    {
        const json& s = runs[i];
        EXPECT_EQ(s["params"]["control_priority"], values[i]);
        EXPECT_EQ(s["unaccounted_packets"], 0);
        EXPECT_EQ(s["accounting_closed"], true);
        ASSERT_EQ(s["events"].size(), 3u);
        const json& core = s["events"][0];
        EXPECT_EQ(core["affected_pairs"], core["fault_domain_pairs"]);
        EXPECT_EQ(core["recovered_before_repair"]["pairs"], core["affected_pairs"]);
        // Detection (5) + controller (200), at most one RtoHigh (320 us) and the path.
        EXPECT_GE(core["stall_us"]["median"].get<double>(), 205.0);
        EXPECT_LE(core["stall_us"]["max"].get<double>(), 205.0 + 320 + 30);
    }
    // The queues changed what happened: the same traffic, another packet history.
    EXPECT_NE(runs[0]["sent_packets"], runs[1]["sent_packets"]);
}

TEST(ControlPriorityProgram, FlagErrors)
{
    const std::string dir = TempDir("failover-control-priority-errors");
    Outcome o = RunProgram(BIN + "/failover --control-priority=maybe --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("error:"), std::string::npos) << o.stderrText;
    EXPECT_NE(o.stderrText.find("control-priority"), std::string::npos) << o.stderrText;
    // The program sets the attribute from the flag: an override would be silently replaced.
    o = RunProgram(BIN + "/failover --ns3::FabricNetwork::ControlPriority=true --out=" + dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("use --control-priority"), std::string::npos) << o.stderrText;
    std::filesystem::remove_all(dir);
}
