// SPDX-License-Identifier: GPL-2.0-only
#include "rng-fat-tree-study.h"

#include "ns3/ecmp-routing.h"
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

#include <cmath>
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
    std::vector<uint32_t> perRoom(x.rooms, x.n / x.rooms);
    for (uint32_t i = 0; i < x.n % x.rooms; ++i)
    {
        perRoom[i]++;
    }
    return ShuffleBoxFabric(perRoom, x.d, 0, x.seed).GetRouterGraph();
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

} // namespace ns3
