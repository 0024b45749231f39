// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_SCALE_SUMMARY_H
#define FLOW_SCALE_SUMMARY_H

#include "ns3/fabric-graph.h"
#include "ns3/flow-simulator.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace ns3
{

/**
 * \ingroup flow
 * What a flow-level run of one pattern gives, in one row: completion of the whole pattern,
 * path lengths, and how evenly the fabric (switch-to-switch) links were loaded.
 */
struct FlowScaleSummary
{
    double completionMs{0};   //!< latest completion of any flow
    uint64_t complete{0};     //!< flows that completed
    uint64_t flows{0};        //!< flows in the run
    double meanHops{0};       //!< directed links per flow (hashed paths), host links included
    double maxUtil{0};        //!< busiest fabric link: bytes x 8 / (capacity x completion)
    double imbalance{0};      //!< max / mean bytes over the loaded fabric links
    double slowdownMedian{0}; //!< median FCT / ideal FCT
    double wallS{0};          //!< wall time of the run, set by the caller

    /// Keys completion_ms, complete, flows, mean_hops, max_fabric_util, loaded_imbalance,
    /// slowdown_median, wall_s.
    nlohmann::json ToJson() const;
};

/**
 * \ingroup flow
 * Summarize a finished run over \p graph (the graph its routing was bound to); wallS is 0.
 */
FlowScaleSummary SummarizeFlowScaleRun(const FlowSimulator& sim, const FabricGraph& graph);

} // namespace ns3

#endif // FLOW_SCALE_SUMMARY_H
