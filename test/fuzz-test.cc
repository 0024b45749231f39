// SPDX-License-Identifier: GPL-2.0-only
// Fuzzers (issue 15). The command-line fuzzer runs every program with a small valid base
// configuration and one to three random changes: a flag set to a value from a pool of
// hostile ones, an unknown or malformed argument, an ns-3 attribute or global value. Each
// case must end with exit code 0, or 2 and "error: ..." on standard error, within a time
// limit. The file fuzzer feeds ocs-configure mutated logical-topology files. Fixed seeds:
// a failure names its case and arguments, and reruns the same.
#include "program-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace programtest;

namespace
{

/// A program, a fast valid base configuration and its flags (name, default-ish value).
struct Program
{
    std::string name;
    std::vector<std::string> base; //!< without --out
    std::vector<std::string> flags;
    bool takesOut;
};

std::vector<Program>
Programs(const std::string& logical, const std::string& dir)
{
    return {
        {"zcube-vs-roft",
         {"--n=16", "--k=4", "--seeds=3", "--packet-host-bytes=40000"},
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
          "switch-mode"},
         true},
        {"zcube-one-flow", {"--bytes=100000"}, {"n", "k", "src", "dst", "bytes"}, false},
        {"ecmp-collision",
         {"--seeds=1", "--bytes=200000"},
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
          "stop-ms"},
         true},
        {"bench-packet-rate",
         {"--n=8", "--k=4", "--sim-us=2", "--build-n=0", "--repeat=1", "--roce=false"},
         {"n",
          "k",
          "sim-us",
          "variants",
          "build-n",
          "build-k",
          "scheduler",
          "schedulers",
          "repeat",
          "roce-rounds",
          "roce"},
         true},
        {"rng-models",
         {"--n=40", "--d=8", "--dests=10", "--pairs=2", "--p-compare=0"},
         {"n", "d", "p", "h", "seed", "dests", "pairs", "p-compare"},
         true},
        {"rng-vs-fattree",
         {"--n=8",
          "--d=4",
          "--s=1",
          "--routings=ecmp",
          "--patterns=permutation",
          "--perm-bytes=20000",
          "--blast=false"},
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
          "level",
          "graph",
          "rooms",
          "fluid"},
         true},
        {"bench-rng-tables", {"--sizes=60:8"}, {"sizes", "p", "h", "seed"}, true},
        {"ocs-toe",
         {"--gpus=256",
          "--job-sizes=64",
          "--steps=2",
          "--algorithms=exact,greedy",
          "--wirings=cross"},
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
          "seed"},
         true},
        {"ocs-configure",
         {"--egs=3",
          "--ports=2",
          "--logical=" + logical,
          "--physical-out=" + dir + "/p.json",
          "--out=" + dir + "/c.json"},
         {"wiring",
          "egs",
          "ports",
          "logical",
          "algorithm",
          "time-limit-ms",
          "physical-out",
          "out",
          "rewire-out"},
         false},
        {"bench-ocs-config",
         {"--gpus=256", "--steps=2", "--repeats=1"},
         {"gpus", "steps", "repeats", "ports", "gpus-per-eg", "baselines", "seed"},
         true},
        {"lossless",
         {"--n=48",
          "--k=8",
          "--spines=4",
          "--senders=8",
          "--victims=1",
          "--bytes=65536",
          "--victim-bytes=65536",
          "--dcqcn-bytes=65536",
          "--ring-bytes=200000",
          "--buffer-bytes=4000000",
          "--stop-ms=20"},
         {"n",
          "k",
          "spines",
          "senders",
          "victims",
          "bytes",
          "victim-bytes",
          "dcqcn-bytes",
          "dcqcn-lossy",
          "link-rate-gbps",
          "queue-bytes",
          "buffer-bytes",
          "alpha",
          "pause-mode",
          "ring-switches",
          "ring-bytes",
          "ring-xoff-bytes",
          "stop-ms"},
         true},
        {"ocs-reconfig",
         {"--wiring=cross",
          "--algorithm=exact",
          "--workload=moe",
          "--egs=4",
          "--ports=2",
          "--hosts-per-eg=1",
          "--steps=2",
          "--unit-kb=16",
          "--job-unit-kb=16",
          "--sweep=false"},
         {"wiring",
          "algorithm",
          "policy",
          "switching-us",
          "restoration-us",
          "solve-us",
          "overlap-us",
          "drain-timeout-us",
          "workload",
          "egs",
          "ports",
          "hosts-per-eg",
          "steps",
          "moe-k",
          "unit-kb",
          "job-unit-kb",
          "step-us",
          "bin-us",
          "sweep",
          "full",
          "seed"},
         true},
        {"failover",
         {"--fabric=zcube",
          "--n=12",
          "--k=4",
          "--controller-latency-us=100",
          "--rate-gbps=25",
          "--sweep-latency-us=none",
          "--sweep-bytes=100000"},
         {"fabric",
          "degree",
          "graph-seed",
          "n",
          "k",
          "pattern",
          "prefill-fraction",
          "detect-us",
          "controller-latency-us",
          "propagation-us",
          "compute-us",
          "bfd-interval-us",
          "bfd-multiplier",
          "rate-gbps",
          "hold-us",
          "gap-us",
          "bin-us",
          "sweep-latency-us",
          "sweep-bytes"},
         true},
        {"dcqcn-profiles",
         {"--rates-gbps=100", "--cuts=1", "--horizon-ms=2"},
         {"rates-gbps", "cuts", "cnp-interval-us", "horizon-ms", "sample-us"},
         true},
        {"packet-vs-flow",
         {"--fabric=zcube", "--n=8", "--k=4", "--pattern=allreduce", "--bytes=16384"},
         {"fabric",
          "n",
          "k",
          "s",
          "pattern",
          "flows",
          "bytes",
          "routing",
          "seed",
          "link-rate-gbps",
          "delay-us",
          "queue-bytes",
          "rate-control",
          "stop-ms",
          "worst"},
         true},
        {"flow-scale",
         {"--rng-n=16",
          "--rng-d=4",
          "--rng-s=2",
          "--perm-mb=1",
          "--gpus=32",
          "--k=8",
          "--allreduce-mb=1",
          "--kv-mb=1",
          "--seeds=1",
          "--fig2-mb=1"},
         {"full",
          "parts",
          "rng-n",
          "rng-d",
          "rng-s",
          "p",
          "h",
          "rooms",
          "perm-mb",
          "gpus",
          "k",
          "allreduce-mb",
          "kv-mb",
          "seeds",
          "recompute-us",
          "fig2-mb",
          "seed",
          "link-rate-gbps"},
         true},
        {"bench-flow",
         {"--random-flows=200",
          "--big-n=64",
          "--big-k=8",
          "--allreduce-mb=1",
          "--skip-packet=true"},
         {"random-flows",
          "load",
          "recompute-us",
          "big-n",
          "big-k",
          "allreduce-mb",
          "skip-16k",
          "skip-packet",
          "flow-repeat",
          "flow-only",
          "rows"},
         true},
    };
}

