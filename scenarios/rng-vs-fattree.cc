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

/// Settings shared by every run.
struct Setup
{
    double lineBps;
    std::string rateControl; //!< dcqcn | none | a RoceRateControl TypeId (as given)
    Time stopAt;             //!< safety horizon of a run
};

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
    for (const std::string f : {"n", "d", "s"})
    {
        if (full && cli.IsSet(f))
        {
            throw std::invalid_argument("--full sets --n=256 --d=16 --s=8; do not also give --"
                                        + f);
        }
    }
    const auto n = full ? 256u : static_cast<uint32_t>(cli.GetUint("n", 4, 4096));
    const auto d = full ? 16u : static_cast<uint32_t>(cli.GetUint("d", 2, 1000));
    const auto s = full ? 8u : static_cast<uint32_t>(cli.GetUint("s", 1, 64));
    const auto p = static_cast<uint32_t>(cli.GetUint("p", 1, 1000));
    const auto h = static_cast<uint32_t>(cli.GetUint("h", 1, 1000));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, 64));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    const std::string cc = cli.GetString("rate-control");
    RoceRateControlTypeId(cc, "--rate-control"); // checked before anything runs
    Setup st{cli.GetDouble("link-rate-gbps", 0.001, 10000) * 1e9,
             cc,
             cli.GetTime("stop-ms", Time::MS, MicroSeconds(1), Seconds(1000))};
    const Time blackhole = cli.GetTime("blackhole-us", Time::US, MicroSeconds(1), Seconds(1000));
    CheckSerializationResolution(st.lineBps, RoceDataWireBytes(), "--link-rate-gbps");
    const uint64_t permBytes = cli.GetUint("perm-bytes", 1, uint64_t(1) << 34);
    const uint64_t a2aBytes = cli.GetUint("a2a-bytes", 1, uint64_t(1) << 30);
    const uint32_t a2aSteps = full && !cli.IsSet("a2a-steps")
                                ? 64u
                                : static_cast<uint32_t>(cli.GetUint("a2a-steps", 0, 16383));
    if (uint64_t(n) * s - 1 > 16383 && a2aSteps == 0)
    {
        throw std::invalid_argument("--a2a-steps=0: all-to-all over " + std::to_string(n * s)
                                    + " servers needs --a2a-steps in [1, 16383] (one UDP source "
                                      "port per step)");
    }
    const std::string level = cli.GetChoice("level", {"packet", "flow"});
    const std::string graphKind = cli.GetChoice("graph", {"random-regular", "shufflebox"});
    const auto rooms = static_cast<uint32_t>(cli.GetUint("rooms", 1, 64));
    if (graphKind == "shufflebox" && d % 4 != 0)
    {
        throw std::invalid_argument("--graph=shufflebox: --d=" + std::to_string(d)
                                    + " must be a multiple of 4 (4 lanes per ShuffleBox port)");
    }
    if (level == "flow" && cli.IsSet("blast") && cli.GetBool("blast"))
    {
        throw std::invalid_argument("--blast=true: the blast-radius cases run at packet level "
                                    "only; use --level=packet or leave --blast out");
    }
    const bool blast = level == "packet" && cli.GetBool("blast");
    const bool withFluid = cli.GetBool("fluid");
    auto checkedList = [&cli](const std::string& flag, const std::set<std::string>& allowed)
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
        return cli.GetList(flag);
    };
    const auto routings = checkedList("routings", {"spraypoint", "ecmp", "ksp"});
    const auto patternNames = checkedList("patterns", {"permutation", "all-to-all"});
    // Measured: about 45 kB per ns-3 node (servers and routers) and, for the routing tables,
    // 11 bytes per router pair and 16 per lane.
    if (level == "packet")
    {
        CheckFabricMemory(30e6 + 45e3 * double(n) * (s + 1) + 11.0 * n * n + 16.0 * n * d,
                          "--n=" + std::to_string(n) + " --d=" + std::to_string(d)
                              + " --s=" + std::to_string(s));
    }
    // The two fabrics (validates the graph parameters and p, h against d).
    RngFatTreeParams prm{n, d, s, p, h, k, seed, graphKind == "shufflebox", rooms};
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
    std::cout << "RNG: " << n << " routers, d=" << d << ", s=" << s << " (" << nServers
              << " servers), Spraypoint p=" << p << " h=" << h << "; model mesh oversub "
              << study.GetModel().oversub << " -> end-to-end " << study.GetRngEndToEndOversub()
              << "\nfat tree: " << n << " leaves x " << s << " servers, " << spines
              << " spines (oversub " << double(s) / spines << ")\nswitch ports: RNG " << n * (s + d)
              << ", fat tree " << study.GetFatTree().SwitchPorts() << "; switches: RNG " << n
              << ", fat tree " << n + spines << "\nRoCE ("
              << (cc == "dcqcn"  ? "DCQCN"
                  : cc == "none" ? "no rate control"
                                 : cc)
              << "), " << st.lineBps / 1e9 << " Gb/s links\n";
    json summary;
    summary["params"] = study.ParamsJson();
    summary["params"].update({{"transport", "roce"},
                              {"rate_control", cc},
                              {"perm_bytes", permBytes},
                              {"a2a_bytes", a2aBytes},
                              {"a2a_steps", a2aSteps},
                              {"stop_ms", st.stopAt.ToDouble(Time::MS)},
                              {"blackhole_us", blackhole.ToDouble(Time::US)},
                              {"link_rate_gbps", st.lineBps / 1e9}});
    if (level == "flow" || graphKind != "random-regular")
    {
        // Only then: the packet-level default's summary stays as it was.
        summary["params"]["level"] = level;
        if (level == "flow")
        {
            // No transport at the flow level: the fluid shares links max-min fairly.
            summary["params"]["transport"] = "fluid-max-min";
            summary["params"].erase("rate_control");
        }
        summary["params"]["graph"] = graphKind;
        if (graphKind == "shufflebox")
        {
            summary["params"]["rooms"] = rooms;
        }
        std::cout << "RNG router graph: " << graphKind << " ("
                  << study.GetRng().GetRouters().GetNEdges()
                  << " router-router links), level: " << level << "\n";
    }

    TrafficPatternParams tp;
    tp.hosts = nServers;
    tp.seed = seed;
    tp.bytes = permBytes;
    std::map<std::string, std::vector<FlowSpec>> patterns;
    patterns["permutation"] = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    if (std::find(patternNames.begin(), patternNames.end(), "all-to-all") != patternNames.end())
    {
        // Only when asked for: all N-1 steps at 16000 servers are 256 M flows.
        patterns["all-to-all"] = MakeShiftedAllToAll(nServers, a2aBytes, a2aSteps, seed);
    }

    const TypeId rateControl = RoceRateControlTypeId(cc, "--rate-control");
    CsvWriter flowCsv(out.Path("flows.csv"),
                      [&]()
                      {
                          std::vector<std::string> cols{"pattern", "fabric", "routing", "case"};
                          for (const auto& col :
                               level == "flow" ? FlowSimCsvHeader() : RoceFlowCsvHeader())
                          {
                              cols.push_back(col);
                          }
                          return cols;
                      }());
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
    const FabricTextTable runTable = RoutingStudyTable(level == "flow");
    runTable.PrintHeader(level == "flow"
                             ? "  (flow level: max-min fair fluid)"
                             : "  path-length histogram (router-router links, data packets)");
    uint32_t incompleteTotal = 0;
    for (const auto& pat : patternNames)
    {
        const auto& flows = patterns[pat];
        Gnuplot plot;
        plot.SetTerminal("pngcairo size 900,500");
        plot.SetTitle("FCT slowdown CDF, " + pat + " (" + std::to_string(flows.size())
                      + " RoCE flows, " + std::to_string(nServers) + " servers)");
        plot.SetLegend("FCT slowdown (FCT / ideal FCT on the flow's path)", "fraction of flows");
        plot.AppendExtra("set logscale x");
        plot.AppendExtra("set key bottom right");
        plot.AppendExtra("set yrange [0:1]");
        plot.AppendExtra("set xrange [0.8:*]");
        std::vector<std::pair<std::string, Ptr<FabricRouting>>> runs;
        for (const auto& name : routings)
        {
            runs.emplace_back("rng", study.MakeRngRouting(name));
        }
        runs.emplace_back("fat-tree", study.MakeFatTreeRouting());
        std::map<std::string, json> flowLevel; // routing (with -fluid) -> result, per fabric
        for (const auto& [fabName, routing] : runs)
        {
            const std::string key = fabName == "rng" ? "rng" : "fat_tree";
            for (const bool fluid : {false, true})
            {
                // KspRouting's candidates at a router are the next hops of every source's
                // paths (the choice is made at the source): split hop by hop they loop, so
                // there is no fluid form of KSP here.
                if (fluid && (level == "packet" || !withFluid || routing->GetName() == "ksp"))
                {
                    continue;
                }
                std::cerr << "[" << pat << "] " << fabName << " " << routing->GetName()
                          << (fluid ? " fluid" : "") << (level == "flow" ? " (flow level)" : "")
                          << "..." << std::flush;
                const RoutingStudyRun r
                    = level == "flow"
                        ? RunFlowLevelStudy(routing, flows, st.lineBps, st.stopAt, fluid)
                        : RunPacketLevelStudy(routing, flows, st.lineBps, rateControl, st.stopAt);
                const json& j = r.summary;
                flowRows({pat, fabName, j["routing"], "normal"}, r.flowCells);
                std::cerr << " " << FormatNumber(j["wall_s"].get<double>(), 3) << " s\n";
                PrintRoutingStudyRow(runTable, pat, fabName, j);
                incompleteTotal += j["flows_incomplete"].get<uint32_t>();
                const std::string name = j["routing"].get<std::string>();
                summary["runs"][pat][key][name] = j;
                flowLevel[key + "/" + name] = j;
                for (const auto& [kk, v] : j["path_length_hist"].items())
                {
                    pathCsv.Row({pat, fabName, name, kk, FormatNumber(v.get<double>())});
                }
                plot.AddDataset(MakeCdfDataset(fabName + " " + name, r.slowdowns));
            }
        }
        if (level == "flow" && flowLevel.count("fat_tree/ecmp"))
        {
            // "Matches or exceeds fat trees": the pattern's completion time (its slowest flow)
            // and the mean per-flow throughput, each RNG routing against the fat tree (ECMP,
            // hashed paths; and its fluid split against the RNG's fluid splits), within 5%.
            const json verdict = JudgeRngAgainstFatTree(flowLevel, 0.05);
            for (const auto& [name, v] : verdict.items())
            {
                std::cout << "  " << pat << ": RNG " << name;
                if (v["matches_or_exceeds"].is_null())
                {
                    std::cout << ": no verdict (flows incomplete)\n";
                    continue;
                }
                std::cout << " vs fat tree "
                          << flowLevel.at(FatTreeBaselineKey(flowLevel, "rng/" + name))["routing"]
                                 .get<std::string>()
                          << ": completion x"
                          << FormatNumber(v["completion_vs_fat_tree"].get<double>(), 3)
                          << ", mean throughput x"
                          << FormatNumber(v["mean_throughput_vs_fat_tree"].get<double>(), 3)
                          << " -> "
                          << (v["matches_or_exceeds"].get<bool>() ? "matches or exceeds"
                                                                  : "does NOT match")
                          << " (criterion: completion within 5% and mean throughput within 5% "
                             "or better)\n";
            }
            summary["verdict"][pat] = verdict;
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
        FabricRng frng(seed ^ 0x6661696cULL);
        const RngFatTreeBlastSetup setup
            = study.BlastSetup(st.lineBps, rateControl, blackhole, st.stopAt);
        for (const std::string kind : {"router", "links-1pct"})
        {
            std::cerr << "[blast " << kind << "]..." << std::flush;
            std::vector<RngFatTreeBlastCase> cases;
            try
            {
                cases = MeasureRngFatTreeBlast(setup, kind, patterns["permutation"], frng);
            }
            catch (const std::invalid_argument& e)
            {
                throw std::invalid_argument(std::string("--blast: ") + e.what()
                                            + "; use --blast=false or larger --n/--d/--s");
            }
            std::cerr << " done\n";
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
    if (level == "flow")
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
    out.WriteJson("summary.json", summary);
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
