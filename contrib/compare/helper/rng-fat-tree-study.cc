// SPDX-License-Identifier: GPL-2.0-only
#include "rng-fat-tree-study.h"

#include "ns3/ecmp-routing.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-results.h"
#include "ns3/failure-mask-routing.h"
#include "ns3/flow-run-summary.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/log.h"
#include "ns3/rng-failures.h"
#include "ns3/roce-run-summary.h"
#include "ns3/shuffle-box.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RngFatTreeStudy");

namespace
{

RouterGraph
MakeRouterGraph(const RngFatTreeParams& x)
{
    if (!x.shuffleBox)
    {
        return MakeRandomRegularGraph(x.n, x.d, x.seed);
    }
    if (x.rooms == 0)
    {
        throw std::invalid_argument("RngFatTreeStudy: rooms must be >= 1");
    }
    return ShuffleBoxFabric(ShuffleBoxFabric::EvenRooms(x.n, x.rooms), x.d, 0, x.seed)
        .GetRouterGraph();
}

} // namespace

RngFatTreeStudy::RngFatTreeStudy(const RngFatTreeParams& x)
    : m_params(x)
{
    NS_LOG_FUNCTION(this << x.n << x.d << x.s << x.p << x.h);
    m_rng = std::make_unique<RngFabric>(MakeRouterGraph(x), x.s);
    m_spray.p = x.p;
    m_spray.h = x.h;
    m_spray.key = x.seed;
    m_tables = std::make_shared<SpraypointTables>(m_rng->GetRouters(), m_spray);
    // Fat tree with the same end-to-end oversubscription as the model gives the RNG.
    m_model = ModelOversubscription(x.n, x.d, x.p, x.h);
    m_rngE2E = std::max(1.0, x.s * m_model.oversub / x.d);
    m_spines = std::min(x.s, std::max(1u, static_cast<uint32_t>(std::ceil(x.s / m_rngE2E - 1e-9))));
    m_rngGraph = std::shared_ptr<const FabricGraph>(m_rng->Build());
    m_fatTree = std::make_unique<LeafSpineLayout>(x.n * x.s, x.s, m_spines);
    m_fatTreeGraph = std::shared_ptr<const FabricGraph>(m_fatTree->Build());
}

nlohmann::json
RngFatTreeStudy::ParamsJson() const
{
    const RngFatTreeParams& x = m_params;
    return {{"n", x.n},
            {"d", x.d},
            {"s", x.s},
            {"p", x.p},
            {"h", x.h},
            {"k", x.k},
            {"seed", x.seed},
            {"servers", x.n * x.s},
            {"fat_tree_spines", m_spines},
            {"model_mesh_oversub", m_model.oversub},
            {"rng_end_to_end_oversub", m_rngE2E},
            {"fat_tree_oversub", double(x.s) / m_spines},
            {"rng_switch_ports", x.n * (x.s + x.d)},
            {"fat_tree_switch_ports", m_fatTree->SwitchPorts()}};
}

Ptr<FabricRouting>
RngFatTreeStudy::MakeRngRouting(const std::string& scheme) const
{
    const std::map<std::string, std::string> typeIds{{"spraypoint", "ns3::SpraypointRouting"},
                                                     {"ecmp", "ns3::EcmpRouting"},
                                                     {"ksp", "ns3::KspRouting"}};
    if (!typeIds.count(scheme))
    {
        throw std::invalid_argument("RngFatTreeStudy: routing '" + scheme
                                    + "' must be spraypoint|ecmp|ksp");
    }
    ObjectFactory f(typeIds.at(scheme));
    if (scheme == "spraypoint")
    {
        f.Set("P", UintegerValue(m_params.p));
        f.Set("H", UintegerValue(m_params.h));
        f.Set("Key", UintegerValue(m_params.seed));
    }
    if (scheme == "ksp")
    {
        f.Set("K", UintegerValue(m_params.k));
    }
    f.Set("Seed", UintegerValue(m_params.seed));
    Ptr<FabricRouting> r = f.Create<FabricRouting>();
    r->SetGraph(m_rngGraph);
    return r;
}

