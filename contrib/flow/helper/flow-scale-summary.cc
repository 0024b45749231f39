// SPDX-License-Identifier: GPL-2.0-only
#include "flow-scale-summary.h"

#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-table.h"
#include "ns3/flow-run-summary.h"
#include "ns3/greedy-pinned-routing.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowScaleSummary");

nlohmann::json
FlowScaleSummary::ToJson() const
{
    return nlohmann::json{{"completion_ms", completionMs},
                          {"complete", complete},
                          {"flows", flows},
                          {"mean_router_links", meanRouterLinks},
                          {"max_fabric_util", maxUtil},
                          {"loaded_imbalance", imbalance},
                          {"slowdown_median", slowdownMedian},
                          {"wall_s", wallS}};
}

std::vector<FlowScaleTable::Column>
FlowScaleSummary::Columns(std::vector<FlowScaleTable::Column> keys, bool hops, bool flows)
{
    keys.push_back({"completion (ms)", "ms", 10});
    keys.push_back({"median slowdown", "slowdown", 10});
    if (hops)
    {
        keys.push_back({"router links per flow", "rlinks", 7});
    }
    keys.push_back({"busiest fabric link util", "busiest", 9});
    keys.push_back({"loaded imbalance", "imbal", 8});
    if (flows)
    {
        keys.push_back({"flows", "flows", 7});
    }
    keys.push_back({"wall (s)", "wall_s", 10});
    return keys;
}

std::vector<std::string>
FlowScaleSummary::Cells(std::vector<std::string> keys, bool withHops, bool withFlows) const
{
    keys.push_back(FormatNumber(completionMs, 4));
    keys.push_back(FormatNumber(slowdownMedian, 4));
    if (withHops)
    {
        keys.push_back(FormatNumber(meanRouterLinks, 3));
    }
    keys.push_back(FormatNumber(maxUtil, 3));
    keys.push_back(FormatNumber(imbalance, 3));
    if (withFlows)
    {
        keys.push_back(std::to_string(flows));
    }
    keys.push_back(FormatNumber(wallS, 3));
    return keys;
}

std::string
FlowScaleSummary::CompleteTail() const
{
    return "  (" + std::to_string(complete) + "/" + std::to_string(flows) + " complete)";
}

FlowScaleSummary
SummarizeFlowScaleRun(const FlowSimulator& sim, const FabricGraph& g)
{
    const FlowRunStats st = ComputeFlowRunStats(sim, g);
    FlowScaleSummary o;
    o.completionMs = st.completionS * 1e3;
    o.complete = st.flows - st.incomplete;
    o.flows = st.flows;
    o.meanRouterLinks = st.meanRouterLinks;
    o.maxUtil = st.busiestRouterLinkUtil;
    o.imbalance = st.loadedImbalance;
    o.slowdownMedian = Quantile(st.slowdowns, 0.5); // 0 when no flow completed
    return o;
}

FlowScaleSummary
RunFlowScale(const FlowSimHelper& helper,
             Ptr<FabricRouting> routing,
             const std::vector<FlowSpec>& flows)
{
    const auto t0 = std::chrono::steady_clock::now();
    Ptr<FlowSimulator> sim = helper.Run(routing, flows);
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    FlowScaleSummary o = SummarizeFlowScaleRun(*sim, routing->GetGraph());
    o.wallS = wall;
    return o;
}

FlowScaleSummary
RunFlowScale(const FlowSimHelper& helper,
             const ObjectFactory& routing,
             std::shared_ptr<const FabricGraph> graph,
             const std::vector<FlowSpec>& flows)
{
    Ptr<FabricRouting> r = routing.Create<FabricRouting>();
    r->SetGraph(graph);
    return RunFlowScale(helper, r, flows);
}

nlohmann::json
FlowScaleSeedSweep::ToJson() const
{
    return nlohmann::json{{"ecmp_completion_ms_mean", completionMsMean},
                          {"ecmp_completion_ms_std", completionMsStd},
                          {"ecmp_completion_ms_max", completionMsMax},
                          {"ecmp_imbalance_mean", imbalanceMean}};
}

std::vector<std::vector<std::string>>
FlowScaleSeedSweep::CsvRows(const std::string& pattern) const
{
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < runs.size(); ++i)
    {
        rows.push_back({pattern,
                        std::to_string(seeds[i]),
                        FormatNumber(runs[i].completionMs, 6),
                        FormatNumber(runs[i].imbalance, 6)});
    }
    return rows;
}

