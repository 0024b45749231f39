// SPDX-License-Identifier: GPL-2.0-only
// Runs the ocs programs as a user would: ocs-configure's JSON formats and its "error: ..." +
// exit code 2 on bad input, a small ocs-toe run (Fig. 8 shape), and a bench-ocs-config smoke
// run.
#include "../program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using json = nlohmann::json;

namespace
{

using namespace programtest;

std::string
WriteFile(const std::string& dir, const std::string& name, const std::string& text)
{
    const std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
}

const char* kTriangle = "3\n0 1 1\n1 0 1\n1 1 0\n";

} // namespace

// The seed's minimal example through the program: Cross Wiring realizes it exactly, and the
// JSON files have the issue's formats.
TEST(OcsConfigureProgram, WritesTheIssueFormats)
{
    const std::string dir = TempDir("configure", true);
    const std::string l = WriteFile(dir, "l.txt", kTriangle);
    Outcome o = RunProgram(BIN + "/ocs-configure --wiring=cross --egs=3 --ports=2 --logical=" + l
                           + " --algorithm=exact --physical-out=" + dir + "/phys.json --out=" + dir
                           + "/config.json");
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json phys = ReadJson(dir + "/phys.json");
    EXPECT_EQ(phys["egs"], 3);
    EXPECT_EQ(phys["ports_per_eg"], 2);
    ASSERT_EQ(phys["ocs"].size(), 2u);
    EXPECT_EQ(phys["ocs"][0]["id"], 0);
    // OCS 0: N i = TX(i, port 0), S i = RX(i, port 1).
    EXPECT_EQ(phys["ocs"][0]["n"][2], json::array({2, 0}));
    EXPECT_EQ(phys["ocs"][0]["s"][2], json::array({2, 1}));
    EXPECT_EQ(phys["ocs"][1]["n"][1], json::array({1, 1}));
    EXPECT_EQ(phys["ocs"][1]["s"][1], json::array({1, 0}));
    json conf = ReadJson(dir + "/config.json");
    EXPECT_EQ(conf["circuits"].size(), 6u);
    for (const auto& c : conf["circuits"])
    {
        EXPECT_TRUE(c.contains("ocs") && c.contains("n") && c.contains("s"));
    }
    EXPECT_EQ(conf["realized"], json::parse("[[0,1,1],[1,0,1],[1,1,0]]"));
    EXPECT_DOUBLE_EQ(conf["ltcr"].get<double>(), 1.0);
    EXPECT_GE(conf["solve_us"].get<double>(), 0.0);

    // The §5 rewiring list: 3 EGs x 2 ports, every RX fibre moves to the paired OCS.
    o = RunProgram(BIN + "/ocs-configure --wiring=uniform --egs=3 --ports=2 --logical=" + l
                   + " --algorithm=greedy --physical-out=" + dir + "/p3.json --out=" + dir
                   + "/c3.json --rewire-out=" + dir + "/moves.json");
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json moves = ReadJson(dir + "/moves.json");
    ASSERT_EQ(moves.size(), 6u);
    for (const auto& m : moves)
    {
        EXPECT_EQ(m["from"]["ocs"], m["port"]); // Uniform: RX(e, p) on OCS p
        EXPECT_EQ(m["to"]["ocs"].get<int>(), m["port"].get<int>() ^ 1); // Cross: on OCS p ^ 1
        EXPECT_EQ(m["to"]["s"], m["eg"]);
    }

    // Uniform cannot: the exhaustive DFS gets 2 of 3 links.
    o = RunProgram(BIN + "/ocs-configure --wiring=uniform --egs=3 --ports=2 --logical=" + l
                   + " --algorithm=dfs --time-limit-ms=5000 --physical-out=" + dir
                   + "/p2.json --out=" + dir + "/c2.json");
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    EXPECT_NEAR(ReadJson(dir + "/c2.json")["ltcr"].get<double>(), 2.0 / 3.0, 1e-9);
    EXPECT_EQ(ReadJson(dir + "/p2.json")["ocs"].size(), 2u);
    std::filesystem::remove_all(dir);
}

