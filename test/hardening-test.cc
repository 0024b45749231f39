// SPDX-License-Identifier: GPL-2.0-only
// Issue 15, end to end: every program run as a hostile but realistic user would, without a
// shell in between (RunArgs passes each argument as given). No shell injection, no aborts,
// no silent truncation of times, no trailing garbage or empty values, refusal of hopeless
// sizes, checked and atomic writes, results that cannot be wrong, and packet accounting that
// every summary proves.
#include "program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using json = nlohmann::json;
using namespace programtest;

namespace
{

/// Expect a clean error (exit 2, "error: ..." on stderr) mentioning \p needle.
void
ExpectError(const std::vector<std::string>& args, const std::string& needle)
{
    std::string line;
    for (const auto& a : args)
    {
        line += a + " ";
    }
    const RunResult r = RunArgs(args, RunOptions{60});
    EXPECT_EQ(r.exitCode, 2) << line << ": " << r.stderrText;
    EXPECT_EQ(r.stderrText.rfind("error: ", 0), 0u) << line << ": " << r.stderrText;
    EXPECT_NE(r.stderrText.find(needle), std::string::npos) << line << ": " << r.stderrText;
}

/// sent = delivered + dropped + in flight, and dropped = sum of the reasons, in \p j.
void
ExpectAccounting(const json& j, const std::string& where)
{
    ASSERT_TRUE(j.contains("sent_packets") && j.contains("delivered_packets")
                && j.contains("dropped_packets") && j.contains("dropped_by_reason")
                && j.contains("in_flight_at_stop") && j.contains("stopped_at_horizon"))
        << where << ": " << j.dump();
    uint64_t reasons = 0;
    for (const auto& [k, v] : j["dropped_by_reason"].items())
    {
        reasons += v.get<uint64_t>();
    }
    EXPECT_EQ(reasons, j["dropped_packets"].get<uint64_t>()) << where;
    EXPECT_EQ(j["sent_packets"].get<uint64_t>(),
              j["delivered_packets"].get<uint64_t>() + j["dropped_packets"].get<uint64_t>()
                  + j["in_flight_at_stop"].get<uint64_t>())
        << where;
    if (j.contains("in_flight_measured"))
    {
        // Counted in queues and on links, not derived: a vanished packet shows here.
        EXPECT_EQ(j["in_flight_measured"].get<int64_t>(), j["in_flight_at_stop"].get<int64_t>())
            << where;
        EXPECT_EQ(j.value("accounting_closed", false), true) << where;
    }
    EXPECT_GT(j["sent_packets"].get<uint64_t>(), 0u) << where;
}

/// A small logical topology file for ocs-configure.
std::string
TriangleFile(const std::string& dir)
{
    const std::string path = dir + "/l.txt";
    std::ofstream(path) << "3\n0 1 1\n1 0 1\n1 1 0\n";
    return path;
}

} // namespace

// Point 1: --out reaches no shell and no gnuplot command; paths with spaces and quotes work.
TEST(Hardening, OutputFolderIsNeverACommand)
{
    const std::string cwd = TempDir("inject", true);
    const std::vector<std::string> outs = {
        cwd + "/';touch${IFS}pwned;echo${IFS}'",
        cwd + "/x\"; system(\"touch pwned2\"); print \"",
        cwd + "/sp ace/with space",
        cwd + "/$(touch pwned3)",
    };
    for (const auto& out : outs)
    {
        const RunResult r
            = RunArgs({"ecmp-collision", "--seeds=1", "--bytes=200000", "--out=" + out},
                      RunOptions{120, {}, cwd});
        ASSERT_EQ(r.exitCode, 0) << out << ": " << r.stderrText;
        EXPECT_TRUE(std::filesystem::exists(out + "/summary.json")) << out;
        EXPECT_TRUE(std::filesystem::exists(out + "/throughput-colliding-seed.plt")) << out;
        if (std::filesystem::exists("/usr/bin/gnuplot"))
        {
            EXPECT_TRUE(std::filesystem::exists(out + "/throughput-colliding-seed.png")) << out;
        }
    }
    for (const std::string p : {"pwned", "pwned2", "pwned3"})
    {
        EXPECT_FALSE(std::filesystem::exists(cwd + "/" + p)) << p;
        EXPECT_FALSE(std::filesystem::exists(p)) << p;
    }
    // No temporary file is left in the output folder.
    for (const auto& e : std::filesystem::recursive_directory_iterator(cwd))
    {
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
    }
    std::filesystem::remove_all(cwd);
}

