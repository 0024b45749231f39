// SPDX-License-Identifier: GPL-2.0-only
#include "roce-nic.h"

#include "pfc-queue.h"
#include "roce-header.h"
#include "roce-receiver.h"
#include "roce-sender.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/event-impl.h"
#include "ns3/fabric-callback.h"
#include "ns3/fabric-host-path.h"
#include "ns3/fabric-link-device.h"
#include "ns3/log.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNic");
NS_OBJECT_ENSURE_REGISTERED(RoceNic);

namespace
{

/**
 * Storage of a port's refill and pacing wake-up events in one 64-byte line (the block is 128
 * bytes: `live`, touched only when an event is built or deleted, is on the second): the wake-up is
 * scheduled (its reference count written) by the TrySend the refill event has just run, so
 * it finds the line in cache. Freed when the last event in it is deleted; a wake-up that
 * replaces a cancelled one gets a block of its own.
 */
struct alignas(64) PortEventBlock
{
    alignas(32) unsigned char slot[2][32];
    uint32_t live{0}; //!< events constructed in a slot and not yet deleted
};

} // namespace

/**
 * TrySend (WAKE false) or Wake (WAKE true) of one NIC port, the events a port schedules again
 * and again (Port::refill, Port::wake): 32 bytes, built in a slot of a PortEventBlock (its own
 * operator new and delete), where MakeEvent's 48-byte event (a member-function pointer is 16
 * bytes) is an allocation of its own and straddles two lines half the time.
 */
template<bool WAKE>
class RoceNic::PortEvent : public EventImpl
{
  public:
    PortEvent(RoceNic* nic, Port* port)
        : m_nic(nic),
          m_port(port)
    {
    }

    /// Build the event in slot \p slot (0 or 1) of \p block.
    static void* operator new(size_t size, PortEventBlock* block, int slot)
    {
        NS_ASSERT(size <= sizeof(block->slot[slot]) && !(slot & ~1));
        ++block->live;
        return block->slot[slot];
    }

    /// Only if the constructor throws.
    static void operator delete(void* p, PortEventBlock*, int) { Release(p); }

    /// The last reference dropped (SimpleRefCount::Unref deletes the event).
    static void operator delete(void* p) { Release(p); }

  protected:
    void Notify() override
    {
        if (WAKE)
        {
            m_nic->Wake(*m_port);
        }
        else
        {
            m_nic->TrySend(*m_port);
        }
    }

  private:
    /// The slot at \p p is free again: free its block once both are.
    static void Release(void* p)
    {
        // Both slots lie in the block's first 64 bytes, and the block is 64-byte aligned.
        auto* block
            = reinterpret_cast<PortEventBlock*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63));
        if (--block->live == 0)
        {
            delete block;
        }
    }

    RoceNic* m_nic;
    Port* m_port; //!< owned by the NIC (m_ports), which cancels this event when disposed
};

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
                            MakeUintegerAccessor(&RoceNic::SetDepth, &RoceNic::GetDepth),
                            MakeUintegerChecker<uint32_t>(1, 1000))
              .AddAttribute("HostPath",
                            "How RoCE packets cross the host: ipv4 (UdpL4Protocol, "
                            "Ipv4L3Protocol and a UDP socket; FlowMonitor sees them) or fast "
                            "(the NIC writes the same UDP/IPv4 headers and talks to the devices "
                            "directly; the same bytes on the wire and the same results). Read "
                            "when the host's first queue pair or receiver starts.",
                            EnumValue(HOST_PATH_FAST),
                            MakeEnumAccessor(&RoceNic::m_hostPath),
                            MakeEnumChecker(HOST_PATH_IPV4, "ipv4", HOST_PATH_FAST, "fast"));
    return tid;
}

RoceNic::RoceNic()
{
    NS_LOG_FUNCTION(this);
    // Pin the measured layouts (doc/scaling.md, session 12) so that a member added later
    // cannot silently undo them. offsetof on a class that is not standard-layout (a base
    // class, private members) is conditionally supported; GCC and Clang compute it as for
    // any class without virtual bases, and warn.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    static_assert(alignof(RoceNic) == 64 && alignof(Port) == 64, "cache-line aligned");
    static_assert(offsetof(RoceNic, m_host) >= sizeof(Object)
                      && offsetof(RoceNic, m_receiverActive) < 64
                      && offsetof(RoceNic, m_fastRx) == 64,
                  "what SendIp reads is in the NIC's first line, after Object's members");
    static_assert(offsetof(Port, queue) == 0 && offsetof(Port, wakeArmed) < 64
                      && offsetof(Port, qps) == 64,
                  "what Kick and TrySend touch is the port's first line");
#pragma GCC diagnostic pop
}