Ptr<FabricRouting>
RngFatTreeStudy::MakeFatTreeRouting() const
{
    return MakeRouting<EcmpRouting>(m_fatTreeGraph, "Seed", UintegerValue(m_params.seed));
}

nlohmann::json
RngFatTreeStudy::SummaryParams(const RngFatTreeRunSettings& run) const
{
    nlohmann::json j = ParamsJson();
    j.update({{"transport", "roce"},
              {"rate_control", run.rateControl},
              {"perm_bytes", run.permBytes},
              {"a2a_bytes", run.a2aBytes},
              {"a2a_steps", run.a2aSteps},
              {"stop_ms", run.stopAt.ToDouble(Time::MS)},
              {"blackhole_us", run.blackhole.ToDouble(Time::US)},
              {"link_rate_gbps", run.lineBps / 1e9}});
    if (run.flowLevel || m_params.shuffleBox)
    {
        // Only then: the packet-level default's summary stays as it was.
        j["level"] = run.flowLevel ? "flow" : "packet";
        if (run.flowLevel)
        {
            // No transport at the flow level: the fluid shares links max-min fairly.
            j["transport"] = "fluid-max-min";
            j.erase("rate_control");
        }
        j["graph"] = m_params.shuffleBox ? "shufflebox" : "random-regular";
        if (m_params.shuffleBox)
        {
            j["rooms"] = m_params.rooms;
        }
    }
    return j;
}

void
RngFatTreeStudy::Describe(std::ostream& os) const
{
    const RngFatTreeParams& x = m_params;
    os << "RNG: " << x.n << " routers, d=" << x.d << ", s=" << x.s << " (" << x.n * x.s
       << " servers), Spraypoint p=" << x.p << " h=" << x.h << "; model mesh oversub "
       << m_model.oversub << " -> end-to-end " << m_rngE2E << "\nfat tree: " << x.n << " leaves x "
       << x.s << " servers, " << m_spines << " spines (oversub " << double(x.s) / m_spines
       << ")\nswitch ports: RNG " << x.n * (x.s + x.d) << ", fat tree " << m_fatTree->SwitchPorts()
       << "; switches: RNG " << x.n << ", fat tree " << x.n + m_spines << "\n";
}

RngFatTreeBlastSetup
RngFatTreeStudy::BlastSetup(double lineBps, TypeId rateControl, Time blackhole, Time stopAt) const
{
    return RngFatTreeBlastSetup{*m_rng,
                                m_rngGraph,
                                m_tables,
                                m_spray,
                                *m_fatTree,
                                m_fatTreeGraph,
                                m_params.seed,
                                lineBps,
                                rateControl,
                                blackhole,
                                stopAt};
}

uint64_t
RngFatTreePatternFlows(const std::string& pattern, uint64_t servers, uint32_t a2aSteps)
{
    if (pattern == "permutation")
    {
        return servers;
    }
    if (pattern == "all-to-all")
    {
        const uint64_t steps = servers < 2 ? 0 : servers - 1;
        return servers * (a2aSteps > 0 ? std::min<uint64_t>(a2aSteps, steps) : steps);
    }
    throw std::invalid_argument("RngFatTreePatternFlows: pattern '" + pattern
                                + "' must be permutation|all-to-all");
}

