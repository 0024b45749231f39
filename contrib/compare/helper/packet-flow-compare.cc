// SPDX-License-Identifier: GPL-2.0-only
#include "packet-flow-compare.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/link-load.h"
#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/rng-topology.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-run-summary.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-topology.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PacketFlowCompare");

using json = nlohmann::json;

const std::map<std::string, PacketFlowFabricKind>&
PacketFlowFabricKinds()
{
    static const std::map<std::string, PacketFlowFabricKind> kinds{
        {"zcube",
         {[](const PacketFlowFabricSize& z) { return ZCubeLayout(z.n, z.k).Build(); },
          "ns3::ZCubeRouting"}},
        {"roft",
         {[](const PacketFlowFabricSize& z) { return RoftLayout(z.n, z.k, z.n / z.k).Build(); },
          "ns3::EcmpRouting"}},
        {"rng",
         {[](const PacketFlowFabricSize& z)
          { return RngFabric(MakeRandomRegularGraph(z.n, z.k, z.seed), z.s).Build(); },
          "ns3::SpraypointRouting"}},
    };
    return kinds;
}

Ptr<FabricRouting>
MakeSeededRouting(const std::string& typeId,
                  uint64_t seed,
                  std::shared_ptr<const FabricGraph> graph)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid))
    {
        throw std::invalid_argument("routing '" + typeId + "' is not a known TypeId");
    }
    Ptr<FabricRouting> r
        = FabricRouting::CreateByTypeId(tid, {{"Seed", Create<UintegerValue>(seed)}});
    r->SetGraph(graph);
    return r;
}

FlowSimHelper
PacketFlowFlowHelper(const PacketFlowOptions& o, bool ramp)
{
    FlowSimHelper h;
    h.SetAttribute("DefaultLinkRate", DataRateValue(DataRate(uint64_t(o.lineBps))));
    h.SetAttribute("LinkDelay", TimeValue(Seconds(o.delayS)));
    h.SetAttribute("UtilizationBin", TimeValue(Seconds(o.binS)));
    h.SetAttribute("Ramp", BooleanValue(ramp));
    return h;
}

double
WallSeconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

double
ProcessCpuSeconds()
{
    return double(std::clock()) / CLOCKS_PER_SEC;
}

namespace
{

/// Per flow: how many other flows share one of its fabric links while both are running
/// (flow-level times), each counted once however many links the two share; and the number of
/// fabric links where that happens.
std::vector<uint32_t>
CountCollisions(const FabricRouting& routing,
                const std::vector<FlowSpec>& flows,
                const std::vector<FlowSimRecord>& fr,
                uint32_t& sharedLinks)
{
    sharedLinks = 0;
    // Colliding pairs (lower index first), then each pair once: two flows on the same
    // leaf-spine-leaf path share two fabric links but are one other flow to each other.
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const SharedLink& l : FindSharedFabricLinks(routing, flows))
    {
        bool shared = false;
        for (size_t i = 0; i < l.flows.size(); ++i)
        {
            for (size_t j = i + 1; j < l.flows.size(); ++j)
            {
                const auto& a = fr[l.flows[i]];
                const auto& b = fr[l.flows[j]];
                if (a.startS < b.finishS && b.startS < a.finishS)
                {
                    pairs.emplace_back(std::min(l.flows[i], l.flows[j]),
                                       std::max(l.flows[i], l.flows[j]));
                    shared = true;
                }
            }
        }
        sharedLinks += shared ? 1 : 0;
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    std::vector<uint32_t> collided(fr.size(), 0);
    for (const auto& [a, b] : pairs)
    {
        collided[a]++;
        collided[b]++;
    }
    return collided;
}

/// The egress directed link from path node h to path node h+1 (the first port that reaches it).
uint32_t
PathDirLink(const FabricGraph& g, const std::vector<uint32_t>& path, size_t h)
{
    for (uint32_t pt = 0; pt < g.GetNPorts(path[h]); ++pt)
    {
        if (g.GetPeer(path[h], pt) == path[h + 1])
        {
            return g.GetEgressDirLink(path[h], pt);
        }
    }
    return g.GetEgressDirLink(path[h], 0);
}

} // namespace

