// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-hop-counter.h"

#include "ns3/fabric-switch-forwarder.h"
#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHopCounter");
NS_OBJECT_ENSURE_REGISTERED(FabricHopCounter);

TypeId
FabricHopCounter::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricHopCounter")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricHopCounter>();
    return tid;
}

FabricHopCounter::FabricHopCounter()
    : m_filter(std::make_shared<Filter>()),
      m_hops(std::make_shared<std::unordered_map<uint64_t, uint32_t>>()),
      m_hist(std::make_shared<std::map<uint32_t, uint64_t>>())
{
    NS_LOG_FUNCTION(this);
}

void
FabricHopCounter::Install(Ptr<FabricNetwork> net)
{
    NS_LOG_FUNCTION(this << net);
    const FabricGraph& g = net->GetGraph();
    auto hops = m_hops;
    auto hist = m_hist;
    for (uint32_t v = g.GetNHosts(); v < g.GetNNodes(); ++v)
    {
        auto fw = net->GetNode(v)->GetObject<FabricSwitchForwarder>();
        if (!fw)
        {
            throw std::invalid_argument("FabricHopCounter: switch " + g.GetName(v)
                                        + " has no FabricSwitchForwarder (fast switch mode only)");
        }
        fw->TraceConnectWithoutContext("Forward",
                                       Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
                                           [hops](Ptr<const Packet> p, uint32_t, uint32_t)
                                           { (*hops)[p->GetUid()]++; }));
    }
    // The filter is read when a packet arrives, so SetFilter may follow Install.
    auto filter = m_filter;
    for (uint32_t h = 0; h < g.GetNHosts(); ++h)
    {
        for (uint32_t port = 0; port < g.GetNPorts(h); ++port)
        {
            net->GetDevice(h, port)->TraceConnectWithoutContext(
                "MacRx",
                Callback<void, Ptr<const Packet>>(
                    [hops, hist, filter](Ptr<const Packet> p)
                    {
                        auto it = hops->find(p->GetUid());
                        if (it == hops->end())
                        {
                            return;
                        }
                        if (!*filter || (*filter)(p))
                        {
                            (*hist)[it->second]++;
                        }
                        hops->erase(it);
                    }));
        }
    }
}

uint64_t
FabricHopCounter::GetPackets() const
{
    uint64_t n = 0;
    for (const auto& [k, c] : *m_hist)
    {
        n += c;
    }
    return n;
}

} // namespace ns3
