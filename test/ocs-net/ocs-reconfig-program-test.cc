// SPDX-License-Identifier: GPL-2.0-only
// Runs ocs-reconfig as a user would: the issue's summary.json keys and packet accounting on a
// small comparison, drain vs drop on one run, and "error: ..." with exit code 2 on bad input.
#include "../program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

using json = nlohmann::json;

namespace
{

using namespace programtest;

/// The keys the issue asks for, with every packet accounted for.
void
ExpectRunShape(const json& run)
{
    for (const char* k : {"wiring",
                          "algorithm",
                          "policy",
                          "switching_us",
                          "sent_packets",
                          "delivered_packets",
                          "lost_packets",
                          "total_completion_us",
                          "phases"})
    {
        EXPECT_TRUE(run.contains(k)) << k;
    }
    for (const auto& ph : run["phases"])
    {
        for (const char* k : {"solve_us", "stall_us", "lost_packets", "completion_us"})
        {
            EXPECT_TRUE(ph.contains(k)) << k;
        }
    }
    EXPECT_EQ(run["sent_packets"].get<int64_t>(),
              run["delivered_packets"].get<int64_t>() + run["lost_packets"].get<int64_t>()
                  + run["in_flight_packets"].get<int64_t>());
    EXPECT_EQ(run["incomplete_flows"], 0);
    // Every flow completed and the run drained: nothing may hide as "in flight".
    EXPECT_EQ(run["in_flight_packets"], 0);
}

} // namespace

TEST(OcsReconfigScenario, DefaultComparisonHasTheIssueKeys)
{
    const std::string dir = TempDir("ocs-reconfig", true);
    const Outcome o = RunProgram(BIN + "/ocs-reconfig --sweep=false --steps=3 --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json s = ReadJson(dir + "/summary.json");
    ASSERT_EQ(s["runs"].size(), 6u); // 3 combinations x 2 workloads
    const char* combos[3][2] = {{"cross", "exact"}, {"uniform", "greedy"}, {"uniform", "bvn"}};
    for (size_t i = 0; i < 6; ++i)
    {
        const json& run = s["runs"][i];
        ExpectRunShape(run);
        EXPECT_EQ(run["wiring"], combos[i % 3][0]);
        EXPECT_EQ(run["algorithm"], combos[i % 3][1]);
        EXPECT_EQ(run["phases"].size(), 3u);
        // Stall of every reconfiguring phase >= switching + restoration (10 + 10 us) + the set
        // solve time (50 us): nothing is hidden by default.
        for (size_t p = 1; p < run["phases"].size(); ++p)
        {
            if (run["phases"][p]["changed_circuits"].get<int>() > 0)
            {
                EXPECT_GE(run["phases"][p]["stall_us"].get<double>(), 70.0 - 1e-6);
            }
        }
    }
    // Cross Wiring with the exact algorithm realizes every logical topology.
    for (const auto& ph : s["runs"][0]["phases"])
    {
        EXPECT_DOUBLE_EQ(ph["ltcr"].get<double>(), 1.0);
    }
    EXPECT_NE(ReadText(dir + "/phases.csv").find("completion_us"), std::string::npos);
}

TEST(OcsReconfigScenario, SingleRunStallFollowsSwitchingDelay)
{
    const std::string dir = TempDir("ocs-reconfig-one", true);
    const Outcome o = RunProgram(BIN
                                 + "/ocs-reconfig --wiring=cross --algorithm=exact "
                                   "--policy=drop --switching-us=200 --solve-us=0 "
                                   "--workload=moe --steps=2 --out="
                                 + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json s = ReadJson(dir + "/summary.json");
    ASSERT_EQ(s["runs"].size(), 1u);
    const json& run = s["runs"][0];
    ExpectRunShape(run);
    EXPECT_EQ(run["policy"], "drop");
    EXPECT_DOUBLE_EQ(run["switching_us"].get<double>(), 200.0);
    // MoE layers do not overlap a reconfiguration: stall = switching + restoration exactly.
    EXPECT_NEAR(run["phases"][1]["stall_us"].get<double>(), 210.0, 1e-6);
}

TEST(OcsReconfigScenario, BadInputExitsTwo)
{
    for (const std::string args : {"--wiring=uniform --algorithm=exact",
                                   "--wiring=cross",
                                   "--policy=maybe",
                                   "--egs=7",
                                   "--switching-us=-1",
                                   "--step-us=10 --workload=jobs",
                                   "--egs=64 --ports=32 --hosts-per-eg=1"})
    {
        const Outcome o = RunProgram(BIN + "/ocs-reconfig " + args
                                     + " --out=" + TempDir("ocs-reconfig-bad", true));
        EXPECT_EQ(o.exitCode, 2) << args;
        EXPECT_NE(o.stderrText.find("error: "), std::string::npos) << args;
    }
}