PacketFlowResult
ComparePacketAndFlow(const std::string& fabric,
                     const std::string& pattern,
                     std::shared_ptr<const FabricGraph> graph,
                     const std::string& routing,
                     const std::vector<FlowSpec>& flows,
                     const PacketFlowOptions& o)
{
    NS_LOG_FUNCTION(fabric << pattern << routing << flows.size());
    PacketFlowResult res;
    const FabricGraph& g = *graph;
    // Flow level (timed from the routing's construction to the end of the run).
    const auto f0 = std::chrono::steady_clock::now();
    const double c0 = ProcessCpuSeconds();
    Ptr<FabricRouting> flowRouting = MakeSeededRouting(routing, o.routingSeed, graph);
    Ptr<FlowSimulator> sim = PacketFlowFlowHelper(o, false).Run(flowRouting, flows);
    res.wallFlow = WallSeconds(f0, std::chrono::steady_clock::now());
    res.cpuFlow = ProcessCpuSeconds() - c0;
    // The same with the DCQCN-like ramp: how much transport ramp-up alone would add.
    Ptr<FlowSimulator> ramp = PacketFlowFlowHelper(o, true).Run(
        MakeSeededRouting(routing, o.routingSeed, graph), flows);

    FabricRoceRunResult pk;
    json pkSummary;
    if (o.packet)
    {
        const auto p0 = std::chrono::steady_clock::now();
        const double c1 = ProcessCpuSeconds();
        FabricNetworkHelper links;
        links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(o.lineBps))));
        links.SetChannelAttribute("Delay", TimeValue(Seconds(o.delayS)));
        links.SetQueueAttribute(
            "MaxSize",
            QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(o.queueBytes))));
        Ptr<FabricNetwork> net
            = links.Install(graph, MakeSeededRouting(routing, o.routingSeed, graph));
        FabricRoceRunOptions opt;
        opt.stopAt = Seconds(o.stopS);
        opt.senderAttributes["RateControl"]
            = std::make_shared<TypeIdValue>(RoceRateControlTypeId(o.rateControl, "--rate-control"));
        pk = RunFabricRoce(net, flows, opt);
        res.wallPacket = WallSeconds(p0, std::chrono::steady_clock::now());
        res.cpuPacket = ProcessCpuSeconds() - c1;
        pkSummary = SummarizeRoceRun(pk, opt.stopAt);
    }

    const auto& fr = sim->GetRecords();
    const auto& rr = ramp->GetRecords();
    uint32_t sharedLinks = 0;
    const std::vector<uint32_t> collided = CountCollisions(*flowRouting, flows, fr, sharedLinks);

    json jf = json::array();
    double lastP = 0; // last packet-level completion, over the flows that completed there
    double lastF = 0;
    double lastR = 0;
    uint32_t pathMismatch = 0;
    uint32_t incomplete = 0; // flows not complete at one level or both
    uint32_t incompleteP = 0;
    uint32_t incompleteF = 0;
    uint32_t incompleteR = 0;
    uint32_t flowsWithCnp = 0;
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
        incompleteF += q.complete ? 0 : 1;
        incompleteR += rr[f].complete ? 0 : 1;
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
                const uint32_t d = PathDirLink(g, p.path, h);
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
            flowsWithCnp += p.cnps > 0 ? 1 : 0;
            if (p.complete)
            {
                lastP = std::max(lastP, p.finish.GetSeconds());
            }
            else
            {
                incompleteP++;
            }
            if (p.complete && q.complete)
            {
                const double r = p.FctSeconds() / q.FctSeconds();
                res.ratio.push_back(r);
                j["fct_ratio"] = r;
            }
            else
            {
                j["fct_ratio"] = nullptr;
                incomplete++;
            }
        }
        jf.push_back(j);
    }

    // Per-link utilization: a level's bytes over the time they took, its makespan when every
    // flow completed there, else the end of its run (bytes of unfinished flows are counted up
    // to it: over the completed flows' makespan a link could exceed its capacity).
    const double spanF = incompleteF == 0 ? lastF : sim->GetStats().endS;
    const double spanP = !o.packet ? 0 : incompleteP == 0 ? lastP : pk.simSeconds;
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
        const double uf = spanF > 0 ? 8 * fl[d].bytes / (fl[d].capacityBps * spanF) : 0;
        json lj{{"dir_link", d},
                {"label", g.GetDirLinkLabel(d)},
                {"bytes_flow", fl[d].bytes},
                {"util_flow", uf}};
        if (o.packet)
        {
            const double up
                = spanP > 0 ? 8.0 * pk.links[d].txBytes / (fl[d].capacityBps * spanP) : 0;
            lj["bytes_packet"] = pk.links[d].txBytes;
            lj["util_packet"] = up;
            maxUtilDiff = std::max(maxUtilDiff, std::fabs(up - uf));
            sumUtilDiff += std::fabs(up - uf);
        }
        ++nLinks;
        links.push_back(lj);
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
    // A level's completion only when every flow completed there: the last completion of some
    // of the flows is no completion time of the set (null).
    if (incompleteF > 0)
    {
        res.run["completion_flow_us"] = nullptr;
    }
    if (incompleteR > 0)
    {
        res.run["completion_flow_ramp_us"] = nullptr;
    }
    if (o.packet)
    {
        uint64_t maxQueue = 0;
        for (const auto& l : pk.links)
        {
            maxQueue = std::max(maxQueue, l.maxQueueBytes);
        }
        res.run["speedup"] = res.wallFlow > 0 ? res.wallPacket / res.wallFlow : 0.0;
        res.run["cpu_speedup"] = res.cpuFlow > 0 ? res.cpuPacket / res.cpuFlow : 0.0;
        res.run["completion_packet_us"] = incompleteP == 0 ? json(lastP * 1e6) : json(nullptr);
        // No ratio when a flow is missing at either level (it would compare the makespans of
        // two different sets of flows).
        res.run["completion_ratio"]
            = incomplete == 0 && lastF > 0 ? json(lastP / lastF) : json(nullptr);
        res.run["fct_ratio_median"] = Quantile(res.ratio, 0.5);
        res.run["fct_ratio_p99"] = Quantile(res.ratio, 0.99);
        res.run["fct_ratio_max"] = Quantile(res.ratio, 1.0);
        res.run["util_abs_diff_max"] = maxUtilDiff;
        res.run["util_abs_diff_mean"] = nLinks ? sumUtilDiff / nLinks : 0.0;
        res.run["path_mismatches"] = pathMismatch;
        res.run["incomplete_flows"] = incomplete;
        res.run["causes"] = json{{"retx_packets", pkSummary["retransmitted_packets"]},
                                 {"flows_with_retx", pkSummary["flows_with_retransmissions"]},
                                 {"cnps", pkSummary["cnps"]},
                                 {"flows_with_cnps", flowsWithCnp},
                                 {"timeouts", pkSummary["timeouts"]},
                                 {"drops", pkSummary["drops"]},
                                 {"dropped_packets", pkSummary["dropped_packets"]},
                                 {"unaccounted_packets", pk.Unaccounted()},
                                 {"max_queue_kb", maxQueue / 1000.0}};
    }
    return res;
}

