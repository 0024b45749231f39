// SPDX-License-Identifier: GPL-2.0-only
//
// RNG (random d-regular mesh, Spraypoint / shortest-path ECMP / k-shortest-paths) vs a
// two-tier fat tree with the same servers and the same oversubscription (RNG paper §7.3
// model), at packet level with RoCE flows (go-back-N, DCQCN by default, ECN at the switches):
// permutation and all-to-all. Per routing: per-flow throughput (mean, p1, min), FCT slowdown
// (p50/p99 of RoceFlowRecord::Slowdown()), path lengths counted on the data packets as they
// cross the switches, retransmissions, CNPs and packet accounting; then the blast radius of a
// router failure and of 1% link failures, before and after the routing reconverges.
//
// --level=flow runs the same graphs, routing objects (same TypeIds and attributes) and flow
// lists through the flow level (FlowSimulator: max-min fair fluid, no queues, no transport),
// each routing with its hashed paths and as a fluid split over its candidates; it reaches the
// RNG paper's regime (n = 1000, d = 64). --graph=shufflebox builds the RNG router graph with
// ShuffleBoxes (RNG paper §6) instead of a random regular graph.
//
//   ./build/bin/rng-vs-fattree --out=results/rng-vs-fattree
//   ./build/bin/rng-vs-fattree --full=true
//   ./build/bin/rng-vs-fattree --level=flow --n=1000 --d=64 --s=16 --patterns=permutation
//       --routings=spraypoint,ecmp   (KSP's all-pairs paths would take hours at that size)
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-plot.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-table.h"
#include "ns3/flow-run-summary.h"
#include "ns3/rng-fat-tree-study.h"
#include "ns3/roce-header.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-run-summary.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <set>

using namespace ns3;
using json = nlohmann::json;