namespace
{

/// Flows of the largest listed pattern and of all listed patterns together.
std::pair<double, double>
StudyFlows(const RngFatTreeParams& x, const RngFatTreeRunSettings& run)
{
    double largest = 0;
    double total = 0;
    for (const auto& pat : run.patterns)
    {
        const double f = double(RngFatTreePatternFlows(pat, uint64_t(x.n) * x.s, run.a2aSteps));
        largest = std::max(largest, f);
        total += f;
    }
    return {largest, total};
}

/// Bytes and seconds of building the study (router graph, Spraypoint tables, both fabrics'
/// graphs): measured on a loaded 2-core machine at (n, d) = (250, 32), (500, 16), (500, 32),
/// (250, 64), (500, 64), (1000, 64): 0.13-7.7 GB and 2.2-301 s, both close to n^2 d^2 (1.9-2.1
/// bytes, 4-7e-8 s).
double
StudyBuildBytes(double n, double d)
{
    return 2.0 * n * n * d * d;
}

double
StudyBuildSeconds(double n, double d)
{
    return 1 + 4.5e-8 * n * n * d * d;
}

bool
Listed(const std::vector<std::string>& list, const std::string& x)
{
    return std::find(list.begin(), list.end(), x) != list.end();
}

} // namespace

double
RngFatTreeMemoryBytes(const RngFatTreeParams& x, const RngFatTreeRunSettings& run)
{
    const double n = x.n;
    const double d = x.d;
    if (!run.flowLevel)
    {
        // About 45 kB per ns-3 node (servers and routers) and, for the routing tables, 11
        // bytes per router pair and 16 per lane (measured).
        return 30e6 + 45e3 * n * (x.s + 1) + 11.0 * n * n + 16.0 * n * d;
    }
    // One run at a time: its flows (records, paths; 1 kB is generous) and, for a fluid split,
    // each flow's candidate DAG, at most every router link (measured 5-9 kB per flow at
    // n d = 16000: about 0.6 bytes per router link).
    const double perFlow = 1000 + (run.fluid ? 1.0 * n * d : 0);
    return 30e6 + StudyBuildBytes(n, d) + perFlow * StudyFlows(x, run).first;
}

double
RngFatTreeRunSeconds(const RngFatTreeParams& x, const RngFatTreeRunSettings& run)
{
    const double n = x.n;
    const double d = x.d;
    double seconds = StudyBuildSeconds(n, d);
    if (Listed(run.routings, "ksp"))
    {
        // KspRouting computes every router pair's k shortest paths when it gets its graph,
        // once per pattern: measured 2.3 s (k = 4) and 4.7 s (k = 8) at n = 100, d = 16; 40 s at
        // n = 200, d = 16; 73 s at n = 200, d = 32 (k = 8): about 4e-8 s x k n^3 d.
        seconds += double(run.patterns.size()) * 4e-8 * x.k * n * n * n * d;
    }
    if (!run.flowLevel)
    {
        return seconds; // the packet-level runs are not estimated
    }
    // Per flow, measured at (n, d, s) = (200, 16, 4), (500, 32, 8), (250, 64, 16) and, by the
    // issue, (1000, 64, 16): a hashed run 1.5-3.4e-5 s; the fluid split of Spraypoint
    // 2.5-4.4e-8 s per router link of the graph (its candidate DAG grows to most of it), of
    // ECMP 4-5.4e-9 s per router link (shortest paths only), of the fat tree 4e-5 s.
    double perFlow = 4e-5 * double(run.routings.size() + 1);
    if (run.fluid)
    {
        perFlow += (Listed(run.routings, "spraypoint") ? 4.5e-8 * n * d : 0)
                 + (Listed(run.routings, "ecmp") ? 6e-9 * n * d : 0) + 5e-5;
    }
    return seconds + perFlow * StudyFlows(x, run).second;
}

void
CheckRngFatTreeSize(const RngFatTreeParams& x, const RngFatTreeRunSettings& run)
{
    std::string params = "--n=" + std::to_string(x.n) + " --d=" + std::to_string(x.d)
                       + " --s=" + std::to_string(x.s);
    if (run.flowLevel)
    {
        std::string patterns;
        for (const auto& p : run.patterns)
        {
            patterns += (patterns.empty() ? "" : ",") + p;
        }
        params += " --level=flow --patterns=" + patterns;
        if (Listed(run.patterns, "all-to-all"))
        {
            params += " --a2a-steps=" + std::to_string(run.a2aSteps);
        }
        params += std::string(" --fluid=") + (run.fluid ? "true" : "false");
    }
    CheckFabricMemory(RngFatTreeMemoryBytes(x, run), params);
    CheckFabricRunTime(RngFatTreeRunSeconds(x, run), params);
}