std::vector<std::string>
PacketFlowCsvHeader()
{
    return {"fabric",
            "pattern",
            "id",
            "src",
            "dst",
            "bytes",
            "start_us",
            "fct_packet_us",
            "fct_flow_us",
            "fct_flow_ramp_us",
            "ratio",
            "retx",
            "cnps",
            "collisions",
            "queue_delay_bound_us",
            "path"};
}

std::vector<std::vector<std::string>>
PacketFlowCsvRows(const json& run)
{
    const std::string fab = run["fabric"];
    const std::string pat = run["pattern"];
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : run["flows"])
    {
        std::string path;
        for (uint32_t v : f["path"])
        {
            path += (path.empty() ? "" : " ") + std::to_string(v);
        }
        rows.push_back({fab,
                        pat,
                        std::to_string(f["id"].get<uint32_t>()),
                        std::to_string(f["src"].get<uint32_t>()),
                        std::to_string(f["dst"].get<uint32_t>()),
                        std::to_string(f["bytes"].get<uint64_t>()),
                        FormatNumber(f["start_us"].get<double>()),
                        FormatNumber(f["fct_packet_us"].get<double>()),
                        FormatNumber(f["fct_flow_us"].get<double>()),
                        FormatNumber(f["fct_flow_ramp_us"].get<double>()),
                        f["fct_ratio"].is_null() ? "" : FormatNumber(f["fct_ratio"].get<double>()),
                        std::to_string(f["retx"].get<uint64_t>()),
                        std::to_string(f["cnps"].get<uint64_t>()),
                        std::to_string(f["collisions"].get<uint32_t>()),
                        FormatNumber(f["queue_delay_bound_us"].get<double>()),
                        path});
    }
    return rows;
}

