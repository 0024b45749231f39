// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_RUN_SUMMARY_H
#define ROCE_RUN_SUMMARY_H

#include "ns3/fabric-results.h"
#include "ns3/fabric-routing.h"
#include "ns3/link-load.h"
#include "ns3/roce-traffic-helper.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * The per-run statistics of a RoCE run as JSON, the way the scenarios report them:
 * "flows", "flows_complete", "flows_incomplete", "flows_with_retransmissions",
 * "throughput_gbps" {mean, p1, min, p50, max} and "fct_slowdown" {p50, p90, p99, max} and
 * "fct_us" {p50, p99} over the completed flows (nearest-rank quantiles), "makespan_us" (first
 * start to last finish of completed flows), "routed_path_length_hist_per_flow" (fraction of
 * flows per switch-switch links on their routed path), "retransmitted_packets", "timeouts",
 * "cnps", "drops" (by reason), "horizon_us", "events", "wall_s", and the packet accounting
 * of PacketAccountingJson ("sent_packets", "delivered_packets", "dropped_packets",
 * "dropped_by_reason", "in_flight_at_stop", "stopped_at_horizon": true when flows were still
 * incomplete at the horizon).
 * \param horizon the run's stop time (reported as horizon_us)
 */
nlohmann::json SummarizeRoceRun(const FabricRoceRunResult& run, Time horizon);

/**
 * \ingroup roce
 * Flows of \p flows whose data path or ACK path (the receiver's port 4791 back to the flow's
 * source port, as RoceReceiver sends ACKs) \p routing does not deliver (TracePath): the flows
 * a failure blackholes before the routing reconverges.
 */
uint32_t CountRoceFlowsNotRouted(const FabricRouting& routing, const std::vector<FlowSpec>& flows);

/**
 * \ingroup roce
 * The flows of \p flows whose data path and ACK path \p routing delivers (the complement of
 * CountRoceFlowsNotRouted), renumbered 0, 1, ... in their order: after a failure and
 * reconvergence, the flows that can run at all.
 */
std::vector<FlowSpec> SelectRoutedRoceFlows(const FabricRouting& routing,
                                            const std::vector<FlowSpec>& flows);

/// \ingroup roce The column names of RoceFlowCsvCells.
std::vector<std::string> RoceFlowCsvHeader();

/**
 * \ingroup roce
 * One flow as CSV cells: flow, src, dst, bytes, complete, fct_us (-1 if not complete),
 * ideal_us, slowdown, throughput_gbps, retx, cnps, routed_router_links (switch-switch links of
 * the routed path).
 */
std::vector<std::string> RoceFlowCsvCells(const RoceFlowRecord& record);

/**
 * \ingroup roce
 * Message throughput (Gb/s) of \p bytes delivered in one bin of \p binUs microseconds (the
 * unit of RoceFlowRecord::rxBins, recorded with FabricRoceRunOptions::throughputBin).
 */
double RoceBinGbps(uint64_t bytes, double binUs);

/**
 * \ingroup roce
 * One CSV row per flow and bin: \p prefix cells, then flow index, bin centre (us) and
 * throughput (Gb/s); the columns after the prefix are "flow", "t_us", "gbps".
 */
void WriteRoceThroughputRows(CsvWriter& csv,
                             const std::vector<std::string>& prefix,
                             const std::vector<RoceFlowRecord>& flows,
                             double binUs);

/**
 * \ingroup roce
 * Every flow's throughput over time, one line per flow titled by \p name(flow index), y axis
 * from 0 to 1.05 x \p lineGbps.
 */
Gnuplot RoceThroughputPlot(const std::vector<RoceFlowRecord>& flows,
                           double binUs,
                           const std::string& title,
                           double lineGbps,
                           const std::function<std::string(size_t)>& name);

/**
 * \ingroup roce
 * What a run made of the fabric links several flows share (FindSharedFabricLinks).
 */
struct SharedLinkReport
{
    /// Per shared link: link (label), flows, max_queue_bytes, ecn_marks, drops.
    nlohmann::json links = nlohmann::json::array();
    std::set<uint32_t> flows;  //!< every flow on a shared link
    std::string label;         //!< "LINK:f,f LINK:f,f" (empty: nothing shared)
    uint64_t maxQueueBytes{0}; //!< worst queue over the shared links
    uint64_t ecnMarks{0};      //!< marks summed over the shared links

    /**
     * The columns of a shared-link study's per-flow CSV: \p prefix, then flow, src, dst,
     * bytes, fct_us, throughput_gbps, slowdown ("incomplete" for a flow not complete),
     * collided (1: on a shared link), retx, cnps, path (node ids, space-separated).
     */
    static std::vector<std::string> FlowCsvHeader(std::vector<std::string> prefix);
    /// Flow \p index of the run as the cells of FlowCsvHeader(prefix).
    std::vector<std::string> FlowCsvCells(std::vector<std::string> prefix,
                                          size_t index,
                                          const RoceFlowRecord& record) const;
    /// RoceFlowsToJson(\p flows) with "collided" (on a shared link) per flow.
    nlohmann::json FlowsJson(const std::vector<RoceFlowRecord>& flows) const;
};

/**
 * \param queueCsv if not null, one row per queue sample of each shared link: \p prefix cells,
 *        link label, t_us, bytes (needs FabricRoceRunOptions::queueSampleLinks)
 */
SharedLinkReport ReportSharedLinks(const FabricGraph& g,
                                   const std::vector<SharedLink>& shared,
                                   const FabricRoceRunResult& run,
                                   CsvWriter* queueCsv,
                                   const std::vector<std::string>& prefix);

/**
 * \ingroup roce
 * Extremes over the completed flows of a run (throughput and FCT are 0 when none completed).
 */
struct RoceFlowExtremes
{
    double minGbps{0};
    double maxGbps{0};
    double maxFctUs{0};
    bool allComplete{true};
};

RoceFlowExtremes ComputeRoceFlowExtremes(const std::vector<RoceFlowRecord>& flows);

} // namespace ns3

#endif // ROCE_RUN_SUMMARY_H
