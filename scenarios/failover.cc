// SPDX-License-Identifier: GPL-2.0-only
//
// Failover in detail (issue #9; ZCube paper §6.1-6.3, Table 3): steady RoCE traffic while a
// core link, then a switch, then an access link fail and are repaired, with detection as a
// model (FabricFailureDetector) and each scheme's reaction (ZCube: NIC failover + controller
// detours; ROFT: local rehash + routing updates).
//
// Per event: affected pairs (against ZCube's §6.2 fault domains), stall of the affected flows
// (failure to the first packet sent after it that arrives), packets lost and retransmitted,
// loss of the unaffected flows, path length before/during/after, aggregate throughput over
// time with the failure, detection, reaction and repair instants marked. Then a sweep over the
// controller latency: ZCube's stall against ROFT's local rehash.
//
//   ./build/bin/failover --out=results/failover
//   ./build/bin/failover --fabric=roft --detect-us=2 --out=results/failover-roft
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-choice.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-failure-detector.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/gnuplot.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/rng-topology.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-routing.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// One failure of the default sequence, with its repair.
struct PlannedEvent
{
    std::string kind; //!< core-link | access-link | switch
    FabricFailureEvent fail;
    FabricFailureEvent repair;
};

/**
 * Packet-level observations per event window [t_e, t_{e+1}): which data packet belongs to which
 * flow and when it was sent, the first arrival of a packet sent in the window, data-packet drops
 * and retransmissions per flow.
 */
struct FailoverProbe
{
    std::vector<Time> windows; //!< start of each event's window, in order
    struct Sent
    {
        uint32_t flow;
        uint32_t window; //!< UINT32_MAX: sent before the first event
    };
    std::unordered_map<uint64_t, Sent> sent;
    std::map<std::pair<uint32_t, uint32_t>, Time> firstArrival; //!< (window, flow)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> lost;     //!< (window, flow)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> retx;     //!< (window, flow)

    uint32_t WindowOf(Time t) const
    {
        uint32_t w = UINT32_MAX;
        for (uint32_t i = 0; i < windows.size() && windows[i] <= t; ++i)
        {
            w = i;
        }
        return w;
    }

    void OnTx(uint32_t flow, Ptr<const Packet> p, bool isRetx)
    {
        const uint32_t w = WindowOf(Simulator::Now());
        sent[p->GetUid()] = Sent{flow, w};
        if (isRetx && w != UINT32_MAX)
        {
            ++retx[{w, flow}];
        }
    }

    void OnArrival(Ptr<const Packet> p)
    {
        auto it = sent.find(p->GetUid());
        if (it != sent.end() && it->second.window != UINT32_MAX
            && it->second.window == WindowOf(Simulator::Now()))
        {
            firstArrival.emplace(std::make_pair(it->second.window, it->second.flow),
                                 Simulator::Now());
        }
    }

    void OnDrop(Ptr<const Packet> p)
    {
        auto it = sent.find(p->GetUid());
        const uint32_t w = WindowOf(Simulator::Now());
        if (it != sent.end() && w != UINT32_MAX)
        {
            ++lost[{w, it->second.flow}];
        }
    }

    /// Connect to the network: arrivals at every host NIC, drops at switches, guards, hosts.
    void Watch(Ptr<FabricNetwork> net)
    {
        const FabricGraph& g = net->GetGraph();
        auto drop = [this](Ptr<const Packet> p, const std::string&)
        {
            OnDrop(p);
        };
        for (uint32_t v = 0; v < g.GetNNodes(); ++v)
        {
            Ptr<Node> node = net->GetNode(v);
            if (g.IsHost(v))
            {
                for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
                {
                    net->GetDevice(v, p)->TraceConnectWithoutContext(
                        "MacRx",
                        Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> pkt)
                                                          { OnArrival(pkt); }));
                }
            }
            if (auto guard = node->GetObject<FabricLinkGuard>())
            {
                guard->TraceConnectWithoutContext(
                    "Drop", Callback<void, Ptr<const Packet>, const std::string&>(drop));
            }
            if (auto fw = node->GetObject<FabricSwitchForwarder>())
            {
                fw->TraceConnectWithoutContext(
                    "Drop", Callback<void, Ptr<const Packet>, const std::string&>(drop));
            }
            if (auto ipv4 = node->GetObject<Ipv4L3Protocol>())
            {
                ipv4->TraceConnectWithoutContext(
                    "Drop",
                    Callback<void,
                             const Ipv4Header&,
                             Ptr<const Packet>,
                             Ipv4L3Protocol::DropReason,
                             Ptr<Ipv4>,
                             uint32_t>([this](const Ipv4Header&,
                                              Ptr<const Packet> p,
                                              Ipv4L3Protocol::DropReason,
                                              Ptr<Ipv4>,
                                              uint32_t) { OnDrop(p); }));
            }
        }
    }

    RoceTrafficHelper::SenderCreatedCallback OnSender()
    {
        return [this](uint32_t flow, Ptr<RoceSender> s)
        {
            s->TraceConnectWithoutContext(
                "Tx",
                Callback<void, Ptr<const Packet>, uint32_t, bool>(
                    [this, flow](Ptr<const Packet> p, uint32_t, bool isRetx)
                    { OnTx(flow, p, isRetx); }));
        };
    }
};

