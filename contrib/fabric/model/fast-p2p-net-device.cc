// SPDX-License-Identifier: GPL-2.0-only
#include "fast-p2p-net-device.h"

#include "dscp-priority-queue.h"
#include "fabric-drop-tail-queue.h"
#include "fast-p2p-channel.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/make-event.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastP2pNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FastP2pNetDevice);

namespace
{

/// PPP protocol field of an ethertype (IPv4, IPv6), as on a PointToPointNetDevice's wire.
uint16_t
EtherToPpp(uint16_t proto)
{
    switch (proto)
    {
    case 0x0800:
        return 0x0021;
    case 0x86DD:
        return 0x0057;
    default:
        NS_FATAL_ERROR("FastP2pNetDevice: no PPP protocol number for ethertype " << proto);
    }
    return 0;
}

uint16_t
PppToEther(uint16_t proto)
{
    switch (proto)
    {
    case 0x0021:
        return 0x0800;
    case 0x0057:
        return 0x86DD;
    default:
        NS_FATAL_ERROR("FastP2pNetDevice: unknown PPP protocol number " << proto);
    }
    return 0;
}

} // namespace

/**
 * The accessor of a FastP2pNetDevice packet trace source: connects and disconnects sinks on
 * the TracedCallback as ns-3's accessor does, then records in the device's m_traceSinks
 * whether the source has a sink left, which is what the per-frame code reads.
 */
class FastP2pNetDevice::TraceAccessor : public TraceSourceAccessor
{
  public:
    using Member = TracedCallback<Ptr<const Packet>> FastP2pNetDevice::*;

    TraceAccessor(Member member, TraceBit bit)
        : m_member(member),
          m_bit(bit)
    {
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        return Apply(obj,
                     [&cb](TracedCallback<Ptr<const Packet>>& t) { t.ConnectWithoutContext(cb); });
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        return Apply(obj, [&](TracedCallback<Ptr<const Packet>>& t) { t.Connect(cb, context); });
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        return Apply(
            obj, [&cb](TracedCallback<Ptr<const Packet>>& t) { t.DisconnectWithoutContext(cb); });
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        return Apply(obj, [&](TracedCallback<Ptr<const Packet>>& t) { t.Disconnect(cb, context); });
    }

  private:
    template<typename F>
    bool Apply(ObjectBase* obj, F change) const
    {
        auto dev = dynamic_cast<FastP2pNetDevice*>(obj);
        if (dev == nullptr)
        {
            return false;
        }
        TracedCallback<Ptr<const Packet>>& trace = dev->*m_member;
        change(trace);
        if (trace.IsEmpty())
        {
            dev->m_traceSinks &= ~m_bit;
        }
        else
        {
            dev->m_traceSinks |= m_bit;
        }
        return true;
    }

    Member m_member;
    TraceBit m_bit;
};

