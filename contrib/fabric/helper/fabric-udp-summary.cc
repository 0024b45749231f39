// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-udp-summary.h"

#include "ns3/fabric-checks.h"
#include "ns3/fabric-stats.h"
#include "ns3/link-load.h"
#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricUdpSummary");

nlohmann::json
CompareUdpRunWithAnalytic(const FabricUdpRunResult& r,
                          const std::vector<FlowSpec>& flows,
                          const std::vector<double>& analyticBytes,
                          const std::vector<uint32_t>& metricLinks)
{
    if (r.flows.empty() || r.flows.size() != flows.size())
    {
        throw std::invalid_argument("CompareUdpRunWithAnalytic: one record per flow expected, "
                                    "and at least one flow");
    }
    std::vector<double> measured(r.links.size());
    for (size_t d = 0; d < r.links.size(); ++d)
    {
        measured[d] = double(r.links[d].txBytes);
    }
    const ImbalanceStats st = ComputeImbalance(measured, metricLinks);
    uint64_t maxQueue = 0;
    for (uint32_t d : metricLinks)
    {
        maxQueue = std::max(maxQueue, r.links[d].maxQueueBytes);
    }
    std::vector<double> tput;
    double lastRx = 0;
    uint64_t incomplete = 0;
    for (size_t f = 0; f < r.flows.size(); ++f)
    {
        tput.push_back(r.flows[f].ThroughputBps() / 1e9);
        lastRx = std::max(lastRx, r.flows[f].lastRx.GetSeconds());
        incomplete += (r.flows[f].rxBytes < flows[f].bytes) ? 1 : 0;
    }
    std::sort(tput.begin(), tput.end());
    const MeanStd t = ComputeMeanStd(tput);
    nlohmann::json drops = nlohmann::json::object();
    for (const auto& [reason, n] : r.drops)
    {
        drops[reason] = n;
    }
    nlohmann::json j{
        {"imbalance", st.imbalance},
        {"loaded_imbalance", st.loadedImbalance},
        {"max_rel_err_vs_analytic", MaxRelativeError(measured, analyticBytes, metricLinks)},
        {"max_queue_bytes", maxQueue},
        {"drops", drops},
        {"flows_incomplete", incomplete},
        {"throughput_gbps_mean", t.mean},
        {"throughput_gbps_min", tput.front()},
        {"throughput_gbps_p50", tput[tput.size() / 2]},
        {"throughput_gbps_max", tput.back()},
        {"completion_us", lastRx * 1e6},
        {"hop_packets", r.hopPackets},
        {"wall_s", r.wallSeconds}};
    // A UDP run drains the network before it ends: nothing may be in flight.
    j.update(PacketAccountingJson(
        r.sentPackets, r.deliveredPackets, r.drops, false, r.measuredInFlightPackets));
    return j;
}

} // namespace ns3
