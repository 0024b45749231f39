// SPDX-License-Identifier: GPL-2.0-only
#include "flow-run-summary.h"

#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowRunSummary");

uint32_t
FlowSimRouterLinks(const FlowSimRecord& record)
{
    return record.path.size() >= 3 ? static_cast<uint32_t>(record.path.size() - 3) : 0;
}

FlowRunStats
ComputeFlowRunStats(const FlowSimulator& sim, const FabricGraph& g)
{
    return ComputeFlowRunStats(sim.GetRecords(), sim.GetLinks(), sim.GetStats().endS, g);
}

FlowRunStats
ComputeFlowRunStats(const std::vector<FlowSimRecord>& records,
                    const std::vector<FlowSimLinkRecord>& links,
                    double endS,
                    const FabricGraph& g)
{
    if (links.size() != 2 * size_t(g.GetNLinks()))
    {
        throw std::invalid_argument(
            "ComputeFlowRunStats: " + std::to_string(links.size()) + " link records for a graph of "
            + std::to_string(2 * size_t(g.GetNLinks())) + " directed links");
    }
    if (!(endS >= 0) || !std::isfinite(endS))
    {
        throw std::invalid_argument("ComputeFlowRunStats: endS must be finite and >= 0");
    }
    FlowRunStats st;
    double wire = 0;
    double routerLinks = 0;
    uint64_t complete = 0;
    st.flows = records.size();
    for (const auto& r : records)
    {
        if (!r.complete)
        {
            ++st.incomplete;
            continue;
        }
        ++complete;
        st.throughputGbps.push_back(8.0 * r.spec.bytes / r.FctSeconds() / 1e9);
        st.slowdowns.push_back(r.Slowdown());
        st.completionS = std::max(st.completionS, r.finishS);
        const uint32_t n = FlowSimRouterLinks(r);
        st.pathLengthHist[n] += r.wireBytes;
        routerLinks += n * r.wireBytes;
        wire += r.wireBytes;
    }
    std::sort(st.throughputGbps.begin(), st.throughputGbps.end());
    if (wire > 0)
    {
        for (auto& [n, bytes] : st.pathLengthHist)
        {
            bytes /= wire;
        }
        st.meanRouterLinks = routerLinks / wire;
    }
    else if (complete > 0)
    {
        // The completed flows carried no bytes at all: weigh each of them once instead of
        // dividing by zero.
        st.pathLengthHist.clear();
        routerLinks = 0;
        for (const auto& r : records)
        {
            if (r.complete)
            {
                const uint32_t n = FlowSimRouterLinks(r);
                st.pathLengthHist[n] += 1.0 / complete;
                routerLinks += n;
            }
        }
        st.meanRouterLinks = routerLinks / complete;
    }
    // The span over which the link bytes were carried: every byte of a completed flow was
    // sent by its completion, while flows still running at the end sent theirs up to endS.
    const double span = st.incomplete == 0 ? st.completionS : std::max(endS, st.completionS);
    double sum = 0;
    double mx = 0;
    uint32_t loaded = 0;
    for (uint32_t d = 0; d < links.size(); ++d)
    {
        if (g.IsHost(g.GetDirLinkTail(d)) || g.IsHost(g.GetDirLinkHead(d)))
        {
            continue;
        }
        if (span > 0 && links[d].capacityBps > 0)
        {
            st.busiestRouterLinkUtil = std::max(st.busiestRouterLinkUtil,
                                                8 * links[d].bytes / (links[d].capacityBps * span));
        }
        if (links[d].bytes > 0)
        {
            sum += links[d].bytes;
            mx = std::max(mx, links[d].bytes);
            ++loaded;
        }
    }
    st.loadedImbalance = loaded ? mx / (sum / loaded) : 0;
    return st;
}

nlohmann::json
SummarizeFlowRun(const FlowSimulator& sim, const FabricGraph& g)
{
    const FlowRunStats st = ComputeFlowRunStats(sim, g);
    const std::vector<double>& tput = st.throughputGbps;
    double tputMean = 0;
    for (double x : tput)
    {
        tputMean += x / tput.size();
    }
    nlohmann::json hj = nlohmann::json::object();
    for (const auto& [k, fraction] : st.pathLengthHist)
    {
        hj[std::to_string(k)] = fraction;
    }
    return nlohmann::json{
        {"flows", st.flows},
        {"flows_incomplete", st.incomplete},
        {"completion_us", st.completionS * 1e6},
        {"throughput_gbps",
         {{"mean", tputMean},
          {"p1", Quantile(tput, 0.01)},
          {"min", tput.empty() ? 0 : tput.front()}}},
        {"fct_slowdown",
         {{"p50", Quantile(st.slowdowns, 0.5)}, {"p99", Quantile(st.slowdowns, 0.99)}}},
        {"mean_router_links", st.meanRouterLinks},
        {"path_length_hist", hj},
        {"busiest_router_link_util", st.busiestRouterLinkUtil},
        {"water_fillings", sim.GetStats().recomputations},
        {"wall_s", sim.GetStats().wallSeconds}};
}

std::vector<std::string>
FlowSimCsvHeader()
{
    return {
        "id", "src", "dst", "bytes", "start_us", "fct_us", "ideal_us", "slowdown", "router_links"};
}

std::vector<std::string>
FlowSimCsvCells(const FlowSimRecord& rec)
{
    return {std::to_string(rec.spec.id),
            std::to_string(rec.spec.src),
            std::to_string(rec.spec.dst),
            std::to_string(rec.spec.bytes),
            FormatNumber(rec.startS * 1e6),
            FormatNumber(rec.complete ? rec.FctSeconds() * 1e6 : -1.0),
            FormatNumber(rec.idealS * 1e6),
            FormatNumber(rec.Slowdown()),
            std::to_string(FlowSimRouterLinks(rec))};
}

nlohmann::json
CompareFlowRuns(const nlohmann::json& run,
                const nlohmann::json& baseline,
                double tolerance,
                const std::string& baselineName)
{
    if (!(tolerance >= 0 && tolerance < 1))
    {
        throw std::invalid_argument("CompareFlowRuns: tolerance must be in [0, 1), got "
                                    + std::to_string(tolerance));
    }
    if (run["flows_incomplete"].get<uint32_t>() + baseline["flows_incomplete"].get<uint32_t>() > 0)
    {
        return {{"matches_or_exceeds", nullptr}, {"reason", "flows incomplete"}};
    }
    const double done
        = run["completion_us"].get<double>() / baseline["completion_us"].get<double>();
    const double tput = run["throughput_gbps"]["mean"].get<double>()
                      / baseline["throughput_gbps"]["mean"].get<double>();
    const std::string suffix = baselineName.empty() ? "baseline" : baselineName;
    return {{"completion_vs_" + suffix, done},
            {"mean_throughput_vs_" + suffix, tput},
            {"matches_or_exceeds", done <= 1 + tolerance && tput >= 1 - tolerance}};
}

} // namespace ns3