// Point 2: aborts become "error:" with exit code 2, checked before the run.
TEST(Hardening, NoAborts)
{
    const std::string out = "--out=" + TempDir("aborts");
    ExpectError({"zcube-vs-roft", "--PrintAttributes=ns3::NoSuchType"}, "not a known ns-3 TypeId");
    ExpectError({"zcube-vs-roft", "--SchedulerType=ns3::Object", out}, "not a ns3::Scheduler");
    ExpectError({"zcube-vs-roft", "--SimulatorImplementationType=ns3::Object", out},
                "ns3::SimulatorImpl");
    ExpectError({"bench-packet-rate", "--scheduler=ns3::Object", out}, "not a ns3::Scheduler");
    ExpectError({"bench-packet-rate", "--schedulers=ns3::MapScheduler,ns3::Object", out},
                "not a ns3::Scheduler");
    ExpectError({"bench-packet-rate", "--scheduler=ns3::DropTailQueue<Packet>", out},
                "--scheduler");
    ExpectError({"bench-packet-rate", "--scheduler=ns3::Scheduler", out}, "no constructor");
    ExpectError({"ecmp-collision", "--ns3::RoceSender::PacketSize=9000", out}, "MTU");
    ExpectError({"ecmp-collision", "--ns3::EcnMarker::KminTime=50us", out},
                "must not exceed --ns3::EcnMarker::KmaxTime");
    ExpectError({"ecmp-collision", "--ns3::RoceSender::RateControl=ns3::Object", out},
                "not a ns3::RoceRateControl");
    ExpectError({"ecmp-collision", "--ns3::RoceSender::RtoHigh=1e300s", out}, "RtoHigh");
    // What is valid still works.
    // A TypeId is known only in a program whose libraries define it: ecmp-collision runs RoCE
    // (libroce is loaded); zcube-vs-roft does not use it, so there it is a clean error.
    EXPECT_EQ(RunArgs({"ecmp-collision", "--PrintAttributes=ns3::RoceSender"}).exitCode, 0);
#ifndef __SANITIZE_ADDRESS__
    // A sanitized link keeps every library on the link line (instrumented objects defeat
    // --as-needed), so there zcube-vs-roft loads libroce and knows the type.
    ExpectError({"zcube-vs-roft", "--PrintAttributes=ns3::RoceSender"}, "not a known ns-3 TypeId");
#endif
    EXPECT_EQ(RunArgs({"zcube-one-flow", "--SchedulerType=ns3::HeapScheduler"}).exitCode, 0);
    EXPECT_FALSE(std::filesystem::exists(out.substr(6)));
}

// Point 3: every time flag takes fractions exactly (sweep), and finer than the resolution is
// an error.
TEST(Hardening, FractionalTimesAreExact)
{
    {
        const std::string dir = TempDir("t-ecmp");
        const RunResult r = RunArgs({"ecmp-collision",
                                     "--seeds=1",
                                     "--bytes=400000",
                                     "--bin-us=1.5",
                                     "--stop-ms=0.25",
                                     "--out=" + dir});
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        const json s = ReadJson(dir + "/summary.json");
        EXPECT_DOUBLE_EQ(s["params"]["bin_us"].get<double>(), 1.5);
        EXPECT_DOUBLE_EQ(s["params"]["stop_ms"].get<double>(), 0.25);
        // Bins are 1.5 us wide: centres 0.75, 2.25, ...; throughput at most the line rate.
        std::ifstream in(dir + "/throughput-series.csv");
        std::string line;
        std::getline(in, line);
        int rows = 0;
        while (std::getline(in, line))
        {
            const auto c1 = line.find(',', line.find(',', line.find(',') + 1) + 1);
            const auto c2 = line.find(',', c1 + 1);
            const double t = std::stod(line.substr(c1 + 1, c2 - c1 - 1));
            const double gbps = std::stod(line.substr(c2 + 1));
            EXPECT_NEAR(std::fmod(t - 0.75, 1.5), 0.0, 1e-9) << line;
            EXPECT_LE(gbps, 400 * 1.001) << line;
            ++rows;
        }
        EXPECT_GT(rows, 0);
        std::filesystem::remove_all(dir);
    }
    {
        // A bin under 5 us still samples the queue (it was a zero interval).
        const std::string dir = TempDir("t-ecmp2");
        const RunResult r = RunArgs(
            {"ecmp-collision", "--seeds=1", "--bytes=400000", "--bin-us=0.5", "--out=" + dir});
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        std::ifstream in(dir + "/shared-link-queue.csv");
        int lines = 0;
        for (std::string l; std::getline(in, l);)
        {
            ++lines;
        }
        EXPECT_GT(lines, 10);
        std::filesystem::remove_all(dir);
    }
    {
        const std::string dir = TempDir("t-rng");
        const RunResult r = RunArgs({"rng-vs-fattree",
                                     "--n=8",
                                     "--d=4",
                                     "--s=1",
                                     "--routings=ecmp",
                                     "--patterns=permutation",
                                     "--perm-bytes=20000",
                                     "--stop-ms=0.5",
                                     "--blackhole-us=1.5",
                                     "--blast=false",
                                     "--out=" + dir});
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        const json s = ReadJson(dir + "/summary.json");
        EXPECT_DOUBLE_EQ(s["params"]["stop_ms"].get<double>(), 0.5);
        EXPECT_DOUBLE_EQ(s["params"]["blackhole_us"].get<double>(), 1.5);
        std::filesystem::remove_all(dir);
    }
    {
        const std::string dir = TempDir("t-bench");
        const RunResult r = RunArgs({"bench-packet-rate",
                                     "--n=8",
                                     "--k=4",
                                     "--sim-us=2.5",
                                     "--build-n=0",
                                     "--repeat=1",
                                     "--roce=false",
                                     "--variants=fast",
                                     "--out=" + dir});
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        const json s = ReadJson(dir + "/summary.json");
        EXPECT_DOUBLE_EQ(s["params"]["sim_us"].get<double>(), 2.5);
        std::filesystem::remove_all(dir);
    }
    {
        // Wall-clock limits are plain numbers of ms, kept as given.
        const std::string dir = TempDir("t-toe");
        const RunResult r = RunArgs({"ocs-toe",
                                     "--gpus=256",
                                     "--job-sizes=64",
                                     "--steps=2",
                                     "--algorithms=exact,dfs",
                                     "--wirings=cross",
                                     "--dfs-time-limit-ms=0.5",
                                     "--ilp-time-limit-ms=1.5",
                                     "--out=" + dir});
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        const json s = ReadJson(dir + "/summary.json");
        EXPECT_DOUBLE_EQ(s["params"]["dfs_time_limit_ms"].get<double>(), 0.5);
        EXPECT_DOUBLE_EQ(s["params"]["ilp_time_limit_ms"].get<double>(), 1.5);
        std::filesystem::remove_all(dir);
    }
    const std::string out = "--out=" + TempDir("t-bad");
    ExpectError({"ecmp-collision", "--stop-ms=0.0000000001", out}, "finer than");
    ExpectError({"rng-vs-fattree", "--stop-ms=1e-3", out}, "plain decimal number");
    ExpectError({"rng-vs-fattree", "--blackhole-us=0.5", out}, "out of range [1, 1e+09]");
    ExpectError({"bench-packet-rate", "--sim-us=-1", out}, "plain decimal number");
    ExpectError({"ecmp-collision", "--bin-us=0.001", out}, "out of range");
}