FlowScaleSeedSweep
RunEcmpSeedSweep(const FlowSimHelper& helper,
                 std::shared_ptr<const FabricGraph> graph,
                 const std::vector<FlowSpec>& flows,
                 uint64_t firstSeed,
                 uint32_t seeds)
{
    if (seeds == 0)
    {
        throw std::invalid_argument("RunEcmpSeedSweep: seeds must be >= 1");
    }
    FlowScaleSeedSweep w;
    std::vector<double> cts;
    for (uint32_t s = 0; s < seeds; ++s)
    {
        w.seeds.push_back(firstSeed + s);
        w.runs.push_back(
            RunFlowScale(helper,
                         ObjectFactory("ns3::EcmpRouting", "Seed", UintegerValue(firstSeed + s)),
                         graph,
                         flows));
        cts.push_back(w.runs.back().completionMs);
    }
    // Sums of x / n, in seed order (the published tables were computed this way).
    const double n = seeds;
    for (const auto& o : w.runs)
    {
        w.completionMsMean += o.completionMs / n;
        w.imbalanceMean += o.imbalance / n;
    }
    double var = 0;
    for (const auto& o : w.runs)
    {
        var += (o.completionMs - w.completionMsMean) * (o.completionMs - w.completionMsMean) / n;
    }
    w.completionMsStd = std::sqrt(var);
    w.completionMsMax = Quantile(cts, 1.0);
    return w;
}

FlowScaleSummary
RunGreedyPinned(const FlowSimHelper& helper,
                const LeafSpineLayout& layout,
                std::shared_ptr<const FabricGraph> graph,
                const std::vector<FlowSpec>& flows,
                uint64_t seed)
{
    Ptr<FabricRouting> inner
        = ObjectFactory("ns3::EcmpRouting", "Seed", UintegerValue(seed)).Create<FabricRouting>();
    inner->SetGraph(graph);
    auto greedy = Create<GreedyPinnedRouting>(inner, layout);
    greedy->SetGraph(graph);
    greedy->PinLeastLoaded(flows);
    return RunFlowScale(helper, greedy, flows);
}

nlohmann::json
FlowScaleStrategies::ToJson(const std::string& fixedName) const
{
    nlohmann::json j = ecmp.ToJson();
    j["greedy"] = greedy.ToJson();
    j[fixedName] = fixed.ToJson();
    j["flows"] = flows;
    return j;
}

std::vector<std::string>
FlowScaleStrategies::Cells(const std::string& pattern) const
{
    return {pattern,
            FormatNumber(ecmp.completionMsMean, 4) + " ± " + FormatNumber(ecmp.completionMsStd, 3),
            FormatNumber(ecmp.imbalanceMean, 3),
            FormatNumber(greedy.completionMs, 4),
            FormatNumber(greedy.imbalance, 3),
            FormatNumber(fixed.completionMs, 4),
            FormatNumber(fixed.imbalance, 3)};
}

FlowScaleStrategies
RunFlowScaleStrategies(const FlowSimHelper& helper,
                       const LeafSpineLayout& layout,
                       std::shared_ptr<const FabricGraph> leafSpine,
                       const ObjectFactory& fixedRouting,
                       std::shared_ptr<const FabricGraph> fixedGraph,
                       const std::vector<FlowSpec>& flows,
                       uint64_t seed,
                       uint32_t seeds)
{
    FlowScaleStrategies st;
    st.ecmp = RunEcmpSeedSweep(helper, leafSpine, flows, seed, seeds);
    st.greedy = RunGreedyPinned(helper, layout, leafSpine, flows, seed);
    st.fixed = RunFlowScale(helper, fixedRouting, fixedGraph, flows);
    st.flows = flows.size();
    return st;
}

FlowScaleTable::FlowScaleTable(std::vector<Column> columns, std::ostream& md, std::ostream& text)
    : m_columns(std::move(columns)),
      m_md(md),
      m_text(text)
{
    std::vector<std::string> names;
    std::string rule = "|";
    for (const auto& c : m_columns)
    {
        names.push_back(c.markdown);
        rule += "---|";
    }
    MarkdownRow(names);
    m_md << rule << "\n";
    std::vector<std::string> texts;
    for (const auto& c : m_columns)
    {
        texts.push_back(c.text);
    }
    TextTable().PrintRow(texts);
}

FabricTextTable
FlowScaleTable::TextTable() const
{
    std::vector<FabricTextTable::Column> cols;
    for (const auto& c : m_columns)
    {
        cols.push_back({c.text, c.width, c.left});
    }
    return FabricTextTable(cols, m_text);
}

void
FlowScaleTable::MarkdownRow(const std::vector<std::string>& cells) const
{
    for (const auto& c : cells)
    {
        m_md << (c.empty() ? "| " : "| " + c + " "); // an empty cell is "| |"
    }
    m_md << "|\n";
}

void
FlowScaleTable::Row(const std::vector<std::string>& cells, const std::string& textTail) const
{
    if (cells.size() != m_columns.size())
    {
        throw std::invalid_argument("FlowScaleTable: " + std::to_string(cells.size())
                                    + " cells for " + std::to_string(m_columns.size())
                                    + " columns");
    }
    MarkdownRow(cells);
    TextTable().PrintRow(cells, textTail);
}

} // namespace ns3
