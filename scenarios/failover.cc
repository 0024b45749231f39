// SPDX-License-Identifier: GPL-2.0-only
//
// Failover in detail (issue #9; ZCube paper §6.1-6.3, Table 3): steady RoCE traffic while a
// core link, then a switch, then an access link fail and are repaired, with detection as a
// model (FabricFailureDetector) and each scheme's reaction (ZCube: NIC failover + controller
// detours; ROFT: local rehash + routing updates; RNG: Spraypoint fallback + reconvergence).
//
// Per event: affected pairs (against ZCube's §6.2 fault domains), stall of the affected flows
// (failure to the first packet sent after it that arrives), packets lost and retransmitted,
// loss of the unaffected flows, path length before/during/after, aggregate throughput over
// time with the failure, detection, reaction and repair instants marked. Then a sweep over the
// controller latency: ZCube's stall against ROFT's local rehash. The measurement is
// roce-failover-study.h's; this program sets the experiment up.
//
//   ./build/bin/failover --out=results/failover
//   ./build/bin/failover --fabric=roft --detect-us=2 --out=results/failover-roft
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-choice.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/rng-topology.h"
#include "ns3/roce-failover-study.h"
#include "ns3/zcube-routing.h"

#include <iostream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// The default sequence on \p fabric: a core link, a switch, an access link (RNG: a
/// router-router link, a router, a server's NIC port).
std::vector<std::pair<std::string, FabricFailureEvent>>
DefaultElements(const FabricChoice& fabric, uint32_t n, uint32_t k)
{
    auto ev = [](FabricFailureEvent::Kind kind, uint32_t id)
    {
        FabricFailureEvent e;
        e.kind = kind;
        e.id = id;
        return e;
    };
    using K = FabricFailureEvent::Kind;
    const FabricGraph& g = *fabric.graph;
    const uint32_t m = n / k;
    if (fabric.name == "rng")
    {
        const RngFabric rng = RngFabric::FromGraph(g);
        return {{"core-link", ev(K::LINK, rng.RouterLink(g, 0))},
                {"router", ev(K::SWITCH, rng.RouterNode(1 % rng.GetNRouters()))},
                {"nic-port", ev(K::NIC, 2 % n)}};
    }
    if (fabric.name == "zcube")
    {
        ZCubeLayout zl(n, k);
        return {{"core-link", ev(K::LINK, g.GetPortLink(zl.OddNode(0), zl.OddCorePort(1 % m)))},
                {"switch", ev(K::SWITCH, zl.OddNode(1 % m))},
                {"access-link", ev(K::NIC, 2 % n)}};
    }
    LeafSpineLayout ls(n, k, m);
    return {{"core-link", ev(K::LINK, ls.LeafSpineLink(g, 0, 0))},
            {"switch", ev(K::SWITCH, ls.SpineNode(1 % ls.GetSpines()))},
            {"access-link", ev(K::NIC, 2 % n)}};
}

