// SPDX-License-Identifier: GPL-2.0-only
//
// The same experiment at packet level (RoCE over ns-3, RunFabricRoce) and at flow level
// (FlowSimulator: max-min fair fluid), joined per flow: FCT ratio packet/flow (median, p99,
// worst flows with their paths), collective completion ratio, per-link utilization
// difference, and the measured causes where they diverge (queues met on the path, flows
// sharing fabric links, DCQCN ramp-up, retransmissions, drops, from the packet run's monitor
// and per-flow records, and a flow-level rerun with the ramp model on).
//
// Both levels take the same FabricGraph, routing objects of the same TypeId and attributes
// (each its own instance) and the same FlowSpec list.
//
//   ./build/bin/packet-vs-flow --out=results/packet-vs-flow
//   ./build/bin/packet-vs-flow --fabric=roft --n=32 --k=8 --pattern=prefill:0.5
//   ./build/bin/packet-vs-flow --fabric=zcube --flows=my-flows.csv   (src,dst,bytes,start_us)
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/packet-flow-compare.h"
#include "ns3/roce-rate-control.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "One experiment at packet level and at flow level, joined per flow.");
    cli.Add(
        "fabric", "zcube|roft|rng (list), or 'default' for zcube,roft + one rng run", "default");
    cli.Add("n", "GPUs (zcube, roft) or routers (rng)", "16");
    cli.Add("k", "GPUs per switch (zcube, roft, dividing n) or router degree d (rng)", "4");
    cli.Add("s", "servers per router (rng)", "2");
    cli.Add("pattern",
            "allreduce|prefill[:fraction]|elephants|all-to-one|permutation (list), or "
            "'default': allreduce,prefill on zcube/roft and permutation on rng",
            "default");
    cli.Add("flows", "CSV flow list (header src,dst,bytes,start_us) instead of a pattern", "");
    cli.Add("bytes",
            "bytes per flow of a pattern ('default': 64 KB allreduce, 1 MB others)",
            "default");
    cli.Add("routing", "routing TypeId for both levels ('default': per fabric)", "default");
    cli.Add("seed", "routing hash seed and pattern seed", "1");
    cli.Add("link-rate-gbps", "link rate in Gb/s", "400");
    cli.Add("delay-us", "propagation delay per link in microseconds", "1");
    cli.Add("queue-bytes", "egress queue per port in bytes", "2000000");
    cli.Add("rate-control",
            "dcqcn | none | a TypeId derived from ns3::RoceRateControl (packet level)",
            "dcqcn");
    cli.Add("stop-ms", "packet-level safety horizon in ms", "200");
    cli.Add("worst", "worst flows listed per run", "5");
    cli.Add("out", "results folder", "results/packet-vs-flow");
    cli.Parse(argc, argv);

    PacketFlowFabricSize size;
    size.n = static_cast<uint32_t>(cli.GetUint("n", 2, 65536));
    size.k = static_cast<uint32_t>(cli.GetUint("k", 1, size.n));
    size.s = static_cast<uint32_t>(cli.GetUint("s", 1, 1024));
    size.seed = cli.GetUint("seed", 0, UINT32_MAX);
    PacketFlowOptions o;
    o.lineBps = cli.GetDouble("link-rate-gbps", 1, 100000) * 1e9;
    o.delayS = cli.GetDouble("delay-us", 0, 1e6) * 1e-6;
    o.queueBytes = cli.GetUint("queue-bytes", 10000, UINT32_MAX);
    o.rateControl = cli.GetString("rate-control");
    RoceRateControlTypeId(o.rateControl, "--rate-control"); // checked before anything runs
    o.routingSeed = size.seed;
    o.stopS = cli.GetDouble("stop-ms", 0.001, 1e6) * 1e-3;
    const auto worst = static_cast<uint32_t>(cli.GetUint("worst", 0, 1000));
    const std::string flowsFile = cli.GetString("flows");
    const auto& kinds = PacketFlowFabricKinds();

    // The runs: (fabric, pattern).
    std::vector<std::pair<std::string, std::string>> runs;
    std::vector<std::string> fabrics = cli.GetList("fabric");
    const bool defFabric = fabrics.size() == 1 && fabrics[0] == "default";
    const std::vector<std::string> patterns = cli.GetList("pattern");
    const bool defPattern = patterns.size() == 1 && patterns[0] == "default";
    if (!flowsFile.empty() && !defPattern)
    {
        throw std::invalid_argument("--flows and --pattern exclude each other");
    }
    if (defFabric)
    {
        fabrics = flowsFile.empty() ? std::vector<std::string>{"zcube", "roft", "rng"}
                                    : std::vector<std::string>{"zcube", "roft"};
    }
    for (const auto& fab : fabrics)
    {
        if (!kinds.count(fab))
        {
            throw std::invalid_argument("--fabric: '" + fab + "' must be zcube|roft|rng");
        }
        if (!flowsFile.empty())
        {
            runs.emplace_back(fab, "flows:" + flowsFile);
        }
        else if (defPattern)
        {
            const std::vector<std::string> def
                = fab == "rng" ? std::vector<std::string>{"permutation"}
                               : std::vector<std::string>{"allreduce", "prefill"};
            for (const auto& p : def)
            {
                runs.emplace_back(fab, p);
            }
        }
        else
        {
            for (const auto& p : patterns)
            {
                runs.emplace_back(fab, p);
            }
        }
    }
    // Validate sizes and the flow list against every fabric before writing anything.
    for (const auto& fab : fabrics)
    {
        if (fab != "rng" && size.n % size.k != 0)
        {
            throw std::invalid_argument("--k=" + std::to_string(size.k)
                                        + " must divide --n=" + std::to_string(size.n));
        }
        if (!flowsFile.empty())
        {
            ReadFlowList(flowsFile, kinds.at(fab).build(size)->GetNHosts());
        }
    }
    // A routing TypeId that does not exist or is not a FabricRouting would abort mid-run.
    if (cli.GetString("routing") != "default")
    {
        cli.GetTypeId("routing", "ns3::FabricRouting");
    }
    // Hopeless sizes are refused before anything is built. Measured on the loaded 2-core
    // machine: ZCube(8, 4) allreduce of 56 flows x 100 MB 36 s, a permutation of 8 x 1 GB 49 s
    // (packet level, about 6.4e-9 s per byte); a flow costs about 1 kB of memory at both
    // levels. A flow carries at most the line rate until --stop-ms.
    if (flowsFile.empty())
    {
        double seconds = 0;
        double maxFlows = 0;
        for (const auto& [fab, pat] : runs)
        {
            TrafficPatternParams tp;
            tp.hosts = fab == "rng" ? size.n * size.s : size.n;
            tp.seed = size.seed;
            tp.bytes = cli.GetString("bytes") == "default"
                         ? (pat == "allreduce" ? 65536 : 1000000)
                         : cli.GetUint("bytes", 1, uint64_t(1) << 36);
            const TrafficPattern p = ParsePatternItem(pat, tp);
            const double flows = double(TrafficFlowCount(p, tp));
            maxFlows = std::max(maxFlows, flows);
            seconds += flows * (1e-5 + 8e-9 * std::min(double(tp.bytes), o.lineBps / 8 * o.stopS));
        }
        const std::string params
            = "--n=" + std::to_string(size.n) + " --k=" + std::to_string(size.k)
            + " --pattern=" + cli.GetString("pattern") + " --bytes=" + cli.GetString("bytes");
        CheckFabricMemory(30e6 + 45e3 * double(size.n) * (size.s + 1) + 1000 * maxFlows, params);
        CheckFabricRunTime(seconds, params + " --stop-ms=" + cli.GetString("stop-ms"));
    }
    FabricResults out(cli.GetString("out"));

    json summary;
    summary["line_rate_gbps"] = o.lineBps / 1e9;
    summary["params"] = {{"n", size.n},
                         {"k", size.k},
                         {"s", size.s},
                         {"seed", size.seed},
                         {"delay_us", o.delayS * 1e6},
                         {"queue_bytes", o.queueBytes},
                         {"rate_control", o.rateControl},
                         {"flows_file", flowsFile}};
    summary["runs"] = json::array();
    CsvWriter flowCsv(out.Path("flows.csv"), PacketFlowCsvHeader());
    CsvWriter linkCsv(out.Path("links.csv"), PacketFlowLinkCsvHeader());

    std::cout << "packet vs flow: " << o.lineBps / 1e9 << " Gb/s links, " << o.delayS * 1e6
              << " us, RoCE rate control " << o.rateControl
              << " at packet level; max-min fluid at flow level\n\n";
    std::cout << std::left << std::setw(7) << "fabric" << std::setw(14) << "pattern" << std::right
              << std::setw(7) << "flows" << std::setw(9) << "median" << std::setw(9) << "p99"
              << std::setw(9) << "CCT" << std::setw(10) << "dUtil" << std::setw(11) << "packet s"
              << std::setw(10) << "flow s" << std::setw(10) << "speedup"
              << "\n";
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 900,550");
    plot.SetTitle("CDF of per-flow FCT ratio packet / flow");
    plot.SetLegend("FCT packet / FCT flow", "fraction of flows");
    plot.AppendExtra("set key bottom right");
    plot.AppendExtra("set logscale x");
    json worstAll = json::array();
    double wallP = 0;
    double wallF = 0;
    for (const auto& [fab, pat] : runs)
    {
        const PacketFlowFabricKind& kind = kinds.at(fab);
        if (fab != "rng" && size.n % size.k != 0)
        {
            throw std::invalid_argument("--k=" + std::to_string(size.k)
                                        + " must divide --n=" + std::to_string(size.n));
        }
        auto graph = kind.build(size);
        const std::string routing
            = cli.GetString("routing") == "default" ? kind.routing : cli.GetString("routing");
        std::vector<FlowSpec> flows;
        if (!flowsFile.empty())
        {
            flows = ReadFlowList(flowsFile, graph->GetNHosts());
        }
        else
        {
            TrafficPatternParams tp;
            tp.hosts = graph->GetNHosts();
            tp.seed = size.seed;
            tp.bytes = cli.GetString("bytes") == "default"
                         ? (pat == "allreduce" ? 65536 : 1000000)
                         : cli.GetUint("bytes", 1, uint64_t(1) << 36);
            flows = MakeTraffic(ParsePatternItem(pat, tp), tp);
        }
        std::cerr << "[" << fab << " " << pat << "] " << flows.size() << " flows..." << std::flush;
        PacketFlowResult r = ComparePacketAndFlow(fab, pat, graph, routing, flows, o);
        std::cerr << " done\n";
        wallP += r.wallPacket;
        wallF += r.wallFlow;
        json& run = r.run;
        // No completion ratio when flows are incomplete (ComparePacketAndFlow: null).
        std::ostringstream cct;
        cct << std::fixed << std::setprecision(3);
        if (run["completion_ratio"].is_null())
        {
            cct << "n/a";
        }
        else
        {
            cct << run["completion_ratio"].get<double>();
        }
        std::cout << std::left << std::setw(7) << fab << std::setw(14) << pat.substr(0, 13)
                  << std::right << std::setw(7) << flows.size() << std::fixed
                  << std::setprecision(3) << std::setw(9) << run["fct_ratio_median"].get<double>()
                  << std::setw(9) << run["fct_ratio_p99"].get<double>() << std::setw(9) << cct.str()
                  << std::setw(10) << run["util_abs_diff_max"].get<double>() << std::setw(11)
                  << std::setprecision(3) << r.wallPacket << std::setw(10) << std::setprecision(4)
                  << r.wallFlow << std::setw(10) << std::setprecision(0)
                  << run["speedup"].get<double>() << "\n";
        const auto incomplete = run["incomplete_flows"].get<uint32_t>();
        if (incomplete > 0)
        {
            std::cout << "       " << incomplete << " of " << flows.size()
                      << " flows incomplete at one level or both: median and p99 over the others, "
                         "CCT n/a, dUtil over each level's run end\n";
        }
        for (const auto& row : PacketFlowCsvRows(run))
        {
            flowCsv.Row(row);
        }
        for (const auto& row : PacketFlowLinkCsvRows(run))
        {
            linkCsv.Row(row);
        }
        // Worst flows by ratio, with their paths and what the packets met.
        const json w = WorstPacketFlowFlows(run, worst);
        run["worst_flows"] = w;
        worstAll.push_back({{"fabric", fab}, {"pattern", pat}, {"flows", w}});
        std::vector<double> ratio = r.ratio;
        std::sort(ratio.begin(), ratio.end());
        Gnuplot2dDataset ds(fab + " " + pat);
        ds.SetStyle(Gnuplot2dDataset::LINES);
        for (size_t i = 0; i < ratio.size(); ++i)
        {
            ds.Add(ratio[i], double(i + 1) / ratio.size());
        }
        plot.AddDataset(ds);
        summary["runs"].push_back(run);
    }
    summary["wall_packet_s"] = wallP;
    summary["wall_flow_s"] = wallF;
    double cpuP = 0;
    double cpuF = 0;
    for (const auto& run : summary["runs"])
    {
        cpuP += run["cpu_packet_s"].get<double>();
        cpuF += run["cpu_flow_s"].get<double>();
    }
    summary["cpu_packet_s"] = cpuP;
    summary["cpu_flow_s"] = cpuF;
    out.WriteSummary(summary);
    out.WritePng("fct-ratio-cdf.png", plot);

    std::cout << "\nmedian, p99: per-flow FCT packet/flow; CCT: last completion packet/flow (n/a "
                 "with incomplete flows); "
                 "dUtil: largest |utilization packet - flow| over links\n\nWorst flows and "
                 "measured causes (queue: worst queues on the path drained at line rate; "
                 "coll: other flows on its fabric links at the same time; ramp: flow-level FCT "
                 "with the DCQCN-like ramp / without):\n";
    for (const auto& run : summary["runs"])
    {
        const json& c = run["causes"];
        std::cout << "  " << run["fabric"].get<std::string>() << " "
                  << run["pattern"].get<std::string>() << ": retx " << c["retx_packets"]
                  << ", flows with CNPs " << c["flows_with_cnps"] << "/" << run["flows"].size()
                  << ", timeouts " << c["timeouts"] << ", drops " << c["dropped_packets"] << " "
                  << c["drops"].dump() << ", max queue " << c["max_queue_kb"].get<double>()
                  << " KB, shared fabric links " << run["shared_fabric_links"] << ", ramp median x"
                  << FormatNumber(run["ramp_fct_ratio_median"].get<double>(), 4)
                  << ", path mismatches " << run["path_mismatches"] << "\n";
        for (const auto& f : run["worst_flows"])
        {
            std::string path;
            for (uint32_t v : f["path"])
            {
                path += (path.empty() ? "" : "-") + std::to_string(v);
            }
            std::cout << "    flow " << f["id"] << " " << f["src"] << "->" << f["dst"] << " ratio "
                      << FormatNumber(f["fct_ratio"].get<double>(), 4) << " ("
                      << FormatNumber(f["fct_packet_us"].get<double>(), 5) << " vs "
                      << FormatNumber(f["fct_flow_us"].get<double>(), 5) << " us; ramp "
                      << FormatNumber(f["fct_flow_ramp_us"].get<double>(), 5) << ") queue "
                      << FormatNumber(f["queue_delay_bound_us"].get<double>(), 3) << " us, coll "
                      << f["collisions"] << ", retx " << f["retx"] << ", cnps " << f["cnps"]
                      << ", path " << path << "\n";
        }
    }
    std::cout << "\nwall: packet " << FormatNumber(wallP, 4) << " s, flow "
              << FormatNumber(wallF, 4) << " s (x" << FormatNumber(wallF > 0 ? wallP / wallF : 0, 4)
              << "); CPU: packet " << FormatNumber(cpuP, 4) << " s, flow " << FormatNumber(cpuF, 4)
              << " s (x" << FormatNumber(cpuF > 0 ? cpuP / cpuF : 0, 4) << ")\nwrote "
              << out.Path("summary.json") << ", flows.csv, links.csv, "
              << "fct-ratio-cdf.png\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