/// A routing of \p fabric with its own views, where every node and the controller believe
/// \p state (converged): the path a flow takes once everybody has reacted.
Ptr<FabricRouting>
ConvergedRouting(const FabricChoice& fabric, const FabricState& state)
{
    ObjectFactory f = fabric.routing;
    Ptr<FabricRouting> r = f.Create<FabricRouting>();
    r->SetGraph(fabric.graph);
    auto view = std::make_shared<FabricState>(fabric.graph);
    view->CopyFrom(state);
    r->SetView(view);
    r->SetControllerView(view);
    for (uint32_t v = 0; v < fabric.graph->GetNNodes(); ++v)
    {
        r->SetNodeView(v, view); // every node knows and has recomputed (Spraypoint levels)
        r->NotifyNodeConverged(v);
    }
    return r;
}

uint32_t
SwitchHops(const FabricPath& p)
{
    return p.nodes.size() < 2 ? 0 : static_cast<uint32_t>(p.nodes.size() - 2);
}

/// The default sequence on \p fabric: a core link, a switch, an access link.
std::vector<PlannedEvent>
DefaultEvents(const FabricChoice& fabric, uint32_t n, uint32_t k, Time start, Time hold, Time gap)
{
    std::vector<PlannedEvent> ev;
    auto add = [&](const std::string& kind, FabricFailureEvent::Kind ek, uint32_t id, uint32_t port)
    {
        const Time t = start + (hold + gap) * int64_t(ev.size());
        PlannedEvent e;
        e.kind = kind;
        e.fail.kind = ek;
        e.fail.id = id;
        e.fail.port = port;
        e.fail.at = t;
        e.repair = e.fail;
        e.repair.repair = true;
        e.repair.at = t + hold;
        ev.push_back(e);
    };
    const uint32_t m = n / k;
    const FabricGraph& g0 = *fabric.graph;
    const FabricGraph* g = &g0;
    if (fabric.name == "rng")
    {
        const RngFabric rng = RngFabric::FromGraph(g0);
        add("core-link", FabricFailureEvent::Kind::LINK, rng.RouterLink(g0, 0), 0);
        add("router", FabricFailureEvent::Kind::SWITCH, rng.RouterNode(1 % rng.GetNRouters()), 0);
        add("nic-port", FabricFailureEvent::Kind::NIC, 2 % n, 0);
    }
    else if (fabric.name == "zcube")
    {
        ZCubeLayout zl(n, k);
        add("core-link",
            FabricFailureEvent::Kind::LINK,
            g->GetPortLink(zl.OddNode(0), zl.OddCorePort(1 % m)),
            0);
        add("switch", FabricFailureEvent::Kind::SWITCH, zl.OddNode(1 % m), 0);
        add("access-link", FabricFailureEvent::Kind::NIC, 2 % n, 0);
    }
    else
    {
        LeafSpineLayout ls(n, k, m);
        add("core-link", FabricFailureEvent::Kind::LINK, ls.LeafSpineLink(*g, 0, 0), 0);
        add("switch", FabricFailureEvent::Kind::SWITCH, ls.SpineNode(1 % ls.GetSpines()), 0);
        add("access-link", FabricFailureEvent::Kind::NIC, 2 % n, 0);
    }
    return ev;
}

/// ZCube §6.2 fault domain of \p e under all-to-all traffic (ordered pairs, i != j).
int64_t
ZCubeFaultDomain(const PlannedEvent& e, const ZCubeLayout& zl, const FabricGraph& g)
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

struct RunSettings
{
    Time detect;
    Time controllerLatency;
    Time propagation;
    Time bfdInterval;
    uint32_t bfdMultiplier{3};
    Time compute;
    double lineBps{100e9};
    Time bin;
};