std::vector<std::string>
PacketFlowLinkCsvHeader()
{
    return {"fabric", "pattern", "link", "bytes_packet", "bytes_flow", "util_packet", "util_flow"};
}

std::vector<std::vector<std::string>>
PacketFlowLinkCsvRows(const json& run)
{
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : run["links"])
    {
        rows.push_back({run["fabric"],
                        run["pattern"],
                        l["label"].get<std::string>(),
                        std::to_string(l["bytes_packet"].get<uint64_t>()),
                        FormatNumber(l["bytes_flow"].get<double>()),
                        FormatNumber(l["util_packet"].get<double>()),
                        FormatNumber(l["util_flow"].get<double>())});
    }
    return rows;
}

json
WorstPacketFlowFlows(const json& run, size_t count)
{
    std::vector<json> sorted;
    for (const auto& f : run["flows"])
    {
        if (!f["fct_ratio"].is_null())
        {
            sorted.push_back(f);
        }
    }
    std::sort(sorted.begin(),
              sorted.end(),
              [](const json& a, const json& b)
              { return a["fct_ratio"].get<double>() > b["fct_ratio"].get<double>(); });
    json w = json::array();
    for (size_t i = 0; i < std::min(count, sorted.size()); ++i)
    {
        const json& f = sorted[i];
        w.push_back({{"id", f["id"]},
                     {"src", f["src"]},
                     {"dst", f["dst"]},
                     {"path", f["path"]},
                     {"fct_ratio", f["fct_ratio"]},
                     {"fct_packet_us", f["fct_packet_us"]},
                     {"fct_flow_us", f["fct_flow_us"]},
                     {"fct_flow_ramp_us", f["fct_flow_ramp_us"]},
                     {"retx", f["retx"]},
                     {"cnps", f["cnps"]},
                     {"timeouts", f["timeouts"]},
                     {"collisions", f["collisions"]},
                     {"queue_delay_bound_us", f["queue_delay_bound_us"]}});
    }
    return w;
}

namespace
{

/// Parse one CSV field as an unsigned integer in [lo, hi].
uint64_t
ParseUintField(const std::string& text,
               const std::string& where,
               const std::string& field,
               uint64_t lo,
               uint64_t hi)
{
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || v < lo || v > hi)
    {
        throw std::invalid_argument(where + ": field '" + field + "' must be an integer in ["
                                    + std::to_string(lo) + ", " + std::to_string(hi) + "], got '"
                                    + text + "'");
    }
    return v;
}