TEST(OcsConfigureProgram, BadInputExitsTwoWithNamedError)
{
    const std::string dir = TempDir("configure-bad", true);
    const std::string tri = WriteFile(dir, "tri.txt", kTriangle);
    const std::string asym = WriteFile(dir, "asym.txt", "3\n0 1 0\n1 0 1\n1 1 0\n");
    const std::string neg = WriteFile(dir, "neg.txt", "3\n0 -1 1\n-1 0 1\n1 1 0\n");
    const std::string diag = WriteFile(dir, "diag.txt", "3\n2 1 1\n1 0 1\n1 1 0\n");
    const std::string over = WriteFile(dir, "over.txt", "3\n0 2 1\n2 0 0\n1 0 0\n");
    const std::string shortM = WriteFile(dir, "short.txt", "3\n0 1 1\n1 0 1\n");
    const std::string text = WriteFile(dir, "text.txt", "3\n0 a 1\n1 0 1\n1 1 0\n");
    const std::string outs = " --physical-out=" + dir + "/p.json --out=" + dir + "/c.json";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--wiring=cross --egs=3 --ports=2 --logical=" + asym, "not symmetric"},
        {"--wiring=cross --egs=3 --ports=2 --logical=" + neg, "negative"},
        {"--wiring=cross --egs=3 --ports=2 --logical=" + diag, "diagonal entry [0][0] = 2"},
        {"--wiring=cross --egs=3 --ports=2 --logical=" + over, "row 0 sums to 3, over the 2 ports"},
        {"--wiring=cross --egs=4 --ports=2 --logical=" + tri, "does not match --egs=4"},
        {"--wiring=cross --egs=3 --ports=2 --logical=" + shortM, "entry [2][0]"},
        {"--wiring=cross --egs=3 --ports=2 --logical=" + text, "'a' is not an integer"},
        {"--wiring=cross --egs=3 --ports=3 --logical=" + tri, "even number of ports"},
        {"--wiring=2uniform --egs=3 --ports=3 --logical=" + tri, "even number of ports"},
        {"--wiring=uniform --egs=3 --ports=2 --algorithm=exact --logical=" + tri,
         "needs a mirror-symmetric wiring"},
        {"--wiring=clos --egs=3 --ports=2 --logical=" + tri, "single|uniform|2uniform|cross"},
        {"--wiring=cross --egs=3 --ports=2 --algorithm=mcf --logical=" + tri,
         "exact|greedy|bvn|dfs|ilp"},
        {"--wiring=cross --egs=3 --ports=2 --logical=" + dir + "/missing.txt",
         "cannot open the file"},
        {"--wiring=cross --egs=0 --ports=2 --logical=" + tri, "--egs=0 is out of range"},
        {"--wiring=cross --egs=3 --ports=2 --time-limit-ms=0 --logical=" + tri,
         "--time-limit-ms=0 is out of range"},
        {"--wiring=cross --ports=2 --logical=" + tri, "--egs is required"},
        {"--wiring=cross --egs=3 --ports=2 --bogus=1 --logical=" + tri, "unknown flag '--bogus'"},
    };
    for (const auto& [args, needle] : cases)
    {
        Outcome o = RunProgram(BIN + "/ocs-configure " + args + outs);
        EXPECT_EQ(o.exitCode, 2) << args << ": " << o.stderrText;
        EXPECT_EQ(o.stderrText.rfind("error: ", 0), 0u) << args << ": " << o.stderrText;
        EXPECT_NE(o.stderrText.find(needle), std::string::npos) << args << ": " << o.stderrText;
    }
    std::filesystem::remove_all(dir);
}

