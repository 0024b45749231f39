// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_ROUTING_STUDY_H
#define ROCE_ROUTING_STUDY_H

#include "ns3/fabric-routing.h"
#include "ns3/roce-traffic-helper.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * A packet-level RoCE run of a routing study: its JSON summary and the per-flow records.
 */
struct RoceHopRun
{
    /**
     * SummarizeRoceRun, plus "routing" (the routing's name), "path_length_hist" (fraction of
     * the data packets per switch-switch links crossed: switches on the path - 1, counted as
     * the packets were forwarded, retransmissions included), "path_length_data_packets" and
     * "mean_router_links".
     */
    nlohmann::json summary;
    std::vector<RoceFlowRecord> flows;
};

/**
 * \ingroup roce
 * Run \p flows with the RoCE transport over a fresh network of \p routing's graph (every link
 * at \p lineBps, FabricNetworkHelper's other defaults), counting the switch hops of every RoCE
 * data packet with a FabricHopCounter.
 * \param rateControl a TypeId derived from ns3::RoceRateControl (RoceRateControlTypeId)
 * \param stopAt the run's horizon
 */
RoceHopRun RunRoceCountingHops(Ptr<FabricRouting> routing,
                               const std::vector<FlowSpec>& flows,
                               double lineBps,
                               TypeId rateControl,
                               Time stopAt);

/**
 * \ingroup roce
 * What a failure does to RoCE flows before and after the routing reconverges.
 */
struct RoceFailureImpact
{
    uint32_t flows{0};
    uint32_t predicted{0};  //!< flows the unconverged routing sends into the failure
    double hitFraction{0};  //!< fraction of flows not complete at the blackhole horizon
    uint32_t unroutable{0}; //!< flows the reconverged routing cannot deliver (not run after)
    RoceHopRun before;      //!< unconverged routing, until the blackhole horizon
    RoceHopRun after;       //!< reconverged routing, the routable flows only

    /// "flows", "flows_blackholed_predicted", "flows_hit_before_reconvergence",
    /// "flows_unroutable_after", "before" and "after" (the two summaries).
    nlohmann::json Json() const;
};

/**
 * \ingroup roce
 * The blast radius of a failure: \p flows run with \p before (a routing that does not know of
 * the failure, e.g. a FailureMaskRouting over the failed state) until \p blackhole, then the
 * flows \p after (the reconverged routing) still delivers run with it until \p stopAt.
 * \throws std::invalid_argument if \p after delivers none of \p flows
 */
RoceFailureImpact MeasureRoceFailureImpact(Ptr<FabricRouting> before,
                                           Ptr<FabricRouting> after,
                                           const std::vector<FlowSpec>& flows,
                                           double lineBps,
                                           TypeId rateControl,
                                           Time blackhole,
                                           Time stopAt);

} // namespace ns3

#endif // ROCE_ROUTING_STUDY_H