TypeId
FastP2pNetDevice::GetTypeId()
{
    // Attribute and trace source names and signatures are PointToPointNetDevice's, so that
    // code and Config paths written for one work with the other.
    static TypeId tid
        = TypeId("ns3::FastP2pNetDevice")
              .SetParent<NetDevice>()
              .SetGroupName("Fabric")
              .AddConstructor<FastP2pNetDevice>()
              .AddAttribute(
                  "Mtu",
                  "The MAC-level Maximum Transmission Unit",
                  UintegerValue(1500),
                  MakeUintegerAccessor(&FastP2pNetDevice::SetMtu, &FastP2pNetDevice::GetMtu),
                  MakeUintegerChecker<uint16_t>())
              .AddAttribute("Address",
                            "The MAC address of this device.",
                            Mac48AddressValue(Mac48Address("ff:ff:ff:ff:ff:ff")),
                            MakeMac48AddressAccessor(&FastP2pNetDevice::m_address),
                            MakeMac48AddressChecker())
              .AddAttribute("DataRate",
                            "The serialization rate of the link (bits per second)",
                            DataRateValue(DataRate("32768b/s")),
                            MakeDataRateAccessor(&FastP2pNetDevice::m_bps),
                            MakeDataRateChecker())
              .AddAttribute("ReceiveErrorModel",
                            "The receiver error model used to simulate packet loss",
                            PointerValue(),
                            MakePointerAccessor(&FastP2pNetDevice::m_receiveErrorModel),
                            MakePointerChecker<ErrorModel>())
              .AddAttribute("InterframeGap",
                            "The time to wait between frame transmissions",
                            TimeValue(Seconds(0.0)),
                            MakeTimeAccessor(&FastP2pNetDevice::m_tInterframeGap),
                            MakeTimeChecker())
              .AddAttribute("ArrivalDriven",
                            "Every Send to this device is made while a frame received by a "
                            "FastP2pNetDevice of the same node is handled (a switch port; the "
                            "fabric helper sets it there). The device then skips the "
                            "transmit-complete event of a frame when no frame is due at the node "
                            "before the transmitter frees, keeping ns-3's event order exactly. "
                            "False: the event is scheduled for every frame, as "
                            "PointToPointNetDevice does.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FastP2pNetDevice::m_arrivalDriven),
                            MakeBooleanChecker())
              .AddAttribute(
                  "TxQueue",
                  "The device's transmit queue.",
                  PointerValue(),
                  MakePointerAccessor(&FastP2pNetDevice::SetQueue, &FastP2pNetDevice::GetQueue),
                  MakePointerChecker<Queue<Packet>>())
              .AddTraceSource("MacTx",
                              "A packet has arrived for transmission by this device",
                              Create<TraceAccessor>(&FastP2pNetDevice::m_macTxTrace, MAC_TX),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource(
                  "MacTxDrop",
                  "A packet has been dropped by the device before transmission",
                  Create<TraceAccessor>(&FastP2pNetDevice::m_macTxDropTrace, MAC_TX_DROP),
                  "ns3::Packet::TracedCallback")
              .AddTraceSource(
                  "MacPromiscRx",
                  "A packet received by this device is passed up (promiscuous)",
                  Create<TraceAccessor>(&FastP2pNetDevice::m_macPromiscRxTrace, MAC_PROMISC_RX),
                  "ns3::Packet::TracedCallback")
              .AddTraceSource("MacRx",
                              "A packet received by this device is passed up",
                              Create<TraceAccessor>(&FastP2pNetDevice::m_macRxTrace, MAC_RX),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource(
                  "PhyTxBegin",
                  "A packet has begun transmitting over the channel",
                  Create<TraceAccessor>(&FastP2pNetDevice::m_phyTxBeginTrace, PHY_TX_BEGIN),
                  "ns3::Packet::TracedCallback")
              .AddTraceSource("PhyTxEnd",
                              "A packet has been completely transmitted over the channel "
                              "(connecting a sink makes the device schedule this event for "
                              "every frame, as PointToPointNetDevice does)",
                              Create<TraceAccessor>(&FastP2pNetDevice::m_phyTxEndTrace, PHY_TX_END),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource(
                  "PhyTxDrop",
                  "A packet has been dropped by the device during transmission",
                  Create<TraceAccessor>(&FastP2pNetDevice::m_phyTxDropTrace, PHY_TX_DROP),
                  "ns3::Packet::TracedCallback")
              .AddTraceSource("PhyRxEnd",
                              "A packet has been completely received by the device",
                              Create<TraceAccessor>(&FastP2pNetDevice::m_phyRxEndTrace, PHY_RX_END),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource(
                  "PhyRxDrop",
                  "A packet has been dropped by the device during reception",
                  Create<TraceAccessor>(&FastP2pNetDevice::m_phyRxDropTrace, PHY_RX_DROP),
                  "ns3::Packet::TracedCallback")
              .AddTraceSource("Sniffer",
                              "A non-promiscuous packet sniffer attached to the device",
                              Create<TraceAccessor>(&FastP2pNetDevice::m_snifferTrace, SNIFFER),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource(
                  "PromiscSniffer",
                  "A promiscuous packet sniffer attached to the device",
                  Create<TraceAccessor>(&FastP2pNetDevice::m_promiscSnifferTrace, PROMISC_SNIFFER),
                  "ns3::Packet::TracedCallback");
    return tid;
}

uint64_t FastP2pNetDevice::s_instances = 0;
uint64_t FastP2pNetDevice::s_unforeseenSends = 0;

FastP2pNetDevice::FastP2pNetDevice()
    : m_pullEvent(MakeEvent(&FastP2pNetDevice::TransmitComplete, this), false),
      m_arrivalEvent(MakeEvent(&FastP2pNetDevice::ArriveNext, this), false)
{
    NS_LOG_FUNCTION(this);
    ++s_instances;
    // The per-frame lines (members, header): Object's fields first, then lines 0-3 full, the
    // counters on line 4. offsetof on this non-standard-layout class is what GCC and Clang
    // lay out (single inheritance, no virtual base).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    static_assert(sizeof(NetDevice) <= offsetof(FastP2pNetDevice, m_queue));
    static_assert(offsetof(FastP2pNetDevice, m_counting) < 64);
    static_assert(offsetof(FastP2pNetDevice, m_bps) == 64);
    static_assert(offsetof(FastP2pNetDevice, m_tInterframeGap) + sizeof(Time) == 128);
    static_assert(offsetof(FastP2pNetDevice, m_pppTx) == 128);
    static_assert(offsetof(FastP2pNetDevice, m_arrivalEvent) + sizeof(Ptr<EventImpl>) == 192);
    static_assert(offsetof(FastP2pNetDevice, m_ring) == 192);
    static_assert(offsetof(FastP2pNetDevice, m_pullEvents) + sizeof(uint64_t) == 256);
    static_assert(offsetof(FastP2pNetDevice, m_counters) == 256);
    static_assert(offsetof(FastP2pNetDevice, m_countRxTime) < 320);
#pragma GCC diagnostic pop
}

FastP2pNetDevice::~FastP2pNetDevice()
{
    NS_LOG_FUNCTION(this);
    // Frames pushed after DoDispose (a peer that still sends) hold a reference each.
    while (m_ringCount > 0)
    {
        PopInbound();
    }
}

void
FastP2pNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Pending copies of the two events stay in the scheduler (it holds a reference to each)
    // until they are due or the simulator is destroyed: cancelled, they do not run.
    m_pullEvent->Cancel();
    m_arrivalEvent->Cancel();
    m_pullPending = false;
    m_node = nullptr;
    m_channel = nullptr;
    SetWire(nullptr, Time(), 0, false);
    m_receiveErrorModel = nullptr;
    m_currentPkt = nullptr;
    m_queue = nullptr;
    m_siblings = nullptr;
    m_siblingsOwner = nullptr;
    while (m_ringCount > 0)
    {
        PopInbound();
    }
    m_ring.reset();
    m_ringMask = 0;
    m_rxCallback = NetDevice::ReceiveCallback();
    m_directRx = nullptr;
    SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback());
    NetDevice::DoDispose();
}

void
FastP2pNetDevice::SetQueue(Ptr<Queue<Packet>> queue)
{
    m_queue = queue;
    // Only a queue whose Dequeue has no side effect (a drop-tail FIFO, or the two strict
    // priority FIFOs of a DscpPriorityQueue) may be left unpolled when it is empty.
    m_plainQueue = queue
                && (queue->GetInstanceTypeId() == DropTailQueue<Packet>::GetTypeId()
                    || queue->GetInstanceTypeId() == FabricDropTailQueue::GetTypeId()
                    || queue->GetInstanceTypeId() == DscpPriorityQueue::GetTypeId());
}

void
FastP2pNetDevice::EnableFrameCounters(uint32_t smallFrameBytes, bool rxTime)
{
    NS_LOG_FUNCTION(this << smallFrameBytes << rxTime);
    // Several readers (monitors) share the counters: one small-frame size for all.
    NS_ABORT_MSG_IF(m_counting && m_smallFrame != smallFrameBytes,
                    "FastP2pNetDevice: frame counters asked with two small-frame sizes");
    m_counting = true;
    m_countRxTime = m_countRxTime || rxTime;
    m_smallFrame = smallFrameBytes;
}

bool
FastP2pNetDevice::Attach(Ptr<FastP2pChannel> ch)
{
    NS_LOG_FUNCTION(this << ch);
    m_channel = ch;
    m_channel->Attach(this);
    m_linkUp = true;
    m_linkChangeCallbacks();
    return true;
}

bool
FastP2pNetDevice::IsTransmitting() const
{
    return m_pullPending || Simulator::Now() < m_busyUntil;
}

bool
FastP2pNetDevice::Send(Ptr<Packet> packet, const Address&, uint16_t protocolNumber)
{
    if (!m_linkUp)
    {
        Fire(MAC_TX_DROP, m_macTxDropTrace, packet);
        return false;
    }
    m_pppTx.SetProtocol(EtherToPpp(protocolNumber));
    packet->AddHeader(m_pppTx);
    Fire(MAC_TX, m_macTxTrace, packet);
    m_counters.macTxFrames += m_counting ? 1 : 0;
    if (!m_queue->Enqueue(packet))
    {
        Fire(MAC_TX_DROP, m_macTxDropTrace, packet);
        return false;
    }
    // At exactly the instant the transmitter frees, PointToPointNetDevice would still be
    // busy for a Send scheduled before the frame on the wire started (its transmit-complete
    // event comes later in that instant): queue and pull with an event, as it would.
    if (m_pullPending)
    {
        return true;
    }
    const Time now = Simulator::Now();
    if (now <= m_busyUntil)
    {
        if (m_arrivalDriven && m_currentPkt == nullptr)
        {
            ++s_unforeseenSends;
            NS_LOG_WARN("a Send found the port busy after its event was skipped");
        }
        EnsurePull(m_busyUntil - now);
        return true;
    }
    Ptr<Packet> p = m_queue->Dequeue();
    if (!p)
    {
        return true; // a queue that holds what it may not send yet (PfcQueue) restarts us
    }
    FireSniffers(p);
    return TransmitStart(p, now);
}

void
FastP2pNetDevice::EnsurePull(Time delay)
{
    ++m_pullEvents;
    // The same place in the event order as Simulator::Schedule (a new uid now, in the current
    // context), without an EventImpl allocated or an EventId built.
    m_pullEvent->Ref(); // the simulator's reference, dropped after the event ran
    Simulator::ScheduleWithContext(Simulator::GetContext(), delay, PeekPointer(m_pullEvent));
    m_pullPending = true;
}

bool
FastP2pNetDevice::TransmitStart(const Ptr<Packet>& p, Time now)
{
    const Time txTime = m_txTime.Get(m_bps, p->GetSize());
    const Time busyFor = txTime + m_tInterframeGap;
    m_busyUntil = now + busyFor;
    Fire(PHY_TX_BEGIN, m_phyTxBeginTrace, p);
    if (m_counting)
    {
        const uint32_t size = p->GetSize();
        ++m_counters.txFrames;
        m_counters.txBytes += size;
        m_counters.txSmallFrames += size <= m_smallFrame ? 1 : 0;
    }
    // Without the event nobody fires PhyTxEnd (it has no sink then, see NeedsPull), so the
    // frame is not held (a frame still held when it arrives is copied, see ArriveNext; held
    // until the event, it is released before it arrives).
    const bool pull = NeedsPull(busyFor);
    m_currentPkt = pull ? p : nullptr;
    if (pull)
    {
        EnsurePull(busyFor);
    }
    if (m_wireDirect)
    {
        // What FastP2pChannel::TransmitStart does when no sink is connected to its trace.
        m_peer->StartArrival(p, txTime + m_wireDelay, m_peerContext);
        return true;
    }
    const bool result = m_channel->TransmitStart(p, this, txTime);
    if (!result)
    {
        Fire(PHY_TX_DROP, m_phyTxDropTrace, p);
    }
    return result;
}

void
FastP2pNetDevice::SetWire(FastP2pNetDevice* peer, Time delay, uint32_t peerContext, bool direct)
{
    NS_LOG_FUNCTION(this << peer << delay << peerContext << direct);
    if (delay != m_wireDelay && m_node)
    {
        // The node's shortest inbound delay (NeedsPull) may change with this one: every port
        // of the node looks its siblings up again (a delay lowered mid-run must not leave a
        // pull event out). Rare: attach, and a channel's Delay set.
        for (uint32_t i = 0; i < m_node->GetNDevices(); ++i)
        {
            if (auto dev = DynamicCast<FastP2pNetDevice>(m_node->GetDevice(i)))
            {
                dev->m_siblings = nullptr;
                dev->m_siblingsOwner = nullptr;
            }
        }
    }
    m_peer = peer;
    m_wireDelay = delay;
    m_peerContext = peerContext;
    m_wireDirect = direct && peer != nullptr;
    if (peer != nullptr)
    {
        // Room for the frames the peer can have on the wire toward here at its rate, counted
        // in 1 KiB frames, at most 4096 to start with (acknowledgements are smaller, and long wires
        // rare: the ring grows if it must).
        const double bits = (delay.GetSeconds() * peer->m_bps.GetBitRate());
        const uint32_t frames = static_cast<uint32_t>(std::min(bits / 8192.0, 4096.0)) + 2;
        if (!m_ring || frames > m_ringMask + 1)
        {
            GrowInbound(frames);
        }
    }
}

void
FastP2pNetDevice::FindSiblings()
{
    auto own = std::make_shared<Siblings>();
    for (uint32_t i = 0; m_node && i < m_node->GetNDevices(); ++i)
    {
        if (auto dev = DynamicCast<FastP2pNetDevice>(m_node->GetDevice(i)))
        {
            own->devices.push_back(PeekPointer(dev));
            if (dev->m_channel)
            {
                own->minInboundDelay = std::min(own->minInboundDelay, dev->m_channel->GetDelay());
            }
        }
    }
    // Share a sibling's list when it is this one (the node's ports asked in the same state), so
    // that a node's ports read one object; a list found different (a device added or a delay
    // changed since) stays this device's own, as it would be without sharing.
    for (const FastP2pNetDevice* dev : own->devices)
    {
        const auto& theirs = dev->m_siblingsOwner;
        if (theirs && theirs->devices == own->devices
            && theirs->minInboundDelay == own->minInboundDelay)
        {
            m_siblingsOwner = theirs;
            m_siblings = theirs.get();
            return;
        }
    }
    m_siblingsOwner = own;
    m_siblings = own.get();
}

bool
FastP2pNetDevice::NeedsPull(Time busyFor)
{
    // The event is needed when a frame waits behind this one, a PhyTxEnd sink wants it, the
    // queue must be polled even when empty (its Dequeue has side effects), or a Send may come
    // before the transmitter frees: in ns-3's order such a Send would find the device busy
    // and the event already in place, and without it a later one would run at another place
    // among the events of that instant.
    if (!m_plainQueue || !m_arrivalDriven || (m_traceSinks & PHY_TX_END) || !m_queue->IsEmpty())
    {
        return true;
    }
    if (!m_siblings)
    {
        FindSiblings();
    }
    // A Send here comes from a frame arriving at this node. Frames due by the time the
    // transmitter frees are all on the wire already if no channel of the node is shorter than
    // this transmission (a frame started later arrives later); otherwise play safe.
    if (busyFor > m_siblings->minInboundDelay)
    {
        return true;
    }
    for (const FastP2pNetDevice* s : m_siblings->devices)
    {
        if (s->m_nextArrival <= m_busyUntil)
        {
            return true;
        }
    }
    return false;
}

void
FastP2pNetDevice::TransmitComplete()
{
    m_pullPending = false;        // this is m_pullEvent running (the only way here)
    const Time now = m_busyUntil; // the event runs when the transmitter frees
    NS_ASSERT(now == Simulator::Now());
    m_busyUntil = NeverBusy(); // free (TransmitStart sets it again)
    if (m_currentPkt)
    {
        Fire(PHY_TX_END, m_phyTxEndTrace, m_currentPkt);
        m_currentPkt = nullptr;
    }
    Ptr<Packet> p = m_queue->Dequeue();
    if (!p)
    {
        return;
    }
    FireSniffers(p);
    TransmitStart(p, now);
}

void
FastP2pNetDevice::StartArrival(Ptr<Packet> p, Time after, uint32_t context)
{
    PushInbound(Simulator::Now() + after, std::move(p));
    m_arrivalEvent->Ref(); // the simulator's reference, dropped after the event ran
    Simulator::ScheduleWithContext(context, after, PeekPointer(m_arrivalEvent));
}

void
FastP2pNetDevice::PushInbound(Time arrival, Ptr<Packet> p)
{
    if (m_ringCount == 0)
    {
        m_nextArrival = arrival;
    }
    else
    {
        // The reception event takes the oldest frame: a channel whose delay shrank while
        // frames were on the wire would hand the wrong one over.
        NS_ABORT_MSG_IF(arrival < m_ring[(m_ringHead + m_ringCount - 1) & m_ringMask].arrival,
                        "FastP2pNetDevice: a frame would overtake one already on the wire");
    }
    if (m_ringCount > m_ringMask || !m_ring)
    {
        GrowInbound(0);
    }
    Packet* frame = PeekPointer(p);
    frame->Ref(); // the ring's reference (p's goes with p)
    m_ring[(m_ringHead + m_ringCount) & m_ringMask] = {arrival, frame};
    ++m_ringCount;
}

Ptr<Packet>
FastP2pNetDevice::PopInbound()
{
    NS_ASSERT(m_ringCount > 0);
    Ptr<Packet> p(m_ring[m_ringHead].frame, false); // takes over the ring's reference
    m_ringHead = (m_ringHead + 1) & m_ringMask;
    --m_ringCount;
    m_nextArrival = m_ringCount > 0 ? m_ring[m_ringHead].arrival : Time::Max();
    return p;
}

void
FastP2pNetDevice::GrowInbound(uint32_t capacity)
{
    const uint32_t old = m_ring ? m_ringMask + 1 : 0;
    uint32_t size = std::max<uint32_t>(old * 2, 4);
    while (size < capacity)
    {
        size *= 2;
    }
    auto ring = std::make_unique<InFlight[]>(size);
    for (uint32_t i = 0; i < m_ringCount; ++i)
    {
        ring[i] = m_ring[(m_ringHead + i) & m_ringMask];
    }
    m_ring = std::move(ring);
    m_ringMask = size - 1;
    m_ringHead = 0;
}

void
FastP2pNetDevice::ArriveNext()
{
    Ptr<Packet> p = PopInbound();
    // PointToPointChannel gives the receiver a copy made when the frame started, so what the
    // receiver strips, rewrites or tags does not reach whoever kept the sender's packet (a
    // trace sink, the sender's code). If nothing but this device holds the frame now, nobody
    // can see the difference and the copy (an allocation, then freeing the sender's object) is
    // saved; otherwise copy now. The one case that differs: a holder that added a tag to the
    // frame while it was on the wire and then let it go (ns-3's const packets allow tags).
    if (p->GetReferenceCount() > 1)
    {
        p = p->Copy();
    }
    Receive(std::move(p));
}

void
FastP2pNetDevice::Receive(Ptr<Packet> packet)
{
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(packet))
    {
        Fire(PHY_RX_DROP, m_phyRxDropTrace, packet);
        return;
    }
    FireSniffers(packet);
    Fire(PHY_RX_END, m_phyRxEndTrace, packet);
    if (m_counting)
    {
        ++m_counters.rxFrames;
        if (m_countRxTime)
        {
            m_counters.lastRx = Simulator::Now();
        }
    }
    // MacRx and MacPromiscRx sinks see the frame with its PPP header (a copy, as
    // PointToPointNetDevice gives them); without sinks no copy is made.
    const bool promisc = m_traceSinks & PROMISC_CALLBACK;
    Ptr<Packet> original
        = (promisc || (m_traceSinks & MAC_RX)) ? packet->Copy() : Ptr<Packet>(nullptr);
    packet->RemoveHeader(m_pppRx);
    const uint16_t protocol = PppToEther(m_pppRx.GetProtocol());
    if (promisc)
    {
        Fire(MAC_PROMISC_RX, m_macPromiscRxTrace, original);
        m_promiscCallback(
            this, packet, protocol, GetRemote(), GetAddress(), NetDevice::PACKET_HOST);
    }
    if (original)
    {
        Fire(MAC_RX, m_macRxTrace, original);
    }
    if (m_directRx && m_directRx->ReceiveFromFastDevice(this, packet, protocol))
    {
        return;
    }
    m_rxCallback(this, packet, protocol, GetRemote());
}

Ptr<Channel>
FastP2pNetDevice::GetChannel() const
{
    return m_channel;
}

void
FastP2pNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
    m_traceSinks
        = cb.IsNull() ? (m_traceSinks & ~PROMISC_CALLBACK) : (m_traceSinks | PROMISC_CALLBACK);
}

void
FastP2pNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

bool
FastP2pNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

void
FastP2pNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

Address
FastP2pNetDevice::GetBroadcast() const
{
    return Mac48Address("ff:ff:ff:ff:ff:ff");
}

Address
FastP2pNetDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address("01:00:5e:00:00:00");
}

Address
FastP2pNetDevice::GetMulticast(Ipv6Address) const
{
    return Mac48Address("33:33:00:00:00:00");
}

bool
FastP2pNetDevice::SendFrom(Ptr<Packet>, const Address&, const Address&, uint16_t)
{
    return false;
}

const Address&
FastP2pNetDevice::GetRemote()
{
    if (m_remote.IsInvalid())
    {
        NS_ABORT_MSG_IF(!m_channel || m_channel->GetNDevices() != 2,
                        "FastP2pNetDevice: a frame arrived on a channel without two ends");
        Ptr<NetDevice> a = m_channel->GetDevice(0);
        m_remote = (a == this ? m_channel->GetDevice(1) : a)->GetAddress();
    }
    return m_remote;
}

} // namespace ns3
