// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_UDP_SUMMARY_H
#define FABRIC_UDP_SUMMARY_H

#include "ns3/fabric-udp-run.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * A packet-level UDP run compared with the analytic link loads, as JSON: "imbalance" and
 * "loaded_imbalance" of the measured bytes over \p metricLinks (ComputeImbalance),
 * "max_rel_err_vs_analytic" (MaxRelativeError of measured against \p analyticBytes over the
 * same links), "max_queue_bytes" over them, "drops" by reason, the packet accounting of
 * PacketAccountingJson ("sent_packets", "delivered_packets", "dropped_packets",
 * "dropped_by_reason", "in_flight_at_stop", "stopped_at_horizon" false: the run drains),
 * "flows_incomplete", per-flow throughput "throughput_gbps_{mean,min,p50,max}" (p50: the
 * upper median), "completion_us" (last packet received), "hop_packets", "wall_s".
 * \param flows the flows of the run (their bytes decide completeness)
 * \param analyticBytes per directed link, e.g. ComputeDirLinkLoads with on-wire bytes
 * \throws std::invalid_argument on a run without flows
 */
nlohmann::json CompareUdpRunWithAnalytic(const FabricUdpRunResult& run,
                                         const std::vector<FlowSpec>& flows,
                                         const std::vector<double>& analyticBytes,
                                         const std::vector<uint32_t>& metricLinks);

} // namespace ns3

#endif // FABRIC_UDP_SUMMARY_H
