// SPDX-License-Identifier: GPL-2.0-only
//
// Flow-level speed, printed next to what it is measured against:
//  1. the default packet-vs-flow comparison (ZCube and ROFT, AllReduce and Prefill->Decode,
//     one RNG permutation): wall time of the packet level and of the flow level, side by side;
//  2. 100k flows (random pairs, sizes in [64 KB, 2 MB], Poisson arrivals at --load of the host
//     links) on a 1024-GPU ZCube: wall time;
//  3. AllReduce on a 16384-GPU ZCube (k = 128) by recursive halving-doubling (28 steps of
//     16384 flows): wall time and peak RSS.
// The targets: >= 1000x, < 5 s, < 60 s and < 4 GiB. Whatever is measured is printed.
// Part 1 times the flow side cold (each row's first run, before its packet run) and warm (the
// median of --flow-repeat runs alone after it); both ratios are printed, per row and in total,
// in CPU and in wall seconds (see doc/flow.md, Speed).
//
//   ./build/bin/bench-flow --out=results/bench-flow
//   ./build/bin/bench-flow --skip-16k   (parts 1 and 2 only)
#include "packet-flow-compare.h"

#include "ns3/bench-measure.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-table.h"
#include "ns3/flow-collectives.h"
#include "ns3/simulator.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// Minor page faults of the process so far (getrusage); -1 if unavailable.
long
MinorPageFaults()
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}

