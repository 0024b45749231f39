// SPDX-License-Identifier: GPL-2.0-only
//
// Paper-scale experiments at flow level (FlowSimulator), where the packet level cannot go:
//  A. RNG vs a fat tree of equal server count: a random d-regular mesh and a ShuffleBox-built
//     mesh (RNG §6) with Spraypoint routing, a leaf-spine with the same end-to-end
//     oversubscription (as rng-vs-fattree sizes it) with flow-hash ECMP; permutation traffic.
//     Does "RNG matches or exceeds fat trees" come out, and why (path lengths, link loads)?
//  B. ZCube vs ROFT (leaf-spine, S = L spines, ECMP): AllReduce (recursive halving-doubling)
//     and Prefill->Decode (contiguous 25% Prefill block, one KV transfer per Decode GPU)
//     completion times.
//  C. ZCube §4: flow-hash ECMP (over many seeds) vs congestion-aware greedy path choice (each
//     flow in turn takes its least-loaded spine) vs ZCube, on the Fig. 2 patterns at n = 128,
//     k = 16: completion time and fabric-link imbalance (max / mean over loaded links).
// Defaults are small; --full runs the papers' sizes (RNG n = 1000, d = 64; 16384 GPUs, k = 128;
// 500 seeds). Writes summary.json, tables.md (the Markdown tables doc/flow.md shows) and CSVs.
//
//   ./build/bin/flow-scale --out=results/flow-scale
//   ./build/bin/flow-scale --full --out=results/flow-scale-full
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/flow-collectives.h"
#include "ns3/flow-scale-summary.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/rng-models.h"
#include "ns3/rng-topology.h"
#include "ns3/shuffle-box.h"
#include "ns3/zcube-topology.h"

