// SPDX-License-Identifier: GPL-2.0-only
#include "flow-sim-helper.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowSimHelper");

FlowSimHelper::FlowSimHelper() {}

void
FlowSimHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    // ObjectFactory::Set's checks and messages, with the attributes' names and checkers
    // listed once per process (TypeId::LookupAttributeByName copies every attribute's
    // information on each call: 4-5 k instructions, and a helper is made per run).
    struct Attribute
    {
        std::string name;
        Ptr<const AttributeChecker> checker;
    };
    static const std::vector<Attribute> s_attributes = []
    {
        std::vector<Attribute> all;
        for (TypeId tid = FlowSimulator::GetTypeId();; tid = tid.GetParent())
        {
            for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                const TypeId::AttributeInformation info = tid.GetAttribute(i);
                all.push_back({info.name, info.checker});
            }
            if (tid.GetParent() == tid)
            {
                break;
            }
        }
        return all;
    }();
    const auto it = std::find_if(s_attributes.begin(),
                                 s_attributes.end(),
                                 [&name](const Attribute& a) { return a.name == name; });
    if (it == s_attributes.end())
    {
        NS_FATAL_ERROR("Invalid attribute set (" << name << ") on ns3::FlowSimulator");
    }
    Ptr<AttributeValue> valid = it->checker->CreateValidValue(value);
    if (!valid)
    {
        NS_FATAL_ERROR("Invalid value for attribute set (" << name << ") on ns3::FlowSimulator");
    }
    m_attributes.Add(name, it->checker, valid);
}

Ptr<FlowSimulator>
FlowSimHelper::Run(Ptr<FabricRouting> routing,
                   const std::vector<FlowSpec>& flows,
                   const std::vector<FlowSimLinkEvent>& events,
                   double stopS) const
{
    NS_LOG_FUNCTION(this << flows.size() << events.size());
    Ptr<FlowSimulator> sim = FlowSimulator::CreateWithAttributes(m_attributes);
    sim->SetRouting(routing);
    sim->AddFlows(flows);
    for (const auto& e : events)
    {
        sim->AddLinkEvent(e);
    }
    sim->Run(stopS);
    return sim;
}

nlohmann::json
FlowSimFlowsToJson(const std::vector<FlowSimRecord>& flows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : flows)
    {
        const double fct = r.FctSeconds();
        out.push_back({{"id", r.spec.id},
                       {"src", r.spec.src},
                       {"dst", r.spec.dst},
                       {"bytes", r.spec.bytes},
                       {"src_port", r.spec.srcPort},
                       {"complete", r.complete},
                       {"start_us", r.startS * 1e6},
                       {"fct_us", r.complete ? fct * 1e6 : -1.0},
                       {"ideal_us", r.idealS * 1e6},
                       {"slowdown", r.Slowdown()},
                       {"throughput_gbps", fct > 0 ? 8.0 * r.spec.bytes / fct / 1e9 : 0.0},
                       {"stalled_us", r.stalledS * 1e6},
                       {"reroutes", r.reroutes},
                       {"path", r.path}});
    }
    return out;
}

nlohmann::json
FlowSimLinksToJson(const FlowSimulator& sim, const FabricGraph& graph)
{
    nlohmann::json out = nlohmann::json::array();
    const double end = sim.GetStats().endS;
    const double bin = sim.GetBinSeconds();
    const auto& links = sim.GetLinks();
    for (uint32_t d = 0; d < links.size(); ++d)
    {
        const FlowSimLinkRecord& l = links[d];
        if (l.bytes <= 0)
        {
            continue;
        }
        nlohmann::json j{{"dir_link", d},
                         {"label", graph.GetDirLinkLabel(d)},
                         {"bytes", l.bytes},
                         {"capacity_gbps", l.capacityBps / 1e9},
                         {"utilization", end > 0 ? 8 * l.bytes / (l.capacityBps * end) : 0.0}};
        if (bin > 0)
        {
            std::vector<double> u;
            for (double b : l.binBytes)
            {
                u.push_back(8 * b / (l.capacityBps * bin));
            }
            j["utilization_bins"] = u;
        }
        out.push_back(j);
    }
    return out;
}

} // namespace ns3
