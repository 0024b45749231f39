// SPDX-License-Identifier: GPL-2.0-only
#ifndef PACKET_FLOW_COMPARE_H
#define PACKET_FLOW_COMPARE_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/traffic-pattern.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup compare
 * Sizes of a fabric of the packet-vs-flow comparison: zcube/roft: n GPUs, k per switch; rng:
 * n routers of degree k, s servers each.
 */
struct PacketFlowFabricSize
{
    uint32_t n;
    uint32_t k;
    uint32_t s;
    uint64_t seed;
};

/// \ingroup compare A fabric builder and the routing TypeId used on it by default.
struct PacketFlowFabricKind
{
    std::function<std::shared_ptr<const FabricGraph>(const PacketFlowFabricSize&)> build;
    std::string routing;
};

/**
 * \ingroup compare
 * The fabrics the comparison knows by name: "zcube" (ZCubeLayout, ns3::ZCubeRouting), "roft"
 * (RoftLayout with n/k spines, ns3::EcmpRouting), "rng" (a random regular router graph of
 * degree k with s servers per router, ns3::SpraypointRouting).
 */
const std::map<std::string, PacketFlowFabricKind>& PacketFlowFabricKinds();

/// \ingroup compare Link and transport parameters shared by both levels.
struct PacketFlowOptions
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

/// \ingroup compare A routing object of \p typeId with Seed = \p seed, bound to \p graph.
Ptr<FabricRouting> MakeSeededRouting(const std::string& typeId,
                                     uint64_t seed,
                                     std::shared_ptr<const FabricGraph> graph);

/// \ingroup compare The flow level's helper with the links of \p o (and the ramp model or not).
FlowSimHelper PacketFlowFlowHelper(const PacketFlowOptions& o, bool ramp);

/// \ingroup compare Seconds between two clock readings.
double WallSeconds(std::chrono::steady_clock::time_point a,
                   std::chrono::steady_clock::time_point b);

/// \ingroup compare Process CPU time in seconds (robust on a shared machine).
double ProcessCpuSeconds();

/// \ingroup compare What one comparison produced.
struct PacketFlowResult
{
    nlohmann::json run;        //!< the summary.json entry
    std::vector<double> ratio; //!< per complete flow: FCT packet / FCT flow
    double wallPacket{0};
    double wallFlow{0};
    double cpuPacket{0};
    double cpuFlow{0};
};

/**
 * \ingroup compare
 * Run \p flows over \p graph at the flow level (FlowSimulator, without and with the DCQCN-like
 * ramp) and, if o.packet, at the packet level (RoCE, RunFabricRoce), each with its own routing
 * object of TypeId \p routing (same attributes), and join them per flow: FCTs and their ratio,
 * paths, the queues met on the path, collisions (other flows on the flow's fabric links at
 * the same time, flow level, each counted once), per-link utilization at both levels, and
 * the packet run's retransmissions, CNPs, timeouts and drops (SummarizeRoceRun).
 *
 * A level's link utilization divides its bytes by the time they took: its last completion
 * when every flow completed at that level, else the end of its run (the packet level's stop,
 * the flow level's FlowSimStats::endS), up to which the unfinished flows' bytes are counted.
 * When a flow did not complete at one level or both (incomplete_flows > 0), completion_ratio
 * is null, and so is completion_packet_us / completion_flow_us / completion_flow_ramp_us for
 * a level where a flow did not complete; the FCT ratios cover the flows complete at both.
 * \param fabric,pattern names written into the result
 */
PacketFlowResult ComparePacketAndFlow(const std::string& fabric,
                                      const std::string& pattern,
                                      std::shared_ptr<const FabricGraph> graph,
                                      const std::string& routing,
                                      const std::vector<FlowSpec>& flows,
                                      const PacketFlowOptions& o);

/**
 * \ingroup compare
 * The columns of PacketFlowCsvRows: fabric, pattern, id, src, dst, bytes, start_us,
 * fct_packet_us, fct_flow_us, fct_flow_ramp_us, ratio (empty if either level did not
 * complete), retx, cnps, collisions, queue_delay_bound_us, path (node ids, space-separated).
 */
std::vector<std::string> PacketFlowCsvHeader();

/// \ingroup compare One row per flow of a ComparePacketAndFlow run entry (with packet level).
std::vector<std::vector<std::string>> PacketFlowCsvRows(const nlohmann::json& run);

/// \ingroup compare The columns of PacketFlowLinkCsvRows: fabric, pattern, link,
/// bytes_packet, bytes_flow, util_packet, util_flow.
std::vector<std::string> PacketFlowLinkCsvHeader();

/// \ingroup compare One row per loaded link of a ComparePacketAndFlow run entry.
std::vector<std::vector<std::string>> PacketFlowLinkCsvRows(const nlohmann::json& run);

/**
 * \ingroup compare
 * The \p count flows of a run entry with the largest FCT ratio (flows that completed at both
 * levels), largest first: id, src, dst, path, fct_ratio, the FCTs, retx, cnps, timeouts,
 * collisions and queue_delay_bound_us.
 */
nlohmann::json WorstPacketFlowFlows(const nlohmann::json& run, size_t count);

/**
 * \ingroup compare
 * Read a flow list: header "src,dst,bytes,start_us", then one flow per line (hosts in
 * [0, hosts-1], src != dst, bytes in [1, 2^40], start_us in [0, 1e9]). Source ports follow
 * MakeTraffic's rule (49152 + index among the source's flows, at most 16384 per source).
 * \throws std::invalid_argument naming the file, line and field of the first bad value
 */
std::vector<FlowSpec> ReadFlowList(const std::string& file, uint32_t hosts);

/**
 * \ingroup compare
 * A pattern item as the comparison takes it: a TrafficPattern name, and for prefill an
 * optional ":fraction" in (0, 1) (set in \p params).
 * \throws std::invalid_argument for a fraction on another pattern or out of range
 */
TrafficPattern ParsePatternItem(const std::string& item, TrafficPatternParams& params);

} // namespace ns3

#endif // PACKET_FLOW_COMPARE_H
