// SPDX-License-Identifier: GPL-2.0-only
//
// RNG paper §7 models next to Spraypoint as built: path lengths (Model 7.2), edge-disjoint
// paths (Model 7.1 and the §F.3 table) and oversubscription (§7.3), on a seeded random
// d-regular router graph.
//
//   ./build/bin/rng-models --out=results/rng-models            (n=1000, d=64, p=2, h=2)
//   ./build/bin/rng-models --n=200 --d=16 --dests=50
#include "ns3/rng-models.h"

#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/traffic-pattern.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <set>

using namespace ns3;
using json = nlohmann::json;

namespace
{

json
FractionsJson(const std::map<uint32_t, double>& f)
{
    json j = json::object();
    for (const auto& [k, v] : f)
    {
        j[std::to_string(k)] = v;
    }
    return j;
}

/// Path-length table for one p; returns the max |sim - model| over the given hop counts.
json
PathLengthCase(const RouterGraph& g,
               uint32_t n,
               uint32_t d,
               uint32_t p,
               uint32_t h,
               uint64_t seed,
               const std::vector<uint32_t>& dests,
               Gnuplot* plot)
{
    SpraypointParams prm;
    prm.p = p;
    prm.h = h;
    prm.key = seed;
    SpraypointTables tab(g, prm);
    const auto sim = MeasurePathLength(tab, g, dests);
    const auto model = ModelPathLength(n, d, p, tab.GetLevels());
    std::cout << "\npath length, n=" << n << " d=" << d << " p=" << p
              << " (levels l=" << tab.GetLevels() << ", " << dests.size()
              << " destinations, all sources and spray choices)\n"
              << std::setw(6) << "hops" << std::setw(12) << "simulated" << std::setw(12) << "model"
              << std::setw(12) << "|diff|\n";
    std::set<uint32_t> keys;
    for (const auto& [k, v] : sim)
    {
        keys.insert(k);
    }
    for (const auto& [k, v] : model)
    {
        keys.insert(k);
    }
    double maxDiff234 = 0;
    Gnuplot2dDataset ds("simulated p=" + std::to_string(p));
    Gnuplot2dDataset dm("Model 7.2 p=" + std::to_string(p));
    ds.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    dm.SetStyle(Gnuplot2dDataset::LINES);
    for (uint32_t k : keys)
    {
        const double s = sim.count(k) ? sim.at(k) : 0.0;
        const double m = model.count(k) ? model.at(k) : 0.0;
        std::cout << std::setw(6) << k << std::setw(12) << std::fixed << std::setprecision(5) << s
                  << std::setw(12) << m << std::setw(11) << std::fabs(s - m) << "\n";
        if (k >= 2 && k <= 4)
        {
            maxDiff234 = std::max(maxDiff234, std::fabs(s - m));
        }
        ds.Add(k, s);
        dm.Add(k, m);
    }
    if (plot)
    {
        plot->AddDataset(ds);
        plot->AddDataset(dm);
    }
    std::vector<uint32_t> sizes = tab.LevelSizes(dests.front());
    json lv = json::array();
    for (uint32_t x : sizes)
    {
        lv.push_back(x);
    }
    return json{{"p", p},
                {"levels", tab.GetLevels()},
                {"simulated", FractionsJson(sim)},
                {"model", FractionsJson(model)},
                {"max_abs_diff_hops_2_3_4", maxDiff234},
                {"level_sizes_first_dest", lv}};
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__,
                  "RNG §7 models (path length, edge-disjoint paths, oversubscription) next to "
                  "Spraypoint on a random d-regular graph.");
    cli.Add("n", "routers", "1000");
    cli.Add("d", "router degree (uplink lanes)", "64");
    cli.Add("p", "waypoints per node of the previous level", "2");
    cli.Add("h", "candidate next hops", "2");
    cli.Add("seed", "graph, key and traffic seed", "1");
    cli.Add("dests", "destinations sampled for path lengths (all sources each)", "1000");
    cli.Add(
        "pairs", "destinations sampled for max-flow (8 neighbour + 8 other sources each)", "10");
    cli.Add("p-compare", "second p reported for path lengths (0: none)", "16");
    cli.Add("out", "results folder", "results/rng-models");
    cli.Parse(argc, argv);
    const auto n = static_cast<uint32_t>(cli.GetUint("n", 3, 100000));
    const auto d = static_cast<uint32_t>(cli.GetUint("d", 2, 65534));
    const auto p = static_cast<uint32_t>(cli.GetUint("p", 1, 65534));
    const auto h = static_cast<uint32_t>(cli.GetUint("h", 1, 65534));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    const auto dests = static_cast<uint32_t>(cli.GetUint("dests", 1, 1000000));
    const auto pairs = static_cast<uint32_t>(cli.GetUint("pairs", 1, 100000));
    const auto pCompare = static_cast<uint32_t>(cli.GetUint("p-compare", 0, 65534));
    if (cli.IsSet("p-compare") && pCompare > 0 && pCompare > d - 1)
    {
        throw std::invalid_argument("--p-compare=" + std::to_string(pCompare)
                                    + " is out of range [0 (none), d-1=" + std::to_string(d - 1)
                                    + "]");
    }