/// Hostile values: empty, signs, fractions, exponents, overflow, whitespace, garbage, quotes,
/// TypeIds, paths, a long string.
const std::vector<std::string>&
ValuePool()
{
    static const std::vector<std::string> pool = {
        "",
        "0",
        "1",
        "2",
        "3",
        "7",
        "64",
        "1000",
        "-1",
        "-0",
        "0.5",
        "1.5",
        "1e3",
        "1e-9",
        "1e400",
        "4294967296",
        "18446744073709551616",
        "99999999999999999999999",
        "nan",
        "inf",
        "0x10",
        "007",
        " 3",
        "3 ",
        "3 junk",
        "1,2",
        ",",
        "1,,2",
        "m",
        "true",
        "false",
        "abc",
        "ns3::Object",
        "ns3::MapScheduler",
        "ns3::Scheduler",
        "/dev/null",
        "/nonexistent/dir/x",
        "sp ace",
        "\xc3\xbc"
        "n\xc3\xaf"
        "c\xc3\xb6"
        "de",
        "';touch${IFS}pwned;echo${IFS}'",
        "\"; system(\"touch pwned\"); \"",
        "$(touch pwned)",
        std::string(5000, '9'),
        "allreduce,prefill:0.5",
        "prefill:2",
        "cross",
        "uniform",
        "exact",
        "dcqcn",
        "8:4",
        "100:7",
    };
    return pool;
}

