// SPDX-License-Identifier: GPL-2.0-only
#include "roce-routing-study.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-hop-counter.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/log.h"
#include "ns3/roce-header.h"
#include "ns3/roce-run-summary.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRoutingStudy");

RoceHopRun
RunRoceCountingHops(Ptr<FabricRouting> routing,
                    const std::vector<FlowSpec>& flows,
                    double lineBps,
                    TypeId rateControl,
                    Time stopAt)
{
    NS_LOG_FUNCTION(routing << flows.size() << lineBps << stopAt);
    FabricNetworkHelper links;
    links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(lineBps))));
    auto net = links.Install(routing->GetGraphPtr(), routing);
    auto hops = CreateObject<FabricHopCounter>();
    hops->SetFilter(IsRoceDataFrame);
    hops->Install(net);
    FabricRoceRunOptions opt;
    opt.stopAt = stopAt;
    opt.senderAttributes["RateControl"] = std::make_shared<TypeIdValue>(rateControl);
    FabricRoceRunResult r = RunFabricRoce(net, flows, opt);

    RoceHopRun out;
    out.summary = SummarizeRoceRun(r, stopAt);
    out.summary["routing"] = routing->GetName();
    // Path lengths of the data packets as they happened: switch-switch links = switches - 1.
    nlohmann::json h = nlohmann::json::object();
    const uint64_t tot = hops->GetPackets();
    double mean = 0;
    for (const auto& [switches, c] : hops->GetHistogram())
    {
        const uint32_t routerLinks = switches - 1;
        h[std::to_string(routerLinks)] = double(c) / tot;
        mean += double(routerLinks) * c / tot;
    }
    out.summary["path_length_hist"] = h;
    out.summary["path_length_data_packets"] = tot;
    out.summary["mean_router_links"] = mean;
    out.flows = std::move(r.flows);
    return out;
}

nlohmann::json
RoceFailureImpact::Json() const
{
    return {{"flows", flows},
            {"flows_blackholed_predicted", predicted},
            {"flows_hit_before_reconvergence", hitFraction},
            {"flows_unroutable_after", unroutable},
            {"before", before.summary},
            {"after", after.summary}};
}

RoceFailureImpact
MeasureRoceFailureImpact(Ptr<FabricRouting> before,
                         Ptr<FabricRouting> after,
                         const std::vector<FlowSpec>& flows,
                         double lineBps,
                         TypeId rateControl,
                         Time blackhole,
                         Time stopAt)
{
    NS_LOG_FUNCTION(before << after << flows.size() << blackhole << stopAt);
    RoceFailureImpact r;
    r.flows = static_cast<uint32_t>(flows.size());
    // Flows whose data or ACK path the routing function sends into the failure.
    r.predicted = CountRoceFlowsNotRouted(*before, flows);
    // After reconvergence a failure may leave some flows without any path (a leaf that lost
    // all its uplinks): they cannot start, and are counted apart.
    const std::vector<FlowSpec> routed = SelectRoutedRoceFlows(*after, flows);
    r.unroutable = static_cast<uint32_t>(flows.size() - routed.size());
    if (routed.empty())
    {
        throw std::invalid_argument("the failure disconnects every flow: the reconverged "
                                    "routing delivers none of them");
    }
    r.before = RunRoceCountingHops(before, flows, lineBps, rateControl, blackhole);
    r.hitFraction = flows.empty()
                      ? 0.0
                      : double(r.before.summary["flows_incomplete"].get<uint32_t>()) / flows.size();
    r.after = RunRoceCountingHops(after, routed, lineBps, rateControl, stopAt);
    return r;
}

} // namespace ns3