    {
        // Measured (Release): about 11 bytes per router pair (n=1000: 43 MB, n=4000:
        // 0.2 GB) and 150 bytes per lane (tables and the fabric graph the routing object
        // needs); 7-11 s at the defaults (n=1000, d=64, dests=1000) on the loaded 2-core
        // machine, growing as n^2 d dests.
        const std::string sizes = "--n=" + std::to_string(n) + " --d=" + std::to_string(d);
        CheckFabricMemory(20e6 + 11.0 * n * n + 150.0 * n * d, sizes);
        CheckFabricRunTime(1.8e-10 * double(n) * n * d * dests,
                           sizes + " --dests=" + std::to_string(dests));
    }
    RandomRegularReport rep;
    const auto t0 = std::chrono::steady_clock::now();
    RouterGraph g = MakeRandomRegularGraph(n, d, seed, &rep);
    // Validate p and h against d before any work (throws with the valid range).
    SpraypointParams check;
    check.p = p;
    check.h = h;
    if (p < 1 || p > d - 1 || h < 1 || h > d)
    {
        SpraypointTables bad(g, check);
    }
    FabricResults out(cli.GetString("out")); // only once the input is known to be good
    // Max-flow and fluid splits follow the routing object's Candidates (one server per
    // router): the same rule the packets follow.
    const RngFabric fab(g, 1);
    const std::shared_ptr<const FabricGraph> fabGraph = fab.Build();
    auto spraypoint = [&](const SpraypointParams& prm)
    {
        return MakeSpraypointRouting(fabGraph, std::make_shared<SpraypointTables>(g, prm), seed);
    };
    std::cerr << "graph n=" << n << " d=" << d << " built; pairing repaired " << rep.selfLoops
              << " self-loops and " << rep.multiEdges << " repeated edges (" << rep.swaps
              << " swaps)\n";
    json summary;
    summary["params"] = {{"n", n},
                         {"d", d},
                         {"p", p},
                         {"h", h},
                         {"seed", seed},
                         {"dests", dests},
                         {"pairs", pairs},
                         {"p_compare", pCompare}};
    summary["graph"] = {{"self_loops_repaired", rep.selfLoops},
                        {"multi_edges_repaired", rep.multiEdges},
                        {"swaps", rep.swaps}};

    // 1. Path lengths.
    const std::vector<uint32_t> ds = SampleRouters(n, dests, seed);
    Gnuplot plot(out.Path("path-length.png"));
    plot.SetTitle("Spraypoint path length vs Model 7.2, n=" + std::to_string(n)
                  + " d=" + std::to_string(d));
    plot.SetLegend("path length (router hops)", "fraction of paths");
    plot.AppendExtra("set logscale y");
    plot.AppendExtra("set yrange [1e-5:1]");
    json pl = PathLengthCase(g, n, d, p, h, seed, ds, &plot);
    summary["path_length"] = pl;
    if (pCompare && pCompare != p && pCompare <= d - 1)
    {
        summary["path_length_p_compare"] = PathLengthCase(g, n, d, pCompare, h, seed, ds, &plot);
    }
    out.WritePng("path-length.png", plot);
    std::cerr << "path lengths done\n";

