// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_RUN_SUMMARY_H
#define FLOW_RUN_SUMMARY_H

#include "ns3/fabric-graph.h"
#include "ns3/flow-simulator.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * Switch-to-switch links on a flow-level record's hashed path (path nodes - 3: the host
 * links at both ends do not count), 0 for a path shorter than that.
 */
uint32_t FlowSimRouterLinks(const FlowSimRecord& record);

/**
 * \ingroup flow
 * The statistics of a finished flow-level run, defined once for every table that reports one
 * (SummarizeFlowRun's JSON, flow-scale's FlowScaleSummary row).
 *
 * Paths are the flows' hashed paths; "router links" are the switch-to-switch links of a path
 * (FlowSimRouterLinks), "router-router links" the directed links with no host at either end.
 */
struct FlowRunStats
{
    uint64_t flows{0};      //!< flows in the run
    uint64_t incomplete{0}; //!< flows not complete at the end of the run
    double completionS{0};  //!< last finish of a completed flow (0: none completed)
    /// Message bits / FCT of each completed flow in Gb/s, ascending.
    std::vector<double> throughputGbps;
    /// FCT / ideal FCT of each completed flow, in flow order.
    std::vector<double> slowdowns;
    /// Router links per completed flow, weighted by the flows' wire bytes (by flow count if
    /// the completed flows carried no bytes; 0 if none completed).
    double meanRouterLinks{0};
    /// Fraction of the completed flows' wire bytes by router links of their paths (of their
    /// count if they carried no bytes; empty if none completed). Sums to 1.
    std::map<uint32_t, double> pathLengthHist;
    /**
     * Busiest router-router link: bytes x 8 / (capacity x span), the span being the time in
     * which the counted bytes were carried: completionS when every flow completed (each sent
     * its bytes by then), the run's end (FlowSimStats::endS) when some did not (their bytes
     * are counted up to it). A link never carries more than its capacity, so this is at most
     * 1. 0 if the span is 0.
     */
    double busiestRouterLinkUtil{0};
    /// Max / mean bytes over the router-router links that carried bytes (0 if none did).
    double loadedImbalance{0};
};

/**
 * \ingroup flow
 * The statistics of a finished run.
 * \param graph the graph the run's routing was bound to
 */
FlowRunStats ComputeFlowRunStats(const FlowSimulator& sim, const FabricGraph& graph);

/**
 * \ingroup flow
 * The same from a run's records: \p links are its directed links' records (as
 * FlowSimulator::GetLinks), their bytes counted up to \p endS (FlowSimStats::endS).
 * \throws std::invalid_argument if \p links does not have one record per directed link of
 *         \p graph, or \p endS is negative or not finite
 */
FlowRunStats ComputeFlowRunStats(const std::vector<FlowSimRecord>& records,
                                 const std::vector<FlowSimLinkRecord>& links,
                                 double endS,
                                 const FabricGraph& graph);

/**
 * \ingroup flow
 * The per-run statistics of a flow-level run (ComputeFlowRunStats) as JSON, the way the scenarios
 * compare them with packet-level runs: "flows", "flows_incomplete", "completion_us" (last finish of
 * a completed flow), "throughput_gbps" {mean, p1, min} (message bits / FCT of the completed flows,
 * nearest-rank p1), "fct_slowdown" {p50, p99}, "mean_router_links" and "path_length_hist"
 * (switch-switch links of the hashed paths, weighted by wire bytes), "busiest_router_link_util"
 * (bytes of the busiest switch-switch link / (capacity x the time they took), at most 1;
 * see FlowRunStats::busiestRouterLinkUtil), "water_fillings" and
 * "wall_s" (the run's wall clock).
 * \param graph the graph the run's routing was bound to
 */
nlohmann::json SummarizeFlowRun(const FlowSimulator& sim, const FabricGraph& graph);

/// \ingroup flow The column names of FlowSimCsvCells.
std::vector<std::string> FlowSimCsvHeader();

/**
 * \ingroup flow
 * One flow as CSV cells: id, src, dst, bytes, start_us, fct_us (-1 if not complete), ideal_us,
 * slowdown, router_links (FlowSimRouterLinks).
 */
std::vector<std::string> FlowSimCsvCells(const FlowSimRecord& record);

/**
 * \ingroup flow
 * Whether a run "matches or exceeds" a baseline run of the same flows (two SummarizeFlowRun
 * results): completion time at most (1 + \p tolerance) x the baseline's and mean throughput at
 * least (1 - \p tolerance) x the baseline's. When either side left flows incomplete the
 * comparison over completed flows would flatter it: no verdict ("matches_or_exceeds": null,
 * "reason": "flows incomplete"). Otherwise "completion_vs_baseline", "mean_throughput_vs_baseline"
 * (ratios run / baseline) and "matches_or_exceeds".
 * \param baselineName the suffix of the two ratio keys ("baseline" when empty), e.g. "fat_tree"
 */
nlohmann::json CompareFlowRuns(const nlohmann::json& run,
                               const nlohmann::json& baseline,
                               double tolerance,
                               const std::string& baselineName = "baseline");

} // namespace ns3

#endif // FLOW_RUN_SUMMARY_H