std::map<std::string, std::vector<FlowSpec>>
RngFatTreeTraffic(uint32_t servers, uint64_t seed, const RngFatTreeRunSettings& run)
{
    TrafficPatternParams tp;
    tp.hosts = servers;
    tp.seed = seed;
    tp.bytes = run.permBytes;
    std::map<std::string, std::vector<FlowSpec>> patterns;
    patterns["permutation"] = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    if (std::find(run.patterns.begin(), run.patterns.end(), "all-to-all") != run.patterns.end())
    {
        patterns["all-to-all"] = MakeShiftedAllToAll(servers, run.a2aBytes, run.a2aSteps, seed);
    }
    return patterns;
}

std::vector<RngFatTreeRun>
RngFatTreeRuns(const RngFatTreeStudy& study, const RngFatTreeRunSettings& run)
{
    std::vector<std::pair<std::string, Ptr<FabricRouting>>> routings;
    for (const auto& name : run.routings)
    {
        routings.emplace_back("rng", study.MakeRngRouting(name));
    }
    routings.emplace_back("fat-tree", study.MakeFatTreeRouting());
    std::vector<RngFatTreeRun> runs;
    for (const auto& [fabric, routing] : routings)
    {
        runs.push_back({fabric, routing, false});
        if (run.flowLevel && run.fluid && routing->GetName() != "ksp")
        {
            runs.push_back({fabric, routing, true});
        }
    }
    return runs;
}

RoutingStudyRun
RunPacketLevelStudy(Ptr<FabricRouting> routing,
                    const std::vector<FlowSpec>& flows,
                    double lineBps,
                    TypeId rateControl,
                    Time stopAt)
{
    RoceHopRun r = RunRoceCountingHops(routing, flows, lineBps, rateControl, stopAt);
    RoutingStudyRun out;
    out.summary = std::move(r.summary);
    out.flowCells = RoceFlowCsvRows(r.flows);
    for (const auto& rec : r.flows)
    {
        if (rec.complete)
        {
            out.slowdowns.push_back(rec.Slowdown());
        }
    }
    return out;
}

RoutingStudyRun
RunFlowLevelStudy(Ptr<FabricRouting> routing,
                  const std::vector<FlowSpec>& flows,
                  double lineBps,
                  Time stopAt,
                  bool fluid)
{
    FlowSimHelper fh;
    fh.SetAttribute("DefaultLinkRate", DataRateValue(DataRate(uint64_t(lineBps))));
    fh.SetAttribute("FluidSplit", BooleanValue(fluid));
    Ptr<FlowSimulator> sim = fh.Run(routing, flows, {}, stopAt.GetSeconds());
    RoutingStudyRun out;
    out.summary = SummarizeFlowRun(*sim, routing->GetGraph());
    out.summary["routing"] = routing->GetName() + (fluid ? "-fluid" : "");
    for (const auto& rec : sim->GetRecords())
    {
        out.flowCells.push_back(FlowSimCsvCells(rec));
        if (rec.complete)
        {
            out.slowdowns.push_back(rec.Slowdown());
        }
    }
    return out;
}

FabricTextTable
RoutingStudyTable(bool flowLevel)
{
    std::vector<FabricTextTable::Column> c{{"pattern", 13, true},
                                           {"fabric", 10, true},
                                           {"routing", flowLevel ? 18 : 12, true},
                                           {"flows", 7},
                                           {"incompl", 8}};
    if (flowLevel)
    {
        c.push_back({"done-us", 11});
    }
    c.insert(c.end(),
             {{"tput-avg", 9}, {"tput-p1", 8}, {"tput-min", 9}, {"sd-p50", 8}, {"sd-p99", 8}});
    if (flowLevel)
    {
        c.insert(c.end(), {{"links", 7}, {"busiest", 8}, {"wall-s", 9}});
    }
    else
    {
        c.insert(c.end(), {{"retx", 7}, {"cnps", 7}, {"links", 7}});
    }
    return FabricTextTable(c);
}