void
RoceNic::DoDispose()
{
    for (auto& port : m_ports)
    {
        if (!port)
        {
            continue;
        }
        Port& p = *port;
        if (p.wake)
        {
            p.wake->Cancel(); // a wake-up still pending does not run on a disposed NIC
            p.wake = nullptr;
        }
        p.wakeArmed = false;
        if (p.refill)
        {
            p.refill->Cancel(); // a refill still pending does not run on a disposed NIC
            p.refill = nullptr;
        }
        p.qps.clear();
        SyncQps(p);
        p.device = nullptr;
        p.queue = nullptr;
    }
    m_qps.clear();
    m_receiver = nullptr;
    m_udp = nullptr;
    m_host = nullptr;
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
    if (!m_ports[port])
    {
        m_ports[port] = std::make_unique<Port>();
    }
    Port& p = *m_ports[port];
    if (!p.device)
    {
        p.depth = m_depth;
        p.device = m_node->GetDevice(port);
        NS_ABORT_MSG_IF(!FabricLinkDevice::IsLinkDevice(p.device),
                        "RoceNic: port " << port << " is not point-to-point");
        p.queue = FabricLinkDevice::GetQueue(p.device);
        // The refill and the first wake-up share a cache line (PortEventBlock).
        static_assert(sizeof(PortEvent<false>) <= 32 && sizeof(PortEvent<true>) <= 32,
                      "a port event fits its slot");
        auto* events = new PortEventBlock;
        p.refill = Ptr<EventImpl>(new (events, 0) PortEvent<false>(this, &p), false);
        p.wake = Ptr<EventImpl>(new (events, 1) PortEvent<true>(this, &p), false);
        // Refill after each transmission; scheduled, not called, because the device is
        // still inside its transmit-complete handler when the trace fires. Called per packet:
        // the inline form reads one object fewer per call (FabricLambdaCallback).
        p.device->TraceConnectWithoutContext("PhyTxEnd",
                                             FabricLambdaCallback<void, Ptr<const Packet>>(
                                                 [this, &p](Ptr<const Packet>) { KickPort(p); }));
        p.pfc = DynamicCast<PfcQueue>(p.queue);
        if (p.pfc)
        {
            // Lossless: a resume of the data class lets the queue pairs send again.
            p.pfc->TraceConnectWithoutContext("PauseState",
                                              Callback<void, uint8_t, bool>(
                                                  [this, &p](uint8_t, bool paused)
                                                  {
                                                      if (!paused)
                                                      {
                                                          KickPort(p);
                                                      }
                                                  }));
        }
    }
    return p;
}

uint64_t
RoceNic::GetPortRate(uint32_t port)
{
    return FabricLinkDevice::GetDataRate(GetPort(port).device).GetBitRate();
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
    // TrySend holds the queue pairs by plain pointer while SendOne may unregister one: the
    // node's application list must own it.
    NS_ABORT_MSG_IF(!qp->GetNode() || qp->GetNode() != m_node,
                    "RoceNic: a queue pair must be an application of the NIC's node");
    Port& p = GetPort(port);
    if (p.pfc && p.depth > 1 && !p.qps.empty())
    {
        // RoceTrafficHelper refuses this at install; a program that starts its own queue
        // pairs is stopped here, before its lossless run can drop.
        try
        {
            CheckLosslessDepth(p.depth, p.nQps + 1, "node " + std::to_string(m_node->GetId()));
        }
        catch (const std::invalid_argument& e)
        {
            NS_FATAL_ERROR(e.what());
        }
    }
    p.qps.push_back(qp);
    SyncQps(p);
    Kick(port);
}