// Points 4 and 5: trailing garbage and empty values, for every flag of every program.
TEST(Hardening, TrailingGarbageAndEmptyValues)
{
    const std::string out = "--out=" + TempDir("garbage");
    ExpectError({"zcube-vs-roft", "--n=32 junk", out}, "--n='32 junk' must be an integer");
    ExpectError({"zcube-vs-roft", "--prefill-fraction=0.5 x", out}, "must be a number");
    ExpectError({"zcube-vs-roft", "--level=analytic junk", out}, "analytic|packet|both");
    const std::vector<std::pair<std::string, std::vector<std::string>>> programs = {
        {"zcube-vs-roft",
         {"n",
          "k",
          "spines",
          "attachment",
          "pattern",
          "prefill-fraction",
          "elephants",
          "pattern-seed",
          "seeds",
          "seed",
          "mix-switch-id",
          "level",
          "packet-seeds",
          "packet-bytes",
          "packet-host-bytes",
          "packet-size",
          "link-rate-gbps",
          "switch-mode",
          "out"}},
        {"zcube-one-flow", {"n", "k", "src", "dst", "bytes"}},
        {"ecmp-collision",
         {"n",
          "k",
          "spines",
          "leaf-pairs",
          "flows-per-pair",
          "bytes",
          "seeds",
          "seed",
          "link-rate-gbps",
          "queue-bytes",
          "rate-control",
          "bin-us",
          "stop-ms",
          "out"}},
        {"bench-packet-rate",
         {"n",
          "k",
          "sim-us",
          "variants",
          "build-n",
          "build-k",
          "scheduler",
          "repeat",
          "roce-rounds",
          "roce",
          "out"}},
        {"rng-models", {"n", "d", "p", "h", "seed", "dests", "pairs", "p-compare", "out"}},
        {"rng-vs-fattree",
         {"n",
          "d",
          "s",
          "p",
          "h",
          "k",
          "seed",
          "perm-bytes",
          "a2a-bytes",
          "a2a-steps",
          "link-rate-gbps",
          "rate-control",
          "stop-ms",
          "blackhole-us",
          "routings",
          "patterns",
          "blast",
          "full",
          "out"}},
        {"bench-rng-tables", {"sizes", "p", "h", "seed", "out"}},
        {"ocs-toe",
         {"gpus",
          "full",
          "steps",
          "ports",
          "gpus-per-eg",
          "churn",
          "job-sizes",
          "ring-weight",
          "fill-idle",
          "wirings",
          "algorithms",
          "dfs-time-limit-ms",
          "ilp-time-limit-ms",
          "ilp-steps",
          "seed",
          "out"}},
        {"ocs-configure",
         {"wiring",
          "egs",
          "ports",
          "logical",
          "algorithm",
          "time-limit-ms",
          "physical-out",
          "out",
          "rewire-out"}},
        {"bench-ocs-config",
         {"gpus", "steps", "repeats", "ports", "gpus-per-eg", "baselines", "seed", "out"}},
    };
    int cases = 0;
    for (const auto& [prog, flags] : programs)
    {
        for (const auto& f : flags)
        {
            ExpectError({prog, "--" + f + "="}, "--" + f + " needs a value");
            ++cases;
        }
    }
    EXPECT_GT(cases, 100);
    EXPECT_FALSE(std::filesystem::exists(out.substr(6)));
}