/// Plausible values, so that a good share of the cases run rather than stop at the parser.
const std::vector<std::string>&
PlausiblePool()
{
    static const std::vector<std::string> pool = {
        "1",           "2",         "3",       "4",      "6",        "8",          "16",
        "32",          "0.5",       "1.5",     "0.25",   "true",     "false",      "cross",
        "uniform",     "2uniform",  "exact",   "greedy", "bvn",      "none",       "dcqcn",
        "fast",        "ipv4",      "global",  "ecmp",   "ksp",      "spraypoint", "all-to-all",
        "permutation", "allreduce", "prefill", "packet", "analytic", "both",       "rail",
        "m",           "64:8",      "60:4",
    };
    return pool;
}

const std::vector<std::string>&
AttributePool()
{
    static const std::vector<std::string> pool = {
        "--ns3::RoceSender::PacketSize",
        "--ns3::RoceSender::RtoHigh",
        "--ns3::RoceSender::RateControl",
        "--ns3::EcnMarker::KminTime",
        "--ns3::EcnMarker::KmaxTime",
        "--ns3::EcnMarker::Pmax",
        "--ns3::EcnMarker::Enabled",
        "--RngRun",
        "--SchedulerType",
        "--SimulatorImplementationType",
        "--ChecksumEnabled",
        "--ns3::Nope::X",
    };
    return pool;
}