void
RoceNic::CheckLosslessDepth(uint32_t depth, uint32_t queuePairs, const std::string& where)
{
    if (depth > 1 && queuePairs > 1)
    {
        throw std::invalid_argument(
            "RoceNic: DeviceQueuePackets " + std::to_string(depth) + " with "
            + std::to_string(queuePairs) + " queue pairs on a lossless (PFC) port of " + where
            + ": the switches' headroom (PfcSwitch::HeadroomBytes 0, RequiredHeadroom) budgets "
              "one frame queued in a host NIC, and up to DeviceQueuePackets frames would leave "
              "after a pause (headroom-overflow drops). With PFC and several queue pairs per "
              "host DeviceQueuePackets must be 1 (1..1000 otherwise)");
    }
}

uint32_t
RoceNic::DepthOf(Ptr<Node> node)
{
    Ptr<RoceNic> nic = node->GetObject<RoceNic>();
    if (nic)
    {
        return nic->m_depth;
    }
    // Not created yet (queue pairs create it when they start): it will get the default.
    TypeId::AttributeInformation info;
    GetTypeId().LookupAttributeByName("DeviceQueuePackets", &info);
    return static_cast<uint32_t>(DynamicCast<const UintegerValue>(info.initialValue)->Get());
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
        SyncQps(p);
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
RoceNic::SyncQps(Port& p)
{
    p.nQps = static_cast<uint32_t>(p.qps.size());
    p.qp0 = p.qps.empty() ? nullptr : PeekPointer(p.qps.front());
}

void
RoceNic::SetDepth(uint32_t depth)
{
    m_depth = depth;
    for (auto& p : m_ports)
    {
        if (p)
        {
            p->depth = depth;
        }
    }
}

void
RoceNic::Kick(uint32_t port)
{
    if (!m_node)
    {
        return; // disposed
    }
    KickPort(GetPort(port));
}

void
RoceNic::PacingEarlier(uint32_t port, Time at)
{
    if (!m_node)
    {
        return; // disposed
    }
    Port& p = GetPort(port);
    // No wake-up armed while a queue pair waits for its time means the port is not waiting
    // for time but for its device queue, a resume or a refill already scheduled: each of
    // those arbitrates again and reads the new time.
    if (at <= Simulator::Now() || (p.wakeArmed && at < p.wakeAt))
    {
        KickPort(p); // TrySend sends now or moves the wake-up earlier
    }
}

void
RoceNic::KickPort(Port& p)
{
    if (!p.refill)
    {
        return; // disposed: a device trace fired during teardown
    }
    if (!p.pending)
    {
        p.pending = true;
        // What ScheduleNow does (the current time and context, a new uid), without an
        // EventImpl allocated per refill or an EventId built.
        p.refill->Ref(); // the simulator's reference, dropped after the event ran
        Simulator::ScheduleWithContext(Simulator::GetContext(), Time(0), PeekPointer(p.refill));
    }
}

void
RoceNic::Wake(Port& p)
{
    p.wakeArmed = false; // the wake event has run (cancelled only in DoDispose)
    KickPort(p);
}

void
RoceNic::TrySend(Port& p)
{
    p.pending = false;
    const Time now = Simulator::Now();
    while (p.queue->GetNPackets() < p.depth && p.nQps != 0
           && !(p.pfc && p.pfc->IsPaused(PfcQueue::DATA)))
    {
        const size_t n = p.nQps;
        // A plain pointer: a Ptr copy would write the queue pair's reference count, a cache
        // line of its object that a packet does not otherwise touch. The node's application
        // list keeps the queue pair alive if SendOne unregisters it (Register checks that the
        // queue pair is an application of this NIC's node).
        RoceSender* chosen = nullptr;
        Time earliest = Time::Max();
        for (size_t i = 0; i < n; ++i)
        {
            const size_t idx = (p.next + i) % n;
            RoceSender* qp = n == 1 ? p.qp0 : PeekPointer(p.qps[idx]);
            if (!qp->HasDataToSend())
            {
                continue;
            }
            const Time t = qp->GetNextTxTime();
            if (t <= now)
            {
                chosen = qp;
                p.next = static_cast<uint32_t>((idx + 1) % n);
                break;
            }
            earliest = std::min(earliest, t);
        }
        if (!chosen)
        {
            if (earliest != Time::Max() && (!p.wakeArmed || earliest < p.wakeAt))
            {
                if (p.wakeArmed)
                {
                    // What EventId::Cancel does to an event that has not run (one that has
                    // needs no cancel); the cancelled object is not scheduled again.
                    p.wake->Cancel();
                    p.wake = nullptr;
                }
                if (!p.wake)
                {
                    p.wake = Ptr<EventImpl>(new (new PortEventBlock, 1) PortEvent<true>(this, &p),
                                            false);
                }
                p.wakeAt = earliest;
                // What Simulator::Schedule does (the current context, the next uid), without
                // an EventImpl allocated per wake-up or an EventId built.
                p.wake->Ref(); // the simulator's reference, dropped after the event ran
                Simulator::ScheduleWithContext(
                    Simulator::GetContext(), earliest - now, PeekPointer(p.wake));
                p.wakeArmed = true;
            }
            return;
        }
        chosen->SendOne(); // may unregister itself; the loop re-reads p.nQps
    }
}

void
RoceNic::InitHost()
{
    if (m_hostInit || !m_node)
    {
        return;
    }
    m_hostInit = true;
    m_udp = m_node->GetObject<UdpL4Protocol>();
    if (m_hostPath != HOST_PATH_FAST)
    {
        return; // the IPv4 path
    }
    Ptr<FabricHostPath> host = FabricHostPath::Get(m_node);
    if (host->IsAvailable())
    {
        m_host = host;
        m_fast = true;
    }
}

bool
RoceNic::IsFastPath()
{
    InitHost();
    return m_fast;
}

void
RoceNic::SendIp(Ptr<Packet> p,
                Ipv4Address src,
                Ipv4Address dst,
                uint16_t sport,
                uint16_t dport,
                uint8_t tos,
                const Ptr<Ipv4Route>& route,
                const RoceHeader* rh)
{
    if (!m_hostInit)
    {
        InitHost(); // once
    }
    // The host's FabricHostPath writes the headers IPv4 would and sends to the device, or
    // declines (anything but a plain send) and the packet takes IPv4.
    if (rh && m_fast && route && m_host->TakesPrefix())
    {
        // The RoCE header written with the UDP/IPv4 headers: one AddHeader, not two.
        uint8_t bytes[RoceHeader::SIZE];
        rh->Write(bytes);
        if (m_host->SendUdp(p, src, dst, sport, dport, tos, route, bytes, RoceHeader::SIZE))
        {
            ++m_fastTx;
            return;
        }
        p->AddHeader(*rh); // declined: IPv4 sends the packet with its RoCE header
    }
    else
    {
        if (rh)
        {
            p->AddHeader(*rh);
        }
        if (m_fast && m_host->SendUdp(p, src, dst, sport, dport, tos, route))
        {
            ++m_fastTx;
            return;
        }
    }
    SocketIpTosTag tag;
    tag.SetTos(tos);
    p->AddPacketTag(tag);
    if (!m_udp)
    {
        m_udp = m_node->GetObject<UdpL4Protocol>();
    }
    m_udp->Send(p, src, dst, sport, dport, route);
}

void
RoceNic::SetReceiver(Ptr<RoceReceiver> rx, bool active)
{
    m_receiver = rx;
    m_receiverActive = active && rx;
    if (m_receiverActive && IsFastPath() && !m_bound)
    {
        // UDP 4791 datagrams for this host with at least a RoCE header come to ReceiveFast.
        m_bound = true;
        // Another binding of 4791 on this host (FabricTrafficHelper's UDP sink) would get the
        // RoCE packets: refuse the combination instead of losing them silently.
        NS_ABORT_MSG_UNLESS(
            m_host->BindUdpInPlace(
                RoceReceiver::PORT,
                // Called per packet received: inline, one object fewer read per call.
                FabricMemberCallback<&RoceNic::ReceiveFast>(this),
                RoceHeader::SIZE),
            "RoceNic: UDP port " << RoceReceiver::PORT << " of node " << m_node->GetId()
                                 << " is already bound on its FabricHostPath: RoCE and "
                                    "FabricTrafficHelper UDP sinks cannot share a host's port "
                                 << RoceReceiver::PORT);
    }
}

bool
RoceNic::ReceiveFast(
    Ptr<const Packet> packet, uint32_t offset, uint32_t size, const Ipv4Header& ip, uint16_t sport)
{
    if (!m_receiverActive)
    {
        return false; // IPv4 answers as before (the receiver's socket is closed)
    }
    ++m_fastRx;
    // Read in place: the receiver needs the RoCE header and the payload's length only.
    m_receiver->ReceiveInPlace(packet, offset, size, ip.GetSource(), sport, ip.GetTos());
    return true;
}

} // namespace ns3