std::string
Strip(std::string s)
{
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    {
        s.pop_back();
    }
    size_t a = 0;
    while (a < s.size() && (s[a] == ' ' || s[a] == '\t'))
    {
        ++a;
    }
    return s.substr(a);
}

} // namespace

std::vector<FlowSpec>
ReadFlowList(const std::string& file, uint32_t hosts)
{
    std::ifstream in(file);
    if (!in)
    {
        throw std::invalid_argument("--flows: cannot read '" + file + "'");
    }
    std::string line;
    uint64_t lineNo = 0;
    std::vector<FlowSpec> flows;
    std::map<uint32_t, uint32_t> perSrc;
    while (std::getline(in, line))
    {
        ++lineNo;
        line = Strip(line);
        const std::string where = file + ":" + std::to_string(lineNo);
        if (lineNo == 1)
        {
            if (line != "src,dst,bytes,start_us")
            {
                throw std::invalid_argument(where
                                            + ": header must be 'src,dst,bytes,start_us', "
                                              "got '"
                                            + line + "'");
            }
            continue;
        }
        if (line.empty())
        {
            continue;
        }
        std::vector<std::string> fields;
        std::stringstream ss(line);
        std::string item;
        while (std::getline(ss, item, ','))
        {
            fields.push_back(Strip(item));
        }
        if (!line.empty() && line.back() == ',')
        {
            fields.emplace_back();
        }
        if (fields.size() != 4)
        {
            throw std::invalid_argument(where + ": expected 4 fields (src,dst,bytes,start_us), got "
                                        + std::to_string(fields.size()));
        }
        FlowSpec f;
        f.id = static_cast<uint32_t>(flows.size());
        f.src = static_cast<uint32_t>(ParseUintField(fields[0], where, "src", 0, hosts - 1));
        f.dst = static_cast<uint32_t>(ParseUintField(fields[1], where, "dst", 0, hosts - 1));
        if (f.src == f.dst)
        {
            throw std::invalid_argument(where + ": field 'dst' must differ from 'src' (" + fields[0]
                                        + ")");
        }
        f.bytes = ParseUintField(fields[2], where, "bytes", 1, uint64_t(1) << 40);
        char* end = nullptr;
        const double us = std::strtod(fields[3].c_str(), &end);
        if (fields[3].empty() || *end != '\0' || !(us >= 0) || !(us <= 1e9))
        {
            throw std::invalid_argument(where
                                        + ": field 'start_us' must be a number in [0, 1e9], "
                                          "got '"
                                        + fields[3] + "'");
        }
        f.startS = us * 1e-6;
        if (perSrc[f.src] >= 16384)
        {
            throw std::invalid_argument(where + ": more than 16384 flows from host "
                                        + std::to_string(f.src));
        }
        f.srcPort = static_cast<uint16_t>(49152 + perSrc[f.src]++);
        flows.push_back(f);
    }
    if (lineNo == 0)
    {
        throw std::invalid_argument(file
                                    + ":1: empty file; header 'src,dst,bytes,start_us' "
                                      "expected");
    }
    if (flows.empty())
    {
        throw std::invalid_argument("--flows: '" + file + "' holds no flow");
    }
    return flows;
}

TrafficPattern
ParsePatternItem(const std::string& item, TrafficPatternParams& tp)
{
    const size_t colon = item.find(':');
    const TrafficPattern p = ParseTrafficPattern(item.substr(0, colon));
    if (colon != std::string::npos)
    {
        char* end = nullptr;
        const std::string f = item.substr(colon + 1);
        tp.prefillFraction = std::strtod(f.c_str(), &end);
        if (p != TrafficPattern::PREFILL || f.empty() || *end != '\0'
            || !(tp.prefillFraction > 0 && tp.prefillFraction < 1))
        {
            throw std::invalid_argument("--pattern: '" + item
                                        + "': only prefill takes a fraction in (0, 1)");
        }
    }
    return p;
}

} // namespace ns3