/// Run \p count cases from \p seed; each must exit 0, or 2 with "error:", in time.
void
FuzzCommandLine(uint32_t seed, int count, bool plausibleOnly = false)
{
    const std::string dir = TempDir("fuzz-" + std::to_string(seed), true);
    const std::string logical = dir + "/l.txt";
    std::ofstream(logical) << "3\n0 1 1\n1 0 1\n1 1 0\n";
    auto programs = Programs(logical, dir);
    // AIFABRIC_FUZZ_PROGRAMS=a,b restricts a run to some programs (to chase one failure).
    if (const char* only = std::getenv("AIFABRIC_FUZZ_PROGRAMS"))
    {
        const std::string list = std::string(",") + only + ",";
        programs.erase(std::remove_if(programs.begin(),
                                      programs.end(),
                                      [&list](const Program& p) {
                                          return list.find("," + p.name + ",") == std::string::npos;
                                      }),
                       programs.end());
        if (programs.empty())
        {
            GTEST_SKIP() << "AIFABRIC_FUZZ_PROGRAMS names no program";
        }
    }
    std::mt19937_64 rng(seed);
    auto pick = [&rng](size_t n)
    {
        return static_cast<size_t>(rng() % n);
    };
    RunOptions opt;
    opt.timeoutSeconds = 60;
    opt.cwd = dir;
    // Estimated-hopeless runs are refused quickly rather than tried.
    opt.env = {{"AIFABRIC_TIME_LIMIT_S", "20"}, {"AIFABRIC_MEMORY_LIMIT_MB", "3000"}};
    std::map<int, int> codes;
    for (int c = 0; c < count; ++c)
    {
        const Program& p = programs[pick(programs.size())];
        std::vector<std::string> args{p.name};
        args.insert(args.end(), p.base.begin(), p.base.end());
        const int changes = 1 + static_cast<int>(pick(plausibleOnly ? 2 : 3));
        for (int i = 0; i < changes; ++i)
        {
            // Plausible-only cases change flags only, to values a user might give, so that
            // most of them get past the parser and run.
            const size_t kind = plausibleOnly ? 0 : pick(10);
            const std::string& v = !plausibleOnly && pick(2)
                                     ? ValuePool()[pick(ValuePool().size())]
                                     : PlausiblePool()[pick(PlausiblePool().size())];
            if (kind < 6)
            {
                const std::string& f = p.flags[pick(p.flags.size())];
                // Replace the base value of this flag, if any (flags may not repeat).
                bool numericBase = false;
                for (size_t a = 1; a < args.size(); ++a)
                {
                    if (args[a].rfind("--" + f + "=", 0) == 0)
                    {
                        const std::string old = args[a].substr(f.size() + 3);
                        numericBase = !old.empty()
                                   && old.find_first_not_of("0123456789.") == std::string::npos;
                        args.erase(args.begin() + a);
                        break;
                    }
                }
                std::string value = v;
                if (plausibleOnly && numericBase)
                {
                    // A number for a flag whose base value is one, mostly of a larger size.
                    const std::vector<std::string> numbers = {"0",
                                                              "1",
                                                              "2",
                                                              "3",
                                                              "4",
                                                              "8",
                                                              "16",
                                                              "32",
                                                              "64",
                                                              "128",
                                                              "256",
                                                              "1000",
                                                              "0.5"};
                    value = numbers[pick(numbers.size())];
                }
                args.push_back(!plausibleOnly && pick(8) == 0 ? "--" + f : "--" + f + "=" + value);
            }
            else if (kind < 8)
            {
                args.push_back(AttributePool()[pick(AttributePool().size())] + "=" + v);
            }
            else if (kind == 8)
            {
                const std::vector<std::string> odd
                    = {"junk", "--", "-", "--=3", "--bogus=1", "---n=3", "--PrintHelp", "--n", v};
                args.push_back(odd[pick(odd.size())]);
            }
            else
            {
                args.push_back(args.back()); // a repeated argument
            }
        }
        if (p.takesOut)
        {
            args.push_back("--out=" + dir + "/out-" + std::to_string(c));
        }
        std::string line;
        for (const auto& a : args)
        {
            line += "[" + a.substr(0, 80) + "] ";
        }
        const RunResult r = RunArgs(args, opt);
        codes[r.exitCode]++;
        if (std::getenv("AIFABRIC_FUZZ_VERBOSE"))
        {
            std::cout << "case " << c << " exit " << r.exitCode << " " << r.seconds
                      << " s: " << line << "\n  "
                      << r.stderrText.substr(0, r.stderrText.find('\n')).substr(0, 300) << "\n";
        }
        EXPECT_FALSE(r.timedOut) << "case " << c << ": " << line;
        EXPECT_TRUE(r.exitCode == 0 || r.exitCode == 2)
            << "case " << c << " exit " << r.exitCode << ": " << line << "\n"
            << r.stderrText.substr(0, 2000);
        if (r.exitCode == 2)
        {
            EXPECT_NE(r.stderrText.find("error: "), std::string::npos)
                << "case " << c << ": " << line << "\n"
                << r.stderrText.substr(0, 2000);
        }
        EXPECT_FALSE(std::filesystem::exists(dir + "/pwned")) << "case " << c << ": " << line;
        std::filesystem::remove_all(dir + "/out-" + std::to_string(c));
    }
    std::string summary;
    for (const auto& [code, n] : codes)
    {
        summary += " exit " + std::to_string(code) + ": " + std::to_string(n);
    }
    std::cout << "fuzz seed " << seed << (plausibleOnly ? " (plausible values)" : "") << ", "
              << count << " cases:" << summary << "\n";
    std::filesystem::remove_all(dir);
}

} // namespace

// 3 x 100 cases; separate tests so that ctest can run them side by side.
TEST(CommandLineFuzzer, Seed1)
{
    FuzzCommandLine(1, 100);
}

TEST(CommandLineFuzzer, Seed2)
{
    FuzzCommandLine(2, 100);
}