/// ZCube §6.2 fault domain of \p e under all-to-all traffic (ordered pairs, i != j).
int64_t
ZCubeFaultDomain(const FailoverEvent& e, const ZCubeLayout& zl, const FabricGraph& g)
{
    const uint32_t n = zl.GetN();
    const uint32_t k = zl.GetK();
    if (e.kind == "core-link")
    {
        const FabricLink& link = g.GetLink(e.fail.id);
        const uint32_t a = link.node[0] - n;
        const uint32_t b = link.node[1] - n - zl.GetM();
        return int64_t(k) * k - zl.CellSize(a, b);
    }
    if (e.kind == "switch")
    {
        return int64_t(k) * (n - 1); // its k GPUs, as sources, move to their even ports
    }
    return n - 1; // the GPU's O side carries its n - 1 sending pairs
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__,
                  "Failover in detail: detection, ZCube controller detours and NIC port "
                  "failover, ECMP local rehash, under steady RoCE traffic (issue #9).");
    cli.Add("fabric",
            "zcube | roft | rng (RNG: n/k routers of degree --degree, k servers each, "
            "Spraypoint)",
            "zcube");
    cli.Add("degree", "RNG router degree d (--fabric=rng)", "4");
    cli.Add("graph-seed", "RNG random regular graph seed (--fabric=rng)", "1");
    cli.Add("n", "number of GPUs", "16");
    cli.Add("k",
            "GPUs per switch (ZCube) / per leaf (ROFT) / servers per router (RNG, default 1 "
            "there); must divide n",
            "4");
    cli.Add("pattern", "allreduce | prefill | permutation", "allreduce");
    cli.Add("prefill-fraction", "fraction of GPUs that are Prefill senders", "0.25");
    cli.Add("detect-us", "local (loss-of-signal) detection delay, us", "5");
    cli.Add("controller-latency-us", "detection to controller rules in force, us (ZCube)", "1000");
    cli.Add("detour-shape",
            "ZCube controller detours for a dead core link: paper (§6.2, 4 switches) | "
            "reverse-plane (per affected pair over the links Eq. 1 leaves idle: the source's "
            "E side, E -> O core, the destination's O side; 2 switches)",
            "paper");
    cli.Add("control-priority",
            "on: every device queue serves ACK/NACK/CNP (DSCP 48) before queued data "
            "(ns3::FabricNetwork::ControlPriority, DscpPriorityQueue; still lossy) | off: one "
            "drop-tail FIFO per port",
            "off");
    cli.Add("propagation-us", "routing-update delay per switch hop, us (ROFT)", "50");
    cli.Add("compute-us", "route computation at non-adjacent nodes, us", "0");
    cli.Add("bfd-interval-us", "BFD interval, us (one-way failures)", "3300");
    cli.Add("bfd-multiplier", "BFD missed packets before down", "3");
    cli.Add("rate-gbps", "link rate, Gb/s", "100");
    cli.Add("hold-us",
            "how long each failure lasts before its repair, us; 0 = detection + "
            "the slower of controller latency and 4 update hops + 300 us",
            "0");
    cli.Add("gap-us",
            "time between a repair and the next failure, us; 0 = as long as the hold, so that "
            "every node and the controller have learnt the repair before the next failure",
            "0");
    cli.Add("no-failure-run",
            "also run the same traffic without failures: the unaffected flows' throughput "
            "during each event is compared with theirs there (true | false; doubles the main "
            "run)",
            "false");
    cli.Add("bin-us", "throughput series bin, us", "20");
    cli.Add("queue-sample-us",
            "> 0: write queues.csv, every directed link's egress queue sampled on change at most "
            "once per this many us (main run); 0 = off",
            "0");
    cli.Add("goodput-dip-fraction",
            "goodput dip: time an affected flow's delivered rate stays below this fraction of "
            "its rate before the failure (0 = not reported)",
            "0.5");
    cli.Add("sweep-latency-us",
            "controller latencies of the sweep (ZCube core-link failure next to ROFT local "
            "rehash), us; 'none' to skip",
            "10,100,1000,10000,100000");
    cli.Add("sweep-bytes", "message per affected pair in the sweep runs", "2000000");
    cli.Add("out", "output folder", "results/failover");
    cli.Parse(argc, argv);

    const std::string fabricName = cli.GetChoice("fabric", {"zcube", "roft", "rng"});
    const std::string detourShape = cli.GetChoice("detour-shape", {"paper", "reverse-plane"});
    // The program sets the shape on every ZCube routing object it builds (main run and sweep).
    cli.ReserveAttribute("ns3::ZCubeRouting::DetourShape", "--detour-shape");
    if (fabricName != "zcube" && cli.IsSet("detour-shape"))
    {
        throw std::invalid_argument(
            "--detour-shape applies to --fabric=zcube only (got --fabric=" + fabricName + ")");
    }
    if (fabricName != "rng")
    {
        // Not silently ignored: a set flag that this fabric would not read is a mistake.
        for (const std::string flag : {"degree", "graph-seed"})
        {
            if (cli.IsSet(flag))
            {
                throw std::invalid_argument("--" + flag
                                            + " applies to --fabric=rng only (got --fabric="
                                            + fabricName + ")");
            }
        }
    }
    const uint32_t n = static_cast<uint32_t>(cli.GetUint("n", 4, 256));
    // RNG: one server per router unless --k says otherwise (n routers of degree --degree).
    const uint32_t k = (fabricName == "rng" && !cli.IsSet("k"))
                         ? 1
                         : static_cast<uint32_t>(cli.GetUint("k", fabricName == "rng" ? 1 : 2, n));
    if (n % k != 0 || n / k < 3)
    {
        throw std::invalid_argument("--n=" + std::to_string(n) + " --k=" + std::to_string(k)
                                    + ": k must divide n with n/k >= 3 (detours need a third "
                                      "group)");
    }
    const std::string patternName
        = cli.GetChoice("pattern", {"allreduce", "prefill", "permutation"});
    // Every network this program builds (main run, no-failure run, sweep) reads the default.
    const std::string controlPriority = cli.GetChoice("control-priority", {"on", "off"});
    cli.ReserveAttribute("ns3::FabricNetwork::ControlPriority", "--control-priority");
    Config::SetDefault("ns3::FabricNetwork::ControlPriority",
                       BooleanValue(controlPriority == "on"));
    FailoverDelays s;
    s.routingUpdates = fabricName != "zcube"; // ZCube's switches run no routing protocol
    s.detect = cli.GetTime("detect-us", Time::US, Time(0), Seconds(1));
    s.controllerLatency = cli.GetTime("controller-latency-us", Time::US, Time(0), Seconds(1));
    s.propagation = cli.GetTime("propagation-us", Time::US, Time(0), Seconds(1));
    s.compute = cli.GetTime("compute-us", Time::US, Time(0), Seconds(1));
    s.bfdInterval = cli.GetTime("bfd-interval-us", Time::US, MicroSeconds(1), Seconds(1));
    s.bfdMultiplier = static_cast<uint32_t>(cli.GetUint("bfd-multiplier", 1, 255));
    const double lineBps = cli.GetDouble("rate-gbps", 1, 1600) * 1e9;
    const Time bin = cli.GetTime("bin-us", Time::US, MicroSeconds(1), MilliSeconds(10));
    const double goodputDip = cli.GetDouble("goodput-dip-fraction", 0, 1);
    Time hold = cli.GetTime("hold-us", Time::US, Time(0), Seconds(1));
    hold = hold.IsZero() ? s.SettleTime() : hold;
    Time gap = cli.GetTime("gap-us", Time::US, Time(0), Seconds(1));
    gap = gap.IsZero() ? hold : gap; // the reactions to a repair take as long as to a failure
    const bool noFailureRun = cli.GetBool("no-failure-run");
    const Time queueSample = cli.GetTime("queue-sample-us", Time::US, Time(0), MilliSeconds(10));
    std::vector<Time> sweep;
    if (cli.GetString("sweep-latency-us") != "none")
    {
        sweep = ParseFailoverLatencies(cli.GetList("sweep-latency-us"), "--sweep-latency-us");
    }
    const uint64_t sweepBytes = cli.GetUint("sweep-bytes", 4096, 1ull << 32);

    FabricChoiceParams fp;
    fp.n = n;
    fp.k = k;
    FabricChoice fabric;
    if (fabricName == "rng")
    {
        const uint32_t d = static_cast<uint32_t>(cli.GetUint("degree", 3, n / k - 1));
        RngFabric rng(MakeRandomRegularGraph(n / k, d, cli.GetUint("graph-seed", 0, UINT32_MAX)),
                      k);
        fabric.name = "rng";
        fabric.graph = rng.Build();
        fabric.routing.SetTypeId("ns3::SpraypointRouting");
    }
    else
    {
        fabric = MakeFabricChoice(fabricName, fp);
    }
    if (fabricName == "zcube")
    {
        fabric.routing.Set("DetourShape", StringValue(detourShape));
    }
    const FabricGraph& g = *fabric.graph;

    // Events and horizon.
    const Time start = MicroSeconds(100);
    const std::vector<FailoverEvent> events
        = SequenceFailoverEvents(DefaultElements(fabric, n, k), start, hold, gap);
    const Time horizon = events.back().repair.at + gap;
    {
        // Every host sends at about the line rate until the horizon; each sweep run (ZCube and
        // ROFT per latency) carries --sweep-bytes for each affected pair (a few per GPU).
        // Measured on the loaded 2-core machine: 12 GPUs at 25 Gb/s over a 2.5 ms horizon
        // (about 94 MB) 1 s, at 1000 Gb/s 18 s; one sweep latency at 100 MB per pair 11 s:
        // about 5e-9 s per byte at 12 GPUs, and the cost per byte grows with n (32 GPUs 4.9 s,
        // 64 GPUs 15 s at 25 Gb/s): more hops, flows and per-event analysis.
        const double mainBytes = n * lineBps / 8 * horizon.GetSeconds();
        const double sweepTotal = 2.0 * sweep.size() * n * double(sweepBytes);
        CheckFabricRunTime(
            5e-9 * ((noFailureRun ? 2 : 1) * mainBytes * (1 + n / 16.0) + sweepTotal),
            "--n=" + std::to_string(n) + " --rate-gbps=" + cli.GetString("rate-gbps")
                + " with a horizon of " + FormatNumber(horizon.GetSeconds() * 1e3)
                + " ms (--hold-us, " + "--gap-us) and --sweep-bytes=" + std::to_string(sweepBytes));
    }
    FabricResults out(cli.GetString("out"));

    // Steady traffic: every flow sized to outlast the horizon at its fair share.
    TrafficPatternParams tp;
    tp.hosts = n;
    tp.prefillFraction = cli.GetDouble("prefill-fraction", 0, 1, FabricCli::OPEN);
    tp.seed = 1;
    std::vector<FlowSpec> flows = MakeTraffic(ParseTrafficPattern(patternName), tp);
    const uint64_t flowBytes = SizeSteadyFailoverFlows(flows, n, lineBps, horizon);

    // The run, and each event's report.
    const FailoverRun run = RunFailover(
        fabric.routing, fabric.graph, lineBps, s, events, flows, horizon, bin, true, queueSample);
    const FabricRoceRunResult& r = run.result;
    FailoverRun noFailure;
    if (noFailureRun)
    {
        noFailure = RunFailover(
            fabric.routing, fabric.graph, lineBps, s, events, flows, horizon, bin, false);
    }
    FailoverAnalysisSettings as;
    as.fabric = fabricName;
    as.routing = fabric.routing;
    as.graph = fabric.graph;
    as.horizon = horizon;
    as.bin = bin;
    as.reactionIsController = fabricName == "zcube"; // the controller installs the detours
    as.blastRadius = fabricName == "rng";
    as.goodputDipFraction = goodputDip;
    as.noFailure = noFailureRun ? &noFailure : nullptr;
    json jevents = AnalyzeFailoverEvents(as, events, flows, run);
    if (fabricName == "zcube" && patternName == "allreduce")
    {
        for (uint32_t w = 0; w < events.size(); ++w)
        {
            jevents[w]["fault_domain_pairs"] = ZCubeFaultDomain(events[w], ZCubeLayout(n, k), g);
        }
    }
    if (queueSample.IsStrictlyPositive())
    {
        CsvWriter q(out.Path("queues.csv"), {"t_us", "dir_link", "label", "bytes"});
        for (const auto& [d, samples] : run.queueSamples)
        {
            const std::string label = g.GetDirLinkLabel(d);
            for (const auto& smp : samples)
            {
                q.Row({FormatNumber(smp.t * 1e6),
                       std::to_string(d),
                       label,
                       std::to_string(smp.bytes)});
            }
        }
        q.Close();
    }
    WriteFailoverThroughput(out,
                            r,
                            jevents,
                            bin,
                            "Aggregate delivered throughput, " + fabricName + " (" + patternName
                                + ")");

    // Controller-latency sweep: ZCube core-link failure against ROFT local rehash.
    json jsweep = json::array();
    std::string sweepTable;
    if (fabricName == "rng" && !sweep.empty())
    {
        std::cout << "note: the controller-latency sweep compares ZCube and ROFT; skipped for "
                     "--fabric=rng\n";
        sweep.clear();
    }
    if (!sweep.empty())
    {
        auto sweepFabric = [&](const std::string& name)
        {
            FabricChoice fc = MakeFabricChoice(name, fp);
            if (name == "zcube")
            {
                fc.routing.Set("DetourShape", StringValue(detourShape));
            }
            return FailoverSweepFabric{
                fc.routing, fc.graph, DefaultElements(fc, n, k).front().second};
        };
        jsweep = RunFailoverLatencySweep(
            sweepFabric("zcube"), sweepFabric("roft"), s, sweep, lineBps, sweepBytes);
        sweepTable = WriteFailoverLatencySweep(out, jsweep);
    }

    json summary{{"fabric", fabricName},
                 {"n", n},
                 {"k", k},
                 {"pattern", patternName},
                 {"params", s.ToJson()},
                 {"events", jevents},
                 {"drops", r.drops},
                 {"latency_sweep", jsweep},
                 {"wall_s", r.wallSeconds}};
    summary["params"].update({{"rate_gbps", lineBps / 1e9},
                              {"hold_us", hold.GetSeconds() * 1e6},
                              {"flow_bytes", flowBytes},
                              {"flows", flows.size()},
                              {"control_priority", controlPriority}});
    if (fabricName == "zcube")
    {
        summary["params"]["detour_shape"] = detourShape;
    }
    summary.update(PacketAccountingJson(
        r.sentPackets, r.deliveredPackets, r.drops, true, r.measuredInFlightPackets));
    summary["in_flight_at_stop"] = r.inFlightPackets;
    summary["unaccounted_packets"] = r.Unaccounted();
    {
        // The probe's duplicates (mirroring the receivers' go-back-N at the host NICs, per
        // window) against what the receivers counted, over the whole run.
        uint64_t probe = 0;
        uint64_t receiver = 0;
        uint32_t differing = 0;
        for (uint32_t f = 0; f < r.flows.size(); ++f)
        {
            const uint64_t p = run.probe->DuplicatesReceivedTotal(f);
            probe += p;
            receiver += r.flows[f].duplicatesReceived;
            differing += p != r.flows[f].duplicatesReceived ? 1 : 0;
        }
        summary["duplicates_received_check"]
            = {{"probe", probe}, {"receivers", receiver}, {"flows_differing", differing}};
    }
    out.WriteSummary(summary);

    std::cout << "failover on " << fabricName << " n=" << n << " k=" << k << ", " << patternName
              << ", " << flows.size() << " flows, detection "
              << FormatNumber(s.detect.GetSeconds() * 1e6) << " us, controller "
              << FormatNumber(s.controllerLatency.GetSeconds() * 1e6) << " us, update "
              << FormatNumber(s.propagation.GetSeconds() * 1e6) << " us/hop, control priority "
              << controlPriority << "\n\n"
              << FailoverEventTable(jevents);
    std::cout << "\n" << FailoverEventLegend();
    std::cout << "accounting: sent " << r.sentPackets << " = delivered " << r.deliveredPackets
              << " + dropped " << r.droppedPackets << " + in flight " << r.inFlightPackets
              << " (unaccounted " << r.Unaccounted() << ")\n";
    if (!sweep.empty())
    {
        std::cout << "\ncontroller-latency sweep (core-link failure, affected pairs only, "
                  << sweepBytes << " B each):\n"
                  << sweepTable;
    }
    std::cout << "wrote " << out.Path("summary.json") << ", throughput.csv, throughput.png"
              << (sweep.empty() ? "" : ", latency-sweep.csv, latency-sweep.png")
              << (queueSample.IsStrictlyPositive() ? ", queues.csv" : "") << "\n";
    return r.Unaccounted() == 0 ? 0 : 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
