// SPDX-License-Identifier: GPL-2.0-only
//
// Lossless RoCE with PFC, next to the same traffic lossy:
//  - incast: --senders GPUs (default 64) send to GPU 0 of a rail-optimized fat tree at once,
//    while a few victim flows leave the senders' leaves for an idle leaf. Lossless: no drop,
//    pauses propagate hop by hop (leaf <- spine <- leaf <- host: pause-state.png), and the
//    victims, which share the paused leaf uplinks, are slowed (head-of-line blocking). Lossy:
//    queue overflows and go-back-N, but the victims run free. No rate control, so that what
//    PFC does is seen alone.
//  - incast-dcqcn: the same with DCQCN; pause episodes in the first and second half of the
//    run show pauses becoming rare once DCQCN has cut the rates.
//  - cyclic: a ring of switches with clockwise routing (every flow --ring-switches - 1
//    hops): a cyclic buffer dependency; the deadlock detector reports the cycle and ends the
//    run, it does not hang.
//
//   ./build/bin/lossless --out=results/lossless
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/pfc-helper.h"
#include "ns3/pfc-ring.h"
#include "ns3/pfc-study.h"
#include "ns3/queue-size.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <iomanip>
#include <iostream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

struct RunSpec
{
    std::string scenario;
    bool lossless;
    bool dcqcn;
};

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Lossless RoCE (PFC) vs lossy: incast, DCQCN + PFC, a deadlock.");
    cli.Add("n", "GPUs of the fat tree", "128");
    cli.Add("k", "GPUs per leaf (must divide n)", "16");
    cli.Add("spines", "spines (n/k: no oversubscription)", "16");
    cli.Add("senders", "incast senders (to GPU 0)", "64");
    cli.Add("victims", "victim flows from the senders' leaves to an idle leaf", "4");
    cli.Add("bytes", "bytes per incast flow", "1048576");
    cli.Add("victim-bytes", "bytes per victim flow", "1048576");
    cli.Add("dcqcn-bytes",
            "bytes per incast flow in the DCQCN run (long enough for DCQCN to converge)",
            "4194304");
    cli.Add("dcqcn-lossy",
            "also run the DCQCN incast lossy (go-back-N over ~400k drops: about 35 s)",
            "false");
    cli.Add("link-rate-gbps", "link rate in Gb/s", "400");
    cli.Add("queue-bytes", "lossy runs: drop-tail queue per port in bytes", "2000000");
    cli.Add("buffer-bytes",
            "lossless runs: shared buffer per switch in bytes (small enough for the incast to "
            "fill the spines, so that pauses reach the hosts)",
            "12000000");
    cli.Add("alpha", "lossless runs: dynamic threshold alpha", "0.125");
    cli.Add("pause-mode", "quanta | on-off", "quanta");
    cli.Add("ring-switches", "switches of the cyclic case's ring", "4");
    cli.Add("ring-bytes", "bytes per flow of the cyclic case", "20000000");
    cli.Add("ring-xoff-bytes", "static XOFF threshold of the ring's switches", "64000");
    cli.Add("stop-ms", "horizon of each run in ms", "100");
    cli.Add("out", "results folder", "results/lossless");
    cli.Parse(argc, argv);
    const auto n = static_cast<uint32_t>(cli.GetUint("n", 16, 4096));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 2, n));
    if (n % k != 0 || n / k < 3)
    {
        throw std::invalid_argument("--k=" + std::to_string(k) + " must divide --n="
                                    + std::to_string(n) + " into at least 3 leaves");
    }
    const uint32_t leaves = n / k;
    const auto spines = static_cast<uint32_t>(cli.GetUint("spines", 1, 1024));
    const auto victims = static_cast<uint32_t>(cli.GetUint("victims", 0, std::min(k, leaves - 2)));
    // Senders: leaves 1 .. leaves-2, less the victims' sources (last GPU of leaves 1..victims).
    const uint32_t available = (leaves - 2) * k - victims;
    const auto senders = static_cast<uint32_t>(cli.GetUint("senders", 1, available));
    const uint64_t bytes = cli.GetUint("bytes", 4096, uint64_t(1) << 32);
    const uint64_t victimBytes = cli.GetUint("victim-bytes", 4096, uint64_t(1) << 32);
    const uint64_t dcqcnBytes = cli.GetUint("dcqcn-bytes", 4096, uint64_t(1) << 32);
    const double lineBps = cli.GetDouble("link-rate-gbps", 1, 100000) * 1e9;
    const uint64_t queueBytes = cli.GetUint("queue-bytes", 10000, UINT32_MAX);
    const uint64_t bufferBytes = cli.GetUint("buffer-bytes", 100000, UINT32_MAX);
    const double alpha = cli.GetDouble("alpha", 0, 64);
    const bool dcqcnLossy = cli.GetBool("dcqcn-lossy");
    const std::string pauseMode = cli.GetChoice("pause-mode", {"quanta", "on-off"});
    const auto ringSwitches = static_cast<uint32_t>(cli.GetUint("ring-switches", 3, 64));
    const uint64_t ringBytes = cli.GetUint("ring-bytes", 4096, uint64_t(1) << 36);
    const uint64_t ringXoff = cli.GetUint("ring-xoff-bytes", 1000, UINT32_MAX);
    const Time stopAt = cli.GetTime("stop-ms", Time::MS, MicroSeconds(1), Seconds(100));
    CheckSerializationResolution(lineBps, RoceDataWireBytes(), "--link-rate-gbps");
    {
        // Bytes offered over all runs, a flow carrying at most the line rate until the
        // horizon. Measured: the default runs (about 464 MB offered) take 4.5 s and an
        // 8-sender incast of 4 GB flows cut at 20 ms (16 GB offered) 58 s on the loaded 2-core
        // machine, i.e. up to 1e-8 s per offered byte.
        const double cap = lineBps / 8 * stopAt.GetSeconds();
        auto offered = [cap](double flows, double perFlow)
        {
            return flows * std::min(perFlow, cap);
        };
        const double total = offered(2.0 * senders, double(bytes))
                           + offered((dcqcnLossy ? 2.0 : 1.0) * senders, double(dcqcnBytes))
                           + offered((dcqcnLossy ? 4.0 : 3.0) * victims, double(victimBytes))
                           + offered(ringSwitches, double(ringBytes));
        CheckFabricRunTime(
            1e-8 * total,
            "--senders=" + std::to_string(senders) + " --bytes=" + std::to_string(bytes)
                + " --dcqcn-bytes=" + std::to_string(dcqcnBytes) + " --ring-bytes="
                + std::to_string(ringBytes) + " --stop-ms=" + cli.GetString("stop-ms")
                + " --link-rate-gbps=" + cli.GetString("link-rate-gbps"));
        // Memory: ns-3 nodes, devices and queues (about 45 kB per node, as zcube-vs-roft).
        CheckFabricMemory(30e6 + 45e3 * (n + leaves + spines), "--n=" + std::to_string(n));
    }
    FabricResults out(cli.GetString("out"));

    json summary;
    summary["params"] = {{"n", n},
                         {"k", k},
                         {"spines", spines},
                         {"senders", senders},
                         {"victims", victims},
                         {"bytes", bytes},
                         {"victim_bytes", victimBytes},
                         {"dcqcn_bytes", dcqcnBytes},
                         {"link_rate_gbps", lineBps / 1e9},
                         {"queue_bytes", queueBytes},
                         {"buffer_bytes", bufferBytes},
                         {"alpha", alpha},
                         {"dcqcn_lossy", dcqcnLossy},
                         {"pause_mode", pauseMode},
                         {"ring_switches", ringSwitches},
                         {"ring_bytes", ringBytes},
                         {"ring_xoff_bytes", ringXoff},
                         {"stop_ms", stopAt.ToDouble(Time::MS)}};
    summary["runs"] = json::array();
    // clang-format off
    CsvWriter flowCsv(out.Path("flows.csv"), {"scenario", "mode", "flow", "role", "src", "dst",
                                              "bytes", "fct_us", "slowdown", "retx", "cnps"});
    // clang-format on
    CsvWriter pauseCsv(out.Path("pause-events.csv"),
                       {"scenario", "mode", "t_us", "link", "tail_tier", "paused"});

    std::cout << "Lossless vs lossy RoCE: incast " << senders << "-to-1 + " << victims
              << " victims on ROFT n=" << n << " k=" << k << " spines=" << spines << ", "
              << lineBps / 1e9 << " Gb/s; ring of " << ringSwitches << "\n\n";
    std::cout << std::left << std::setw(14) << "scenario" << std::setw(10) << "mode" << std::right
              << std::setw(9) << "sent" << std::setw(11) << "delivered" << std::setw(8) << "drops"
              << std::setw(9) << "pauses" << std::setw(12) << "incast us" << std::setw(12)
              << "victim sd" << std::setw(10) << "paused%"
              << "  notes\n";

    std::vector<RunSpec> runs{
        {"incast", true, false}, {"incast", false, false}, {"incast-dcqcn", true, true}};
    if (dcqcnLossy)
    {
        runs.push_back({"incast-dcqcn", false, true});
    }
    runs.push_back({"cyclic", true, false});
    std::vector<PfcNetwork::PauseEvent> plotEvents;
    std::shared_ptr<const FabricGraph> plotGraph;
    double plotEnd = 0;
    for (const RunSpec& run : runs)
    {
        const bool cyclic = run.scenario == "cyclic";
        const std::string mode = run.lossless ? "lossless" : "lossy";
        FabricNetworkHelper links;
        links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(lineBps))));
        PfcHelper pfcHelper;
        pfcHelper.SetSwitchAttribute("BufferSize", UintegerValue(bufferBytes));
        pfcHelper.SetSwitchAttribute("PauseMode", StringValue(pauseMode));
        if (cyclic)
        {
            pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(0));
            pfcHelper.SetSwitchAttribute("XoffBytes", UintegerValue(ringXoff));
            pfcHelper.SetNetworkAttribute("StopOnDeadlock", BooleanValue(true));
        }
        else
        {
            pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(alpha));
        }
        if (run.lossless)
        {
            pfcHelper.ConfigureLinks(links);
        }
        else
        {
            links.SetQueueAttribute(
                "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, uint32_t(queueBytes))));
        }
        Ptr<FabricNetwork> net;
        std::vector<FlowSpec> flows;
        if (cyclic)
        {
            auto graph = MakePfcRingGraph(ringSwitches);
            auto routing = CreateObject<ClockwiseRingRouting>();
            routing->SetGraph(graph);
            net = links.Install(graph, routing);
            flows = MakePfcRingFlows(ringSwitches, ringBytes);
        }
        else
        {
            net = RoftHelper(RoftLayout(n, k, spines), 1).Install(links);
            flows = MakeIncastWithVictims(
                n, k, senders, victims, run.dcqcn ? dcqcnBytes : bytes, victimBytes);
        }
        Ptr<PfcNetwork> pfc = run.lossless ? pfcHelper.Install(net) : nullptr;
        PfcRunFigures fig;
        FabricRoceRunOptions opt;
        opt.stopAt = stopAt;
        opt.senderAttributes["RateControl"] = std::make_shared<TypeIdValue>(
            run.dcqcn ? DcqcnRateControl::GetTypeId() : NoRateControl::GetTypeId());
        if (pfc)
        {
            opt.afterRun = [pfc, &fig](Ptr<FabricNetwork> nw, const ApplicationContainer&)
            {
                fig = CollectPfcFigures(*pfc, nw->GetGraph());
            };
        }
        std::cerr << "[" << run.scenario << " " << mode << "] " << flows.size() << " flows..."
                  << std::flush;
        FabricRoceRunResult r = RunFabricRoce(net, flows, opt);
        std::cerr << " done (" << FormatNumber(r.wallSeconds, 3) << " s)\n";
        // The traffic's time: until the last packet left the network (or the stop).
        const double end = r.incompleteFlows == 0 && r.lastPacketSeconds > 0 ? r.lastPacketSeconds
                                                                             : r.simSeconds;
        auto isVictim = [cyclic](const RoceFlowRecord& f)
        {
            return !cyclic && f.spec.dst != 0;
        };
        const IncastFlowStats st = SummarizeIncastFlows(r.flows, isVictim);
        for (const auto& f : r.flows)
        {
            flowCsv.Row({run.scenario,
                         mode,
                         std::to_string(f.spec.id),
                         cyclic ? "ring" : (isVictim(f) ? "victim" : "incast"),
                         std::to_string(f.spec.src),
                         std::to_string(f.spec.dst),
                         std::to_string(f.spec.bytes),
                         f.complete ? FormatNumber(f.FctSeconds() * 1e6) : "incomplete",
                         f.complete ? FormatNumber(f.Slowdown()) : "incomplete",
                         std::to_string(f.retxPackets),
                         std::to_string(f.cnps)});
        }
        WritePfcPauseEventRows(pauseCsv, {run.scenario, mode}, fig.events, net->GetGraph());
        json rj = PfcFiguresJson(fig, end);
        rj.update({{"scenario", run.scenario},
                   {"mode", mode},
                   {"rate_control", run.dcqcn ? "dcqcn" : "none"},
                   {"sent_packets", r.sentPackets},
                   {"delivered_packets", r.deliveredPackets},
                   {"drops", r.drops},
                   {"cnps", st.cnps},
                   {"incomplete_flows", r.incompleteFlows},
                   {"in_flight_at_stop", r.inFlightPackets},
                   {"in_flight_measured", r.measuredInFlightPackets},
                   {"unaccounted_packets", r.Unaccounted()},
                   {"sim_us", r.simSeconds * 1e6},
                   {"last_completion_us", r.lastCompletionSeconds * 1e6},
                   {"incast_fct_max_us", st.incastFctMaxUs},
                   {"victim_slowdown_mean", st.victimSlowdownMean},
                   {"victim_slowdown_max", st.victimSlowdownMax},
                   {"wall_s", r.wallSeconds}});
        summary["runs"].push_back(rj);
        if (run.scenario == "incast" && run.lossless)
        {
            plotEvents = fig.events;
            plotGraph = net->GetGraphPtr();
            plotEnd = end;
        }
        std::string notes;
        if (!fig.deadlocks.empty())
        {
            notes = "DEADLOCK:";
            for (const auto& l : fig.deadlocks[0].labels)
            {
                notes += " " + l;
            }
        }
        if (r.incompleteFlows > 0)
        {
            notes += (notes.empty() ? "" : "; ") + std::to_string(r.incompleteFlows)
                   + " flows incomplete";
        }
        std::cout << std::left << std::setw(14) << run.scenario << std::setw(10) << mode
                  << std::right << std::setw(9) << r.sentPackets << std::setw(11)
                  << r.deliveredPackets << std::setw(8) << r.droppedPackets << std::setw(9)
                  << fig.pauseFrames << std::setw(12) << FormatNumber(st.incastFctMaxUs, 4)
                  << std::setw(12)
                  << (st.victimsComplete ? FormatNumber(st.victimSlowdownMean, 3) : "-")
                  << std::setw(10) << FormatNumber(100 * rj["max_paused_fraction"].get<double>(), 3)
                  << "  " << notes << "\n";
    }
    flowCsv.Close();
    pauseCsv.Close();

    // Pause state per link over time, grouped by the tier of the paused sender: the pause
    // propagating hop by hop.
    bool plotted = false;
    if (!plotEvents.empty())
    {
        Gnuplot plot = PfcPauseStatePlot(plotEvents,
                                         *plotGraph,
                                         plotEnd,
                                         "PFC pause state per link, incast lossless (a line = "
                                         "link paused)");
        plotted = out.WritePng("pause-state.png", plot);
    }
    out.WriteSummary(summary);
    std::cout << "\npauses: pause frames sent (XOFF, refresh, XON); incast us: slowest incast "
                 "FCT; victim sd: mean victim slowdown (FCT / ideal); paused%: largest "
                 "fraction of the run a link was paused\n";
    std::cout << "wrote " << out.Path("summary.json") << ", flows.csv, pause-events.csv"
              << (plotted ? ", pause-state.png" : "") << "\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
