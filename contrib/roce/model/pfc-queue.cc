// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-queue.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

// Inside PfcQueue's members the name g_log is the Queue<Packet> base class's private log
// component, so the NS_LOG macros cannot be used there; the component is defined all the same.
NS_LOG_COMPONENT_DEFINE("PfcQueue");
NS_OBJECT_ENSURE_REGISTERED(PfcQueue);

namespace
{
constexpr uint16_t PPP_IPV4 = 0x0021;
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;

uint8_t
ClassOfTos(uint8_t tos, uint8_t controlDscpMin)
{
    return (tos >> 2) >= controlDscpMin ? PfcQueue::CONTROL : PfcQueue::DATA;
}
} // namespace

TypeId
PfcQueue::GetTypeId()
{
    // "<Packet>" in the name: PointToPointHelper::SetQueue appends it to a bare queue name.
    static TypeId tid
        = TypeId("ns3::PfcQueue<Packet>")
              .SetParent<Queue<Packet>>()
              .SetGroupName("Roce")
              .AddConstructor<PfcQueue>()
              .AddAttribute("MaxSize",
                            "The queue's capacity (all classes together); beyond it packets are "
                            "dropped as by a drop-tail queue (queue-overflow).",
                            QueueSizeValue(QueueSize("100p")),
                            MakeQueueSizeAccessor(&QueueBase::SetMaxSize, &QueueBase::GetMaxSize),
                            MakeQueueSizeChecker())
              .AddAttribute("ControlDscpMin",
                            "Packets whose IPv4 DSCP is at least this value are in the control "
                            "class (served first, paused separately); RoCE ACK/NACK/CNP carry "
                            "DSCP 48 (CS6), data DSCP 0.",
                            UintegerValue(32),
                            MakeUintegerAccessor(&PfcQueue::m_controlDscpMin),
                            MakeUintegerChecker<uint8_t>(1, 63))
              .AddAttribute("GateDequeue",
                            "Whether a paused class is held in this queue (switch ports). A host "
                            "NIC's queue is not gated: its RoceNic stops the paused class before "
                            "the queue.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&PfcQueue::m_gate),
                            MakeBooleanChecker())
              .AddTraceSource("PauseState",
                              "A class was paused or resumed by the peer's pause frames.",
                              MakeTraceSourceAccessor(&PfcQueue::m_pauseTrace),
                              "ns3::PfcQueue::PauseStateTracedCallback");
    return tid;
}

PfcQueue::PfcQueue() {}

PfcQueue::~PfcQueue() {}

void
PfcQueue::DoDispose()
{
    for (auto& e : m_expiry)
    {
        e.Cancel();
    }
    m_device = nullptr;
    m_leave = LeaveCallback();
    Queue<Packet>::DoDispose();
}

uint8_t
PfcQueue::ClassOfIpv4(Ptr<const Packet> p, uint8_t controlDscpMin)
{
    uint8_t buf[2];
    if (p->GetSize() < 2 || p->CopyData(buf, 2) != 2 || (buf[0] >> 4) != 4)
    {
        return DATA;
    }
    return ClassOfTos(buf[1], controlDscpMin);
}

bool
PfcQueue::Enqueue(Ptr<Packet> item)
{
    uint8_t cls = DATA;
    uint8_t buf[4];
    if (item->GetSize() >= 4 && item->CopyData(buf, 4) == 4 && ((buf[0] << 8) | buf[1]) == PPP_IPV4)
    {
        cls = ClassOfTos(buf[3], m_controlDscpMin);
    }
    const uint32_t ingress = m_kicking ? m_kickIngress : m_nextIngress;
    m_nextIngress = NO_INGRESS;
    Iterator it;
    if (!DoEnqueue(GetContainer().end(), item, it))
    {
        return false;
    }
    CountIngress(cls, ingress, item->GetSize(), true);
    if (m_kicking)
    {
        m_fifo[cls].push_front({it, ingress}); // the restarted head keeps its place
    }
    else
    {
        m_fifo[cls].push_back({it, ingress});
    }
    return true;
}

void
PfcQueue::CountIngress(uint8_t cls, uint32_t ingress, uint32_t bytes, bool add)
{
    if (ingress == NO_INGRESS)
    {
        return;
    }
    auto& v = m_bytesByIngress[cls];
    if (ingress >= v.size())
    {
        v.resize(ingress + 1, 0);
    }
    v[ingress] = add ? v[ingress] + bytes : v[ingress] - std::min<uint64_t>(v[ingress], bytes);
}

uint8_t
PfcQueue::NextClass() const
{
    for (uint8_t cls : {CONTROL, DATA})
    {
        if (!m_fifo[cls].empty() && CanSend(cls))
        {
            return cls;
        }
    }
    return N_CLASSES;
}

