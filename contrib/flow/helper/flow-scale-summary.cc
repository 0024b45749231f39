// SPDX-License-Identifier: GPL-2.0-only
#include "flow-scale-summary.h"

#include "ns3/fabric-stats.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowScaleSummary");

nlohmann::json
FlowScaleSummary::ToJson() const
{
    return nlohmann::json{{"completion_ms", completionMs},
                          {"complete", complete},
                          {"flows", flows},
                          {"mean_hops", meanHops},
                          {"max_fabric_util", maxUtil},
                          {"loaded_imbalance", imbalance},
                          {"slowdown_median", slowdownMedian},
                          {"wall_s", wallS}};
}

FlowScaleSummary
SummarizeFlowScaleRun(const FlowSimulator& sim, const FabricGraph& g)
{
    FlowScaleSummary o;
    double hops = 0;
    std::vector<double> slow;
    const auto& records = sim.GetRecords();
    for (const auto& r : records)
    {
        o.completionMs = std::max(o.completionMs, r.finishS * 1e3);
        o.complete += r.complete ? 1 : 0;
        hops += r.dirLinks.size();
        slow.push_back(r.Slowdown());
    }
    o.flows = records.size();
    o.meanHops = records.empty() ? 0 : hops / records.size();
    o.slowdownMedian = Quantile(slow, 0.5);
    double sum = 0;
    double mx = 0;
    uint32_t loaded = 0;
    const auto& links = sim.GetLinks();
    for (uint32_t d = 0; d < links.size(); ++d)
    {
        if (g.IsHost(g.GetDirLinkTail(d)) || g.IsHost(g.GetDirLinkHead(d)) || links[d].bytes <= 0)
        {
            continue;
        }
        sum += links[d].bytes;
        mx = std::max(mx, links[d].bytes);
        ++loaded;
        if (o.completionMs > 0)
        {
            o.maxUtil = std::max(
                o.maxUtil, 8 * links[d].bytes / (links[d].capacityBps * o.completionMs * 1e-3));
        }
    }
    o.imbalance = loaded ? mx / (sum / loaded) : 0;
    return o;
}

} // namespace ns3
