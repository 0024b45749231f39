// SPDX-License-Identifier: GPL-2.0-only
//
// ECMP collisions you can watch: a handful of large RoCE flows between distinct leaf pairs of
// a rail-optimized fat tree, for a sweep of ECMP hash seeds, next to the same flows on ZCube,
// whose unique paths (Eq. 1) are fixed and, for this pattern, collision-free.
//
// Flows: for leaf pair p (source leaf p, destination leaf p + L/2), GPU j of the source leaf
// sends to GPU j of the destination leaf, j < --flows-per-pair. Flows from one leaf may hash
// onto the same spine uplink, flows to one leaf onto the same spine downlink: a collision.
// For every seed the scenario lists which flows share a fabric link (from the routing
// function) and what the packets made of it: throughput, FCT, queue and ECN marks on the
// shared link. Colliding flows should each get about half the line rate, the others all of it.
//
//   ./build/bin/ecmp-collision --out=results/ecmp-collision
//
// --fail=SPEC schedules failures and repairs in every run (grammar: FabricFailureHelper,
// doc/fabric.md "Failures"; ids are checked against both fabrics' graphs); routing views never
// learn, so packets keep going into the hole until the repair.
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-choice.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-results.h"
#include "ns3/link-load.h"
#include "ns3/queue-size.h"
#include "ns3/roce-run-summary.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

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
    FabricCli cli(__FILE__,
                  "ECMP collisions of large RoCE flows on a fat tree, over hash seeds, vs ZCube.");
    cli.Add("n", "GPUs", "32");
    cli.Add("k", "GPUs per leaf / switch (must divide n)", "8");
    cli.Add("spines", "ROFT spines, or 'm' for m = n/k", "m");
    cli.Add("leaf-pairs", "leaf pairs with flows (at most leaves/2)", "2");
    cli.Add("flows-per-pair", "flows per leaf pair (at most k)", "2");
    cli.Add("bytes", "bytes per flow", "50000000");
    cli.Add("seeds", "ECMP hash seeds to sweep", "8");
    cli.Add("seed", "first hash seed", "1");
    cli.Add("link-rate-gbps", "link rate in Gb/s", "400");
    cli.Add("queue-bytes", "egress queue per port in bytes", "8000000");
    cli.Add("rate-control", "dcqcn | none | a TypeId derived from ns3::RoceRateControl", "dcqcn");
    cli.Add("bin-us", "throughput time-series bin in microseconds", "50");
    cli.Add(
        "fail", "failures and repairs, e.g. link:40@50us,repair:link:40@1ms (none if empty)", "");
    cli.Add("stop-ms",
            "horizon of each run in ms: flows not complete by then are reported as incomplete",
            "10000");
    cli.Add("out", "results folder", "results/ecmp-collision");
    cli.Parse(argc, argv);
    for (const char* seedAttribute : {"ns3::EcmpRouting::Seed", "ns3::ZCubeRouting::Seed"})
    {
        cli.ReserveAttribute(seedAttribute, "--seed and --seeds");
    }
    const auto n = static_cast<uint32_t>(cli.GetUint("n", 4, 4096));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, n));
    if (n % k != 0)
    {
        throw std::invalid_argument("--k=" + std::to_string(k)
                                    + " must divide --n=" + std::to_string(n));
    }
    const uint32_t leaves = n / k;
    if (leaves < 2)
    {
        throw std::invalid_argument("--n/--k must give at least 2 leaves");
    }
    const uint32_t spines = cli.GetString("spines") == "m"
                              ? leaves
                              : static_cast<uint32_t>(cli.GetUint("spines", 1, 1024));
    const auto pairs = static_cast<uint32_t>(cli.GetUint("leaf-pairs", 1, leaves / 2));
    const auto perPair = static_cast<uint32_t>(cli.GetUint("flows-per-pair", 1, k));
    const uint64_t bytes = cli.GetUint("bytes", 4096, uint64_t(1) << 36);
    const auto seeds = static_cast<uint32_t>(cli.GetUint("seeds", 1, 10000));
    const uint64_t seed0 = cli.GetUint("seed", 0, UINT64_MAX - 10000);
    const double lineBps = cli.GetDouble("link-rate-gbps", 1, 100000) * 1e9;
    const uint64_t queueBytes = cli.GetUint("queue-bytes", 10000, UINT32_MAX);
    const std::string cc = cli.GetString("rate-control");
    const TypeId ccType = RoceRateControlTypeId(cc, "--rate-control");
    const Time bin = cli.GetTime("bin-us", Time::US, NanoSeconds(5), Seconds(1));
    const double binUs = bin.ToDouble(Time::US);
    const Time stopAt = cli.GetTime("stop-ms", Time::MS, MicroSeconds(1), Seconds(1000));
    if (bin > stopAt)
    {
        throw std::invalid_argument("--bin-us=" + cli.GetString("bin-us")
                                    + " must not exceed the horizon --stop-ms="
                                    + cli.GetString("stop-ms"));
    }
    CheckSerializationResolution(lineBps, RoceDataWireBytes(), "--link-rate-gbps");
    {
        // Time-series rows: every flow for as long as all flows of a leaf share one link.
        const double rows = double(pairs) * perPair
                          * (8.0 * double(bytes) * perPair / lineBps / bin.GetSeconds() + 1);
        if (rows > 2e7)
        {
            throw std::invalid_argument("--bin-us=" + cli.GetString("bin-us")
                                        + " with --bytes=" + std::to_string(bytes)
                                        + " would write about " + FormatNumber(rows, 3)
                                        + " time-series rows (limit 2e7); use a larger --bin-us");
        }
    }
    {
        // Measured: about 4 s per 200 MB run (4 flows of 50 MB, 9 runs in 35 s on the loaded
        // 2-core machine), i.e. ~5 hop-level packets per 4 kB and ~50k hop packets per
        // second; a flow carries at most the line rate until the horizon.
        const double perFlow = std::min(double(bytes), lineBps / 8 * stopAt.GetSeconds());
        CheckFabricRunTime((seeds + 1.0) * pairs * perPair * perFlow * 2.44e-8,
                           "--seeds=" + std::to_string(seeds) + " --bytes=" + std::to_string(bytes)
                               + " --leaf-pairs, --flows-per-pair, --stop-ms");
    }
    const std::string failSpec = cli.GetString("fail");
    if (!failSpec.empty())
    {
        // Checked against both fabrics before any run (ids differ between them).
        FabricFailureHelper::Parse(failSpec, *ZCubeHelper(n, k).GetGraph());
        FabricFailureHelper::Parse(failSpec,
                                   *RoftHelper(RoftLayout(n, k, spines), seed0).GetGraph());
    }
    FabricResults out(cli.GetString("out"));

    // Flows: GPU j of source leaf p -> GPU j of leaf p + L/2 (contiguous attachment).
    const std::vector<FlowSpec> flows
        = RoftLayout(n, k, spines).LeafPairFlows(pairs, perPair, bytes);

    FabricRoceRunOptions opt;
    opt.throughputBin = bin;
    opt.queueSampleInterval = bin / 5;
    opt.stopAt = stopAt;
    opt.senderAttributes["RateControl"] = std::make_shared<TypeIdValue>(ccType);
    auto links = [&]()
    {
        FabricNetworkHelper h;
        h.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(lineBps))));
        h.SetQueueAttribute("MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, uint32_t(queueBytes))));
        return h;
    };

    json summary;
    summary["line_rate_gbps"] = lineBps / 1e9;
    summary["params"] = {{"n", n},
                         {"k", k},
                         {"spines", spines},
                         {"leaf_pairs", pairs},
                         {"flows_per_pair", perPair},
                         {"bytes", bytes},
                         {"seeds", seeds},
                         {"seed", seed0},
                         {"queue_bytes", queueBytes},
                         {"bin_us", binUs},
                         {"stop_ms", stopAt.ToDouble(Time::MS)},
                         {"rate_control", cc}};
    if (!failSpec.empty())
    {
        summary["params"]["fail"] = failSpec;
    }
    summary["runs"] = json::array();
    CsvWriter flowCsv(out.Path("flows.csv"), SharedLinkReport::FlowCsvHeader({"fabric", "seed"}));
    CsvWriter seriesCsv(out.Path("throughput-series.csv"),
                        {"fabric", "seed", "flow", "t_us", "gbps"});
    CsvWriter queueCsv(out.Path("shared-link-queue.csv"),
                       {"fabric", "seed", "link", "t_us", "bytes"});

    std::cout << "ECMP collisions: " << flows.size() << " flows of " << bytes / 1e6
              << " MB, ROFT n=" << n << " k=" << k << " spines=" << spines << " vs ZCube, "
              << lineBps / 1e9 << " Gb/s, rate control " << cc << "\n\n";
    std::cout << std::left << std::setw(7) << "fabric" << std::setw(6) << "seed" << std::setw(28)
              << "collisions (link: flows)" << std::right << std::setw(12) << "tput min"
              << std::setw(10) << "tput max" << std::setw(12) << "FCT max us" << std::setw(12)
              << "maxQ KB" << std::setw(10) << "marks"
              << "\n";

    bool plotted = false;
    uint64_t plottedSeed = 0;
    uint32_t incompleteRuns = 0;
    json plotRun;
    struct RunSpec
    {
        std::string fabric;
        uint64_t seed;
    };
    const FabricChoiceParams fp{n, k, spines};
    std::map<std::string, FabricChoice> fabrics;
    for (const auto& name : FabricChoiceNames())
    {
        fabrics.emplace(name, MakeFabricChoice(name, fp));
    }
    // ZCube's one path per pair does not depend on the hash seed: one run.
    std::vector<RunSpec> runs{{"zcube", seed0}};
    for (uint32_t s = 0; s < seeds; ++s)
    {
        runs.push_back({"roft", seed0 + s});
    }
    for (const auto& run : runs)
    {
        FabricNetworkHelper h = links();
        const FabricChoice& fab = fabrics.at(run.fabric);
        Ptr<FabricNetwork> net = h.Install(fab.graph, fab.CreateRouting(run.seed));
        const FabricGraph& g = net->GetGraph();
        // Collisions are known before the run: the routing function decides the paths.
        const auto collisions = FindSharedFabricLinks(*net->GetRouting(), flows);
        opt.queueSampleLinks.clear();
        for (const auto& c : collisions)
        {
            opt.queueSampleLinks.push_back(c.dirLink);
        }
        if (!failSpec.empty())
        {
            FabricFailureHelper(net).Schedule(failSpec);
        }
        std::cerr << "[" << run.fabric << " seed " << run.seed << "] " << collisions.size()
                  << " shared links..." << std::flush;
        FabricRoceRunResult r = RunFabricRoce(net, flows, opt);
        std::cerr << " done (" << FormatNumber(r.wallSeconds, 3) << " s)\n";

        const SharedLinkReport shared = ReportSharedLinks(
            g, collisions, r, &queueCsv, {run.fabric, std::to_string(run.seed)});
        const std::set<uint32_t>& collided = shared.flows;
        const std::string& label = shared.label;
        const RoceFlowExtremes x = ComputeRoceFlowExtremes(r.flows);
        const bool allComplete = x.allComplete;
        for (size_t f = 0; f < r.flows.size(); ++f)
        {
            flowCsv.Row(shared.FlowCsvCells({run.fabric, std::to_string(run.seed)}, f, r.flows[f]));
        }
        WriteRoceThroughputRows(seriesCsv, {run.fabric, std::to_string(run.seed)}, r.flows, binUs);
        json rj{{"fabric", run.fabric},
                {"seed", run.seed},
                {"flows", shared.FlowsJson(r.flows)},
                {"collisions", shared.links},
                {"all_complete", allComplete},
                {"wall_s", r.wallSeconds}};
        if (!failSpec.empty())
        {
            rj["drops"] = r.drops; // by reason (FabricDropReason)
        }
        rj.update(PacketAccountingJson(
            r.sentPackets, r.deliveredPackets, r.drops, !allComplete, r.measuredInFlightPackets));
        if (!allComplete)
        {
            ++incompleteRuns;
            std::cerr << "warning: " << run.fabric << " seed " << run.seed
                      << ": flows not complete at the horizon --stop-ms="
                      << cli.GetString("stop-ms") << "; their FCT and throughput are left out\n";
        }
        summary["runs"].push_back(rj);
        std::cout << std::left << std::setw(7) << run.fabric << std::setw(6) << run.seed
                  << std::setw(28) << (label.empty() ? "-" : label) << std::right << std::fixed
                  << std::setprecision(1);
        if (x.maxGbps > 0)
        {
            std::cout << std::setw(12) << x.minGbps << std::setw(10) << x.maxGbps << std::setw(12)
                      << x.maxFctUs;
        }
        else
        {
            std::cout << std::setw(34) << "none complete";
        }
        std::cout << std::setw(12) << shared.maxQueueBytes / 1000.0 << std::setw(10)
                  << shared.ecnMarks << (allComplete ? "" : "  INCOMPLETE at horizon") << "\n";
        if (!plotted && !collisions.empty())
        {
            plotted = true;
            plottedSeed = run.seed;
            plotRun = rj;
            Gnuplot plot = RoceThroughputPlot(
                r.flows,
                binUs,
                "Per-flow throughput, ROFT seed " + std::to_string(run.seed) + " (" + label + ")",
                lineBps / 1e9,
                [&](size_t f)
                { return "flow " + std::to_string(f) + (collided.count(f) ? " (collided)" : ""); });
            out.WritePng("throughput-colliding-seed.png", plot);
        }
    }
    summary["incomplete_runs"] = incompleteRuns;
    if (plotted)
    {
        summary["plotted_seed"] = plottedSeed;
    }
    flowCsv.Close();
    seriesCsv.Close();
    queueCsv.Close();
    out.WriteSummary(summary);
    std::cout << "\ntput: message throughput per flow (Gb/s), over completed flows; maxQ, "
                 "marks: on the shared links\n";
    if (incompleteRuns > 0)
    {
        std::cout << "warning: " << incompleteRuns
                  << " run(s) had flows not complete at the horizon --stop-ms="
                  << cli.GetString("stop-ms") << " (see in_flight_at_stop in summary.json)\n";
    }
    if (!plotted)
    {
        std::cout << "no seed produced a collision; no throughput plot written\n";
    }
    std::cout << "wrote " << out.Path("summary.json")
              << ", flows.csv, throughput-series.csv, shared-link-queue.csv"
              << (plotted ? ", throughput-colliding-seed.png (ROFT seed "
                                + std::to_string(plottedSeed) + ")"
                          : "")
              << "\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