namespace
{

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "RNG vs fat tree of the same oversubscription, RoCE at packet level.");
    cli.Add("n", "RNG routers (= fat-tree leaves)", "64");
    cli.Add("d", "RNG router degree (uplink lanes)", "8");
    cli.Add("s", "servers per router / leaf", "2");
    cli.Add("p", "Spraypoint p, in [1, d-1]", "2");
    cli.Add("h", "Spraypoint h, in [1, d]", "2");
    cli.Add("k", "k of k-shortest-paths", "8");
    cli.Add("seed", "graph, key, traffic and failure seed", "1");
    cli.Add("perm-bytes", "bytes per permutation flow", "524288");
    cli.Add("a2a-bytes", "bytes per all-to-all flow", "8192");
    cli.Add("a2a-steps",
            "all-to-all steps (random distinct shifts; 0: all N-1; --full: 64 unless given)",
            "0");
    cli.Add("link-rate-gbps", "lane / link rate", "100");
    cli.Add("rate-control", "dcqcn | none | a TypeId derived from ns3::RoceRateControl", "dcqcn");
    cli.Add(
        "stop-ms", "safety horizon of a run in ms (flows not complete then are reported)", "100");
    cli.Add("blackhole-us",
            "how long a failure stays in place before the routing reconverges (us): flows not "
            "complete by then are the ones hit",
            "2000");
    cli.Add("routings", "RNG routings: comma list of spraypoint|ecmp|ksp", "spraypoint,ecmp,ksp");
    cli.Add("patterns", "comma list of permutation|all-to-all", "permutation,all-to-all");
    cli.Add("blast", "run the failure (blast radius) cases", "true");
    cli.Add("full", "paper-like scale (n=256, d=16, s=8)", "false");
    cli.Add("level",
            "packet | flow (FlowSimulator over the same graphs, routing objects and flows; "
            "hashed paths and a fluid split per routing; no blast-radius cases)",
            "packet");
    cli.Add("fluid",
            "with --level=flow: also run each routing as a fluid split over its candidates "
            "(slow at n = 1000: every flow loads its whole candidate DAG)",
            "true");
    cli.Add("graph",
            "RNG router graph: random-regular | shufflebox (ShuffleBox build, d a multiple "
            "of 4)",
            "random-regular");
    cli.Add("rooms", "with --graph=shufflebox: rooms the routers are spread over", "4");
    cli.Add("out", "results folder", "results/rng-vs-fattree");
    cli.Parse(argc, argv);
    for (const auto& [attribute, flag] : std::vector<std::pair<std::string, std::string>>{
             {"ns3::FlowSimulator::DefaultLinkRate", "--link-rate-gbps"},
             {"ns3::FlowSimulator::FluidSplit", "--fluid"}})
    {
        cli.ReserveAttribute(attribute, flag);
    }
    const bool full = cli.GetBool("full");
    // --full fixes the sizes; a size given as well is refused, not silently overridden.
    auto size = [&](const std::string& f, uint32_t fullValue, uint64_t lo, uint64_t hi)
    {
        if (full && cli.IsSet(f))
        {
            throw std::invalid_argument("--full sets --n=256 --d=16 --s=8; do not also give --"
                                        + f);
        }
        return full ? fullValue : static_cast<uint32_t>(cli.GetUint(f, lo, hi));
    };
    const uint32_t n = size("n", 256, 4, 4096);
    const uint32_t d = size("d", 16, 2, 1000);
    const uint32_t s = size("s", 8, 1, 64);
    RngFatTreeParams prm{n,
                         d,
                         s,
                         static_cast<uint32_t>(cli.GetUint("p", 1, 1000)),
                         static_cast<uint32_t>(cli.GetUint("h", 1, 1000)),
                         static_cast<uint32_t>(cli.GetUint("k", 1, 64)),
                         cli.GetUint("seed", 0, UINT64_MAX)};
    RngFatTreeRunSettings run;
    run.rateControl = cli.GetString("rate-control");
    RoceRateControlTypeId(run.rateControl, "--rate-control"); // checked before anything runs
    run.lineBps = cli.GetDouble("link-rate-gbps", 0.001, 10000) * 1e9;
    run.stopAt = cli.GetTime("stop-ms", Time::MS, MicroSeconds(1), Seconds(1000));
    run.blackhole = cli.GetTime("blackhole-us", Time::US, MicroSeconds(1), Seconds(1000));
    CheckSerializationResolution(run.lineBps, RoceDataWireBytes(), "--link-rate-gbps");
    run.permBytes = cli.GetUint("perm-bytes", 1, uint64_t(1) << 34);
    run.a2aBytes = cli.GetUint("a2a-bytes", 1, uint64_t(1) << 30);
    run.a2aSteps = full && !cli.IsSet("a2a-steps")
                     ? 64u
                     : static_cast<uint32_t>(cli.GetUint("a2a-steps", 0, 16383));
    if (uint64_t(n) * s - 1 > 16383 && run.a2aSteps == 0)
    {
        throw std::invalid_argument("--a2a-steps=0: all-to-all over " + std::to_string(n * s)
                                    + " servers needs --a2a-steps in [1, 16383] (one UDP source "
                                      "port per step)");
    }
    run.flowLevel = cli.GetChoice("level", {"packet", "flow"}) == "flow";
    prm.shuffleBox = cli.GetChoice("graph", {"random-regular", "shufflebox"}) == "shufflebox";
    prm.rooms = static_cast<uint32_t>(cli.GetUint("rooms", 1, 64));
    if (prm.shuffleBox && d % 4 != 0)
    {
        throw std::invalid_argument("--graph=shufflebox: --d=" + std::to_string(d)
                                    + " must be a multiple of 4 (4 lanes per ShuffleBox port)");
    }
    if (run.flowLevel && cli.IsSet("blast") && cli.GetBool("blast"))
    {
        throw std::invalid_argument("--blast=true: the blast-radius cases run at packet level "
                                    "only; use --level=packet or leave --blast out");
    }
    const bool blast = !run.flowLevel && cli.GetBool("blast");
    run.fluid = cli.GetBool("fluid");
    for (const auto& [flag, allowed] : std::vector<std::pair<std::string, std::set<std::string>>>{
             {"routings", {"spraypoint", "ecmp", "ksp"}},
             {"patterns", {"permutation", "all-to-all"}}})
    {
        for (const auto& x : cli.GetList(flag))
        {
            if (!allowed.count(x))
            {
                throw std::invalid_argument(
                    "--" + flag + ": '" + x + "' must be "
                    + (flag == "routings" ? "spraypoint|ecmp|ksp" : "permutation|all-to-all"));
            }
        }
    }
    run.routings = cli.GetList("routings");
    run.patterns = cli.GetList("patterns");
    CheckRngFatTreeSize(prm, run); // memory and, at flow level, wall time
    // The two fabrics (validates the graph parameters and p, h against d).
    const RngFatTreeStudy study(prm);
    const uint32_t spines = study.GetSpines();
    if (blast && spines < 2)
    {
        throw std::invalid_argument(
            std::string(cli.IsSet("blast") ? "--blast" : "--blast (default true)")
            + " fails a fat-tree spine, which needs at least 2 spines; --s=" + std::to_string(s)
            + " gives " + std::to_string(spines) + " here: use a larger --s or --blast=false");
    }
    FabricResults out(cli.GetString("out"));
    const uint32_t nServers = n * s;
    const std::string& cc = run.rateControl;
    study.Describe(std::cout);
    std::cout << "RoCE ("
              << (cc == "dcqcn"  ? "DCQCN"
                  : cc == "none" ? "no rate control"
                                 : cc)
              << "), " << run.lineBps / 1e9 << " Gb/s links\n";
    json summary;
    summary["params"] = study.SummaryParams(run);
    if (summary["params"].contains("level"))
    {
        std::cout << "RNG router graph: " << summary["params"]["graph"].get<std::string>() << " ("
                  << study.GetRng().GetRouters().GetNEdges() << " router-router links), level: "
                  << summary["params"]["level"].get<std::string>() << "\n";
    }
    auto patterns = RngFatTreeTraffic(nServers, prm.seed, run);

    const TypeId rateControl = RoceRateControlTypeId(cc, "--rate-control");
    std::vector<std::string> cols{"pattern", "fabric", "routing", "case"};
    for (const auto& col : run.flowLevel ? FlowSimCsvHeader() : RoceFlowCsvHeader())
    {
        cols.push_back(col);
    }
    CsvWriter flowCsv(out.Path("flows.csv"), cols);
    CsvWriter pathCsv(out.Path("path-lengths.csv"),
                      {"pattern", "fabric", "routing", "router_links", "fraction_of_data_packets"});
    auto flowRows = [&flowCsv](const std::vector<std::string>& prefix,
                               const std::vector<std::vector<std::string>>& rows)
    {
        for (const auto& r : rows)
        {
            std::vector<std::string> cells = prefix;
            cells.insert(cells.end(), r.begin(), r.end());
            flowCsv.Row(cells);
        }
    };

    std::cout << "\n";
    const FabricTextTable runTable = RoutingStudyTable(run.flowLevel);
    runTable.PrintHeader(run.flowLevel
                             ? "  (flow level: max-min fair fluid)"
                             : "  path-length histogram (router-router links, data packets)");
    uint32_t incompleteTotal = 0;
    for (const auto& pat : run.patterns)
    {
        const auto& flows = patterns[pat];
        Gnuplot plot;
        plot.SetTerminal("pngcairo size 900,500");
        plot.SetTitle("FCT slowdown CDF, " + pat + " (" + std::to_string(flows.size())
                      + " RoCE flows, " + std::to_string(nServers) + " servers)");
        plot.SetLegend("FCT slowdown (FCT / ideal FCT on the flow's path)", "fraction of flows");
        for (const std::string extra :
             {"set logscale x", "set key bottom right", "set yrange [0:1]", "set xrange [0.8:*]"})
        {
            plot.AppendExtra(extra);
        }
        std::map<std::string, json> flowLevel; // routing (with -fluid) -> result, per fabric
        for (const RngFatTreeRun& rr : RngFatTreeRuns(study, run))
        {
            const std::string key = rr.fabric == "rng" ? "rng" : "fat_tree";
            std::cerr << "[" << pat << "] " << rr.fabric << " " << rr.routing->GetName()
                      << (rr.fluid ? " fluid" : "") << (run.flowLevel ? " (flow level)" : "")
                      << "..." << std::flush;
            const RoutingStudyRun r
                = run.flowLevel
                    ? RunFlowLevelStudy(rr.routing, flows, run.lineBps, run.stopAt, rr.fluid)
                    : RunPacketLevelStudy(rr.routing, flows, run.lineBps, rateControl, run.stopAt);
            const json& j = r.summary;
            flowRows({pat, rr.fabric, j["routing"], "normal"}, r.flowCells);
            std::cerr << " " << FormatNumber(j["wall_s"].get<double>(), 3) << " s\n";
            PrintRoutingStudyRow(runTable, pat, rr.fabric, j);
            incompleteTotal += j["flows_incomplete"].get<uint32_t>();
            const std::string name = j["routing"].get<std::string>();
            summary["runs"][pat][key][name] = j;
            flowLevel[key + "/" + name] = j;
            for (const auto& [kk, v] : j["path_length_hist"].items())
            {
                pathCsv.Row({pat, rr.fabric, name, kk, FormatNumber(v.get<double>())});
            }
            plot.AddDataset(MakeCdfDataset(rr.fabric + " " + name, r.slowdowns));
        }
        if (run.flowLevel && flowLevel.count("fat_tree/ecmp"))
        {
            // "Matches or exceeds fat trees": the pattern's completion time (its slowest flow)
            // and the mean per-flow throughput, each RNG routing against the fat tree (ECMP,
            // hashed paths; and its fluid split against the RNG's fluid splits), within 5%.
            summary["verdict"][pat] = JudgeRngAgainstFatTree(flowLevel, 0.05);
            PrintRngFatTreeVerdict(std::cout, pat, summary["verdict"][pat], flowLevel, 0.05);
        }
        out.WritePng("fct-slowdown-cdf-" + pat + ".png", plot);
    }

    if (blast)
    {
        // Blast radius, permutation traffic: RNG (Spraypoint) vs fat tree (ECMP).
        std::cout << "\nblast radius (permutation; flows from/to the failed RNG router's servers "
                     "left out on both fabrics)\n";
        const FabricTextTable blastTable = RngFatTreeBlastTable();
        blastTable.PrintHeader();
        CsvWriter blastCsv(out.Path("blast-radius.csv"), RngFatTreeBlastCase::CsvHeader());
        std::vector<std::pair<std::string, std::vector<RngFatTreeBlastCase>>> kinds;
        try
        {
            kinds = MeasureRngFatTreeBlasts(
                study.BlastSetup(run.lineBps, rateControl, run.blackhole, run.stopAt),
                patterns["permutation"],
                prm.seed,
                std::cerr);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("--blast: ") + e.what()
                                        + "; use --blast=false or larger --n/--d/--s");
        }
        for (const auto& [kind, cases] : kinds)
        {
            for (const auto& c : cases)
            {
                const RoceFailureImpact& im = c.impact;
                incompleteTotal
                    += im.unroutable + im.after.summary["flows_incomplete"].get<uint32_t>();
                blastTable.PrintRow(c.TableCells(kind));
                summary["blast_radius"][kind][c.fabric == "rng" ? "rng" : "fat_tree"] = c.Json();
                flowRows({"permutation", c.fabric, c.preRouting, kind + "-pre"},
                         RoceFlowCsvRows(im.before.flows));
                flowRows({"permutation", c.fabric, c.postRouting, kind + "-post"},
                         RoceFlowCsvRows(im.after.flows));
                blastCsv.Row(c.CsvCells(kind));
            }
        }
        std::cout << "\npredicted: flows whose data or ACK path the routing function sends into "
                     "the failure; hit-pre: fraction of flows not complete after --blackhole-us "
                     "with the failure in place and routing not reconverged; incompl, tput, sd: "
                     "after the routing is recomputed on the degraded graph\n";
    }
    summary["flows_incomplete_total"] = incompleteTotal;
    std::cout << "\ntput: per-flow throughput = message bits / FCT (Gb/s); sd: FCT slowdown = FCT "
                 "/ ideal FCT on the flow's routed path (wire bytes at line rate + base RTT)\n";
    if (run.flowLevel)
    {
        std::cout << "flow level: done-us = completion of the pattern; links = mean router-router "
                     "links of the hashed paths (by bytes); busiest = bytes of the busiest "
                     "router-router link / (capacity x completion); -fluid = the flow spread "
                     "over all its routing candidates in equal shares per hop (ideal spraying)\n";
    }
    if (incompleteTotal > 0)
    {
        std::cout << "WARNING: " << incompleteTotal
                  << " flows did not complete within --stop-ms (see flows_incomplete)\n";
    }
    out.WriteSummary(summary);
    std::cout << "wrote " << out.Path("summary.json") << ", flows.csv, path-lengths.csv"
              << (blast ? ", blast-radius.csv" : "") << ", fct-slowdown-cdf-*.png\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
