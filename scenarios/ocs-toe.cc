// SPDX-License-Identifier: GPL-2.0-only
//
// OCS topology-engineering micro-benchmark (OCS paper §7, Fig. 8): how the physical wiring
// (Uniform vs Cross Wiring) limits OCS configuration algorithms.
//
// Experiment. A cluster of EGs with 32 GPUs and 32 OCS-facing ports each, at 2k..16k GPUs, is
// filled exactly with jobs of 192-1024 GPUs; for 100 steps 25% of the jobs are replaced
// (OcsToeWorkload: sizes, churn and the per-job communication pattern, all-to-all plus a
// heavier ring, are documented there and in doc/ocs.md). Each step: demand matrix ->
// MLU-optimal logical topology (single-hop routing, spare ports filled) -> OCS configuration
// by every algorithm on every wiring (on Cross Wiring the baselines run after the L = A + A^T
// decomposition). Reported per step: LTCR (Eq. 1) and solve time; every configuration is
// checked for the physical and symmetry constraints.
//
//   ./build/bin/ocs-toe                       # 2k and 4k GPUs, 100 steps (< 1 min)
//   ./build/bin/ocs-toe --full                # 2k, 4k, 8k, 16k GPUs as in the paper
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/ocs-setup.h"
#include "ns3/ocs-toe-report.h"

#include <malloc.h>

#include <chrono>
#include <iostream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

std::vector<uint32_t>
ParseUintList(const std::vector<std::string>& items,
              const std::string& flag,
              uint32_t lo,
              uint32_t hi)
{
    std::vector<uint32_t> out;
    for (const auto& s : items)
    {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9
            || std::stoul(s) < lo || std::stoul(s) > hi)
        {
            throw std::invalid_argument("--" + flag + ": '" + s + "' must be an integer in ["
                                        + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        }
        out.push_back(uint32_t(std::stoul(s)));
    }
    return out;
}