void
PrintRoutingStudyRow(const FabricTextTable& t,
                     const std::string& pattern,
                     const std::string& fabric,
                     const nlohmann::json& j)
{
    auto fixed = [](const nlohmann::json& x, int decimals)
    {
        return FabricTextTable::Fixed(x.get<double>(), decimals);
    };
    const bool flowLevel = j.contains("busiest_router_link_util");
    std::vector<std::string> c{pattern,
                               fabric,
                               j["routing"],
                               std::to_string(j["flows"].get<uint64_t>()),
                               std::to_string(j["flows_incomplete"].get<uint32_t>())};
    if (flowLevel)
    {
        c.push_back(fixed(j["completion_us"], 1));
    }
    c.insert(c.end(),
             {fixed(j["throughput_gbps"]["mean"], 1),
              fixed(j["throughput_gbps"]["p1"], 1),
              fixed(j["throughput_gbps"]["min"], 1),
              fixed(j["fct_slowdown"]["p50"], 2),
              fixed(j["fct_slowdown"]["p99"], 2)});
    std::string tail;
    if (flowLevel)
    {
        c.insert(c.end(),
                 {fixed(j["mean_router_links"], 2),
                  fixed(j["busiest_router_link_util"], 2),
                  fixed(j["wall_s"], 3)});
    }
    else
    {
        c.insert(c.end(),
                 {std::to_string(j["retransmitted_packets"].get<uint64_t>()),
                  std::to_string(j["cnps"].get<uint64_t>()),
                  fixed(j["mean_router_links"], 2)});
        tail = "  ";
        for (const auto& [k, v] : j["path_length_hist"].items())
        {
            tail += k + ":" + fixed(v, 3) + " ";
        }
    }
    t.PrintRow(c, tail);
}

nlohmann::json
RngFatTreeBlastCase::Json() const
{
    nlohmann::json j = impact.Json();
    j["elements"] = elements;
    j[fabric == "rng" ? "failed_router" : "failed_spine"]
        = failedElement == UINT32_MAX ? nlohmann::json(nullptr) : nlohmann::json(failedElement);
    j["failed_links"] = failedLinks;
    return j;
}

std::vector<std::string>
RngFatTreeBlastCase::CsvHeader()
{
    return {"failure",
            "fabric",
            "elements",
            "flows",
            "blackholed_predicted",
            "hit_fraction_pre",
            "incomplete_post",
            "throughput_mean_gbps_post",
            "throughput_p1_gbps_post",
            "slowdown_p99_post"};
}

std::vector<std::string>
RngFatTreeBlastCase::CsvCells(const std::string& kind) const
{
    const nlohmann::json& post = impact.after.summary;
    return {kind,
            fabric,
            elements,
            std::to_string(impact.flows),
            std::to_string(impact.predicted),
            FormatNumber(impact.hitFraction),
            std::to_string(post["flows_incomplete"].get<uint32_t>()),
            FormatNumber(post["throughput_gbps"]["mean"].get<double>()),
            FormatNumber(post["throughput_gbps"]["p1"].get<double>()),
            FormatNumber(post["fct_slowdown"]["p99"].get<double>())};
}

std::vector<std::string>
RngFatTreeBlastCase::TableCells(const std::string& kind) const
{
    const nlohmann::json& post = impact.after.summary;
    std::vector<std::string> c = CsvCells(kind);
    c[5] = FabricTextTable::Fixed(impact.hitFraction, 3);
    c[7] = FabricTextTable::Fixed(post["throughput_gbps"]["mean"].get<double>(), 1);
    c[8] = FabricTextTable::Fixed(post["throughput_gbps"]["p1"].get<double>(), 1);
    c[9] = FabricTextTable::Fixed(post["fct_slowdown"]["p99"].get<double>(), 2);
    return c;
}