Ptr<Packet>
PfcQueue::Take(uint8_t cls, bool dequeue, bool leave, uint32_t* ingress)
{
    const Entry e = m_fifo[cls].front();
    m_fifo[cls].pop_front();
    Ptr<Packet> p = dequeue ? DoDequeue(e.it) : DoRemove(e.it);
    if (ingress)
    {
        *ingress = e.ingress;
    }
    if (p)
    {
        CountIngress(cls, e.ingress, p->GetSize(), false);
    }
    if (leave && p && e.ingress != NO_INGRESS && !m_leave.IsNull())
    {
        m_leave(e.ingress, cls, p->GetSize());
    }
    return p;
}

Ptr<Packet>
PfcQueue::Dequeue()
{
    const uint8_t cls = NextClass();
    if (cls == N_CLASSES)
    {
        m_idle = true;
        return nullptr;
    }
    m_idle = false;
    return Take(cls, true);
}

Ptr<Packet>
PfcQueue::Remove()
{
    for (uint8_t cls : {CONTROL, DATA})
    {
        if (!m_fifo[cls].empty())
        {
            return Take(cls, false);
        }
    }
    return nullptr;
}

Ptr<Packet>
PfcQueue::RemoveKeepingCharge(uint32_t& ingress)
{
    ingress = NO_INGRESS;
    for (uint8_t cls : {CONTROL, DATA})
    {
        if (!m_fifo[cls].empty())
        {
            return Take(cls, false, false, &ingress);
        }
    }
    return nullptr;
}

Ptr<const Packet>
PfcQueue::Peek() const
{
    const uint8_t cls = NextClass();
    return cls == N_CLASSES ? nullptr : DoPeek(m_fifo[cls].front().it);
}

std::vector<Ptr<Packet>>
PfcQueue::FlushClass(uint8_t cls)
{
    std::vector<Ptr<Packet>> out;
    while (!m_fifo[cls].empty())
    {
        out.push_back(Take(cls, false));
    }
    return out;
}

bool
PfcQueue::Hold(Ptr<Packet> ipv4)
{
    PppHeader ppp;
    ppp.SetProtocol(PPP_IPV4);
    ipv4->AddHeader(ppp);
    return Enqueue(ipv4);
}

void
PfcQueue::ReceivePause(uint8_t cls, Time duration)
{
    if (m_ignorePause || cls >= N_CLASSES)
    {
        return;
    }
    m_expiry[cls].Cancel();
    if (duration.IsZero())
    {
        SetPaused(cls, false);
        return;
    }
    if (!m_paused[cls])
    {
        ++m_pauseCount[cls];
    }
    SetPaused(cls, true);
    if (duration != Time::Max())
    {
        m_expiry[cls] = Simulator::Schedule(duration, &PfcQueue::SetPaused, this, cls, false);
    }
}

void
PfcQueue::SetIgnorePause(bool ignore)
{
    m_ignorePause = ignore;
    if (ignore)
    {
        for (uint8_t cls = 0; cls < N_CLASSES; ++cls)
        {
            m_expiry[cls].Cancel();
            SetPaused(cls, false);
        }
    }
}

Time
PfcQueue::GetPausedTime(uint8_t cls) const
{
    return m_pausedTotal[cls] + (m_paused[cls] ? Simulator::Now() - m_pausedSince[cls] : Time(0));
}

void
PfcQueue::SetPaused(uint8_t cls, bool paused)
{
    if (m_paused[cls] == paused)
    {
        return;
    }
    const Time now = Simulator::Now();
    if (paused)
    {
        m_pausedSince[cls] = now;
    }
    else
    {
        m_pausedTotal[cls] += now - m_pausedSince[cls];
    }
    m_paused[cls] = paused;
    m_pauseTrace(cls, paused);
    if (!paused)
    {
        Kick();
    }
}

void
PfcQueue::Kick()
{
    // The device only pulls from its queue after a transmission or inside Send: an idle
    // device with packets that just became sendable is restarted through Send.
    if (!m_gate || !m_idle || !m_device || m_kicking || !m_device->IsLinkUp())
    {
        return;
    }
    const uint8_t cls = NextClass();
    if (cls == N_CLASSES)
    {
        return;
    }
    const Entry e = m_fifo[cls].front();
    m_fifo[cls].pop_front();
    Ptr<Packet> p = DoDequeue(e.it);
    CountIngress(cls, e.ingress, p->GetSize(), false); // charged again when Send queues it
    PppHeader ppp;
    p->RemoveHeader(ppp); // the device's Send adds it again
    m_kicking = true;
    m_kickIngress = e.ingress;
    m_device->Send(p, m_device->GetBroadcast(), ETHERTYPE_IPV4);
    m_kicking = false;
}

} // namespace ns3