#include <iostream>
#include <sstream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Paper-scale experiments at flow level.");
    cli.Add("full", "paper sizes (RNG n=1000 d=64, 16384 GPUs k=128, 500 seeds)", "false");
    cli.Add("parts", "which parts to run: list of A, B, C", "A,B,C");
    cli.Add("rng-n", "A: routers ('default': 64, full 1000)", "default");
    cli.Add("rng-d", "A: router degree ('default': 8, full 64)", "default");
    cli.Add("rng-s", "A: servers per router ('default': d/4)", "default");
    cli.Add("p", "A: Spraypoint p", "2");
    cli.Add("h", "A: Spraypoint h", "2");
    cli.Add("rooms", "A: ShuffleBox rooms", "4");
    cli.Add("perm-mb", "A: MB per permutation flow", "16");
    cli.Add("gpus", "B: GPUs ('default': 256, full 16384)", "default");
    cli.Add("k", "B: GPUs per switch ('default': 16, full 128)", "default");
    cli.Add("allreduce-mb", "B: AllReduce buffer per GPU in MB", "64");
    cli.Add("kv-mb", "B: KV cache transfer per Decode GPU in MB", "64");
    cli.Add("seeds", "C: ECMP hash seeds ('default': 3, full 20)", "default");
    cli.Add("recompute-us",
            "FlowSimulator::RecomputeInterval in us (0: exact max-min at every event)",
            "0");
    cli.Add("fig2-mb", "C: MB per flow (allreduce: per pair)", "1");
    cli.Add("seed", "graph and pattern seed", "1");
    cli.Add("link-rate-gbps", "link rate in Gb/s", "400");
    cli.Add("out", "results folder", "results/flow-scale");
    cli.Parse(argc, argv);
    const bool full = cli.GetBool("full");
    auto pick = [&](const std::string& name, uint64_t small, uint64_t big, uint64_t lo, uint64_t hi)
    {
        return cli.GetString(name) == "default" ? (full ? big : small) : cli.GetUint(name, lo, hi);
    };
    std::set<std::string> parts;
    for (const auto& p : cli.GetList("parts"))
    {
        if (p != "A" && p != "B" && p != "C")
        {
            throw std::invalid_argument("--parts: '" + p + "' must be A, B or C");
        }
        parts.insert(p);
    }
    const auto rn = static_cast<uint32_t>(pick("rng-n", 64, 1000, 4, 100000));
    const auto rd = static_cast<uint32_t>(pick("rng-d", 8, 64, 3, 1024));
    const auto rs
        = static_cast<uint32_t>(pick("rng-s", std::max(1u, rd / 4), std::max(1u, rd / 4), 1, 1024));
    const auto p = static_cast<uint32_t>(cli.GetUint("p", 1, rd - 1));
    const auto h = static_cast<uint32_t>(cli.GetUint("h", 1, rd));
    const auto rooms = static_cast<uint32_t>(cli.GetUint("rooms", 1, 64));
    const uint64_t permBytes = cli.GetUint("perm-mb", 1, 100000) * 1000000;
    const auto gpus = static_cast<uint32_t>(pick("gpus", 256, 16384, 4, 1u << 20));
    const auto k = static_cast<uint32_t>(pick("k", 16, 128, 1, gpus));
    const uint64_t arBytes = cli.GetUint("allreduce-mb", 1, 100000) * 1000000;
    const uint64_t kvBytes = cli.GetUint("kv-mb", 1, 100000) * 1000000;
    const auto seeds = static_cast<uint32_t>(pick("seeds", 3, 20, 1, 100000));
    const double recomputeUs = cli.GetDouble("recompute-us", 0, 1e6);
    const uint64_t figBytes = cli.GetUint("fig2-mb", 1, 100000) * 1000000;
    const uint64_t seed = cli.GetUint("seed", 0, UINT32_MAX);
    const double lineBps = cli.GetDouble("link-rate-gbps", 1, 100000) * 1e9;
    if (gpus % k != 0)
    {
        throw std::invalid_argument("--k=" + std::to_string(k)
                                    + " must divide --gpus=" + std::to_string(gpus));
    }
    if (parts.count("A"))
    {
        // Part A's fluid rows dominate: every flow loads its Spraypoint candidate DAG. Measured
        // (permutation, loaded 2-core machine) 0.29 s at n = 200, d = 16, s = 8; 2.8 s at
        // n = 500, d = 32, s = 8; 48.7 s at n = 1000, d = 64, s = 16: about 7e-7 s x d^2 per
        // flow, for each of the two RNG graphs.
        CheckFabricRunTime(2 * 7e-7 * double(rd) * rd * rn * rs,
                           "--rng-n=" + std::to_string(rn) + " --rng-d=" + std::to_string(rd)
                               + " --rng-s=" + std::to_string(rs) + " (part A, fluid rows)");
    }
    if (parts.count("C"))
    {
        // Part C runs 4 patterns per ECMP seed at n = 128: measured 0.08 s per seed (1 MB
        // flows, loaded 2-core machine); the flow level's cost hardly depends on the bytes.
        CheckFabricRunTime(0.1 * seeds, "--seeds=" + std::to_string(seeds) + " (part C)");
    }
    FabricResults out(cli.GetString("out"));
    FlowSimHelper helper;
    helper.SetAttribute("DefaultLinkRate", DataRateValue(DataRate(uint64_t(lineBps))));
    helper.SetAttribute("RecomputeInterval", TimeValue(MicroSeconds(recomputeUs)));
    FlowSimHelper fluid = helper; // multipath schemes as a fluid split over their candidates
    fluid.SetAttribute("FluidSplit", BooleanValue(true));
    json summary;
    summary["line_rate_gbps"] = lineBps / 1e9;
    summary["full"] = full;
    summary["recompute_interval_us"] = recomputeUs;
    std::ostringstream md; // tables.md
    md << "<!-- generated by flow-scale" << (full ? " --full" : "") << "; do not edit -->\n"
       << "Flow level (FlowSimulator), " << lineBps / 1e9 << " Gb/s links, rates "
       << (recomputeUs > 0 ? "recomputed every " + FormatNumber(recomputeUs, 4) + " us"
                           : std::string("exact max-min at every event"))
       << ".\n";

    if (parts.count("A"))
    {
        // A. RNG vs fat tree.
        const OversubModel om = ModelOversubscription(rn, rd, p, h);
        const double rngE2E = std::max(1.0, rs * om.oversub / rd);
        const uint32_t spines
            = std::min(rs, std::max(1u, static_cast<uint32_t>(std::ceil(rs / rngE2E - 1e-9))));
        TrafficPatternParams tp;
        tp.hosts = rn * rs;
        tp.bytes = permBytes;
        tp.seed = seed;
        const auto flows = MakeTraffic(TrafficPattern::PERMUTATION, tp);
        std::cout << "A. RNG n=" << rn << " d=" << rd << " s=" << rs << " (" << rn * rs
                  << " servers), Spraypoint p=" << p << " h=" << h << " vs leaf-spine " << rn
                  << " leaves x " << rs << " servers, " << spines << " spines; permutation of "
                  << permBytes / 1e6 << " MB flows\n";
        const ObjectFactory spray("ns3::SpraypointRouting",
                                  "P",
                                  UintegerValue(p),
                                  "H",
                                  UintegerValue(h),
                                  "Key",
                                  UintegerValue(seed),
                                  "Seed",
                                  UintegerValue(seed));
        json a = json::object();
        a["params"] = {{"n", rn},
                       {"d", rd},
                       {"s", rs},
                       {"p", p},
                       {"h", h},
                       {"servers", rn * rs},
                       {"fat_tree_spines", spines},
                       {"rng_end_to_end_oversub", rngE2E},
                       {"fat_tree_oversub", double(rs) / spines},
                       {"perm_bytes", permBytes}};
        std::vector<std::pair<std::string, std::function<std::shared_ptr<const FabricGraph>()>>>
            graphs{{"rng-random-regular",
                    [&]()
                    {
                        return RngFabric(MakeRandomRegularGraph(rn, rd, seed), rs).Build();
                    }},
                   {"rng-shufflebox",
                    [&]()
                    {
                        ShuffleBoxFabric sb(
                            ShuffleBoxFabric::EvenRooms(rn, rooms), rd - rd % 4, 0, seed);
                        return RngFabric(sb.GetRouterGraph(), rs).Build();
                    }}};
        md << "\n### A. RNG vs fat tree (" << rn << " routers, d = " << rd << ", " << rn * rs
           << " servers, permutation of " << permBytes / 1e6 << " MB flows)\n\n";
        const FlowScaleTable table(
            FlowScaleSummary::Columns(
                {{"fabric", "fabric", 20, true}, {"routing", "routing", 12, true}}, true, false),
            md);
        auto row
            = [&](const std::string& name, const std::string& routing, const FlowScaleSummary& o)
        {
            table.Row(o.Cells({name, routing}, true, false), o.CompleteTail());
            return o.ToJson();
        };
        double rngBest = 0;
        for (const auto& [name, build] : graphs)
        {
            try
            {
                auto g = build();
                const FlowScaleSummary o = RunFlowScale(helper, spray, g, flows);
                a[name] = row(name, "spraypoint", o);
                a[name + "-fluid"] = row(name, "spray-fluid", RunFlowScale(fluid, spray, g, flows));
                rngBest = name == "rng-random-regular" ? o.completionMs : rngBest;
            }
            catch (const std::invalid_argument& e)
            {
                a[name] = json{{"error", e.what()}};
                table.Row({name,
                           "spraypoint",
                           std::string("not routed: ") + e.what(),
                           "",
                           "",
                           "",
                           "",
                           ""});
            }
        }
        auto ft = std::shared_ptr<const FabricGraph>(LeafSpineLayout(rn * rs, rs, spines).Build());
        const ObjectFactory ecmp("ns3::EcmpRouting", "Seed", UintegerValue(seed));
        const FlowScaleSummary o = RunFlowScale(helper, ecmp, ft, flows);
        a["fat-tree"] = row("fat-tree", "ecmp", o);
        a["fat-tree-fluid"] = row("fat-tree", "ecmp-fluid", RunFlowScale(fluid, ecmp, ft, flows));
        const bool matches = rngBest > 0 && rngBest <= o.completionMs * 1.05;
        a["rng_matches_or_exceeds"] = matches;
        std::cout << "  RNG (random regular) "
                  << (matches ? "matches or exceeds" : "does NOT match")
                  << " the fat tree on this permutation (completion within 5% or better)\n\n";
        md << "\nRNG (random regular, Spraypoint, hashed paths) "
           << (matches ? "matches or exceeds" : "does **not** match")
           << " the fat tree (ECMP, hashed paths) of equal server count and equal end-to-end "
              "oversubscription on this permutation (criterion: completion time within 5% or "
              "better). *-fluid rows: each flow spread over all its routing candidates in "
              "equal shares per hop (ideal per-packet spraying).\n";
        summary["A"] = a;
    }

    if (parts.count("B"))
    {
        // B. ZCube vs ROFT.
        const auto zg = std::shared_ptr<const FabricGraph>(ZCubeLayout(gpus, k).Build());
        const auto rg = std::shared_ptr<const FabricGraph>(RoftLayout(gpus, k, gpus / k).Build());
        std::cout << "B. ZCube vs ROFT, " << gpus << " GPUs, k=" << k << "\n";
        md << "\n### B. ZCube vs ROFT, " << gpus << " GPUs, k = " << k << "\n\n";
        const FlowScaleTable table(
            FlowScaleSummary::Columns(
                {{"pattern", "pattern", 16, true}, {"fabric", "fabric", 7, true}}, false, true),
            md);
        json b = json::object();
        const std::vector<std::pair<std::string, std::vector<FlowSpec>>> pats{
            {"allreduce-hd", MakeHalvingDoublingAllReduce(gpus, arBytes)},
            {"prefill-decode", MakePrefillDecodePairs(gpus, 0.25, kvBytes)}};
        for (const auto& [pat, flows] : pats)
        {
            for (const auto& [fab, g, typeId] : std::vector<
                     std::tuple<std::string, std::shared_ptr<const FabricGraph>, std::string>>{
                     {"zcube", zg, "ns3::ZCubeRouting"}, {"roft", rg, "ns3::EcmpRouting"}})
            {
                const FlowScaleSummary o = RunFlowScale(
                    helper, ObjectFactory(typeId, "Seed", UintegerValue(seed)), g, flows);
                b[pat][fab] = o.ToJson();
                table.Row(o.Cells({pat, fab}, false, true), o.CompleteTail());
            }
            b[pat]["roft_over_zcube"] = b[pat]["roft"]["completion_ms"].get<double>()
                                      / b[pat]["zcube"]["completion_ms"].get<double>();
        }
        std::cout << "\n";
        summary["B"] = b;
    }

    if (parts.count("C"))
    {
        // C. ZCube §4: ECMP vs greedy vs ZCube on the Fig. 2 patterns (n = 128, k = 16).
        const uint32_t n = 128;
        const uint32_t kk = 16;
        const RoftLayout layout(n, kk, n / kk);
        const auto rg = std::shared_ptr<const FabricGraph>(layout.Build());
        const auto zg = std::shared_ptr<const FabricGraph>(ZCubeLayout(n, kk).Build());
        std::cout << "C. ZCube §4 at n=128, k=16: ECMP (" << seeds << " seeds) vs greedy vs ZCube, "
                  << figBytes / 1e6 << " MB flows\n";
        md << "\n### C. ZCube §4: ECMP vs congestion-aware greedy vs ZCube (n = 128, k = 16, "
           << seeds << " ECMP seeds, " << figBytes / 1e6 << " MB per flow)\n\n";
        const FlowScaleTable table({{"pattern", "pattern", 13, true},
                                    {"ECMP completion (ms, mean ± std)", "ecmp_ms mean ± std", 22},
                                    {"ECMP imbalance (mean)", "imbal", 8},
                                    {"greedy completion (ms)", "greedy_ms", 10},
                                    {"greedy imbalance", "imbal", 8},
                                    {"ZCube completion (ms)", "zcube_ms", 10},
                                    {"ZCube imbalance", "imbal", 8}},
                                   md);
        json c = json::object();
        CsvWriter csv(out.Path("fig2-ecmp-seeds.csv"),
                      {"pattern", "seed", "completion_ms", "loaded_imbalance"});
        for (const PatternCase& pc :
             ParsePatternCases({"allreduce", "prefill:0.25", "prefill:0.5", "elephants"}, 0.25))
        {
            TrafficPatternParams tp;
            tp.hosts = n;
            tp.bytes = figBytes;
            tp.seed = seed;
            tp.prefillFraction = pc.prefillFraction; // elephants: the default 8
            // Greedy: in flow order, the spine whose uplink and downlink carry least so far.
            const FlowScaleStrategies st = RunFlowScaleStrategies(
                helper,
                layout,
                rg,
                ObjectFactory("ns3::ZCubeRouting", "Seed", UintegerValue(seed)),
                zg,
                MakeTraffic(pc.pattern, tp),
                seed,
                seeds);
            for (const auto& r : st.ecmp.CsvRows(pc.key))
            {
                csv.Row(r);
            }
            c[pc.key] = st.ToJson("zcube");
            table.Row(st.Cells(pc.key));
        }
        summary["C"] = c;
    }
    summary["peak_rss_mib"] = PeakRssMiB();
    out.WriteSummary(summary);
    std::ofstream(out.Path("tables.md")) << md.str();
    std::cout << "peak RSS " << FormatNumber(PeakRssMiB(), 5) << " MiB\nwrote "
              << out.Path("summary.json") << ", tables.md, fig2-ecmp-seeds.csv\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