Ptr<FabricFailureDetector>
MakeDetector(const std::string& fabric, const RunSettings& s)
{
    return CreateObjectWithAttributes<FabricFailureDetector>("LocalDetectionDelay",
                                                             TimeValue(s.detect),
                                                             "ControllerLatency",
                                                             TimeValue(s.controllerLatency),
                                                             "PropagationDelayPerHop",
                                                             TimeValue(s.propagation),
                                                             "BfdInterval",
                                                             TimeValue(s.bfdInterval),
                                                             "BfdMultiplier",
                                                             UintegerValue(s.bfdMultiplier),
                                                             "ComputeDelay",
                                                             TimeValue(s.compute),
                                                             "RoutingUpdates",
                                                             BooleanValue(fabric != "zcube"));
}

/// Stall statistics (us) of \p flows in window \p w starting at \p t.
json
StallJson(const FailoverProbe& probe,
          uint32_t w,
          Time t,
          Time windowEnd,
          const std::vector<uint32_t>& flows,
          uint32_t* notRecovered)
{
    std::vector<double> stalls;
    for (uint32_t f : flows)
    {
        auto it = probe.firstArrival.find({w, f});
        if (it != probe.firstArrival.end())
        {
            stalls.push_back((it->second - t).GetSeconds() * 1e6);
        }
        else
        {
            ++*notRecovered;
            stalls.push_back((windowEnd - t).GetSeconds() * 1e6); // censored: never again
        }
    }
    if (stalls.empty())
    {
        return json{{"median", nullptr}, {"max", nullptr}};
    }
    return json{{"median", Quantile(stalls, 0.5)},
                {"max", *std::max_element(stalls.begin(), stalls.end())}};
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
    cli.Add("propagation-us", "routing-update delay per switch hop, us (ROFT)", "50");
    cli.Add("compute-us", "route computation at non-adjacent nodes, us", "0");
    cli.Add("bfd-interval-us", "BFD interval, us (one-way failures)", "3300");
    cli.Add("bfd-multiplier", "BFD missed packets before down", "3");
    cli.Add("rate-gbps", "link rate, Gb/s", "100");
    cli.Add("hold-us",
            "how long each failure lasts before its repair, us; 0 = detection + "
            "the slower of controller latency and 4 update hops + 300 us",
            "0");
    cli.Add("gap-us", "time between a repair and the next failure, us", "300");
    cli.Add("bin-us", "throughput series bin, us", "20");
    cli.Add("sweep-latency-us",
            "controller latencies of the sweep (ZCube core-link failure next to ROFT local "
            "rehash), us; 'none' to skip",
            "10,100,1000,10000,100000");
    cli.Add("sweep-bytes", "message per affected pair in the sweep runs", "2000000");
    cli.Add("out", "output folder", "results/failover");
    cli.Parse(argc, argv);

    const std::string fabricName = cli.GetChoice("fabric", {"zcube", "roft", "rng"});
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
    RunSettings s;
    s.detect = cli.GetTime("detect-us", Time::US, Time(0), Seconds(1));
    s.controllerLatency = cli.GetTime("controller-latency-us", Time::US, Time(0), Seconds(1));
    s.propagation = cli.GetTime("propagation-us", Time::US, Time(0), Seconds(1));
    s.compute = cli.GetTime("compute-us", Time::US, Time(0), Seconds(1));
    s.bfdInterval = cli.GetTime("bfd-interval-us", Time::US, MicroSeconds(1), Seconds(1));
    s.bfdMultiplier = static_cast<uint32_t>(cli.GetUint("bfd-multiplier", 1, 255));
    s.lineBps = cli.GetDouble("rate-gbps", 1, 1600) * 1e9;
    s.bin = cli.GetTime("bin-us", Time::US, MicroSeconds(1), MilliSeconds(10));
    Time hold = cli.GetTime("hold-us", Time::US, Time(0), Seconds(1));
    if (hold.IsZero())
    {
        hold = s.detect + std::max(s.controllerLatency, s.propagation * 4 + s.compute)
             + MicroSeconds(300);
    }
    const Time gap = cli.GetTime("gap-us", Time::US, MicroSeconds(1), Seconds(1));
    std::vector<Time> sweep;
    if (cli.GetString("sweep-latency-us") != "none")
    {
        for (const std::string& v : cli.GetList("sweep-latency-us"))
        {
            double us = 0;
            try
            {
                size_t used = 0;
                us = std::stod(v, &used);
                if (used != v.size() || !(us >= 0 && us <= 1e6))
                {
                    throw std::invalid_argument(v);
                }
            }
            catch (const std::exception&)
            {
                throw std::invalid_argument("--sweep-latency-us: '" + v
                                            + "' is not a latency in [0, 1e6] us");
            }
            sweep.push_back(NanoSeconds(int64_t(us * 1000)));
        }
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
    const FabricGraph& g = *fabric.graph;

    // Events and horizon.
    const Time start = MicroSeconds(100);
    const std::vector<PlannedEvent> events = DefaultEvents(fabric, n, k, start, hold, gap);
    const Time horizon = events.back().repair.at + gap;
    {
        // Every host sends at about the line rate until the horizon; each sweep run (ZCube and
        // ROFT per latency) carries --sweep-bytes for each affected pair (a few per GPU).
        // Measured on the loaded 2-core machine: 12 GPUs at 25 Gb/s over a 2.5 ms horizon
        // (about 94 MB) 1 s, at 1000 Gb/s 18 s; one sweep latency at 100 MB per pair 11 s:
        // about 5e-9 s per byte at 12 GPUs, and the cost per byte grows with n (32 GPUs 4.9 s,
        // 64 GPUs 15 s at 25 Gb/s): more hops, flows and per-event analysis.
        const double mainBytes = n * s.lineBps / 8 * horizon.GetSeconds();
        const double sweepTotal = 2.0 * sweep.size() * n * double(sweepBytes);
        CheckFabricRunTime(5e-9 * (mainBytes * (1 + n / 16.0) + sweepTotal),
                           "--n=" + std::to_string(n) + " --rate-gbps=" + cli.GetString("rate-gbps")
                               + " with a horizon of " + FormatNumber(horizon.GetSeconds() * 1e3)
                               + " ms (--hold-us, "
                               + "--gap-us) and --sweep-bytes=" + std::to_string(sweepBytes));
    }
    FabricResults out(cli.GetString("out"));

    // Steady traffic: every flow sized to outlast the horizon at its fair share.
    TrafficPatternParams tp;
    tp.hosts = n;
    tp.prefillFraction = cli.GetDouble("prefill-fraction", 0, 1, FabricCli::OPEN);
    tp.seed = 1;
    std::vector<FlowSpec> flows = MakeTraffic(ParseTrafficPattern(patternName), tp);
    const uint64_t hostBytes = uint64_t(s.lineBps / 8 * horizon.GetSeconds() * 2);
    const uint64_t flowBytes = HostBudgetFlowBytes(flows, n, hostBytes, 4096);
    for (auto& f : flows)
    {
        f.bytes = flowBytes;
    }

    // The run.
    // A routing instance of its own: the detector gives its nodes views of their own.
    ObjectFactory routingFactory = fabric.routing;
    Ptr<FabricRouting> routing = routingFactory.Create<FabricRouting>();
    routing->SetGraph(fabric.graph);
    FabricNetworkHelper links;
    links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(s.lineBps))));
    Ptr<FabricNetwork> net = links.Install(fabric.graph, routing);
    Ptr<FabricFailureDetector> det = MakeDetector(fabricName, s);
    det->Install(net);
    FabricFailureHelper failures(net);
    // Blast radius (Spraypoint): when each router's own rows changed.
    auto tableChanges = std::make_shared<std::vector<std::pair<Time, uint32_t>>>();
    routing->TraceConnectWithoutContext("TableChange",
                                        Callback<void, uint32_t, uint32_t>(
                                            [tableChanges](uint32_t node, uint32_t) {
                                                tableChanges->emplace_back(Simulator::Now(), node);
                                            }));
    FailoverProbe probe;
    for (const auto& e : events)
    {
        failures.Schedule(e.fail);
        failures.Schedule(e.repair);
        probe.windows.push_back(e.fail.at);
    }
    FabricRoceRunOptions opt;
    opt.stopAt = horizon;
    opt.throughputBin = s.bin;
    opt.senderCreated = probe.OnSender();
    opt.beforeRun = [&probe](Ptr<FabricNetwork> nw, const ApplicationContainer&)
    {
        probe.Watch(nw);
    };
    const FabricRoceRunResult r = RunFabricRoce(net, flows, opt);
    const auto learnings = det->GetLearnings();

    // Per event.
    json jevents = json::array();
    std::ostringstream table;
    table << std::left << std::setw(12) << "event" << std::setw(12) << "element" << std::right
          << std::setw(9) << "t_us" << std::setw(9) << "pairs" << std::setw(9) << "domain"
          << std::setw(11) << "stall_med" << std::setw(11) << "stall_max" << std::setw(8) << "lost"
          << std::setw(8) << "retx" << std::setw(10) << "unaf_lost" << std::setw(14) << "hops b/d/a"
          << std::setw(18) << "unaf_Gbps b>d"
          << "\n";
    Ptr<FabricRouting> allUp = ConvergedRouting(fabric, FabricState(fabric.graph));
    std::vector<std::tuple<double, std::string, std::string>> marks; // time us, label, colour
    for (uint32_t w = 0; w < events.size(); ++w)
    {
        const PlannedEvent& e = events[w];
        FabricState during(fabric.graph);
        FabricFailureHelper::Apply(e.fail, during);
        Ptr<FabricRouting> conv = ConvergedRouting(fabric, during);
        std::vector<uint32_t> affected;
        std::vector<uint32_t> unaffected;
        std::set<std::pair<uint32_t, uint32_t>> pairs;
        std::vector<double> hb;
        std::vector<double> hd;
        std::vector<double> ha; // measured: the path each flow was on at the window's end
        for (uint32_t f = 0; f < flows.size(); ++f)
        {
            const FabricPath before = TracePath(*allUp, flows[f].src, flows[f].dst, flows[f].Key());
            bool hit = false;
            for (uint32_t d : before.dirLinks)
            {
                hit = hit || !during.IsDirLinkUsable(d);
            }
            if (hit)
            {
                affected.push_back(f);
                pairs.insert({flows[f].src, flows[f].dst});
                hb.push_back(SwitchHops(before));
                const FabricPath dp = TracePath(*conv, flows[f].src, flows[f].dst, flows[f].Key());
                if (dp.delivered)
                {
                    hd.push_back(SwitchHops(dp));
                }
                // After the repair: the path in force just before the next event (or the
                // end), from the flow's recorded path changes.
                const Time end = w + 1 < events.size() ? events[w + 1].fail.at : horizon;
                const RoceFlowRecord& rec = r.flows[f];
                const std::vector<uint32_t>* now = &rec.path;
                for (const auto& [at, nodes] : rec.pathChanges)
                {
                    now = at < end ? &nodes : now;
                }
                if (!rec.complete || rec.finish >= end)
                {
                    ha.push_back(now->size() < 2 ? 0.0 : double(now->size() - 2));
                }
            }
            else
            {
                unaffected.push_back(f);
            }
        }
        const Time windowEnd = w + 1 < events.size() ? events[w + 1].fail.at : horizon;
        uint32_t notRecovered = 0;
        const json stall = StallJson(probe, w, e.fail.at, windowEnd, affected, &notRecovered);
        uint64_t lost = 0;
        uint64_t retx = 0;
        uint64_t unLost = 0;
        for (uint32_t f : affected)
        {
            lost += probe.lost.count({w, f}) ? probe.lost.at({w, f}) : 0;
            retx += probe.retx.count({w, f}) ? probe.retx.at({w, f}) : 0;
        }
        for (uint32_t f : unaffected)
        {
            unLost += probe.lost.count({w, f}) ? probe.lost.at({w, f}) : 0;
        }
        // Detection (first node to learn) and reaction (the last node or the controller).
        double tDetect = -1;
        double tReact = -1;
        for (const auto& l : learnings)
        {
            if (l.changedAt == e.fail.at && !l.up)
            {
                const double t = l.at.GetSeconds() * 1e6;
                tDetect = tDetect < 0 ? t : std::min(tDetect, t);
                const bool reaction = fabricName == "zcube"
                                        ? l.how == FabricFailureDetector::How::CONTROLLER
                                        : l.how != FabricFailureDetector::How::CONTROLLER;
                if (reaction)
                {
                    tReact = std::max(tReact, t);
                }
            }
        }
        // Unaffected flows' aggregate throughput, before and during the failure.
        auto unaffectedGbps = [&](Time a, Time b)
        {
            const size_t b0 = size_t(a.GetSeconds() / s.bin.GetSeconds());
            const size_t b1 = size_t(b.GetSeconds() / s.bin.GetSeconds());
            double bytes = 0;
            for (uint32_t f : unaffected)
            {
                const auto& bins = r.flows[f].rxBins;
                for (size_t i = b0; i < b1 && i < bins.size(); ++i)
                {
                    bytes += bins[i];
                }
            }
            return b1 > b0 ? 8 * bytes / ((b1 - b0) * s.bin.GetSeconds()) / 1e9 : 0.0;
        };
        const double gBefore = unaffectedGbps(e.fail.at - MicroSeconds(60), e.fail.at);
        const double gDuring = unaffectedGbps(e.fail.at, e.repair.at);
        auto meanOf = [](const std::vector<double>& v)
        {
            return v.empty() ? 0.0 : Mean(v);
        };
        json je{{"fabric", fabricName},
                {"kind", e.kind},
                {"element", e.fail.Element()},
                {"t_fail_us", e.fail.at.GetSeconds() * 1e6},
                {"t_repair_us", e.repair.at.GetSeconds() * 1e6},
                {"t_first_detection_us", tDetect},
                {"t_reaction_us", tReact},
                {"affected_pairs", pairs.size()},
                {"affected_flows", affected.size()},
                {"affected_not_recovered_in_window", notRecovered},
                {"stall_us", stall},
                {"lost_packets", lost},
                {"retransmitted_packets", retx},
                {"unaffected_lost_packets", unLost},
                {"unaffected_gbps", {{"before", gBefore}, {"during", gDuring}}},
                {"switch_hops",
                 {{"before", meanOf(hb)}, {"during", meanOf(hd)}, {"after", meanOf(ha)}}}};
        if (fabricName == "rng")
        {
            // Routers whose tables changed because of this failure, and when the last did.
            std::set<uint32_t> routers;
            double last = -1;
            for (const auto& [t, node] : *tableChanges)
            {
                if (t >= e.fail.at && t < e.repair.at)
                {
                    routers.insert(node);
                    last = std::max(last, (t - e.fail.at).GetSeconds() * 1e6);
                }
            }
            je["blast_radius_routers"] = routers.size();
            je["convergence_us"] = last;
        }
        std::string domain = "-";
        if (fabricName == "zcube" && patternName == "allreduce")
        {
            const int64_t d = ZCubeFaultDomain(e, ZCubeLayout(n, k), g);
            je["fault_domain_pairs"] = d;
            domain = std::to_string(d);
        }
        jevents.push_back(je);
        auto num = [](const json& v)
        {
            return v.is_null() ? std::string("-") : FormatNumber(v.get<double>(), 4);
        };
        table << std::left << std::setw(12) << e.kind << std::setw(12) << e.fail.Element()
              << std::right << std::setw(9) << FormatNumber(e.fail.at.GetSeconds() * 1e6, 5)
              << std::setw(9) << pairs.size() << std::setw(9) << domain << std::setw(11)
              << num(stall["median"]) << std::setw(11) << num(stall["max"]) << std::setw(8) << lost
              << std::setw(8) << retx << std::setw(10) << unLost << std::setw(14)
              << (FormatNumber(meanOf(hb), 2) + "/" + FormatNumber(meanOf(hd), 2) + "/"
                  + FormatNumber(meanOf(ha), 2))
              << std::setw(18) << (FormatNumber(gBefore, 4) + ">" + FormatNumber(gDuring, 4))
              << "\n";
        marks.emplace_back(e.fail.at.GetSeconds() * 1e6, "fail " + e.kind, "red");
        if (tDetect >= 0)
        {
            marks.emplace_back(tDetect, "detect", "orange");
        }
        if (tReact >= 0)
        {
            marks.emplace_back(tReact, "react", "dark-green");
        }
        marks.emplace_back(e.repair.at.GetSeconds() * 1e6, "repair", "blue");
    }

    // Aggregate throughput over time, with the instants marked.
    {
        CsvWriter csv(out.Path("throughput.csv"), {"t_us", "aggregate_gbps"});
        Gnuplot plot;
        plot.SetTerminal("pngcairo size 1000,500");
        plot.SetTitle("Aggregate delivered throughput, " + fabricName + " (" + patternName + ")");
        plot.SetLegend("time (us)", "throughput (Gb/s)");
        Gnuplot2dDataset ds("all flows");
        ds.SetStyle(Gnuplot2dDataset::LINES);
        size_t nb = 0;
        for (const auto& f : r.flows)
        {
            nb = std::max(nb, f.rxBins.size());
        }
        const double binUs = s.bin.GetSeconds() * 1e6;
        for (size_t b = 0; b < nb; ++b)
        {
            double bytes = 0;
            for (const auto& f : r.flows)
            {
                bytes += b < f.rxBins.size() ? f.rxBins[b] : 0;
            }
            const double gbps = 8 * bytes / s.bin.GetSeconds() / 1e9;
            ds.Add((b + 0.5) * binUs, gbps);
            csv.Row({FormatNumber((b + 0.5) * binUs), FormatNumber(gbps)});
        }
        plot.AddDataset(ds);
        for (const auto& [t, label, colour] : marks)
        {
            plot.AppendExtra("set arrow from " + FormatNumber(t) + ", graph 0 to " + FormatNumber(t)
                             + ", graph 1 nohead lc rgb '" + colour + "' dt 2");
        }
        plot.AppendExtra("set label 'red: failure, orange: first detection, green: reaction "
                         "(controller / last update), blue: repair' at graph 0.01, graph 0.04");
        csv.Close();
        out.WritePng("throughput.png", plot);
    }

    // Controller-latency sweep: ZCube core-link failure against ROFT local rehash.
    json jsweep = json::array();
    std::ostringstream sweepTable;
    if (fabricName == "rng" && !sweep.empty())
    {
        std::cout << "note: the controller-latency sweep compares ZCube and ROFT; skipped for "
                     "--fabric=rng\n";
        sweep.clear();
    }
    if (!sweep.empty())
    {
        auto sweepRun = [&](const std::string& name, Time latency)
        {
            const FabricChoice fc = MakeFabricChoice(name, fp);
            ObjectFactory f = fc.routing;
            Ptr<FabricRouting> rt = f.Create<FabricRouting>();
            rt->SetGraph(fc.graph);
            const std::vector<PlannedEvent> ev
                = DefaultEvents(fc, n, k, MicroSeconds(20), Seconds(1), Seconds(1));
            const PlannedEvent& e = ev.front(); // the core link, never repaired here
            FabricState during(fc.graph);
            FabricFailureHelper::Apply(e.fail, during);
            // One flow per affected pair of the all-up routing (all ordered pairs).
            std::vector<FlowSpec> sf;
            for (uint32_t i = 0; i < n; ++i)
            {
                for (uint32_t j = 0; j < n; ++j)
                {
                    FlowSpec fl;
                    fl.id = static_cast<uint32_t>(sf.size());
                    fl.src = i;
                    fl.dst = j;
                    fl.bytes = sweepBytes;
                    fl.srcPort = 49152;
                    if (i == j)
                    {
                        continue;
                    }
                    const FabricPath p = TracePath(*rt, i, j, fl.Key());
                    bool hit = false;
                    for (uint32_t d : p.dirLinks)
                    {
                        hit = hit || !during.IsDirLinkUsable(d);
                    }
                    if (hit)
                    {
                        sf.push_back(fl);
                    }
                }
            }
            FabricNetworkHelper lh;
            lh.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(s.lineBps))));
            Ptr<FabricNetwork> nw = lh.Install(fc.graph, rt);
            RunSettings ss = s;
            ss.controllerLatency = latency;
            Ptr<FabricFailureDetector> d = MakeDetector(name, ss);
            d->Install(nw);
            FabricFailureHelper fh(nw);
            fh.Schedule(e.fail);
            FailoverProbe pr;
            pr.windows.push_back(e.fail.at);
            FabricRoceRunOptions o;
            o.stopAt = e.fail.at + latency + MilliSeconds(50) + latency;
            o.senderCreated = pr.OnSender();
            o.beforeRun = [&pr](Ptr<FabricNetwork> x, const ApplicationContainer&)
            {
                pr.Watch(x);
            };
            const FabricRoceRunResult rr = RunFabricRoce(nw, sf, o);
            std::vector<uint32_t> all(sf.size());
            for (uint32_t i = 0; i < sf.size(); ++i)
            {
                all[i] = i;
            }
            uint32_t nr = 0;
            json st = StallJson(pr, 0, e.fail.at, o.stopAt, all, &nr);
            st["flows"] = sf.size();
            st["not_recovered"] = nr;
            st["unaccounted_packets"] = rr.Unaccounted();
            return st;
        };
        const json roft = sweepRun("roft", MicroSeconds(0));
        sweepTable << std::right << std::setw(14) << "latency_us" << std::setw(16)
                   << "zcube_stall_med" << std::setw(16) << "zcube_stall_max" << std::setw(15)
                   << "roft_stall_med" << std::setw(15) << "roft_stall_max"
                   << "\n";
        CsvWriter csv(out.Path("latency-sweep.csv"),
                      {"controller_latency_us",
                       "zcube_stall_median_us",
                       "zcube_stall_max_us",
                       "roft_stall_median_us",
                       "roft_stall_max_us"});
        Gnuplot plot;
        plot.SetTerminal("pngcairo size 800,500");
        plot.SetTitle("Stall after a core-link failure vs controller latency");
        plot.SetLegend("controller latency (us)", "stall (us)");
        plot.AppendExtra("set logscale xy");
        plot.AppendExtra("set key top left");
        Gnuplot2dDataset zmed("ZCube median");
        Gnuplot2dDataset zmax("ZCube max");
        Gnuplot2dDataset rmed("ROFT local rehash + updates (median)");
        zmed.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        zmax.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        rmed.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        for (Time L : sweep)
        {
            const json z = sweepRun("zcube", L);
            const double lus = L.GetSeconds() * 1e6;
            jsweep.push_back({{"controller_latency_us", lus}, {"zcube", z}, {"roft", roft}});
            sweepTable << std::setw(14) << FormatNumber(lus) << std::setw(16)
                       << FormatNumber(z["median"].get<double>(), 5) << std::setw(16)
                       << FormatNumber(z["max"].get<double>(), 5) << std::setw(15)
                       << FormatNumber(roft["median"].get<double>(), 4) << std::setw(15)
                       << FormatNumber(roft["max"].get<double>(), 4) << "\n";
            csv.Row({FormatNumber(lus),
                     FormatNumber(z["median"].get<double>()),
                     FormatNumber(z["max"].get<double>()),
                     FormatNumber(roft["median"].get<double>()),
                     FormatNumber(roft["max"].get<double>())});
            const double x = std::max(lus, 1.0);
            zmed.Add(x, std::max(z["median"].get<double>(), 0.1));
            zmax.Add(x, std::max(z["max"].get<double>(), 0.1));
            rmed.Add(x, std::max(roft["median"].get<double>(), 0.1));
        }
        csv.Close();
        plot.AddDataset(zmed);
        plot.AddDataset(zmax);
        plot.AddDataset(rmed);
        out.WritePng("latency-sweep.png", plot);
    }

    json summary{{"fabric", fabricName},
                 {"n", n},
                 {"k", k},
                 {"pattern", patternName},
                 {"params",
                  {{"detect_us", s.detect.GetSeconds() * 1e6},
                   {"controller_latency_us", s.controllerLatency.GetSeconds() * 1e6},
                   {"propagation_us", s.propagation.GetSeconds() * 1e6},
                   {"compute_us", s.compute.GetSeconds() * 1e6},
                   {"bfd_interval_us", s.bfdInterval.GetSeconds() * 1e6},
                   {"bfd_multiplier", s.bfdMultiplier},
                   {"rate_gbps", s.lineBps / 1e9},
                   {"hold_us", hold.GetSeconds() * 1e6},
                   {"flow_bytes", flowBytes},
                   {"flows", flows.size()}}},
                 {"events", jevents},
                 {"drops", r.drops},
                 {"latency_sweep", jsweep},
                 {"wall_s", r.wallSeconds}};
    summary.update(PacketAccountingJson(r.sentPackets, r.deliveredPackets, r.drops, true));
    summary["in_flight_at_stop"] = r.inFlightPackets;
    summary["unaccounted_packets"] = r.Unaccounted();
    out.WriteJson("summary.json", summary);

    std::cout << "failover on " << fabricName << " n=" << n << " k=" << k << ", " << patternName
              << ", " << flows.size() << " flows, detection "
              << FormatNumber(s.detect.GetSeconds() * 1e6) << " us, controller "
              << FormatNumber(s.controllerLatency.GetSeconds() * 1e6) << " us, update "
              << FormatNumber(s.propagation.GetSeconds() * 1e6) << " us/hop\n\n"
              << table.str();
    std::cout << "\nstall: failure to the first packet sent after it that arrives (affected "
                 "flows, us; counted to the next event if none); domain: ZCube §6.2 fault domain "
                 "(allreduce); hops: mean switch hops of the affected flows before/during/after; "
                 "unaf_Gbps: unaffected flows' aggregate before > during\n";
    std::cout << "accounting: sent " << r.sentPackets << " = delivered " << r.deliveredPackets
              << " + dropped " << r.droppedPackets << " + in flight " << r.inFlightPackets
              << " (unaccounted " << r.Unaccounted() << ")\n";
    if (!sweep.empty())
    {
        std::cout << "\ncontroller-latency sweep (core-link failure, affected pairs only, "
                  << sweepBytes << " B each):\n"
                  << sweepTable.str();
    }
    std::cout << "wrote " << out.Path("summary.json") << ", throughput.csv, throughput.png"
              << (sweep.empty() ? "" : ", latency-sweep.csv, latency-sweep.png") << "\n";
    return r.Unaccounted() == 0 ? 0 : 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