/// Minor page faults since \p before (a MinorPageFaults value); -1 if either read failed.
long
MinorPageFaultsSince(long before)
{
    const long now = MinorPageFaults();
    return before < 0 || now < 0 ? -1 : now - before;
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Flow-level speed against the packet level and at scale.");
    cli.Add("random-flows", "flows of part 2", "100000");
    cli.Add("load", "part 2: offered load per host link, in (0, 1]", "0.5");
    cli.Add("recompute-us",
            "part 2: FlowSimulator::RecomputeInterval in us (0: exact at every event)",
            "0");
    cli.Add("big-n", "part 3: GPUs (power of two, divisible by big-k)", "16384");
    cli.Add("big-k", "part 3: GPUs per switch", "128");
    cli.Add("allreduce-mb", "part 3: AllReduce buffer per GPU in MB", "64");
    cli.Add("skip-16k", "skip part 3", "false");
    cli.Add("skip-packet", "skip part 1", "false");
    cli.Add("flow-repeat",
            "part 1: the flow side is run this many more times alone and the median is the "
            "warm time (a run takes well under a millisecond: one sample is noisy); 0: warm = "
            "cold",
            "20");
    cli.Add("flow-only", "part 1 without the packet level (to profile the flow side)", "false");
    cli.Add("rows",
            "part 1: the rows to run as fabric:pattern, comma-separated (all: the default "
            "comparison's five; a subset to profile one row)",
            "all");
    cli.Add("out", "results folder", "results/bench-flow");
    cli.Parse(argc, argv);
    const uint64_t nRandom = cli.GetUint("random-flows", 1, 10000000);
    const double load = cli.GetDouble("load", 1e-3, 1);
    const double recomputeUs = cli.GetDouble("recompute-us", 0, 1e6);
    const auto bigN = static_cast<uint32_t>(cli.GetUint("big-n", 4, 1u << 20));
    const auto bigK = static_cast<uint32_t>(cli.GetUint("big-k", 1, bigN));
    const uint64_t arBytes = cli.GetUint("allreduce-mb", 1, 1u << 20) * 1000000;
    const auto flowRepeat = static_cast<uint32_t>(cli.GetUint("flow-repeat", 0, 100000));
    const bool flowOnly = cli.GetBool("flow-only");
    const std::vector<std::pair<std::string, std::string>> allRows{{"zcube", "allreduce"},
                                                                   {"zcube", "prefill"},
                                                                   {"roft", "allreduce"},
                                                                   {"roft", "prefill"},
                                                                   {"rng", "permutation"}};
    std::vector<std::pair<std::string, std::string>> rows;
    for (const std::string& r : cli.GetList("rows"))
    {
        if (r == "all")
        {
            rows.insert(rows.end(), allRows.begin(), allRows.end());
            continue;
        }
        auto it = std::find_if(allRows.begin(),
                               allRows.end(),
                               [&](const auto& x) { return x.first + ":" + x.second == r; });
        if (it == allRows.end())
        {
            throw std::invalid_argument(
                "--rows: '" + r
                + "' is not a row of the default comparison (zcube:allreduce, zcube:prefill, "
                  "roft:allreduce, roft:prefill, rng:permutation, or all)");
        }
        rows.push_back(*it);
    }
    // A subset (or a reordering) is for profiling: not the default comparison, so it is
    // neither labelled as such nor judged against the 1000x target.
    const bool subset = rows != allRows;
    {
        // Measured on the loaded 2-core machine (doc/flow.md): part 2's 100k random flows
        // 338 s wall (about 3.4 ms per flow at that count); part 3's halving-doubling
        // AllReduce on 16384 GPUs, 458752 flows (2 n log2 n), 8.3 s wall and 494 MiB (about
        // 1.1 kB and 18 us per flow).
        const double arFlows
            = cli.GetBool("skip-16k") ? 0.0 : 2.0 * bigN * std::ceil(std::log2(double(bigN)));
        const std::string params
            = "--random-flows=" + std::to_string(nRandom) + " --big-n=" + std::to_string(bigN);
        CheckFabricMemory(100e6 + 1100 * std::max(arFlows, double(nRandom)), params);
        CheckFabricRunTime(3.4e-3 * nRandom + 1.8e-5 * arFlows, params);
    }
    FabricResults out(cli.GetString("out"));
    MachineLoadProbe machine;
    json summary;
    compare::Options o;
    summary["line_rate_gbps"] = o.lineBps / 1e9;

    // 1. The default comparison.
    if (!cli.GetBool("skip-packet") || flowOnly)
    {
        // How each level is timed (printed, and in summary.json, so the ratio can be judged).
        const std::string timing
            = "packet level: one run per row (network and routing construction + simulation); "
              "flow level: routing construction + FlowSimulator run, timed cold (the row's "
              "first run, before the comparison's packet run; the process's very first run "
              "also pays first touches of code and fresh heap and, in a lazily bound build, "
              "symbol binding) and warm (median of "
            + std::to_string(flowRepeat)
            + " repeats run alone right after); speedup = packet / flow, in CPU seconds "
              "(the robust figure on a shared machine) and in wall seconds";
        std::cout << (subset ? "1. packet-vs-flow comparison, a subset of the default rows (not "
                               "judged against the 1000x target)"
                             : "1. default packet-vs-flow comparison")
                  << " (same flows, same routing TypeId)\n   " << timing << "\n";
        FabricTextTable table({{"fabric", 7, true},
                               {"pattern", 12, true},
                               {"flows", 6},
                               {"packet CPU s", 13},
                               {"flow warm s", 12},
                               {"flow cold s", 12},
                               {"x warm", 8},
                               {"x cold", 8},
                               {"packet wall s", 14},
                               {"flow wall s", 12},
                               {"x wall", 8},
                               {"median FCT", 11},
                               {"faults cold", 12}});
        table.PrintHeader();
        const compare::FabricSize size{16, 4, 2, 1};
        double cp = 0;  // packet CPU
        double wp = 0;  // packet wall
        double cfw = 0; // flow CPU, warm medians
        double wfw = 0; // flow wall, warm medians
        double cfc = 0; // flow CPU, cold runs
        double wfc = 0; // flow wall, cold runs
        // A speedup over a flow time of zero (below the clock's resolution) is not a number.
        auto ratio = [](double a, double b)
        {
            return b > 0 ? a / b : std::numeric_limits<double>::quiet_NaN();
        };
        auto num = [](double x)
        {
            return std::isnan(x) ? std::string("n/a") : FormatNumber(x, 4);
        };
        auto speedup = [&num](double x)
        {
            return std::isnan(x) ? num(x) : "x" + num(x);
        };
        json runs = json::array();
        for (const auto& [fab, pat] : rows)
        {
            const auto& kind = compare::FabricKinds().at(fab);
            auto graph = kind.build(size);
            TrafficPatternParams tp;
            tp.hosts = graph->GetNHosts();
            tp.seed = 1;
            tp.bytes = pat == "allreduce" ? 65536 : 1000000;
            const auto flows = MakeTraffic(ParseTrafficPattern(pat), tp);
            // Cold: the row's first flow run, before the comparison's packet run, timed as
            // the comparison times its flow side (routing construction + run; the result is
            // kept, so its destruction is outside the window, as in the warm runs). Minor page
            // faults are counted in the same window (first touches of fresh heap and of
            // library pages: part of what a first run pays).
            compare::Result r;
            double coldCpu = 0;
            double coldWall = 0;
            long coldFaults = 0;
            {
                const long f0 = MinorPageFaults();
                const auto t0 = std::chrono::steady_clock::now();
                const double c0 = compare::CpuSeconds();
                Ptr<FlowSimulator> sim = compare::FlowHelper(o, false).Run(
                    compare::MakeRoutingByTypeId(kind.routing, o.routingSeed, graph), flows);
                coldCpu = compare::CpuSeconds() - c0;
                coldWall = compare::WallSeconds(t0, std::chrono::steady_clock::now());
                coldFaults = MinorPageFaultsSince(f0);
            }
            if (!flowOnly)
            {
                r = compare::Compare(fab, pat, graph, kind.routing, flows, o);
            }
            else
            {
                // The packet run's Simulator::Run ends ns-3's marking of Time objects (a set
                // insert and erase per Time made or destroyed, until the resolution is
                // frozen); the warm runs come after it. Without a packet run, end it the same
                // way, so that a profile of this mode is the warm runs' work.
                Simulator::Run();
                Simulator::Destroy();
            }
            // Warm: the same, repeated alone.
            std::vector<double> cpuRuns;
            std::vector<double> wallRuns;
            std::vector<double> faultRuns;
            for (uint32_t i = 0; i < flowRepeat; ++i)
            {
                const long f0 = MinorPageFaults();
                const auto t0 = std::chrono::steady_clock::now();
                const double c0 = compare::CpuSeconds();
                Ptr<FlowSimulator> sim = compare::FlowHelper(o, false).Run(
                    compare::MakeRoutingByTypeId(kind.routing, o.routingSeed, graph), flows);
                cpuRuns.push_back(compare::CpuSeconds() - c0);
                wallRuns.push_back(compare::WallSeconds(t0, std::chrono::steady_clock::now()));
                faultRuns.push_back(double(MinorPageFaultsSince(f0)));
            }
            const double warmCpu = flowRepeat > 0 ? Quantile(cpuRuns, 0.5) : coldCpu;
            const double warmWall = flowRepeat > 0 ? Quantile(wallRuns, 0.5) : coldWall;
            const double warmFaults = flowRepeat > 0 ? Quantile(faultRuns, 0.5) : coldFaults;
            cp += r.cpuPacket;
            wp += r.wallPacket;
            cfw += warmCpu;
            wfw += warmWall;
            cfc += coldCpu;
            wfc += coldWall;
            table.PrintRow({fab,
                            pat,
                            std::to_string(flows.size()),
                            flowOnly ? "-" : num(r.cpuPacket),
                            num(warmCpu),
                            num(coldCpu),
                            flowOnly ? "-" : num(ratio(r.cpuPacket, warmCpu)),
                            flowOnly ? "-" : num(ratio(r.cpuPacket, coldCpu)),
                            flowOnly ? "-" : num(r.wallPacket),
                            num(warmWall),
                            flowOnly ? "-" : num(ratio(r.wallPacket, warmWall)),
                            flowOnly ? "-" : num(Quantile(r.ratio, 0.5)),
                            std::to_string(coldFaults)});
            json row{{"fabric", fab},
                     {"pattern", pat},
                     {"flows", flows.size()},
                     {"cpu_flow_s", warmCpu},
                     {"wall_flow_s", warmWall},
                     {"cpu_flow_first_s", coldCpu},
                     {"wall_flow_first_s", coldWall},
                     {"minor_faults_flow_first", coldFaults},
                     {"minor_faults_flow", warmFaults}};
            if (!flowOnly)
            {
                row.update({{"cpu_packet_s", r.cpuPacket},
                            {"wall_packet_s", r.wallPacket},
                            {"cpu_speedup", ratio(r.cpuPacket, warmCpu)},
                            {"cpu_speedup_first", ratio(r.cpuPacket, coldCpu)},
                            {"speedup", ratio(r.wallPacket, warmWall)},
                            {"speedup_first", ratio(r.wallPacket, coldWall)},
                            {"fct_ratio_median", Quantile(r.ratio, 0.5)}});
            }
            runs.push_back(row);
        }
        auto verdict = [&](double x)
        {
            return flowOnly || subset || std::isnan(x) ? "" : x >= 1000 ? " (met)" : " (NOT met)";
        };
        std::cout << "total: flow CPU warm " << FormatNumber(cfw, 4) << " s, cold "
                  << FormatNumber(cfc, 4) << " s; flow wall warm " << FormatNumber(wfw, 4)
                  << " s, cold " << FormatNumber(wfc, 4) << " s";
        if (!flowOnly)
        {
            std::cout << "; packet CPU " << FormatNumber(cp, 4) << " s, wall "
                      << FormatNumber(wp, 4) << " s\n  speedup"
                      << (subset ? " (subset)" : ", target >= 1000x") << ": CPU warm "
                      << speedup(ratio(cp, cfw)) << verdict(ratio(cp, cfw)) << ", CPU cold "
                      << speedup(ratio(cp, cfc)) << verdict(ratio(cp, cfc)) << "; wall warm "
                      << speedup(ratio(wp, wfw)) << verdict(ratio(wp, wfw)) << ", wall cold "
                      << speedup(ratio(wp, wfc)) << verdict(ratio(wp, wfc));
        }
        std::cout << "\n\n";
        json rowNames = json::array();
        for (const auto& [fab, pat] : rows)
        {
            rowNames.push_back(fab + ":" + pat);
        }
        // Speedups that are not a number (n/a above) are written as null.
        json comparison{{"rows", rowNames},
                        {"subset", subset},
                        {"flow_only", flowOnly},
                        {"runs", runs},
                        {"cpu_flow_s", cfw},
                        {"wall_flow_s", wfw},
                        {"cpu_flow_first_s", cfc},
                        {"wall_flow_first_s", wfc},
                        {"flow_repeat", flowRepeat},
                        {"timing", timing}};
        if (!flowOnly)
        {
            comparison.update({{"cpu_packet_s", cp},
                               {"wall_packet_s", wp},
                               {"cpu_speedup", ratio(cp, cfw)},
                               {"cpu_speedup_first", ratio(cp, cfc)},
                               {"speedup", ratio(wp, wfw)},
                               {"speedup_first", ratio(wp, wfc)}});
        }
        summary["comparison"] = comparison;
    }

    // 2. 100k random flows on a 1024-GPU ZCube.
    {
        const uint32_t n = 1024;
        auto graph = ZCubeLayout(n, 32).Build();
        FabricRng rng(7);
        std::vector<FlowSpec> flows;
        std::vector<uint32_t> perSrc(n, 0);
        // Mean size 1.032 MB; arrivals so that hosts send at 'load' of their link on average.
        const double meanBytes = (65536.0 + 2000000.0) / 2;
        const double rate = load * o.lineBps * n / (8 * meanBytes); // flows per second
        double t = 0;
        for (uint64_t i = 0; i < nRandom; ++i)
        {
            t += -std::log(1 - double(rng.Next() >> 11) * 0x1.0p-53) / rate;
            FlowSpec f;
            f.id = static_cast<uint32_t>(i);
            f.src = static_cast<uint32_t>(rng.Below(n));
            f.dst = static_cast<uint32_t>(rng.Below(n - 1));
            f.dst += f.dst >= f.src ? 1 : 0;
            f.bytes = 65536 + rng.Below(2000000 - 65536);
            f.startS = t;
            f.srcPort = static_cast<uint16_t>(49152 + (perSrc[f.src]++ % 16384));
            flows.push_back(f);
        }
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = compare::CpuSeconds();
        FlowSimHelper fh = compare::FlowHelper(o, false);
        fh.SetAttribute("RecomputeInterval", TimeValue(MicroSeconds(recomputeUs)));
        Ptr<FlowSimulator> sim
            = fh.Run(compare::MakeRoutingByTypeId("ns3::ZCubeRouting", 1, graph), flows);
        const double wall = compare::WallSeconds(t0, std::chrono::steady_clock::now());
        const double cpu = compare::CpuSeconds() - c0;
        uint64_t complete = 0;
        std::vector<double> slow;
        for (const auto& r : sim->GetRecords())
        {
            complete += r.complete ? 1 : 0;
            slow.push_back(r.Slowdown());
        }
        const auto& st = sim->GetStats();
        std::cout << "2. " << nRandom << " random flows on ZCube(1024, 32), load " << load
                  << ", recompute interval " << recomputeUs << " us: " << FormatNumber(wall, 4)
                  << " s wall, " << FormatNumber(cpu, 4)
                  << " s CPU (target < 5 s: " << (std::min(wall, cpu) < 5 ? "met" : "NOT met")
                  << "), " << complete << " complete, simulated " << FormatNumber(st.endS * 1e3, 4)
                  << " ms, " << st.events << " events, " << st.recomputations
                  << " water-fillings over " << st.flowsRecomputed << " flows (" << st.rateChanges
                  << " rate changes, " << st.localFallbacks
                  << " batches over the local budget), peak " << st.peakActive
                  << " flows sending, median slowdown " << FormatNumber(Quantile(slow, 0.5), 4)
                  << "\n\n";
        summary["random_1024"] = {{"flows", nRandom},
                                  {"cpu_s", cpu},
                                  {"recompute_interval_us", recomputeUs},
                                  {"load", load},
                                  {"wall_s", wall},
                                  {"complete", complete},
                                  {"sim_ms", st.endS * 1e3},
                                  {"events", st.events},
                                  {"recomputations", st.recomputations},
                                  {"flows_recomputed", st.flowsRecomputed},
                                  {"rate_changes", st.rateChanges},
                                  {"peak_active", st.peakActive},
                                  {"slowdown_median", Quantile(slow, 0.5)},
                                  {"slowdown_p99", Quantile(slow, 0.99)}};
    }

    // 3. 16k-GPU ZCube AllReduce.
    if (!cli.GetBool("skip-16k"))
    {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = compare::CpuSeconds();
        auto graph = ZCubeLayout(bigN, bigK).Build();
        const auto flows = MakeHalvingDoublingAllReduce(bigN, arBytes);
        Ptr<FlowSimulator> sim = compare::FlowHelper(o, false).Run(
            compare::MakeRoutingByTypeId("ns3::ZCubeRouting", 1, graph), flows);
        const double wall = compare::WallSeconds(t0, std::chrono::steady_clock::now());
        const double rss = PeakRssMiB();
        const double cpu = compare::CpuSeconds() - c0;
        double last = 0;
        uint64_t complete = 0;
        for (const auto& r : sim->GetRecords())
        {
            last = std::max(last, r.finishS);
            complete += r.complete ? 1 : 0;
        }
        std::cout << "3. AllReduce (halving-doubling, " << arBytes / 1e6 << " MB per GPU) on ZCube("
                  << bigN << ", " << bigK << "): " << flows.size() << " flows, "
                  << FormatNumber(wall, 4) << " s wall, " << FormatNumber(cpu, 4)
                  << " s CPU (target < 60 s: " << (std::min(wall, cpu) < 60 ? "met" : "NOT met")
                  << "), peak RSS " << FormatNumber(rss, 5)
                  << " MiB (target < 4096: " << (rss < 4096 ? "met" : "NOT met") << "), completion "
                  << FormatNumber(last * 1e3, 5) << " ms, " << complete << " complete\n";
        summary["allreduce_16k"] = {{"n", bigN},
                                    {"k", bigK},
                                    {"flows", flows.size()},
                                    {"bytes_per_gpu", arBytes},
                                    {"wall_s", wall},
                                    {"cpu_s", cpu},
                                    {"peak_rss_mib", rss},
                                    {"completion_ms", last * 1e3},
                                    {"complete", complete}};
    }
    summary["machine"] = machine.End();
    machine.Print(std::cout);
    out.WriteSummary(summary);
    std::cout << "wrote " << out.Path("summary.json") << "\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
