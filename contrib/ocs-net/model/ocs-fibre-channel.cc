// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-fibre-channel.h"

#include "ns3/fabric-drop-reason.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsFibreChannel");
NS_OBJECT_ENSURE_REGISTERED(OcsFibreChannel);

TypeId
OcsFibreChannel::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OcsFibreChannel")
              .SetParent<PointToPointChannel>()
              .SetGroupName("OcsNet")
              .AddConstructor<OcsFibreChannel>()
              .AddTraceSource("Drop",
                              "A frame lost because the link had no established circuit",
                              MakeTraceSourceAccessor(&OcsFibreChannel::m_dropTrace),
                              "ns3::OcsFibreChannel::DropTracedCallback")
              .AddTraceSource("WireLoss",
                              "Of the dropped frames, one that had started transmission (lost "
                              "on the fibre, not taken from a device queue): what a monitor "
                              "counting packets on links must know.",
                              MakeTraceSourceAccessor(&OcsFibreChannel::m_wireLossTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

OcsFibreChannel::OcsFibreChannel()
{
    NS_LOG_FUNCTION(this);
}

bool
OcsFibreChannel::TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime)
{
    NS_LOG_FUNCTION(this << p << src);
    m_busyUntil = std::max(m_busyUntil, Simulator::Now() + txTime + GetDelay());
    if (!m_carrying)
    {
        m_wireLossTrace(p);
        Drop(p);
        return true; // the device does not know: the light just goes nowhere
    }
    const uint32_t from = GetSource(0) == src ? 0 : 1;
    Ptr<PointToPointNetDevice> dst = GetDestination(from);
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + GetDelay(),
                                   &OcsFibreChannel::Arrive,
                                   this,
                                   p->Copy(),
                                   from,
                                   m_epoch);
    return true;
}

void
OcsFibreChannel::Arrive(Ptr<Packet> p, uint32_t from, uint64_t epoch)
{
    if (epoch != m_epoch || !m_carrying)
    {
        m_wireLossTrace(p);
        Drop(p); // the circuit changed while the frame was on the fibre
        return;
    }
    ++m_delivered[from];
    GetDestination(from)->Receive(p);
}

void
OcsFibreChannel::Drop(Ptr<const Packet> p)
{
    ++m_darkDrops;
    m_dropTrace(p, FabricDropReason::OCS_DARK);
}

void
OcsFibreChannel::SetCarrying(bool carrying)
{
    NS_LOG_FUNCTION(this << carrying);
    if (carrying == m_carrying)
    {
        return;
    }
    m_carrying = carrying;
    if (carrying)
    {
        return;
    }
    ++m_epoch;
    // What waits in either device would be sent into the dark: drop it now, as ocs-dark.
    for (uint32_t i = 0; i < GetNDevices(); ++i)
    {
        Ptr<Queue<Packet>> q = GetSource(i)->GetQueue();
        while (q && !q->IsEmpty())
        {
            Drop(q->Remove());
        }
    }
}

} // namespace ns3