// Point 6: hopeless sizes are refused before allocating, naming the parameters.
TEST(Hardening, HugeSizesAreRefused)
{
    const std::string out = "--out=" + TempDir("huge");
    ExpectError({"zcube-vs-roft", "--n=65536", "--k=256", out}, "--n=65536 --k=256");
    ExpectError({"rng-models", "--n=100000", "--d=2000", out}, "--n=100000 --d=2000");
    ExpectError({"bench-packet-rate", "--n=16384", "--k=128", out}, "--n=16384");
    ExpectError({"ocs-toe", "--gpus=1048576", "--gpus-per-eg=1", out}, "--gpus=1048576");
    ExpectError({"bench-ocs-config", "--gpus=1048576", "--gpus-per-eg=1", out}, "--gpus=1048576");
    ExpectError({"bench-rng-tables", "--sizes=100000:64", out}, "--sizes entry '100000:64'");
    // The budget follows the machine, lowered by AIFABRIC_MEMORY_LIMIT_MB or ulimit -v.
    RunOptions small{60, {{"AIFABRIC_MEMORY_LIMIT_MB", "200"}}};
    RunResult r
        = RunArgs({"rng-vs-fattree", "--n=4096", "--d=1000", "--s=64", "--a2a-steps=8", out},
                  RunOptions{60, {{"AIFABRIC_MEMORY_LIMIT_MB", "4000"}}});
    EXPECT_TRUE(IsCleanError(r)) << r.stderrText;
    EXPECT_NE(r.stderrText.find("--n=4096 --d=1000 --s=64 would need about 12"), std::string::npos)
        << r.stderrText;
    r = RunArgs({"zcube-one-flow", "--n=16384", "--k=128"}, small);
    EXPECT_TRUE(IsCleanError(r)) << r.stderrText;
    EXPECT_NE(r.stderrText.find("--n=16384 would need about"), std::string::npos) << r.stderrText;
#ifndef __SANITIZE_ADDRESS__
    // AddressSanitizer reserves terabytes of shadow address space at start-up, so under a
    // 1 GiB ulimit -v a sanitized program cannot even start; the refusal is checked unsanitized.
    RunOptions limited;
    limited.addressSpaceLimitBytes = uint64_t(1) << 30;
    r = RunArgs({"zcube-one-flow", "--n=65536", "--k=256"}, limited);
    EXPECT_TRUE(IsCleanError(r)) << r.exitCode << " " << r.stderrText;
#endif
    // Time: hopeless sizes are refused too.
    RunOptions shortLimit{60, {{"AIFABRIC_TIME_LIMIT_S", "10"}}};
    r = RunArgs({"rng-models", "--n=4000", "--d=64", out}, shortLimit);
    EXPECT_TRUE(IsCleanError(r)) << r.stderrText;
    EXPECT_NE(r.stderrText.find("would run for about"), std::string::npos) << r.stderrText;
    r = RunArgs({"ecmp-collision", "--seeds=10000", "--bytes=1000000000", out}, RunOptions{60});
    EXPECT_TRUE(IsCleanError(r)) << r.stderrText;
    EXPECT_NE(r.stderrText.find("--seeds=10000 --bytes=1000000000"), std::string::npos)
        << r.stderrText;
    EXPECT_NE(r.stderrText.find("would run for about"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(out.substr(6)));
}

// Point 6 for the programs added since: a hopeless size is refused before anything runs or
// is written, with an error naming the flags (default limits: AIFABRIC_TIME_LIMIT_S unset,
// memory pinned so that the outcome does not depend on the machine).
TEST(Hardening, HugeSizesAreRefusedInNewPrograms)
{
    const std::string dir = TempDir("huge-new");
    const std::string out = "--out=" + dir;
    const RunOptions opt{60, {{"AIFABRIC_MEMORY_LIMIT_MB", "4000"}}};
    auto expectRefused = [&](const std::vector<std::string>& args, const std::string& needle)
    {
        const RunResult r = RunArgs(args, opt);
        EXPECT_TRUE(IsCleanError(r)) << args[0] << ": " << r.exitCode << " " << r.stderrText;
        EXPECT_NE(r.stderrText.find(needle), std::string::npos) << args[0] << ": " << r.stderrText;
        EXPECT_LT(r.seconds, 20.0) << args[0];
        EXPECT_FALSE(std::filesystem::exists(dir)) << args[0] << " wrote its output folder";
    };
    expectRefused({"lossless", "--bytes=4294967296", "--stop-ms=100000", out},
                  "--bytes=4294967296");
    expectRefused({"ocs-reconfig", "--egs=64", "--ports=16", "--hosts-per-eg=16", out},
                  "--egs=64 --ports=16 --hosts-per-eg=16");
    expectRefused({"failover", "--n=256", "--k=16", "--hold-us=1000000", "--gap-us=1000000", out},
                  "--n=256");
    expectRefused({"dcqcn-profiles",
                   "--rates-gbps=400,400,400,400,400,400,400,400,400,400,400,400",
                   "--horizon-ms=10000",
                   "--sample-us=0.1",
                   out},
                  "would run for about");
    expectRefused({"packet-vs-flow", "--fabric=zcube", "--n=65536", "--k=4", out},
                  "--n=65536 --k=4");
    expectRefused({"flow-scale", "--parts=C", "--seeds=100000", out}, "--seeds=100000");
    expectRefused({"bench-flow", "--random-flows=10000000", out}, "--random-flows=10000000");
}

// Point 7: write errors are errors; nothing partial is left behind.
TEST(Hardening, WritesAreCheckedAndAtomic)
{
    const std::string dir = TempDir("writes", true);
    const std::string l = TriangleFile(dir);
    const std::vector<std::string> base
        = {"ocs-configure", "--wiring=cross", "--egs=3", "--ports=2", "--logical=" + l};
    auto with = [&](std::vector<std::string> extra)
    {
        auto a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    // A full disk (here: a file size limit, as /dev/full may be missing in a container):
    // an error, and no file at all.
    RunOptions full;
    full.fileSizeLimitBytes = 100;
    RunResult r
        = RunArgs(with({"--physical-out=" + dir + "/p.json", "--out=" + dir + "/c.json"}), full);
    EXPECT_TRUE(IsCleanError(r)) << r.exitCode << " " << r.stderrText;
    EXPECT_NE(r.stderrText.find("cannot write --"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir + "/p.json"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/c.json"));
    if (std::filesystem::is_character_file("/dev/full"))
    {
        ExpectError(with({"--physical-out=" + dir + "/p.json", "--out=/dev/full"}),
                    "--out=/dev/full");
        EXPECT_FALSE(std::filesystem::exists(dir + "/p.json"));
    }
    // A scenario whose CSV or JSON cannot be written exits with 2, leaving no partial file.
    const std::string sdir = dir + "/scenario";
    r = RunArgs(
        {"zcube-vs-roft", "--level=analytic", "--n=16", "--k=4", "--seeds=50", "--out=" + sdir},
        full);
    EXPECT_TRUE(IsCleanError(r)) << r.exitCode << " " << r.stderrText;
    EXPECT_NE(r.stderrText.find("cannot write"), std::string::npos) << r.stderrText;
    for (const auto& e : std::filesystem::directory_iterator(sdir))
    {
        EXPECT_LE(std::filesystem::file_size(e.path()), 100u) << e.path();
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
    }
    ExpectError(with({"--physical-out=" + dir + "/p.json", "--out=" + dir + "/no/such/c.json"}),
                "cannot write --out=");
    EXPECT_FALSE(std::filesystem::exists(dir + "/p.json"));
    // --rewire-out is computed (and fails: odd --ports) before anything is written.
    const std::string l1 = dir + "/l1.txt";
    std::ofstream(l1) << "2\n0 1\n1 0\n";
    ExpectError({"ocs-configure",
                 "--wiring=single",
                 "--egs=2",
                 "--ports=1",
                 "--logical=" + l1,
                 "--physical-out=" + dir + "/p.json",
                 "--out=" + dir + "/c.json",
                 "--rewire-out=" + dir + "/r.json"},
                "");
    EXPECT_FALSE(std::filesystem::exists(dir + "/p.json"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/c.json"));
    ExpectError(with({"--physical-out=" + dir + "/same.json", "--out=" + dir + "/same.json"}),
                "name the same file");
    const RunResult ok
        = RunArgs(with({"--physical-out=" + dir + "/p q.json", "--out=" + dir + "/c.json"}));
    EXPECT_EQ(ok.exitCode, 0) << ok.stderrText;
    EXPECT_TRUE(std::filesystem::exists(dir + "/p q.json"));
    // A scenario whose results folder cannot be written.
    ExpectError(
        {"zcube-vs-roft", "--level=analytic", "--n=16", "--k=4", "--seeds=2", "--out=/dev/null/x"},
        "cannot create output folder");
    std::filesystem::remove_all(dir);
}

// Point 8: results that cannot be right.
TEST(Hardening, ResultsThatCannotBeWrong)
{
    // 100 Tb/s: with picosecond resolution no flow beats its ideal FCT.
    const std::string dir = TempDir("fast");
    RunResult r = RunArgs({"ecmp-collision",
                           "--seeds=1",
                           "--bytes=2000000",
                           "--link-rate-gbps=100000",
                           "--queue-bytes=100000000",
                           "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    json s = ReadJson(dir + "/summary.json");
    for (const auto& run : s["runs"])
    {
        for (const auto& f : run["flows"])
        {
            EXPECT_GE(f["slowdown"].get<double>(), 0.999) << f.dump();
        }
    }
    std::filesystem::remove_all(dir);
    // Small packets at 100 Tb/s cannot be timed: refused, naming the rate.
    ExpectError({"zcube-vs-roft", "--link-rate-gbps=100000", "--packet-size=64", "--out=" + dir},
                "--link-rate-gbps is too fast");
    // A horizon that cuts the runs short warns and says so in the summary.
    r = RunArgs(
        {"ecmp-collision", "--seeds=1", "--bytes=20000000", "--stop-ms=0.05", "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("warning:"), std::string::npos) << r.stderrText;
    s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["incomplete_runs"], 2);
    for (const auto& run : s["runs"])
    {
        EXPECT_FALSE(run["all_complete"].get<bool>());
        EXPECT_TRUE(run["stopped_at_horizon"].get<bool>());
        EXPECT_GT(run["in_flight_at_stop"].get<uint64_t>(), 0u);
        ExpectAccounting(run, "horizon run");
    }
    EXPECT_NE(ReadText(dir + "/flows.csv").find("incomplete"), std::string::npos);
    std::filesystem::remove_all(dir);
    // Seeds >= 2^31 are reported as given.
    r = RunArgs(
        {"ecmp-collision", "--seeds=2", "--seed=3000000000", "--bytes=400000", "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    s = ReadJson(dir + "/summary.json");
    EXPECT_EQ(s["runs"][1]["seed"].get<uint64_t>(), 3000000000u);
    if (s.contains("plotted_seed"))
    {
        EXPECT_GE(s["plotted_seed"].get<uint64_t>(), 3000000000u);
    }
    std::filesystem::remove_all(dir);
}

// Point 9: every packet-level summary proves its accounting.
TEST(Hardening, EveryPacketSummaryAccountsForEveryPacket)
{
    const std::string dir = TempDir("acct");
    RunResult r = RunArgs({"zcube-vs-roft",
                           "--n=16",
                           "--k=4",
                           "--seeds=2",
                           "--level=both",
                           "--pattern=allreduce,permutation",
                           "--packet-host-bytes=100000",
                           "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    json s = ReadJson(dir + "/summary.json");
    for (const auto& [name, pj] : s["patterns"].items())
    {
        for (const std::string fabric : {"zcube", "roft"})
        {
            ExpectAccounting(pj[fabric]["packet"][0]["unsaturated"], name + fabric);
            ExpectAccounting(pj[fabric]["packet"][0]["full_load"], name + fabric);
        }
    }
    r = RunArgs({"ecmp-collision", "--seeds=1", "--bytes=400000", "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    s = ReadJson(dir + "/summary.json");
    for (const auto& run : s["runs"])
    {
        ExpectAccounting(run, "ecmp-collision");
        EXPECT_EQ(run["in_flight_at_stop"], 0);
    }
    r = RunArgs({"rng-vs-fattree",
                 "--n=8",
                 "--d=4",
                 "--s=1",
                 "--routings=ecmp",
                 "--patterns=permutation",
                 "--perm-bytes=20000",
                 "--blast=false",
                 "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    s = ReadJson(dir + "/summary.json");
    int checked = 0;
    std::function<void(const json&)> walk = [&](const json& j)
    {
        if (j.is_object() && j.contains("sent_packets"))
        {
            ExpectAccounting(j, "rng-vs-fattree");
            ++checked;
        }
        if (j.is_structured())
        {
            for (const auto& c : j)
            {
                walk(c);
            }
        }
    };
    walk(s);
    EXPECT_GT(checked, 0);
    r = RunArgs({"bench-packet-rate",
                 "--n=8",
                 "--k=4",
                 "--sim-us=3",
                 "--build-n=0",
                 "--repeat=1",
                 "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    s = ReadJson(dir + "/summary.json");
    for (const std::string v : {"fast", "ipv4", "global"})
    {
        ExpectAccounting(s["variants"][v]["accounting"], v);
        EXPECT_TRUE(s["variants"][v]["accounting"]["stopped_at_horizon"].get<bool>());
    }
    for (const auto& [fabric, pats] : s["roce"].items())
    {
        for (const auto& [pat, j] : pats.items())
        {
            ExpectAccounting(j["udp_accounting"], fabric + pat);
            ExpectAccounting(j["roce_accounting"], fabric + pat);
        }
    }
    std::filesystem::remove_all(dir);
}

// Every program that writes a summary.json records its own flags and the --ns3:: attribute
// defaults and ns-3 global values of its command line (FabricResults::WriteSummary). The overrides given are
// the defaults (EcnMarker Pmax 0.2, RngRun 1), so each run is the program's own small run.
TEST(Hardening, EveryProgramRecordsItsNs3Overrides)
{
    const std::string dir = TempDir("overrides");
    const std::vector<std::vector<std::string>> runs{
        {"zcube-vs-roft", "--n=4", "--k=2", "--pattern=allreduce", "--seeds=2", "--level=analytic"},
        {"ecmp-collision", "--n=8", "--k=4", "--leaf-pairs=1", "--seeds=1", "--bytes=100000"},
        {"rng-vs-fattree",
         "--n=8",
         "--d=4",
         "--s=1",
         "--routings=ecmp",
         "--patterns=permutation",
         "--perm-bytes=20000",
         "--blast=false"},
        {"rng-models", "--n=40", "--d=6", "--dests=5", "--pairs=2", "--p-compare=0"},
        {"packet-vs-flow", "--n=8", "--k=4", "--s=2", "--bytes=65536", "--worst=3"},
        {"lossless",
         "--n=16",
         "--k=4",
         "--spines=4",
         "--senders=4",
         "--victims=1",
         "--bytes=65536",
         "--victim-bytes=65536",
         "--ring-bytes=200000"},
        {"failover",
         "--fabric=zcube",
         "--n=12",
         "--k=4",
         "--controller-latency-us=200",
         "--sweep-latency-us=none"},
        {"ocs-reconfig",
         "--egs=6",
         "--ports=4",
         "--hosts-per-eg=1",
         "--steps=2",
         "--sweep=false",
         "--policy=drop"},
        {"ocs-toe", "--gpus=1024", "--steps=2", "--algorithms=greedy", "--wirings=uniform"},
        {"flow-scale", "--parts=C", "--seeds=1"},
        {"dcqcn-profiles", "--rates-gbps=100", "--horizon-ms=1"},
        {"bench-ocs-config", "--gpus=1024", "--steps=2", "--repeats=1", "--baselines=false"},
        {"bench-rng-tables", "--sizes=40:6"},
        {"bench-flow",
         "--random-flows=200",
         "--big-n=64",
         "--big-k=8",
         "--allreduce-mb=1",
         "--skip-16k=true",
         "--skip-packet=true"}};
    for (auto args : runs)
    {
        const std::string program = args[0];
        json flags = json::object();
        for (size_t i = 1; i < args.size(); ++i)
        {
            const size_t eq = args[i].find('=');
            flags[args[i].substr(2, eq - 2)] = args[i].substr(eq + 1);
        }
        args.push_back("--ns3::EcnMarker::Pmax=0.2");
        args.push_back("--RngRun=1");
        args.push_back("--out=" + dir + "/" + program);
        const RunResult r = RunArgs(args, RunOptions{120});
        ASSERT_EQ(r.exitCode, 0) << program << ": " << r.stderrText;
        const json s = ReadJson(dir + "/" + program + "/summary.json");
        EXPECT_EQ(s.value("ns3_overrides", json()),
                  (json{{"ns3::EcnMarker::Pmax", "0.2"}, {"RngRun", "1"}}))
            << program;
        // ... and its own flags as given, without --out.
        EXPECT_EQ(s.value("program_flags", json()), flags) << program;
    }
    std::filesystem::remove_all(dir);
}

// A failure time that is a whole number of picoseconds is accepted as given: 300us was refused
// because ns-3's Time("300us") goes through a double and truncates to 299999999 ps.
TEST(Hardening, FailureTimesAreWholeTicks)
{
    const std::string dir = TempDir("failtimes");
    const std::string spec = "link:0@50us,repair:link:0@300us,link:1@1.7ms";
    const RunResult r = RunArgs({"ecmp-collision",
                                 "--n=8",
                                 "--k=4",
                                 "--leaf-pairs=1",
                                 "--seeds=1",
                                 "--bytes=100000",
                                 "--fail=" + spec,
                                 "--out=" + dir});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadJson(dir + "/summary.json")["params"]["fail"], spec);
    ExpectError({"ecmp-collision", "--fail=link:0@0.5ps", "--out=" + dir},
                "whole number of the simulator's resolution (1e-12 s)");
    std::filesystem::remove_all(dir);
}

// Point 10: the smaller items.
TEST(Hardening, SmallerItems)
{
    // A standard output closed early (| head) does not stop the results.
    const std::string dir = TempDir("pipe");
    RunOptions closed;
    closed.closeStdoutEarly = true;
    RunResult r = RunArgs(
        {"zcube-vs-roft", "--n=16", "--k=4", "--seeds=3", "--level=analytic", "--out=" + dir},
        closed);
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_TRUE(std::filesystem::exists(dir + "/summary.json"));
    std::filesystem::remove_all(dir);
    const std::string out = "--out=" + TempDir("small");
    ExpectError({"zcube-vs-roft", "--seeds=2", "--packet-seeds=5", out},
                "--packet-seeds=5 exceeds --seeds=2");
    ExpectError({"rng-vs-fattree", "--full", "--n=8", out}, "do not also give --n");
    ExpectError({"ocs-toe", "--wirings=uniform", "--algorithms=exact", out}, "runs nothing");
    // Set is set, whatever the text: --gpus equal to its default still conflicts with --full.
    ExpectError({"ocs-toe", "--full", "--gpus=2048,4096", out}, "--full sets --gpus");
    // An error never blames a flag the user did not give.
    ExpectError({"zcube-vs-roft", "--n=4", "--k=2", out}, "the default --elephants=8");
    r = RunArgs({"zcube-vs-roft",
                 "--n=4",
                 "--k=2",
                 "--pattern=allreduce",
                 "--seeds=2",
                 "--level=analytic",
                 "--out=" + dir});
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    std::filesystem::remove_all(dir);
    // An attribute the program sets per run is refused, not silently overridden; the
    // summary records the --ns3:: values that did apply.
    ExpectError({"ecmp-collision", "--ns3::EcmpRouting::Seed=7", out}, "use --seed and --seeds");
    ExpectError({"zcube-vs-roft", "--ns3::ZCubeRouting::Seed=7", out}, "use --seed and --seeds");
    ExpectError({"zcube-vs-roft", "--ns3::EcmpRouting::MixSwitchId=false", out},
                "use --mix-switch-id");
    r = RunArgs({"zcube-vs-roft",
                 "--n=4",
                 "--k=2",
                 "--pattern=allreduce",
                 "--seeds=2",
                 "--level=analytic",
                 "--ns3::EcnMarker::Pmax=0.5",
                 "--out=" + dir});
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    {
        std::ifstream in(dir + "/summary.json");
        const json s = json::parse(in);
        EXPECT_EQ(s["ns3_overrides"], (json{{"ns3::EcnMarker::Pmax", "0.5"}}));
    }
    std::filesystem::remove_all(dir);
    // Exclusive bounds print as such, compactly.
    ExpectError({"zcube-vs-roft", "--prefill-fraction=1", out}, "out of range (0, 1)");
    // ocs-configure: a 50 MB token is not echoed, /dev/zero is refused at once.
    const std::string fdir = TempDir("tokens", true);
    const std::string big = fdir + "/big.txt";
    {
        std::ofstream f(big);
        f << "3\n" << std::string(50 * 1000 * 1000, '7') << "\n";
    }
    for (const std::string& input : {big, std::string("/dev/zero")})
    {
        r = RunArgs({"ocs-configure",
                     "--egs=3",
                     "--ports=2",
                     "--logical=" + input,
                     "--physical-out=" + fdir + "/p.json",
                     "--out=" + fdir + "/c.json"},
                    RunOptions{20});
        EXPECT_TRUE(IsCleanError(r)) << input << ": " << r.stderrText.substr(0, 300);
        EXPECT_LT(r.stderrText.size(), 400u) << input;
        EXPECT_LT(r.seconds, 5.0) << input;
    }
    std::filesystem::remove_all(fdir);
    EXPECT_FALSE(std::filesystem::exists(out.substr(6)));
}

// Issues 11 and 15: rng-vs-fattree --level=flow refuses hopeless sizes by its measured
// estimate (building the study grows as n^2 d^2, the fluid split as flows x n x d), before
// anything is built or written, naming the flags that drive it.
TEST(Hardening, RngVsFatTreeFlowLevelRefusesHopelessSizes)
{
    const std::string dir = TempDir("huge-rng-flow");
    const std::string out = "--out=" + dir;
    auto expectRefused = [&](const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& env,
                             const std::vector<std::string>& needles)
    {
        const RunResult r = RunArgs(args, RunOptions{60, env});
        EXPECT_TRUE(IsCleanError(r)) << r.exitCode << " " << r.stderrText;
        for (const auto& needle : needles)
        {
            EXPECT_NE(r.stderrText.find(needle), std::string::npos) << r.stderrText;
        }
        EXPECT_LT(r.seconds, 20.0) << r.stderrText;
        EXPECT_FALSE(std::filesystem::exists(dir)) << "wrote its output folder";
    };
    // Memory: the largest sizes the flags allow.
    expectRefused({"rng-vs-fattree",
                   "--level=flow",
                   "--n=4096",
                   "--d=1000",
                   "--s=64",
                   "--patterns=permutation",
                   "--a2a-steps=8",
                   out},
                  {{"AIFABRIC_MEMORY_LIMIT_MB", "4000"}},
                  {"--n=4096 --d=1000 --s=64 --level=flow --patterns=permutation --fluid=true "
                   "would need about"});
    // All N-1 all-to-all steps at 16000 servers are 256 M flows.
    expectRefused({"rng-vs-fattree", "--level=flow", "--n=1000", "--d=64", "--s=16", out},
                  {},
                  {"--n=1000 --d=64 --s=16 --level=flow --patterns=permutation,all-to-all "
                   "--a2a-steps=0 --fluid=true"});
    // Time: a size that fits in memory but not in a 5 s limit (about 17 s estimated).
    expectRefused({"rng-vs-fattree",
                   "--level=flow",
                   "--n=500",
                   "--d=32",
                   "--s=8",
                   "--patterns=permutation",
                   out},
                  {{"AIFABRIC_TIME_LIMIT_S", "5"}},
                  {"--n=500 --d=32 --s=8 --level=flow --patterns=permutation --fluid=true",
                   "would run for about"});
}