TEST(CommandLineFuzzer, Seed3)
{
    FuzzCommandLine(3, 100);
}

// Valid-looking values only: most cases run (sizes, horizons, rates changed), so that a
// hopeless run that is not refused shows up as a timeout.
TEST(CommandLineFuzzer, PlausibleSeed4)
{
    FuzzCommandLine(4, 120, true);
}

// More cases on demand: AIFABRIC_FUZZ_SEED=<seed> [AIFABRIC_FUZZ_CASES=<count>, default 100].
TEST(CommandLineFuzzer, SeedFromEnvironment)
{
    const char* seed = std::getenv("AIFABRIC_FUZZ_SEED");
    if (seed == nullptr)
    {
        GTEST_SKIP() << "AIFABRIC_FUZZ_SEED not set";
    }
    const char* cases = std::getenv("AIFABRIC_FUZZ_CASES");
    FuzzCommandLine(static_cast<uint32_t>(std::stoul(seed)),
                    cases ? std::stoi(cases) : 100,
                    std::getenv("AIFABRIC_FUZZ_PLAUSIBLE") != nullptr);
}

// ocs-configure's input file, mutated: exit 0 or 2, an error line of bounded length, fast.
TEST(FileFuzzer, OcsConfigureLogicalTopology)
{
    const std::string dir = TempDir("ffuzz", true);
    const std::vector<std::string> seeds = {
        "3\n0 1 1\n1 0 1\n1 1 0\n",
        "4\n0 1 0 1\n1 0 1 0\n0 1 0 1\n1 0 1 0\n",
        "2\n0 2\n2 0\n",
    };
    std::mt19937_64 rng(15);
    auto pick = [&rng](size_t n)
    {
        return static_cast<size_t>(rng() % n);
    };
    const std::vector<std::string> inserts = {
        "-", "9999999999999", "\0", "\xff", " ", "\n", "1e3", "0x1", "+1", "\t", ",", "3.5", "a"};
    std::map<int, int> codes;
    const int count = 60;
    for (int c = 0; c < count; ++c)
    {
        std::string text = seeds[pick(seeds.size())];
        const int edits = 1 + static_cast<int>(pick(4));
        for (int e = 0; e < edits && !text.empty(); ++e)
        {
            const size_t at = pick(text.size());
            switch (pick(5))
            {
            case 0:
                text[at] = static_cast<char>(rng() & 0xff); // random byte
                break;
            case 1:
                text.erase(at, 1 + pick(4));
                break;
            case 2:
                text.insert(at, inserts[pick(inserts.size())]);
                break;
            case 3:
                text = text.substr(0, at); // truncated
                break;
            default:
                text += text.substr(at); // repeated tail
            }
        }
        const std::string file = dir + "/in-" + std::to_string(c) + ".txt";
        std::ofstream(file, std::ios::binary) << text;
        const std::string egs = std::to_string(1 + pick(4));
        const RunResult r = RunArgs({"ocs-configure",
                                     "--egs=" + egs,
                                     "--ports=2",
                                     "--wiring=" + std::string(pick(2) ? "cross" : "single"),
                                     "--logical=" + file,
                                     "--physical-out=" + dir + "/p.json",
                                     "--out=" + dir + "/c.json"},
                                    RunOptions{20});
        codes[r.exitCode]++;
        EXPECT_TRUE(r.exitCode == 0 || IsCleanError(r))
            << "case " << c << " exit " << r.exitCode << ": " << r.stderrText.substr(0, 500);
        EXPECT_LT(r.stderrText.size(), 600u) << "case " << c;
        EXPECT_LT(r.seconds, 10.0) << "case " << c;
    }
    std::string summary;
    for (const auto& [code, n] : codes)
    {
        summary += " exit " + std::to_string(code) + ": " + std::to_string(n);
    }
    std::cout << "file fuzz, " << count << " cases:" << summary << "\n";
    std::filesystem::remove_all(dir);
}
