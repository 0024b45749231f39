// SPDX-License-Identifier: GPL-2.0-only
#include "roce-nic.h"

#include "pfc-queue.h"
#include "roce-sender.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNic");
NS_OBJECT_ENSURE_REGISTERED(RoceNic);

TypeId
RoceNic::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceNic")
              .SetParent<Object>()
              .SetGroupName("Roce")
              .AddConstructor<RoceNic>()
              .AddAttribute("DeviceQueuePackets",
                            "Data packets the arbiter keeps waiting in a port's device queue.",
                            UintegerValue(1),
                            MakeUintegerAccessor(&RoceNic::m_depth),
                            MakeUintegerChecker<uint32_t>(1, 1000));
    return tid;
}

RoceNic::RoceNic()
{
    NS_LOG_FUNCTION(this);
}

void
RoceNic::DoDispose()
{
    for (auto& p : m_ports)
    {
        p.wake.Cancel();
        p.qps.clear();
        p.device = nullptr;
    }
    m_qps.clear();
    m_node = nullptr;
    Object::DoDispose();
}

Ptr<RoceNic>
RoceNic::Get(Ptr<Node> node)
{
    Ptr<RoceNic> nic = node->GetObject<RoceNic>();
    if (!nic)
    {
        nic = CreateObject<RoceNic>();
        nic->m_node = node;
        node->AggregateObject(nic);
    }
    return nic;
}

RoceNic::Port&
RoceNic::GetPort(uint32_t port)
{
    NS_ABORT_MSG_IF(!m_node || port >= m_node->GetNDevices(), "RoceNic: no port " << port);
    if (m_ports.size() <= port)
    {
        m_ports.resize(port + 1);
    }
    Port& p = m_ports[port];
    if (!p.device)
    {
        p.device = DynamicCast<PointToPointNetDevice>(m_node->GetDevice(port));
        NS_ABORT_MSG_IF(!p.device, "RoceNic: port " << port << " is not point-to-point");
        // Refill after each transmission; scheduled, not called, because the device is
        // still inside its transmit-complete handler when the trace fires.
        p.device->TraceConnectWithoutContext(
            "PhyTxEnd",
            Callback<void, Ptr<const Packet>>([this, port](Ptr<const Packet>) { Kick(port); }));
        p.pfc = DynamicCast<PfcQueue>(p.device->GetQueue());
        if (p.pfc)
        {
            // Lossless: a resume of the data class lets the queue pairs send again.
            p.pfc->TraceConnectWithoutContext("PauseState",
                                              Callback<void, uint8_t, bool>(
                                                  [this, port](uint8_t, bool paused)
                                                  {
                                                      if (!paused)
                                                      {
                                                          Kick(port);
                                                      }
                                                  }));
        }
    }
    return p;
}

uint64_t
RoceNic::GetPortRate(uint32_t port)
{
    DataRateValue rate;
    GetPort(port).device->GetAttribute("DataRate", rate);
    return rate.Get().GetBitRate();
}

bool
RoceNic::BindQp(uint32_t qpn, Ptr<RoceSender> qp)
{
    return m_qps.emplace(qpn, qp).second;
}

Ptr<RoceSender>
RoceNic::FindQp(uint32_t qpn) const
{
    auto it = m_qps.find(qpn);
    return it == m_qps.end() ? nullptr : it->second;
}

void
RoceNic::Register(Ptr<RoceSender> qp, uint32_t port)
{
    GetPort(port).qps.push_back(qp);
    Kick(port);
}

void
RoceNic::Unregister(Ptr<RoceSender> qp, uint32_t port)
{
    Port& p = GetPort(port);
    auto it = std::find(p.qps.begin(), p.qps.end(), qp);
    if (it != p.qps.end())
    {
        const auto idx = static_cast<size_t>(it - p.qps.begin());
        p.qps.erase(it);
        if (p.next > idx)
        {
            --p.next;
        }
        if (p.next >= p.qps.size())
        {
            p.next = 0;
        }
    }
}

void
RoceNic::Kick(uint32_t port)
{
    if (!m_node)
    {
        return; // disposed: a device trace fired during teardown
    }
    Port& p = GetPort(port);
    if (!p.pending)
    {
        p.pending = true;
        Simulator::ScheduleNow(&RoceNic::TrySend, this, port);
    }
}

void
RoceNic::TrySend(uint32_t port)
{
    Port& p = m_ports[port];
    p.pending = false;
    const Time now = Simulator::Now();
    while (p.device->GetQueue()->GetNPackets() < m_depth && !p.qps.empty()
           && !(p.pfc && p.pfc->IsPaused(PfcQueue::DATA)))
    {
        const size_t n = p.qps.size();
        Ptr<RoceSender> chosen;
        Time earliest = Time::Max();
        for (size_t i = 0; i < n; ++i)
        {
            const size_t idx = (p.next + i) % n;
            const Ptr<RoceSender>& qp = p.qps[idx];
            if (!qp->HasDataToSend())
            {
                continue;
            }
            const Time t = qp->GetNextTxTime();
            if (t <= now)
            {
                chosen = qp;
                p.next = (idx + 1) % n;
                break;
            }
            earliest = std::min(earliest, t);
        }
        if (!chosen)
        {
            if (earliest != Time::Max() && (!p.wake.IsRunning() || earliest < p.wakeAt))
            {
                p.wake.Cancel();
                p.wakeAt = earliest;
                p.wake = Simulator::Schedule(earliest - now, &RoceNic::Kick, this, port);
            }
            return;
        }
        chosen->SendOne(); // may unregister itself; the loop re-reads p.qps
    }
}

} // namespace ns3