std::string
FatTreeBaselineKey(const std::map<std::string, nlohmann::json>& runs, const std::string& rngKey)
{
    const bool fluid = rngKey.size() > 6 && rngKey.substr(rngKey.size() - 6) == "-fluid";
    return fluid && runs.count("fat_tree/ecmp-fluid") ? "fat_tree/ecmp-fluid" : "fat_tree/ecmp";
}

nlohmann::json
JudgeRngAgainstFatTree(const std::map<std::string, nlohmann::json>& runs, double tolerance)
{
    nlohmann::json verdict = nlohmann::json::object();
    for (const auto& [key, run] : runs)
    {
        if (key.rfind("rng/", 0) == 0)
        {
            verdict[key.substr(4)] = CompareFlowRuns(
                run, runs.at(FatTreeBaselineKey(runs, key)), tolerance, "fat_tree");
        }
    }
    return verdict;
}

void
PrintRngFatTreeVerdict(std::ostream& os,
                       const std::string& pattern,
                       const nlohmann::json& verdict,
                       const std::map<std::string, nlohmann::json>& runs,
                       double tolerance)
{
    const std::string pct = FormatNumber(100 * tolerance) + "%";
    for (const auto& [name, v] : verdict.items())
    {
        os << "  " << pattern << ": RNG " << name;
        if (v["matches_or_exceeds"].is_null())
        {
            os << ": no verdict (flows incomplete)\n";
            continue;
        }
        os << " vs fat tree "
           << runs.at(FatTreeBaselineKey(runs, "rng/" + name))["routing"].get<std::string>()
           << ": completion x" << FormatNumber(v["completion_vs_fat_tree"].get<double>(), 3)
           << ", mean throughput x"
           << FormatNumber(v["mean_throughput_vs_fat_tree"].get<double>(), 3) << " -> "
           << (v["matches_or_exceeds"].get<bool>() ? "matches or exceeds" : "does NOT match")
           << " (criterion: completion within " << pct << " and mean throughput within " << pct
           << " or better)\n";
    }
}

FabricTextTable
RngFatTreeBlastTable()
{
    return FabricTextTable({{"failure", 12, true},
                            {"fabric", 10, true},
                            {"elements", 12},
                            {"flows", 7},
                            {"predicted", 11},
                            {"hit-pre", 9},
                            {"incompl", 10},
                            {"tput-avg", 10},
                            {"tput-p1", 9},
                            {"sd-p99", 8}});
}

std::vector<std::vector<std::string>>
RoceFlowCsvRows(const std::vector<RoceFlowRecord>& flows)
{
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : flows)
    {
        rows.push_back(RoceFlowCsvCells(f));
    }
    return rows;
}

