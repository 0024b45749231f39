// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-hop-counter.h"

#include "ns3/fabric-switch-forwarder.h"
#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHopCounter");
NS_OBJECT_ENSURE_REGISTERED(FabricHopCounter);

FabricHopCounter::HopTable::HopTable(uint32_t slotsLog2)
{
    if (slotsLog2 > 30)
    {
        throw std::invalid_argument("FabricHopCounter::HopTable: slotsLog2 must be 0..30, got "
                                    + std::to_string(slotsLog2));
    }
    m_slots.resize(std::size_t(1) << slotsLog2);
    m_mask = m_slots.size() - 1;
}

void
FabricHopCounter::HopTable::Count(uint64_t uid)
{
    Slot& s = m_slots[uid & m_mask];
    if (s.uidPlusOne == uid + 1)
    {
        ++s.hops;
        return;
    }
    if (!m_overflow.empty())
    {
        auto it = m_overflow.find(uid);
        if (it != m_overflow.end())
        {
            ++it->second;
            return;
        }
    }
    // A packet's first hop: it takes its slot; a packet holding the slot (still in flight, or
    // dropped on the way and never taken) moves to the map.
    if (s.uidPlusOne != 0)
    {
        m_overflow.emplace(s.uidPlusOne - 1, s.hops);
    }
    else
    {
        ++m_inSlots;
    }
    s.uidPlusOne = uid + 1;
    s.hops = 1;
}

bool
FabricHopCounter::HopTable::Take(uint64_t uid, uint32_t& hops)
{
    Slot& s = m_slots[uid & m_mask];
    if (s.uidPlusOne == uid + 1)
    {
        hops = s.hops;
        s = Slot{};
        --m_inSlots;
        return true;
    }
    if (m_overflow.empty())
    {
        return false;
    }
    auto it = m_overflow.find(uid);
    if (it == m_overflow.end())
    {
        return false;
    }
    hops = it->second;
    m_overflow.erase(it);
    return true;
}

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
    : m_state(std::make_shared<State>())
{
    NS_LOG_FUNCTION(this);
}

void
FabricHopCounter::Install(Ptr<FabricNetwork> net)
{
    NS_LOG_FUNCTION(this << net);
    const FabricGraph& g = net->GetGraph();
    State* state = m_state.get();
    auto keep = m_state; // the sinks keep the state alive
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
                                           [keep, state](Ptr<const Packet> p, uint32_t, uint32_t)
                                           { state->hops.Count(p->GetUid()); }));
    }
    // The filter is read when a packet arrives, so SetFilter may follow Install.
    for (uint32_t h = 0; h < g.GetNHosts(); ++h)
    {
        for (uint32_t port = 0; port < g.GetNPorts(h); ++port)
        {
            net->GetDevice(h, port)->TraceConnectWithoutContext(
                "PhyRxEnd",
                Callback<void, Ptr<const Packet>>(
                    [keep, state](Ptr<const Packet> p)
                    {
                        uint32_t hops = 0;
                        if (!state->hops.Take(p->GetUid(), hops))
                        {
                            return;
                        }
                        if (!state->filter || state->filter(p))
                        {
                            state->hist[hops]++;
                        }
                    }));
        }
    }
}

uint64_t
FabricHopCounter::GetPackets() const
{
    uint64_t n = 0;
    for (const auto& [k, c] : m_state->hist)
    {
        n += c;
    }
    return n;
}

} // namespace ns3
