// SPDX-License-Identifier: GPL-2.0-only
// Shared by packet-vs-flow and bench-flow: build a fabric by name, run the same flows at the
// packet level (RoCE, RunFabricRoce) and at the flow level (FlowSimulator) with routing
// objects of the same TypeId and attributes, and join the results per flow.
#ifndef PACKET_FLOW_COMPARE_H
#define PACKET_FLOW_COMPARE_H

#include "ns3/core-module.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/queue-size.h"
#include "ns3/rng-topology.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-topology.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <set>

namespace ns3
{
namespace compare
{

using json = nlohmann::json;

/// Sizes of a fabric: zcube/roft: n GPUs, k per switch; rng: n routers of degree k, s
/// servers each.
struct FabricSize
{
    uint32_t n;
    uint32_t k;
    uint32_t s;
    uint64_t seed;
};

/// A fabric builder and the routing TypeId used on it by default.
struct FabricKind
{
    std::function<std::shared_ptr<const FabricGraph>(const FabricSize&)> build;
    std::string routing;
};

inline const std::map<std::string, FabricKind>&
FabricKinds()
{
    static const std::map<std::string, FabricKind> kinds{
        {"zcube",
         {[](const FabricSize& z) { return ZCubeLayout(z.n, z.k).Build(); }, "ns3::ZCubeRouting"}},
        {"roft",
         {[](const FabricSize& z) { return RoftLayout(z.n, z.k, z.n / z.k).Build(); },
          "ns3::EcmpRouting"}},
        {"rng",
         {[](const FabricSize& z)
          { return RngFabric(MakeRandomRegularGraph(z.n, z.k, z.seed), z.s).Build(); },
          "ns3::SpraypointRouting"}},
    };
    return kinds;
}

/// Link and transport parameters shared by both levels.
struct Options
{
    double lineBps{400e9};
    double delayS{1e-6};
    uint64_t queueBytes{2000000};
    std::string rateControl{"dcqcn"}; //!< dcqcn | none | a RoceRateControl TypeId
    uint64_t routingSeed{1};
    double stopS{1};
    double binS{10e-6};
    bool packet{true}; //!< false: flow level only (no packet-level run)
};

/// A routing object of \p typeId with Seed = \p seed, bound to \p graph.
inline Ptr<FabricRouting>
MakeRoutingByTypeId(const std::string& typeId,
                    uint64_t seed,
                    std::shared_ptr<const FabricGraph> graph)
{
    ObjectFactory f(typeId);
    f.Set("Seed", UintegerValue(seed));
    Ptr<FabricRouting> r = f.Create<FabricRouting>();
    r->SetGraph(graph);
    return r;
}

/// The flow level's helper with the links of \p o.
inline FlowSimHelper
FlowHelper(const Options& o, bool ramp)
{
    FlowSimHelper h;
    h.SetAttribute("DefaultLinkRate", DataRateValue(DataRate(uint64_t(o.lineBps))));
    h.SetAttribute("LinkDelay", TimeValue(Seconds(o.delayS)));
    h.SetAttribute("UtilizationBin", TimeValue(Seconds(o.binS)));
    h.SetAttribute("Ramp", BooleanValue(ramp));
    return h;
}

inline double
WallSeconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

/// What one comparison produced.
struct Result
{
    json run;                  //!< the summary.json entry
    std::vector<double> ratio; //!< per complete flow: FCT packet / FCT flow
    double wallPacket{0};
    double wallFlow{0};
    double cpuPacket{0}; //!< process CPU seconds (robust on a shared machine)
    double cpuFlow{0};
};

/// Process CPU time in seconds.
inline double
CpuSeconds()
{
    return double(std::clock()) / CLOCKS_PER_SEC;
}

/**
 * Run \p flows over \p graph at both levels and join them. \p routing is the TypeId of both
 * routing objects (each level gets its own instance, same attributes).
 */
inline Result
Compare(const std::string& fabric,
        const std::string& pattern,
        std::shared_ptr<const FabricGraph> graph,
        const std::string& routing,
        const std::vector<FlowSpec>& flows,
        const Options& o)
{
    Result res;
    const FabricGraph& g = *graph;
    // Flow level (timed from the routing's construction to the end of the run).
    const auto f0 = std::chrono::steady_clock::now();
    const double c0 = CpuSeconds();
    Ptr<FabricRouting> flowRouting = MakeRoutingByTypeId(routing, o.routingSeed, graph);
    Ptr<FlowSimulator> sim = FlowHelper(o, false).Run(flowRouting, flows);
    const auto f1 = std::chrono::steady_clock::now();
    res.wallFlow = WallSeconds(f0, f1);
    res.cpuFlow = CpuSeconds() - c0;
    // The same with the DCQCN-like ramp: how much transport ramp-up alone would add.
    Ptr<FlowSimulator> ramp
        = FlowHelper(o, true).Run(MakeRoutingByTypeId(routing, o.routingSeed, graph), flows);

    FabricRoceRunResult pk;
    if (o.packet)
    {
        const auto p0 = std::chrono::steady_clock::now();
        const double c1 = CpuSeconds();
        FabricNetworkHelper links;
        links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(o.lineBps))));
        links.SetChannelAttribute("Delay", TimeValue(Seconds(o.delayS)));
        links.SetQueueAttribute(
            "MaxSize",
            QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(o.queueBytes))));
        Ptr<FabricNetwork> net
            = links.Install(graph, MakeRoutingByTypeId(routing, o.routingSeed, graph));
        FabricRoceRunOptions opt;
        opt.stopAt = Seconds(o.stopS);
        opt.senderAttributes["RateControl"]
            = std::make_shared<TypeIdValue>(RoceRateControlTypeId(o.rateControl, "--rate-control"));
        pk = RunFabricRoce(net, flows, opt);
        const auto p1 = std::chrono::steady_clock::now();
        res.wallPacket = WallSeconds(p0, p1);
        res.cpuPacket = CpuSeconds() - c1;
    }

    const auto& fr = sim->GetRecords();
    const auto& rr = ramp->GetRecords();
    // Flows that overlap in time (flow level) on a switch-to-switch link: collisions.
    std::map<uint32_t, std::vector<uint32_t>> onLink;
    for (uint32_t f = 0; f < fr.size(); ++f)
    {
        for (uint32_t d : fr[f].dirLinks)
        {
            if (!g.IsHost(g.GetDirLinkTail(d)) && !g.IsHost(g.GetDirLinkHead(d)))
            {
                onLink[d].push_back(f);
            }
        }
    }
    std::vector<uint32_t> collided(fr.size(), 0);
    uint32_t sharedLinks = 0;
    for (const auto& [d, fs] : onLink)
    {
        bool shared = false;
        for (size_t i = 0; i < fs.size(); ++i)
        {
            for (size_t j = i + 1; j < fs.size(); ++j)
            {
                const auto& a = fr[fs[i]];
                const auto& b = fr[fs[j]];
                if (a.startS < b.finishS && b.startS < a.finishS)
                {
                    collided[fs[i]]++;
                    collided[fs[j]]++;
                    shared = true;
                }
            }
        }
        sharedLinks += shared ? 1 : 0;
    }

    json jf = json::array();
    double lastP = 0;
    double lastF = 0;
    double lastR = 0;
    uint32_t pathMismatch = 0;
    uint32_t incomplete = 0;
    uint64_t retx = 0;
    uint64_t cnps = 0;
    uint64_t timeouts = 0;
    uint32_t flowsWithCnp = 0;
    uint32_t flowsWithRetx = 0;
    std::vector<double> rampRatio;
    for (uint32_t f = 0; f < fr.size(); ++f)
    {
        const FlowSimRecord& q = fr[f];
        json j{{"id", q.spec.id},
               {"src", q.spec.src},
               {"dst", q.spec.dst},
               {"bytes", q.spec.bytes},
               {"start_us", q.spec.startS * 1e6},
               {"path", q.path},
               {"ideal_us", q.idealS * 1e6},
               {"fct_flow_us", q.complete ? q.FctSeconds() * 1e6 : -1.0},
               {"fct_flow_ramp_us", rr[f].complete ? rr[f].FctSeconds() * 1e6 : -1.0},
               {"collisions", collided[f]}};
        lastF = std::max(lastF, q.complete ? q.finishS : 0.0);
        lastR = std::max(lastR, rr[f].complete ? rr[f].finishS : 0.0);
        if (q.complete && rr[f].complete)
        {
            rampRatio.push_back(rr[f].FctSeconds() / q.FctSeconds());
        }
        if (o.packet)
        {
            const RoceFlowRecord& p = pk.flows[f];
            // Queueing met on the path: worst queue of each link, drained at line rate.
            double queueUs = 0;
            uint64_t maxQ = 0;
            for (size_t h = 0; h + 1 < p.path.size(); ++h)
            {
                const uint32_t port = [&]()
                {
                    for (uint32_t pt = 0; pt < g.GetNPorts(p.path[h]); ++pt)
                    {
                        if (g.GetPeer(p.path[h], pt) == p.path[h + 1])
                        {
                            return pt;
                        }
                    }
                    return 0u;
                }();
                const uint32_t d = g.GetEgressDirLink(p.path[h], port);
                maxQ = std::max(maxQ, pk.links[d].maxQueueBytes);
                queueUs += pk.links[d].maxQueueBytes * 8 / o.lineBps * 1e6;
            }
            j["fct_packet_us"] = p.complete ? p.FctSeconds() * 1e6 : -1.0;
            j["packet_start_us"] = p.start.GetSeconds() * 1e6;
            j["retx"] = p.retxPackets;
            j["cnps"] = p.cnps;
            j["timeouts"] = p.timeouts;
            j["max_queue_kb_on_path"] = maxQ / 1000.0;
            j["queue_delay_bound_us"] = queueUs;
            j["path_equal"] = p.path == q.path;
            pathMismatch += p.path == q.path ? 0 : 1;
            retx += p.retxPackets;
            cnps += p.cnps;
            timeouts += p.timeouts;
            flowsWithCnp += p.cnps > 0 ? 1 : 0;
            flowsWithRetx += p.retxPackets > 0 ? 1 : 0;
            if (p.complete && q.complete)
            {
                const double r = p.FctSeconds() / q.FctSeconds();
                res.ratio.push_back(r);
                j["fct_ratio"] = r;
                lastP = std::max(lastP, p.finish.GetSeconds());
            }
            else
            {
                j["fct_ratio"] = nullptr;
                incomplete++;
            }
        }
        jf.push_back(j);
    }

    // Per-link utilization over each level's own makespan.
    json links = json::array();
    double maxUtilDiff = 0;
    double sumUtilDiff = 0;
    uint32_t nLinks = 0;
    const auto& fl = sim->GetLinks();
    for (uint32_t d = 0; d < fl.size(); ++d)
    {
        if (fl[d].bytes <= 0)
        {
            continue;
        }
        const double uf = lastF > 0 ? 8 * fl[d].bytes / (fl[d].capacityBps * lastF) : 0;
        json lj{{"dir_link", d},
                {"label", g.GetDirLinkLabel(d)},
                {"bytes_flow", fl[d].bytes},
                {"util_flow", uf}};
        if (o.packet)
        {
            const double up
                = lastP > 0 ? 8.0 * pk.links[d].txBytes / (fl[d].capacityBps * lastP) : 0;
            lj["bytes_packet"] = pk.links[d].txBytes;
            lj["util_packet"] = up;
            maxUtilDiff = std::max(maxUtilDiff, std::fabs(up - uf));
            sumUtilDiff += std::fabs(up - uf);
        }
        ++nLinks;
        links.push_back(lj);
    }

    json drops = json::object();
    for (const auto& [reason, count] : pk.drops)
    {
        drops[reason] = count;
    }
    res.run = json{{"fabric", fabric},
                   {"pattern", pattern},
                   {"routing", routing},
                   {"nodes", g.GetNNodes()},
                   {"hosts", g.GetNHosts()},
                   {"wall_packet_s", res.wallPacket},
                   {"wall_flow_s", res.wallFlow},
                   {"cpu_packet_s", res.cpuPacket},
                   {"cpu_flow_s", res.cpuFlow},
                   {"flow_events", sim->GetStats().events},
                   {"flow_run_wall_s", sim->GetStats().wallSeconds},
                   {"flow_recomputations", sim->GetStats().recomputations},
                   {"completion_flow_us", lastF * 1e6},
                   {"completion_flow_ramp_us", lastR * 1e6},
                   {"ramp_fct_ratio_median", Quantile(rampRatio, 0.5)},
                   {"shared_fabric_links", sharedLinks},
                   {"flows", jf},
                   {"links", links}};
    if (o.packet)
    {
        res.run["speedup"] = res.wallFlow > 0 ? res.wallPacket / res.wallFlow : 0.0;
        res.run["cpu_speedup"] = res.cpuFlow > 0 ? res.cpuPacket / res.cpuFlow : 0.0;
        res.run["completion_packet_us"] = lastP * 1e6;
        res.run["completion_ratio"] = lastF > 0 ? lastP / lastF : 0.0;
        res.run["fct_ratio_median"] = Quantile(res.ratio, 0.5);
        res.run["fct_ratio_p99"] = Quantile(res.ratio, 0.99);
        res.run["fct_ratio_max"] = Quantile(res.ratio, 1.0);
        res.run["util_abs_diff_max"] = maxUtilDiff;
        res.run["util_abs_diff_mean"] = nLinks ? sumUtilDiff / nLinks : 0.0;
        res.run["path_mismatches"] = pathMismatch;
        res.run["incomplete_flows"] = incomplete;
        res.run["causes"] = json{{"retx_packets", retx},
                                 {"flows_with_retx", flowsWithRetx},
                                 {"cnps", cnps},
                                 {"flows_with_cnps", flowsWithCnp},
                                 {"timeouts", timeouts},
                                 {"drops", drops},
                                 {"dropped_packets", pk.droppedPackets},
                                 {"unaccounted_packets", pk.Unaccounted()},
                                 {"max_queue_kb",
                                  [&]()
                                  {
                                      uint64_t m = 0;
                                      for (const auto& l : pk.links)
                                      {
                                          m = std::max(m, l.maxQueueBytes);
                                      }
                                      return m / 1000.0;
                                  }()}};
    }
    return res;
}

} // namespace compare
} // namespace ns3

#endif // PACKET_FLOW_COMPARE_H
