// SPDX-License-Identifier: GPL-2.0-only
//
// Speed of OCS configuration (OCS paper §4.2, §7.1): the pipeline demand -> MLU-optimal
// logical topology -> exact Cross Wiring configuration, per step of the §7 job churn, and
// its parts. Prints medians measured in this run (wall clock, one thread).
//
//   ./build/bin/bench-ocs-config                   # 2048 and 16384 GPUs, 100 steps
//   ./build/bin/bench-ocs-config --gpus=2048,4096,8192,16384
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-logical-solver.h"
#include "ns3/ocs-toe-workload.h"
#include "ns3/symmetric-decomposition.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace
{

double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty()
             ? 0
             : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

double
Us(Clock::time_point a)
{
    return std::chrono::duration<double, std::micro>(Clock::now() - a).count();
}

int
Run(int argc, char* argv[])
{
    // Keep freed memory for reuse instead of returning it to the kernel: a configuration
    // service runs for long, and in sandboxed VMs a page fault costs ~10 us, which would
    // otherwise dominate (a 512 x 512 matrix is 512 pages).
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    FabricCli cli(__FILE__,
                  "Benchmark of demand -> logical topology -> exact Cross Wiring configuration "
                  "(median per step) and of the decomposition alone.");
    cli.Add("gpus", "comma list of cluster sizes in GPUs", "2048,16384");
    cli.Add("steps", "workload steps per size", "100");
    cli.Add("repeats", "timed repetitions of every step", "5");
    cli.Add("ports", "OCS-facing ports per EG", "32");
    cli.Add("gpus-per-eg", "GPUs per EG", "32");
    cli.Add("baselines", "also time greedy and BvN on Uniform", "true");
    cli.Add("seed", "workload seed", "1");
    cli.Add("out", "results folder", "results/bench-ocs-config");
    cli.Parse(argc, argv);
    std::vector<uint32_t> gpusList;
    for (const auto& s : cli.GetList("gpus"))
    {
        if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 8)
        {
            throw std::invalid_argument("--gpus: '" + s + "' must be an integer");
        }
        gpusList.push_back(uint32_t(std::stoul(s)));
    }
    const auto steps = static_cast<uint32_t>(cli.GetUint("steps", 1, 100000));
    const auto repeats = static_cast<uint32_t>(cli.GetUint("repeats", 1, 1000));
    const auto ports = static_cast<uint32_t>(cli.GetUint("ports", 2, 4096));
    const auto gpusPerEg = static_cast<uint32_t>(cli.GetUint("gpus-per-eg", 1, 1u << 20));
    const bool baselines = cli.GetBool("baselines");
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    for (uint32_t g : gpusList)
    {
        if (g == 0 || g % gpusPerEg != 0)
        {
            throw std::invalid_argument("--gpus: " + std::to_string(g)
                                        + " must be a positive multiple of --gpus-per-eg="
                                        + std::to_string(gpusPerEg));
        }
    }
    for (uint32_t g : gpusList)
    {
        // Measured with ocs-toe's workload (Release): about 24 bytes per EG pair (E=4096:
        // 0.42 GB, E=8192: 1.6 GB) and 0.1 us per EG pair per step and phase.
        const double e = double(g) / gpusPerEg;
        const std::string sizes = "--gpus=" + std::to_string(g) + " with --gpus-per-eg="
                                + std::to_string(gpusPerEg) + " (" + FormatNumber(e, 6) + " EGs)";
        CheckFabricMemory(30e6 + 24 * e * e, sizes);
        CheckFabricRunTime(1e-7 * e * e * steps * repeats * 7, sizes + ", --steps, --repeats");
    }
    FabricResults out(cli.GetString("out"));
    CsvWriter csv(out.Path("samples.csv"), {"gpus", "step", "repeat", "phase", "us"});
    json summary;
    summary["params"] = {{"gpus", gpusList},
                         {"steps", steps},
                         {"repeats", repeats},
                         {"ports", ports},
                         {"gpus_per_eg", gpusPerEg},
                         {"seed", seed}};
    const std::vector<std::string> phases = {"logical",
                                             "decomposition_euler",
                                             "decomposition_maxflow",
                                             "exact_cross_configure",
                                             "end_to_end",
                                             "uniform_greedy",
                                             "uniform_bvn"};
    std::cout << "OCS configuration speed, median per step over " << steps << " steps x " << repeats
              << " repeats (us)\n\n"
              << std::left << std::setw(7) << "GPUs" << std::setw(5) << "EGs" << std::right;
    for (const auto& p : phases)
    {
        std::cout << std::setw(p.size() + 2) << p;
    }
    std::cout << "\n";
    json bySize = json::object();
    for (uint32_t gpus : gpusList)
    {
        const uint32_t egs = gpus / gpusPerEg;
        OcsToeWorkload workload(egs, gpusPerEg, seed);
        const OcsConfigurator cross(OcsWiring(OcsWiringType::CROSS, egs, ports));
        const OcsConfigurator uniform(OcsWiring(OcsWiringType::UNIFORM, egs, ports));
        std::map<std::string, std::vector<double>> t;
        double minLtcr = 1;
        for (uint32_t step = 0; step < steps; ++step)
        {
            if (step > 0)
            {
                workload.Step();
            }
            const auto demand = workload.Demand();
            for (uint32_t rep = 0; rep < repeats; ++rep)
            {
                auto t0 = Clock::now();
                const OcsLogicalSolution sol = SolveLogicalTopologyMlu(demand, egs, ports);
                t["logical"].push_back(Us(t0));
                t0 = Clock::now();
                const auto a = DecomposeSymmetricEulerSparse(sol.logical);
                t["decomposition_euler"].push_back(Us(t0));
                t0 = Clock::now();
                const OcsMatrix b = DecomposeSymmetricMaxFlow(sol.logical);
                t["decomposition_maxflow"].push_back(Us(t0));
                if (a.empty() != (b.Total() == 0))
                {
                    throw std::logic_error("the two decompositions disagree on emptiness");
                }
                // End to end: demand -> logical -> circuits (solveUs excludes the checks).
                const OcsLogicalSolution s2 = SolveLogicalTopologyMlu(demand, egs, ports);
                const double logicalUs = t["logical"].back();
                const OcsConfigResult r = cross.Configure(s2.logical, OcsAlgorithm::EXACT);
                t["exact_cross_configure"].push_back(r.solveUs);
                t["end_to_end"].push_back(logicalUs + r.solveUs);
                minLtcr = std::min(minLtcr, r.ltcr);
                if (baselines && rep == 0)
                {
                    t["uniform_greedy"].push_back(
                        uniform.Configure(sol.logical, OcsAlgorithm::GREEDY).solveUs);
                    t["uniform_bvn"].push_back(
                        uniform.Configure(sol.logical, OcsAlgorithm::BVN).solveUs);
                }
                for (const auto& p : phases)
                {
                    if (!t[p].empty()
                        && (rep == 0 || (p != "uniform_greedy" && p != "uniform_bvn")))
                    {
                        csv.Row({std::to_string(gpus),
                                 std::to_string(step),
                                 std::to_string(rep),
                                 p,
                                 FormatNumber(t[p].back())});
                    }
                }
            }
            if ((step + 1) % 25 == 0)
            {
                std::cerr << "[" << gpus << " GPUs] step " << step + 1 << "/" << steps << "\n";
            }
        }
        std::cout << std::left << std::setw(7) << gpus << std::setw(5) << egs << std::right
                  << std::fixed << std::setprecision(1);
        json js;
        for (const auto& p : phases)
        {
            std::cout << std::setw(p.size() + 2) << Median(t[p]);
            js[p + "_us_median"] = Median(t[p]);
        }
        js["egs"] = egs;
        js["exact_cross_min_ltcr"] = minLtcr;
        std::cout << "\n";
        bySize[std::to_string(gpus)] = js;
    }
    summary["medians"] = bySize;
    out.WriteSummary(summary);
    std::cout << "\nend_to_end = logical + exact_cross_configure (decomposition, bipartite edge "
                 "colouring, mirroring); targets: < 500 us at 2048 GPUs, < 10000 us at 16384\n"
              << "wrote " << out.Path("summary.json") << ", samples.csv\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