std::vector<RngFatTreeBlastCase>
MeasureRngFatTreeBlast(const RngFatTreeBlastSetup& x,
                       const std::string& kind,
                       const std::vector<FlowSpec>& flows,
                       FabricRng& rng)
{
    NS_LOG_FUNCTION(kind << flows.size());
    if (kind != "router" && kind != "links-1pct")
    {
        throw std::invalid_argument("MeasureRngFatTreeBlast: kind '" + kind
                                    + "' must be router|links-1pct");
    }
    const bool router = kind == "router";
    const RouterGraph& routers = x.rng.GetRouters();
    const uint32_t n = routers.GetN();
    const uint32_t s = x.rng.GetServersPerRouter();
    const uint32_t spines = x.fatTree.GetSpines();
    // RNG failure.
    const uint32_t failedRouter = router ? static_cast<uint32_t>(rng.Below(n)) : UINT32_MAX;
    const std::set<uint32_t> failedEdges
        = router ? RouterEdgesOf(routers, failedRouter)
                 : PickRandomEdges(routers, std::max(1u, routers.GetNEdges() / 100), rng);
    const std::vector<FlowSpec> kept = router ? FlowsAvoidingRouter(flows, failedRouter, s) : flows;
    // Fat-tree failure as a state of the intact graph (link ids never change).
    auto ftFailed = std::make_shared<FabricState>(x.fatTreeGraph);
    uint32_t failedSpine = UINT32_MAX;
    std::set<std::pair<uint32_t, uint32_t>> removed; // (leaf, spine)
    if (router)
    {
        failedSpine = static_cast<uint32_t>(rng.Below(spines));
        ftFailed->FailNode(x.fatTree.SpineNode(failedSpine));
    }
    else
    {
        const uint32_t leaves = x.fatTree.GetLeaves();
        while (removed.size() < std::max(1u, leaves * spines / 100))
        {
            removed.insert({static_cast<uint32_t>(rng.Below(leaves)),
                            static_cast<uint32_t>(rng.Below(spines))});
        }
        for (const auto& [l, sp] : removed)
        {
            ftFailed->FailLink(x.fatTree.LeafSpineLink(*x.fatTreeGraph, l, sp));
        }
    }
    // Reconverged Spraypoint: tables (levels) recomputed on the degraded mesh, which a routing
    // view does not do. Reconverged ECMP: equal-cost sets over what its view believes usable.
    RngFabric degraded(routers.WithoutEdges(failedEdges), s);
    auto dGraph = std::shared_ptr<const FabricGraph>(degraded.Build());
    auto dTab = std::make_shared<SpraypointTables>(degraded.GetRouters(), x.params);
    auto ftPost = MakeRouting<EcmpRouting>(x.fatTreeGraph, "Seed", UintegerValue(x.seed));
    ftPost->SetView(ftFailed);

    std::vector<RngFatTreeBlastCase> cases(2);
    cases[0].fabric = "rng";
    cases[0].elements = router ? "router R" + std::to_string(failedRouter)
                               : std::to_string(failedEdges.size()) + " links";
    cases[0].failedElement = failedRouter;
    cases[0].failedLinks = static_cast<uint32_t>(failedEdges.size());
    cases[1].fabric = "fat-tree";
    cases[1].elements = router ? "spine S" + std::to_string(failedSpine)
                               : std::to_string(removed.size()) + " links";
    cases[1].failedElement = failedSpine;
    cases[1].failedLinks = static_cast<uint32_t>(removed.size());
    const Ptr<FabricRouting> pre[2]
        = {CreateObject<FailureMaskRouting>(MakeSpraypointRouting(x.rngGraph, x.tables, x.seed),
                                            FailRouterEdges(x.rng, x.rngGraph, failedEdges)),
           CreateObject<FailureMaskRouting>(
               MakeRouting<EcmpRouting>(x.fatTreeGraph, "Seed", UintegerValue(x.seed)), ftFailed)};
    const Ptr<FabricRouting> post[2] = {MakeSpraypointRouting(dGraph, dTab, x.seed), ftPost};
    for (int c = 0; c < 2; ++c)
    {
        cases[c].preRouting = pre[c]->GetName();
        cases[c].postRouting = post[c]->GetName();
        try
        {
            cases[c].impact = MeasureRoceFailureImpact(
                pre[c], post[c], kept, x.lineBps, x.rateControl, x.blackhole, x.stopAt);
        }
        catch (const std::invalid_argument&)
        {
            throw std::invalid_argument("the " + kind + " failure on the " + cases[c].fabric
                                        + " disconnects every flow at this size");
        }
    }
    return cases;
}

std::vector<std::pair<std::string, std::vector<RngFatTreeBlastCase>>>
MeasureRngFatTreeBlasts(const RngFatTreeBlastSetup& setup,
                        const std::vector<FlowSpec>& flows,
                        uint64_t seed,
                        std::ostream& progress)
{
    FabricRng rng(seed ^ 0x6661696cULL);
    std::vector<std::pair<std::string, std::vector<RngFatTreeBlastCase>>> out;
    for (const std::string kind : {"router", "links-1pct"})
    {
        progress << "[blast " << kind << "]..." << std::flush;
        out.emplace_back(kind, MeasureRngFatTreeBlast(setup, kind, flows, rng));
        progress << " done\n";
    }
    return out;
}

} // namespace ns3