// A short §7 run at 2048 GPUs: on Cross Wiring the exact algorithm and BvN (after the
// decomposition) reach LTCR = 1 on every step; on Uniform greedy and BvN stay below 1.
TEST(OcsToeScenario, SmallRunHasTheFigure8Shape)
{
    const std::string dir = TempDir("toe", true);
    Outcome o = RunProgram(BIN
                           + "/ocs-toe --gpus=2048 --steps=8 --ilp-steps=1 "
                             "--ilp-time-limit-ms=300 --dfs-time-limit-ms=2 --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    EXPECT_TRUE(s["checks"]["exact_all_ltcr_1"].get<bool>());
    uint32_t rows = 0;
    for (const auto& r : s["results"])
    {
        ++rows;
        const std::string w = r["wiring"];
        const std::string a = r["algorithm"];
        if (w == "cross" && (a == "exact" || a == "bvn"))
        {
            EXPECT_DOUBLE_EQ(r["ltcr_min"].get<double>(), 1.0) << a;
        }
        if (w == "uniform" && (a == "greedy" || a == "bvn"))
        {
            EXPECT_LT(r["ltcr_mean"].get<double>(), 1.0) << a;
        }
        EXPECT_EQ(r["steps"].get<uint32_t>(), a == "ilp" ? 1u : 8u) << w << a;
    }
    EXPECT_EQ(rows, 9u); // cross: 5 algorithms, uniform: 4 (no exact)
    EXPECT_TRUE(std::filesystem::exists(dir + "/steps.csv"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/logical.csv"));
    std::filesystem::remove_all(dir);
}

// 2-Uniform is mirror-symmetric too: exact and BvN reach LTCR = 1 on every step.
TEST(OcsToeScenario, TwoUniformIsExact)
{
    const std::string dir = TempDir("toe-2u", true);
    Outcome o = RunProgram(BIN
                           + "/ocs-toe --gpus=1024 --steps=5 --wirings=2uniform "
                             "--algorithms=exact,bvn --out="
                           + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    ASSERT_EQ(s["results"].size(), 2u);
    for (const auto& r : s["results"])
    {
        EXPECT_EQ(r["wiring"], "2uniform");
        EXPECT_DOUBLE_EQ(r["ltcr_min"].get<double>(), 1.0) << r["algorithm"];
        EXPECT_EQ(r["steps_ltcr_1"], 5);
    }
    std::filesystem::remove_all(dir);
}

TEST(OcsToeScenario, BadInputExitsTwo)
{
    const std::string out = " --out=" + TempDir("toe-bad", true);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"/ocs-toe --gpus=1000", "not a multiple of --gpus-per-eg=32"},
        {"/ocs-toe --wirings=clos", "uniform|cross|2uniform"},
        {"/ocs-toe --algorithms=mcf", "exact|greedy|bvn|dfs|ilp"},
        {"/ocs-toe --churn=0", "--churn=0 is out of range"},
        {"/ocs-toe --steps=0", "--steps=0 is out of range"},
        {"/ocs-toe --gpus=96", "cannot be filled exactly"},
        {"/ocs-toe --full --gpus=2048", "--full sets --gpus"},
        {"/bench-ocs-config --gpus=100", "must be a positive multiple"},
        {"/bench-ocs-config --repeats=0", "--repeats=0 is out of range"},
    };
    for (const auto& [args, needle] : cases)
    {
        Outcome o = RunProgram(BIN + args + out);
        EXPECT_EQ(o.exitCode, 2) << args << ": " << o.stderrText;
        EXPECT_EQ(o.stderrText.rfind("error: ", 0), 0u) << args << ": " << o.stderrText;
        EXPECT_NE(o.stderrText.find(needle), std::string::npos) << args << ": " << o.stderrText;
    }
}

TEST(BenchOcsConfig, SmokeRunReportsMedians)
{
    const std::string dir = TempDir("bench", true);
    Outcome o = RunProgram(BIN + "/bench-ocs-config --gpus=512 --steps=3 --repeats=2 --out=" + dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    json s = ReadJson(dir + "/summary.json");
    const json& m = s["medians"]["512"];
    EXPECT_EQ(m["egs"], 16);
    EXPECT_DOUBLE_EQ(m["exact_cross_min_ltcr"].get<double>(), 1.0);
    for (const std::string p :
         {"logical", "decomposition_euler", "exact_cross_configure", "end_to_end"})
    {
        EXPECT_GT(m[p + "_us_median"].get<double>(), 0.0) << p;
    }
    std::filesystem::remove_all(dir);
}
