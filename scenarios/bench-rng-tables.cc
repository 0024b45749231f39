// SPDX-License-Identifier: GPL-2.0-only
//
// Benchmark (not a timed test): all Spraypoint tables of a fabric (every destination, every
// router) on one core, for n=1000, d=64 and n=4000, d=64 by default; prints time and memory.
//
//   ./build/bin/bench-rng-tables --sizes=1000:64,4000:64 --out=results/bench-rng-tables
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/spraypoint-tables.h"

#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;
using json = nlohmann::json;

namespace
{
/// Parse one "n:d" entry of --sizes; \throws std::invalid_argument naming the entry.
std::pair<uint32_t, uint32_t>
ParseSize(const std::string& item)
{
    const size_t colon = item.find(':');
    auto number = [&item](const std::string& text, const char* what)
    {
        if (text.empty() || text.size() > 9
            || text.find_first_not_of("0123456789") != std::string::npos)
        {
            throw std::invalid_argument("--sizes: '" + item + "': " + what
                                        + " must be a non-negative integer");
        }
        return static_cast<uint32_t>(std::stoul(text));
    };
    if (colon == std::string::npos)
    {
        throw std::invalid_argument("--sizes: '" + item + "' must be n:d");
    }
    return {number(item.substr(0, colon), "n"), number(item.substr(colon + 1), "d")};
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Time to compute all Spraypoint tables of a fabric on one core.");
    cli.Add("sizes", "comma list of n:d", "1000:64,4000:64");
    cli.Add("p", "waypoints per node", "2");
    cli.Add("h", "candidates per node", "2");
    cli.Add("seed", "graph and key seed", "1");
    cli.Add("out", "results folder", "results/bench-rng-tables");
    cli.Parse(argc, argv);
    const auto p = static_cast<uint32_t>(cli.GetUint("p", 1, 65534));
    const auto h = static_cast<uint32_t>(cli.GetUint("h", 1, 65534));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    std::vector<std::pair<uint32_t, uint32_t>> sizes;
    for (const auto& item : cli.GetList("sizes"))
    {
        const auto [n, d] = ParseSize(item);
        // Check every size before the first (possibly long) run.
        const std::string at = " (--sizes entry '" + item + "')";
        if (n < 3)
        {
            throw std::invalid_argument("n=" + std::to_string(n) + " must be >= 3" + at);
        }
        if (d < 2 || d >= n)
        {
            throw std::invalid_argument("d=" + std::to_string(d) + " must be in [2, n-1] = [2, "
                                        + std::to_string(n - 1) + "]" + at);
        }
        if ((uint64_t(n) * d) % 2 != 0)
        {
            throw std::invalid_argument("n*d = " + std::to_string(n) + "*" + std::to_string(d)
                                        + " must be even" + at);
        }
        if (p > d - 1)
        {
            throw std::invalid_argument("--p=" + std::to_string(p) + " must be in [1, d-1] = [1, "
                                        + std::to_string(d - 1) + "]" + at);
        }
        if (h > d)
        {
            throw std::invalid_argument("--h=" + std::to_string(h) + " must be in [1, d] = [1, "
                                        + std::to_string(d) + "]" + at);
        }
        // Measured with rng-models (Release): about 11 bytes per router pair (n=1000:
        // 34 MB, n=4000: 0.2 GB) and 16 bytes per lane.
        CheckFabricMemory(20e6 + 11.0 * n * n + 16.0 * n * d, "--sizes entry '" + item + "'");
        sizes.emplace_back(n, d);
    }
    FabricResults out(cli.GetString("out"));
    json runs = json::array();
    std::cout << std::setw(6) << "n" << std::setw(5) << "d" << std::setw(12) << "graph(s)"
              << std::setw(12) << "tables(s)" << std::setw(14) << "tables(MB)" << std::setw(14)
              << "peakRSS(MB)\n";
    for (const auto& [n, d] : sizes)
    {
        const auto t0 = std::chrono::steady_clock::now();
        RouterGraph g = MakeRandomRegularGraph(n, d, seed);
        const auto t1 = std::chrono::steady_clock::now();
        SpraypointParams prm;
        prm.p = p;
        prm.h = h;
        prm.key = seed;
        SpraypointTables tab(g, prm);
        const auto t2 = std::chrono::steady_clock::now();
        const double gs = std::chrono::duration<double>(t1 - t0).count();
        const double ts = std::chrono::duration<double>(t2 - t1).count();
        const double mb = tab.MemoryBytes() / 1048576.0;
        std::cout << std::setw(6) << n << std::setw(5) << d << std::setw(12) << std::fixed
                  << std::setprecision(3) << gs << std::setw(12) << ts << std::setw(14)
                  << std::setprecision(1) << mb << std::setw(13) << PeakRssMiB() << "\n";
        std::cerr << "n=" << n << " done\n";
        runs.push_back({{"n", n},
                        {"d", d},
                        {"p", p},
                        {"h", h},
                        {"levels", tab.GetLevels()},
                        {"graph_s", gs},
                        {"tables_s", ts},
                        {"tables_mb", mb},
                        {"peak_rss_mb", PeakRssMiB()}});
    }
    out.WriteSummary(json{{"runs", runs}, {"threads", 1}});
    return 0;
}
} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