    // 2. Edge-disjoint paths: max-flow of S_{s,t} for h = 1, 2, 4.
    std::cout << "\nedge-disjoint paths (max-flow / d), n=" << n << " d=" << d << " p=" << p << ", "
              << pairs << " destinations x (8 neighbour + 8 non-neighbour sources)\n"
              << std::setw(4) << "h" << std::setw(14) << "sim nonnbr" << std::setw(12) << "model"
              << std::setw(14) << "sim nbr" << std::setw(12) << "model\n";
    json ed;
    ed["per_h"] = json::object();
    std::map<uint32_t, double> nonNeighbourByH;
    const std::vector<uint32_t> td = SampleRouters(n, pairs, seed + 1);
    FabricRng srcRng(seed ^ 0x73726373ULL);
    for (uint32_t hh : {1u, 2u, 4u})
    {
        if (hh > d)
        {
            continue;
        }
        SpraypointParams prm;
        prm.p = p;
        prm.h = hh;
        prm.key = seed;
        const Ptr<SpraypointRouting> routing = spraypoint(prm);
        const MaxFlowSample mf
            = SampleCandidateMaxFlow(*routing, routing->GetTables(), fab, td, 8, true, srcRng);
        const double fo = mf.nonNeighbour / d;
        const double fn = mf.neighbour / d;
        const double mo = ModelEdgeDisjointFraction(d, 0, hh, false);
        const double mn = ModelEdgeDisjointFraction(d, p, hh, true);
        nonNeighbourByH[hh] = fo;
        std::cout << std::setw(4) << hh << std::setw(14) << fo << std::setw(12) << mo
                  << std::setw(14) << fn << std::setw(11) << mn << "\n";
        ed["per_h"][std::to_string(hh)] = {{"simulated_non_neighbour", fo},
                                           {"model_non_neighbour", mo},
                                           {"simulated_neighbour", fn},
                                           {"model_neighbour", mn},
                                           {"samples", mf.samples}};
    }
    // §F.3 table (neighbour sources with p = 0, d/4, d/3, d/2), model and measured.
    std::cout << "\n§F.3 table: neighbour-source max-flow / d (p = 0 is the non-neighbour "
                 "bound), model | simulated\n"
              << std::setw(8) << "p" << std::setw(20) << "h=1" << std::setw(20) << "h=2"
              << std::setw(20) << "h=4\n";
    json f3 = json::array();
    for (const auto& [label, pp] : std::vector<std::pair<std::string, uint32_t>>{
             {"0", 0}, {"d/4", d / 4}, {"d/3", d / 3}, {"d/2", d / 2}})
    {
        std::cout << std::setw(8) << label;
        json row{{"p", label}, {"p_value", pp}};
        for (uint32_t hh : {1u, 2u, 4u})
        {
            const double model = ModelEdgeDisjointFraction(d, pp, hh, pp > 0);
            // p = 0 row: non-neighbour sources of the --p tables (p does not enter their bound).
            double sim
                = (pp == 0 && nonNeighbourByH.count(hh)) ? nonNeighbourByH[hh] : std::nan("");
            if (pp >= 1 && pp <= d - 1 && hh <= d)
            {
                SpraypointParams prm;
                prm.p = pp;
                prm.h = hh;
                prm.key = seed;
                const Ptr<SpraypointRouting> routing = spraypoint(prm);
                FabricRng r2(seed ^ pp);
                sim = SampleCandidateMaxFlow(*routing, routing->GetTables(), fab, td, 4, false, r2)
                          .neighbour
                    / d;
            }
            std::cout << std::setw(10) << std::setprecision(2) << model << " | " << std::setw(5)
                      << std::setprecision(3) << sim;
            row["h" + std::to_string(hh)]
                = {{"model", model}, {"simulated", std::isnan(sim) ? json(nullptr) : json(sim)}};
        }
        std::cout << "\n";
        f3.push_back(row);
    }
    ed["f3_table"] = f3;
    summary["edge_disjoint"] = ed;
    std::cerr << "max-flow done\n";

    // 3. Oversubscription: §7.3 model vs a random router permutation.
    SpraypointParams prm;
    prm.p = p;
    prm.h = h;
    prm.key = seed;
    const OversubModel om = ModelOversubscription(n, d, p, h);
    const auto flows = RandomRouterPermutation(n, seed);
    const FluidThroughput ft = MeasureFluidThroughput(*spraypoint(prm), fab, flows);
    const double osMaxMin = d / ft.maxMinMean;
    const double osUniform = d / ft.uniformRate;
    std::cout << std::setprecision(4) << "\noversubscription (mesh), n=" << n << " d=" << d
              << " p=" << p << " h=" << h << "\n  model §7.3: " << om.oversub << "  (mu2=" << om.mu2
              << " mu3=" << om.mu3 << " mu4=" << om.mu4 << " mu5=" << om.mu5
              << ")\n  measured, random permutation under Spraypoint's "
                 "fluid ECMP splits:\n    max-min fair: d / mean rate = "
              << osMaxMin << " (min rate " << ft.maxMinMin
              << " lanes)\n    uniform scaling: d * "
                 "max link load = "
              << osUniform << "\n    path-length bound (mean hops): " << ft.meanPathHops << "\n";
    summary["oversubscription"]
        = {{"model", om.oversub},
           {"model_terms",
            {{"mu2", om.mu2},
             {"mu3", om.mu3},
             {"mu4", om.mu4},
             {"mu5", om.mu5},
             {"phi3", om.phi3},
             {"kappa3", om.kappa3}}},
           {"measured_max_min", osMaxMin},
           {"measured_uniform", osUniform},
           {"mean_path_hops", ft.meanPathHops},
           {"max_min_min_rate_lanes", ft.maxMinMin},
           {"method",
            "random router permutation; each flow split as Spraypoint's ECMP would in "
            "the fluid limit (source evenly over d uplinks, routers evenly over h "
            "candidates); max-min fair rates by progressive filling with unit lane "
            "capacity; oversub = d / mean rate"}};
    summary["wall_s"]
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.WriteSummary(summary);
    std::cout << "\nwrote " << out.Path("summary.json") << ", path-length.png\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