int
Run(int argc, char* argv[])
{
    // Reuse freed memory (see bench-ocs-config): page faults would dominate solve times.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    FabricCli cli(__FILE__,
                  "OCS paper §7 micro-benchmark: LTCR and solve time of OCS configuration "
                  "algorithms on Uniform and Cross Wiring under job churn (Fig. 8).");
    cli.Add("gpus", "comma list of cluster sizes in GPUs", "2048,4096");
    cli.Add("full", "paper scale: --gpus=2048,4096,8192,16384", "false");
    cli.Add("steps", "churn steps per cluster size", "100");
    cli.Add("ports", "OCS-facing ports per EG", "32");
    cli.Add("gpus-per-eg", "GPUs per EG", "32");
    cli.Add("churn", "fraction of jobs replaced per step", "0.25");
    cli.Add("job-sizes", "comma list of job sizes in GPUs", "192,256,512,640,768,1024");
    cli.Add("ring-weight", "extra demand between ring neighbours of a job", "4");
    cli.Add("fill-idle",
            "logical solver pairs up ports left idle after the MLU optimum (links with no demand)",
            "true");
    cli.Add("wirings", "comma list of uniform|cross|2uniform", "uniform,cross");
    cli.Add("algorithms", "comma list of exact|greedy|bvn|dfs|ilp", "exact,greedy,bvn,dfs,ilp");
    cli.Add("dfs-time-limit-ms", "DFS time bound per step", "5");
    cli.Add("ilp-time-limit-ms", "ILP (GLPK) time limit per step", "1000");
    cli.Add("ilp-steps", "run the ILP on the first N steps of each size only (0: all)", "3");
    cli.Add("mlu",
            "also route each step's demand over what each method realizes (ECMP over shortest "
            "EG paths, as the packet level) and report its MLU against the logical topology's "
            "single-hop bound (Fig. 7a)",
            "false");
    cli.Add("cross-raw",
            "also run greedy on Cross Wiring read as its raw problem (orientation of each link "
            "chosen with its OCS pair; row greedy-raw)",
            "false");
    cli.Add("seed", "workload seed", "1");
    cli.Add("out", "results folder", "results/ocs-toe");
    cli.Parse(argc, argv);

    const bool full = cli.GetBool("full");
    std::vector<uint32_t> gpusList = ParseUintList(cli.GetList("gpus"), "gpus", 1, 1u << 20);
    if (full)
    {
        if (cli.IsSet("gpus"))
        {
            throw std::invalid_argument("--full sets --gpus=2048,4096,8192,16384; give one");
        }
        gpusList = {2048, 4096, 8192, 16384};
    }
    const auto steps = static_cast<uint32_t>(cli.GetUint("steps", 1, 100000));
    const auto ports = static_cast<uint32_t>(cli.GetUint("ports", 2, 4096));
    const auto gpusPerEg = static_cast<uint32_t>(cli.GetUint("gpus-per-eg", 1, 1u << 20));
    const double churn = cli.GetDouble("churn", 1e-9, 1.0);
    const std::vector<uint32_t> jobSizes
        = ParseUintList(cli.GetList("job-sizes"), "job-sizes", 1, 1u << 24);
    const double ringWeight = cli.GetDouble("ring-weight", 0, 1e6);
    const bool fillIdle = cli.GetBool("fill-idle");
    const bool withMlu = cli.GetBool("mlu");
    const bool crossRaw = cli.GetBool("cross-raw");
    std::vector<OcsWiringType> wirings;
    for (const auto& w : cli.GetList("wirings"))
    {
        if (w != "uniform" && w != "cross" && w != "2uniform")
        {
            throw std::invalid_argument("--wirings: '" + w
                                        + "' is not valid; valid: "
                                          "uniform|cross|2uniform");
        }
        wirings.push_back(OcsSetup::WiringByName(w));
    }
    std::vector<OcsAlgorithm> algorithms;
    for (const auto& a : cli.GetList("algorithms"))
    {
        // The names are the ns3::OcsSetup Algorithm attribute's; the error names the flag.
        try
        {
            algorithms.push_back(OcsSetup::AlgorithmByName(a));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("--algorithms: " + std::string(e.what()));
        }
    }
    bool anyRun = false;
    for (OcsWiringType t : wirings)
    {
        for (OcsAlgorithm a : algorithms)
        {
            anyRun = anyRun || !(a == OcsAlgorithm::EXACT && t == OcsWiringType::UNIFORM);
        }
    }
    if (!anyRun)
    {
        throw std::invalid_argument("--wirings=" + cli.GetString("wirings")
                                    + " with --algorithms=" + cli.GetString("algorithms")
                                    + " runs nothing: exact does not apply to Uniform; add "
                                      "another algorithm or wiring");
    }
    const double dfsMs = cli.GetDouble("dfs-time-limit-ms", 0.001, 3.6e6);
    const double ilpMs = cli.GetDouble("ilp-time-limit-ms", 1, 3.6e6);
    const auto ilpSteps = static_cast<uint32_t>(cli.GetUint("ilp-steps", 0, 100000));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    const OcsToeBenchmarkParams bp{gpusPerEg,
                                   ports,
                                   churn,
                                   jobSizes,
                                   ringWeight,
                                   fillIdle,
                                   wirings,
                                   algorithms,
                                   dfsMs,
                                   ilpMs,
                                   ilpSteps,
                                   steps,
                                   seed,
                                   withMlu,
                                   crossRaw};
    for (uint32_t g : gpusList)
    {
        if (g % gpusPerEg != 0)
        {
            throw std::invalid_argument("--gpus: " + std::to_string(g)
                                        + " is not a multiple of --gpus-per-eg="
                                        + std::to_string(gpusPerEg));
        }
    }
    {
        double seconds = 0;
        for (uint32_t g : gpusList)
        {
            CheckFabricMemory(OcsToeEstimateBytes(g, bp),
                              "--gpus=" + std::to_string(g)
                                  + " with --gpus-per-eg=" + std::to_string(gpusPerEg) + " ("
                                  + FormatNumber(double(g) / gpusPerEg, 6) + " EGs)");
            seconds += OcsToeEstimateSeconds(g, bp);
        }
        CheckFabricRunTime(seconds,
                           "--gpus=" + cli.GetString("gpus")
                               + " with --steps=" + std::to_string(steps) + " and --algorithms");
    }
    FabricResults out(cli.GetString("out"));

    json summary;
    summary["params"] = {{"gpus", gpusList},
                         {"steps", steps},
                         {"ports", ports},
                         {"gpus_per_eg", gpusPerEg},
                         {"churn", churn},
                         {"job_sizes", jobSizes},
                         {"ring_weight", ringWeight},
                         {"fill_idle", fillIdle},
                         {"wirings", cli.GetString("wirings")},
                         {"algorithms", cli.GetString("algorithms")},
                         {"dfs_time_limit_ms", dfsMs},
                         {"ilp_time_limit_ms", ilpMs},
                         {"ilp_steps", ilpSteps},
                         {"seed", seed}};
    CsvWriter stepCsv(out.Path("steps.csv"), OcsToeStepCsvColumns());
    CsvWriter logicalCsv(out.Path("logical.csv"), OcsToeLogicalCsvColumns());

    // Every (size, wiring, algorithm) series, in the order they first ran.
    std::vector<OcsToeSizedSeries> series;
    json logicalSummary = json::object();
    bool crossExact = true;
    const auto wall0 = std::chrono::steady_clock::now();
    for (uint32_t gpus : gpusList)
    {
        const std::string g = std::to_string(gpus);
        const OcsToeSizeResult r = RunOcsToeBenchmark(
            gpus,
            bp,
            [&](const OcsToeStepRecord& x)
            { stepCsv.Row(OcsToeStepCsvRow(gpus, gpus / gpusPerEg, x)); },
            [&](const OcsToeLogicalRecord& x) { logicalCsv.Row(OcsToeLogicalCsvRow(gpus, x)); },
            [&](uint32_t step)
            {
                if ((step + 1) % 10 == 0 || step + 1 == steps)
                {
                    const double t
                        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0)
                              .count();
                    std::cerr << "[" << gpus << " GPUs] step " << step + 1 << "/" << steps << " ("
                              << FormatNumber(t, 3) << " s)\n";
                }
            });
        crossExact = crossExact && r.exactComplete;
        for (const OcsToeSeries& x : r.series)
        {
            series.emplace_back(gpus, x);
        }
        logicalSummary[g] = {{"egs", r.egs},
                             {"mlu_median", Quantile(r.mlus, 0.5, OCS_TOE_QUANTILE)},
                             {"solve_us_median", Quantile(r.logicalUs, 0.5, OCS_TOE_QUANTILE)}};
    }

    // Tables.
    std::cout << "\nOCS ToE micro-benchmark (§7): " << steps << " steps, " << ports
              << " ports per EG, " << gpusPerEg << " GPUs per EG, churn " << churn << ", seed "
              << seed << "\n\n";
    PrintOcsToeTable(series, std::cout);
    json results = json::array();
    for (const OcsToeSizedSeries& s : series)
    {
        results.push_back(OcsToeSeriesToJson(s, gpusPerEg, withMlu));
    }
    if (withMlu)
    {
        std::cout << "\nMLU of the demand routed over the realized topology (ECMP over shortest EG "
                     "paths), relative to the logical topology's single-hop MLU (Fig. 7a):\n";
        PrintOcsToeMluTable(series, std::cout);
        summary["params"]["mlu"] = true;
    }
    summary["results"] = results;
    summary["logical"] = logicalSummary;
    summary["checks"] = {{"exact_all_ltcr_1", crossExact}};

    // Plots: LTCR per algorithm and wiring for each size (Fig. 8), median solve time
    // against size.
    std::vector<std::string> wiringNames;
    std::vector<std::string> algorithmNames;
    for (OcsWiringType t : wirings)
    {
        wiringNames.push_back(OcsWiringTypeName(t));
    }
    for (OcsAlgorithm a : algorithms)
    {
        algorithmNames.push_back(OcsAlgorithmName(a));
    }
    for (uint32_t gpus : gpusList)
    {
        Gnuplot plot = OcsToeLtcrPlot(gpus,
                                      wiringNames,
                                      algorithmNames,
                                      series,
                                      "LTCR per step, " + std::to_string(steps) + " steps, "
                                          + std::to_string(gpus) + " GPUs ("
                                          + std::to_string(gpus / gpusPerEg) + " EGs x "
                                          + std::to_string(ports) + " ports)");
        out.WritePng("ltcr-" + std::to_string(gpus) + ".png", plot);
    }
    Gnuplot solvePlot = OcsToeSolveTimePlot(series);
    out.WritePng("solve-time.png", solvePlot);
    out.WriteSummary(summary);
    std::cout << "\nLTCR per step (Eq. 1); '=1': steps with LTCR = 1; solve: configuration time "
                 "per step (decomposition included on Cross/2-Uniform); ILP "
              << (ilpSteps ? "on the first " + std::to_string(ilpSteps) + " steps only"
                           : std::string("on every step"))
              << "; DFS and ILP results depend on their time limits\n";
    for (uint32_t gpus : gpusList)
    {
        const json& l = logicalSummary[std::to_string(gpus)];
        std::cout << "logical topology (" << gpus << " GPUs): median MLU "
                  << FormatNumber(l["mlu_median"].get<double>(), 4) << ", median solve "
                  << FormatNumber(l["solve_us_median"].get<double>(), 4) << " us\n";
    }
    std::cout << "wrote " << out.Path("summary.json")
              << ", steps.csv, logical.csv, ltcr-<gpus>.png, "
              << "solve-time.png\n";
    if (!crossExact)
    {
        std::cerr << "error: the exact algorithm missed LTCR = 1 on some step (a bug)\n";
        return 1;
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    // Accept a bare --full as --full=true.
    std::vector<std::string> args(argv, argv + argc);
    std::vector<char*> argp;
    for (auto& a : args)
    {
        if (a == "--full")
        {
            a = "--full=true";
        }
        argp.push_back(a.data());
    }
    argp.push_back(nullptr);
    return RunFabricProgram(argc, argp.data(), Run);
}
