// SPDX-License-Identifier: GPL-2.0-only
#include "roce-sender.h"

#include "roce-header.h"
#include "roce-nic.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-ipv4-routing.h"
#include "ns3/fabric-warning.h"
#include "ns3/flow-key.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

#include <cstddef>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSender");
NS_OBJECT_ENSURE_REGISTERED(RoceSender);

TypeId
RoceSender::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceSender")
              .SetParent<Application>()
              .SetGroupName("Roce")
              .AddConstructor<RoceSender>()
              .AddAttribute("Remote",
                            "Receiver address and UDP port (RoCEv2: 4791).",
                            AddressValue(),
                            MakeAddressAccessor(&RoceSender::m_remote),
                            MakeAddressChecker())
              .AddAttribute("LocalPort",
                            "UDP source port: the flow's ECMP entropy.",
                            UintegerValue(49152),
                            MakeUintegerAccessor(&RoceSender::m_localPort),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("FlowId",
                            "Queue pair number carried in every packet and reported in traces.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&RoceSender::m_flowId),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("MessageBytes",
                            "Message (flow) size in bytes.",
                            UintegerValue(1000000),
                            MakeUintegerAccessor(&RoceSender::m_bytes),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("PacketSize",
                            "Payload bytes per packet (RoCE path MTU 4096).",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&RoceSender::m_payload),
                            MakeUintegerChecker<uint32_t>(1, 9000))
              .AddAttribute("RateControl",
                            "TypeId of the rate control (a RoceRateControl subclass).",
                            TypeIdValue(DcqcnRateControl::GetTypeId()),
                            MakeTypeIdAccessor(&RoceSender::m_rateControlType),
                            MakeTypeIdChecker())
              .AddAttribute("RateController",
                            "The rate control object of this queue pair (read-only; built "
                            "from RateControl on first access): its Rate trace is reachable "
                            "as .../$ns3::RoceSender/RateController/Rate.",
                            TypeId::ATTR_GET,
                            PointerValue(),
                            MakePointerAccessor(&RoceSender::GetRateController),
                            MakePointerChecker<RoceRateControl>())
              .AddAttribute("RtoHigh",
                            "Retransmission timeout (IRN, SIGCOMM'18: 320 us).",
                            TimeValue(MicroSeconds(320)),
                            MakeTimeAccessor(&RoceSender::m_rtoHigh),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("RtoLow",
                            "Retransmission timeout with few packets outstanding (IRN: 100 us).",
                            TimeValue(MicroSeconds(100)),
                            MakeTimeAccessor(&RoceSender::m_rtoLow),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("RtoLowThreshold",
                            "Outstanding packets below which RtoLow applies (IRN: 3).",
                            UintegerValue(3),
                            MakeUintegerAccessor(&RoceSender::m_rtoLowThreshold),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("RtoBackoffMax",
                            "Consecutive timeouts without an acknowledgement double the timeout, "
                            "up to this factor (1: fixed timeouts, as IRN). Backoff keeps a "
                            "queue deeper than the timeout from causing a storm of spurious "
                            "retransmissions.",
                            UintegerValue(64),
                            MakeUintegerAccessor(&RoceSender::m_rtoBackoffMax),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("WatchdogTimeout",
                            "Report the flow (Stall trace) after this long without progress.",
                            TimeValue(MilliSeconds(10)),
                            MakeTimeAccessor(&RoceSender::m_watchdog),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddTraceSource("Tx",
                              "A data packet was sent (PSN, whether it is a retransmission).",
                              MakeTraceSourceAccessor(&RoceSender::m_txTrace),
                              "ns3::RoceSender::TxTracedCallback")
              .AddTraceSource("Cnp",
                              "A CNP arrived (flow id).",
                              MakeTraceSourceAccessor(&RoceSender::m_cnpTrace),
                              "ns3::RoceSender::FlowTracedCallback")
              .AddTraceSource("Timeout",
                              "The retransmission timer fired (flow id).",
                              MakeTraceSourceAccessor(&RoceSender::m_timeoutTrace),
                              "ns3::RoceSender::FlowTracedCallback")
              .AddTraceSource("Complete",
                              "Every PSN of the message was acknowledged (flow id).",
                              MakeTraceSourceAccessor(&RoceSender::m_completeTrace),
                              "ns3::RoceSender::FlowTracedCallback")
              .AddTraceSource("Stall",
                              "No progress for WatchdogTimeout (flow id, state).",
                              MakeTraceSourceAccessor(&RoceSender::m_stallTrace),
                              "ns3::RoceSender::StallTracedCallback")
              .AddTraceSource("Reroute",
                              "The host's view changed and the flow moved to another NIC port "
                              "(flow id, old port, new port).",
                              MakeTraceSourceAccessor(&RoceSender::m_rerouteTrace),
                              "ns3::RoceSender::RerouteTracedCallback");
    return tid;
}

RoceSender::RoceSender()
{
    NS_LOG_FUNCTION(this);
    // Pin the measured layouts (doc/scaling.md, session 12) so that a member added later
    // cannot silently undo them. offsetof on a class that is not standard-layout (a base
    // class, private members) is conditionally supported; GCC and Clang compute it as for
    // any class without virtual bases, and warn.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    constexpr size_t line1 = offsetof(RoceSender, m_sndNxt);
    static_assert(line1 % 64 == 0, "the first per-packet line starts a cache line");
    static_assert(offsetof(RoceSender, m_dstAddr) + sizeof(m_dstAddr) == line1 + 64
                      && offsetof(RoceSender, m_nic) == line1 + 64,
                  "line 1 (m_sndNxt .. m_dstAddr) is exactly one cache line");
    static_assert(offsetof(RoceSender, m_ccState) + sizeof(m_ccState) <= line1 + 128
                      && offsetof(RoceSender, m_txTrace) + 8 <= line1 + 128,
                  "line 2 (m_nic .. the Tx trace's list head) is the next cache line");
#pragma GCC diagnostic pop
}

RoceSender::~RoceSender()
{
    NS_LOG_FUNCTION(this);
    if (m_cc)
    {
        m_cc->MirrorSendState(nullptr); // it may outlive this queue pair
        m_cc->DisconnectRateSink(MakeCallback(&RoceSender::OnRateChange, this));
    }
}

void
RoceSender::DoDispose()
{
    m_rtoEvent.Cancel();
    m_rtoArmed = false;
    m_watchdogEvent.Cancel();
    if (m_cc)
    {
        m_cc->Stop();
        m_cc->MirrorSendState(nullptr);
        m_cc->DisconnectRateSink(MakeCallback(&RoceSender::OnRateChange, this));
    }
    m_cc = nullptr;
    m_udp = nullptr;
    m_route = nullptr;
    if (m_fabricRouting)
    {
        m_fabricRouting->RemoveNodeViewListener(m_fabricNode, m_viewListener);
        m_fabricRouting = nullptr;
    }
    m_nic = nullptr;
    Application::DoDispose();
}

Ptr<RoceRateControl>
RoceSender::GetRateController() const
{
    if (!m_cc)
    {
        ObjectFactory factory(m_rateControlType.GetName());
        m_cc = factory.Create<RoceRateControl>();
        NS_ABORT_MSG_IF(!m_cc, "RoceSender: RateControl must name a RoceRateControl subclass");
    }
    return m_cc;
}

double
RoceSender::GetRateBps() const
{
    return m_cc ? m_cc->GetRateBps() : 0;
}

void
RoceSender::StartApplication()
{
    NS_LOG_FUNCTION(this);
    Ptr<Node> node = GetNode();
    m_udp = node->GetObject<UdpL4Protocol>();
    NS_ABORT_MSG_IF(!m_udp, "RoceSender: node " << node->GetId() << " has no UDP/IPv4 stack");
    NS_ABORT_MSG_IF(!InetSocketAddress::IsMatchingType(m_remote),
                    "RoceSender: Remote must be an InetSocketAddress");
    m_dstAddr = InetSocketAddress::ConvertFrom(m_remote).GetIpv4();

    // One route until the host's view changes: the host's routing picks the NIC port (and so
    // the source address) from addresses only, so it cannot change from packet to packet.
    // With no route at all (every port believed dead) the flow still starts: its packets
    // are handed to IPv4 without a route and dropped there (no-route), and the watchdog
    // reports the stall, until a view change brings a route.
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    Ipv4Header h;
    h.SetDestination(m_dstAddr);
    h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
    Socket::SocketErrno err;
    m_route = ipv4->GetRoutingProtocol()->RouteOutput(Create<Packet>(), h, nullptr, err);
    NS_ABORT_MSG_IF(ipv4->GetNInterfaces() < 2,
                    "RoceSender: node " << node->GetId() << " has no network interface");
    m_srcAddr = m_route ? m_route->GetSource() : ipv4->GetAddress(1, 0).GetLocal();
    m_port = m_route ? m_route->GetOutputDevice()->GetIfIndex() : 0;
    if (!m_route)
    {
        NS_LOG_INFO("flow " << m_flowId << ": no route from node " << node->GetId()
                            << " at start; packets will be dropped (no-route)");
    }
    if (auto fr = DynamicCast<FabricIpv4Routing>(ipv4->GetRoutingProtocol()))
    {
        m_fabricRouting = fr->GetFabricRouting();
        m_fabricNode = fr->GetFabricNode();
        if (m_fabricRouting)
        {
            // Fires only when a detector gives nodes views of their own.
            m_viewListener = m_fabricRouting->AddNodeViewListener(
                m_fabricNode, MakeCallback(&RoceSender::OnNodeViewChange, this));
        }
    }
    m_nic = RoceNic::Get(node);
    NS_ABORT_MSG_UNLESS(m_nic->BindQp(m_flowId, this),
                        "RoceSender: queue pair number (FlowId) "
                            << m_flowId << " is already used on node " << node->GetId());
    m_lineBps = double(m_nic->GetPortRate(m_port));

    GetRateController()->Start(m_lineBps);
    m_cc->MirrorSendState(&m_ccState); // or, if it does not, SendOne asks it per packet
    // After Start (its first rate is no change of a pending gap): from here on every change
    // of the rate re-evaluates the gap after the last packet. Per rate change, not per packet.
    m_cc->ConnectRateSink(MakeCallback(&RoceSender::OnRateChange, this));
    const uint64_t nPkts = (m_bytes + m_payload - 1) / m_payload;
    NS_ABORT_MSG_IF(nPkts >= UINT32_MAX,
                    "RoceSender: MessageBytes / PacketSize must be below 2^32 packets");
    m_nPkts = static_cast<uint32_t>(nPkts);
    m_lastSize = static_cast<uint32_t>(m_bytes - (nPkts - 1) * m_payload);
    // A RoCE packet is never fragmented: the payload and its headers must fit the link MTU.
    const uint32_t mtu = node->GetDevice(m_port)->GetMtu();
    NS_ABORT_MSG_IF(m_payload + RoceHeader::SIZE + 8 + 20 > mtu,
                    "RoceSender: PacketSize " << m_payload << " + 40 header bytes exceeds the MTU "
                                              << mtu << " of node " << node->GetId() << "'s port "
                                              << m_port);
    m_sndNxt = m_sndUna = m_highSent = 0;
    m_startedAt = Simulator::Now();
    m_nextTx = m_startedAt;
    m_lastProgress = m_startedAt;
    m_lastAckProgress = m_startedAt;
    m_started = true;
    m_nic->Register(this, m_port);
    m_watchdogEvent = Simulator::Schedule(m_watchdog, &RoceSender::CheckWatchdog, this);
}

void
RoceSender::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_stopped = true;
    if (m_started && !m_done)
    {
        m_nic->Unregister(this, m_port);
    }
    m_rtoEvent.Cancel();
    m_rtoArmed = false;
    m_watchdogEvent.Cancel();
    if (m_cc)
    {
        m_cc->Stop();
    }
}

void
RoceSender::OnNodeViewChange(uint32_t node, bool /*isNode*/, uint32_t /*id*/, bool /*up*/)
{
    if (node == m_fabricNode && !m_reroutePending && m_started && !m_done && !m_stopped)
    {
        // Not from inside the view change: the NIC may be mid-arbitration.
        m_reroutePending = true;
        Simulator::ScheduleNow(&RoceSender::Reroute, this);
    }
}

void
RoceSender::Reroute()
{
    m_reroutePending = false;
    if (m_done || m_stopped)
    {
        return;
    }
    Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
    Ipv4Header h;
    h.SetDestination(m_dstAddr);
    h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
    Socket::SocketErrno err;
    Ptr<Ipv4Route> route
        = ipv4->GetRoutingProtocol()->RouteOutput(Create<Packet>(), h, nullptr, err);
    const uint32_t port = route ? route->GetOutputDevice()->GetIfIndex() : m_port;
    m_route = route; // null: no route, IPv4 drops (no-route) until the next change
    if (port != m_port)
    {
        NS_LOG_INFO("flow " << m_flowId << " moves from NIC port " << m_port << " to " << port);
        m_nic->Unregister(this, m_port);
        m_rerouteTrace(m_flowId, m_port, port);
        m_port = port;
        ++m_reroutes;
        m_nic->Register(this, m_port);
    }
}

void
RoceSender::SendOne()
{
    const uint32_t psn = m_sndNxt;
    const uint32_t size = psn + 1 == m_nPkts ? m_lastSize : m_payload;
    Ptr<Packet> p = Create<Packet>(size);
    RoceHeader rh;
    rh.SetType(RoceHeader::DATA);
    rh.SetQp(m_flowId);
    rh.SetPsn(psn);
    rh.SetFlags(psn + 1 == m_nPkts ? RoceHeader::FLAG_LAST : 0);
    rh.SetRound(m_round);
    const bool retx = psn < m_highSent;
    if (m_sndUna == m_highSent)
    {
        m_lastProgress = Simulator::Now(); // the timeout counts from the oldest outstanding
    }
    ++m_sndNxt;
    m_highSent = std::max(m_highSent, m_sndNxt);
    ++m_txPackets;
    if (retx)
    {
        ++m_retxPackets; // not in the lines every packet touches
    }
    // The header goes in with the UDP/IPv4 headers (RoceNic::SendIp), unless a Tx sink is
    // to see the packet with it.
    const bool traced = !m_txTrace.IsEmpty();
    if (traced)
    {
        p->AddHeader(rh);
        m_txTrace(p, psn, retx);
    }
    // ECN-capable transport, best-effort DSCP; through the NIC's host path (RoceNic::HostPath).
    m_nic->SendIp(p,
                  m_srcAddr,
                  m_dstAddr,
                  m_localPort,
                  ROCEV2_UDP_PORT,
                  Ipv4Header::ECN_ECT0,
                  m_route,
                  traced ? nullptr : &rh);
    const uint32_t wire = size + WIRE_OVERHEAD;
    // The rate control's object is read only when it has work (its copy in m_ccState says).
    if (m_ccState.callOnSent)
    {
        m_cc->OnSent(wire);
    }
    const double rate = m_ccState.mirrored ? m_ccState.rateBps : m_cc->GetRateBps();
    // Paced like the device serializes (same rounding), so line rate leaves no gaps. The gap
    // is this packet's wire time at the rate in force: OnRateChange rescales it if the rate
    // changes before the next send (m_txTime keeps wire and gap for that, at no cost here).
    m_nextTx = Simulator::Now() + m_txTime.Get(static_cast<uint64_t>(rate), wire);
    ArmTimeout();
}

void
RoceSender::OnRateChange(double /*oldBps*/, double newBps)
{
    // The trace fires before the rate control stores newBps (and, mirrored, before m_ccState
    // has it): use the argument. Inside SendOne (a byte-counter increase from OnSent) the
    // pending gap is the previous packet's, already over; SendOne then sets this packet's.
    const uint32_t wire = m_txTime.GetLastBytes();
    if (wire == 0 || m_done || m_stopped || !(newBps > 0))
    {
        return; // nothing sent yet (the first packet is not paced), no more sends, or no rate
    }
    // A real rate limiter holds the next packet for the last one's size at the rate now in
    // force, whatever the rate was when it left: so a cut lengthens the pending gap and a
    // raise shortens it. Without this, after a cut to the floor (100 Mb/s: ~331 us per 4 KiB
    // packet) the next packet waited the floor's gap even if the rate recovered meanwhile.
    const Time before = m_nextTx;
    const Time lastSend = m_nextTx - m_txTime.GetLastTime();
    m_nextTx = lastSend + m_txTime.Get(static_cast<uint64_t>(newBps), wire);
    // Earlier than a time the NIC was waiting for (a pacing wake-up may be armed for it): the
    // NIC must look again. A later time needs nothing: the wake-up at the old time finds the
    // queue pair not ready and waits for the new one (RoceNic::TrySend). A time already past
    // before the change (the queue pair could send) means the NIC is not waiting for it.
    NS_LOG_LOGIC("flow " << m_flowId << " rate " << newBps / 1e9 << " Gb/s: next send "
                         << before.As(Time::US) << " -> " << m_nextTx.As(Time::US));
    if (before > Simulator::Now() && m_nextTx < before && HasDataToSend())
    {
        m_nic->PacingEarlier(m_port, m_nextTx);
    }
}

void
RoceSender::ReceiveControl(const RoceHeader& rh)
{
    ++m_rxControl;
    if (m_done || !m_started || m_stopped)
    {
        return;
    }
    switch (rh.GetType())
    {
    case RoceHeader::ACK:
        OnAck(rh.GetPsn());
        break;
    case RoceHeader::NACK:
        OnNack(rh.GetPsn(), rh.GetRound());
        break;
    case RoceHeader::CNP:
        ++m_cnps;
        m_cc->OnCnp();
        NS_LOG_LOGIC("flow " << m_flowId << " CNP, rate " << m_cc->GetRateBps() / 1e9 << " Gb/s");
        m_cnpTrace(m_flowId);
        break;
    default:
        break;
    }
}

void
RoceSender::Progress()
{
    const bool backedOff = m_backoff > 1;
    m_backoff = 1;
    m_lastProgress = Simulator::Now();
    m_lastAckProgress = m_lastProgress;
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna; // never resend what is acknowledged
    }
    if (m_sndUna >= m_nPkts)
    {
        Finish();
        return;
    }
    // The lazy event keeps the deadline in force when it was armed, and a later one is
    // checked when it fires; an earlier one must move it now. That happens only when this
    // acknowledgement reset a backoff, or left fewer than RtoLowThreshold packets outstanding
    // (RtoLow applies; the count only falls here): otherwise the new deadline, now + RtoHigh,
    // is never before one armed earlier with RtoHigh or RtoLow (IRN's RtoLow <= RtoHigh; a
    // larger RtoLow's deadline is checked when it fires). Two comparisons per ACK.
    if (m_rtoArmed && (backedOff || m_highSent - m_sndUna < m_rtoLowThreshold))
    {
        const Time due = m_lastProgress + CurrentRto();
        if (static_cast<uint64_t>(due.GetTimeStep()) < m_rtoEvent.GetTs())
        {
            // Cancel, not Remove: Remove searches the pending events (linear in the event
            // heap), which at the tail of every flow would make a large run quadratic; the
            // cancelled event is popped and skipped at its time.
            Simulator::Cancel(m_rtoEvent);
            m_rtoEvent
                = Simulator::Schedule(due - Simulator::Now(), &RoceSender::CheckTimeout, this);
        }
    }
}

void
RoceSender::OnAck(uint32_t psn)
{
    if (psn + 1 > m_sndUna && psn < m_highSent)
    {
        m_sndUna = psn + 1;
        Progress();
    }
}

void
RoceSender::OnNack(uint32_t psn, uint16_t round)
{
    ++m_nacks;
    if (psn > m_sndUna && psn <= m_highSent)
    {
        m_sndUna = psn; // a NACK acknowledges everything before the expected PSN
        Progress();
    }
    if (!m_done && psn >= m_sndUna && psn < m_sndNxt)
    {
        if (round != m_round && m_rewoundTo != UINT32_MAX && psn >= m_rewoundTo)
        {
            // Triggered by a packet sent before the latest rewind (still in flight, queued
            // ahead of the resent data, or overtaken after a path change), for a PSN the
            // current round has already resent (it sends in order from m_rewoundTo, and
            // psn < m_sndNxt): rewinding again would resend the same data once more. If that
            // resend is lost, a packet of the current round beyond it makes the receiver
            // NACK at once with the current round (below), or the timeout covers it.
            ++m_dupNacks;
            return;
        }
        if (round == m_round && m_rewoundTo != UINT32_MAX && psn >= m_rewoundTo)
        {
            // Triggered by a packet sent after the rewind: within a round PSNs leave in
            // order from m_rewoundTo, so the resent psn (the rewound one or a later one) was
            // lost. Rewind now rather than wait for the (possibly backed-off) timeout.
            ++m_lostResendNacks;
            NS_LOG_LOGIC("flow " << m_flowId << " resent psn " << psn << " lost (round " << round
                                 << "): go-back-N again");
        }
        NS_LOG_LOGIC("flow " << m_flowId << " go-back-N to " << psn);
        Rewind(psn);
        ++m_nackRewinds;
        m_nic->Kick(m_port);
    }
}

void
RoceSender::Rewind(uint32_t psn)
{
    m_sndNxt = psn;
    m_rewoundTo = psn;
    ++m_round; // packets sent from now on are told apart from those sent before
    m_lastProgress = Simulator::Now(); // the timeout counts from the rewind
}

Time
RoceSender::CurrentRto() const
{
    return ((m_highSent - m_sndUna < m_rtoLowThreshold) ? m_rtoLow : m_rtoHigh) * m_backoff;
}

void
RoceSender::ArmTimeout()
{
    if (!m_rtoArmed) // m_rtoEvent.IsRunning(), without asking the simulator per packet
    {
        m_rtoEvent = Simulator::Schedule(CurrentRto(), &RoceSender::CheckTimeout, this);
        m_rtoArmed = true;
    }
}

void
RoceSender::CheckTimeout()
{
    m_rtoArmed = false; // this event has run; the branches below that re-arm say so
    if (m_done || m_sndUna >= m_highSent)
    {
        return; // nothing outstanding; the next send re-arms
    }
    const Time due = m_lastProgress + CurrentRto();
    if (Simulator::Now() < due)
    {
        m_rtoEvent = Simulator::Schedule(due - Simulator::Now(), &RoceSender::CheckTimeout, this);
        m_rtoArmed = true;
        return;
    }
    ++m_timeouts;
    NS_LOG_LOGIC("flow " << m_flowId << " timeout, back to " << m_sndUna);
    m_timeoutTrace(m_flowId);
    Rewind(m_sndUna);
    m_backoff = std::min<uint64_t>(2 * m_backoff, m_rtoBackoffMax);
    m_nic->Kick(m_port);
    m_rtoEvent = Simulator::Schedule(CurrentRto(), &RoceSender::CheckTimeout, this);
    m_rtoArmed = true;
}

void
RoceSender::CheckWatchdog()
{
    if (m_done)
    {
        return;
    }
    // Only acknowledged data is progress: a flow that keeps timing out and resending is
    // stalled, however busy its timer is.
    const Time idle = Simulator::Now() - m_lastAckProgress;
    if (idle >= m_watchdog)
    {
        const std::string state = DescribeState();
        if (!m_stallReported)
        {
            // Once per flow: a stall repeats every WatchdogTimeout while it lasts.
            m_stallReported = true;
            FabricWarn("RoceSender",
                       "flow " + std::to_string(m_flowId) + " stalled (no progress for "
                           + std::to_string(m_watchdog.GetMicroSeconds()) + " us): " + state);
        }
        NS_LOG_WARN("RoceSender stall: " << state);
        m_stallTrace(m_flowId, state);
        m_watchdogEvent = Simulator::Schedule(m_watchdog, &RoceSender::CheckWatchdog, this);
        return;
    }
    m_watchdogEvent = Simulator::Schedule(m_watchdog - idle, &RoceSender::CheckWatchdog, this);
}

void
RoceSender::Finish()
{
    m_done = true;
    m_completedAt = Simulator::Now();
    m_rtoEvent.Cancel();
    m_rtoArmed = false;
    m_watchdogEvent.Cancel();
    m_cc->Stop();
    m_nic->Unregister(this, m_port);
    m_completeTrace(m_flowId);
}

std::string
RoceSender::DescribeState() const
{
    std::ostringstream s;
    s << "flow " << m_flowId << " on node " << GetNode()->GetId() << ": acked " << m_sndUna << "/"
      << m_nPkts << " packets, next psn " << m_sndNxt << ", highest sent " << m_highSent
      << ", rate " << GetRateBps() / 1e9 << " Gb/s, last progress at "
      << m_lastAckProgress.As(Time::US) << ", " << m_timeouts << " timeouts, " << m_nacks
      << " NACKs (" << m_dupNacks << " repeated), " << m_cnps << " CNPs, timeout x" << m_backoff;
    return s.str();
}

} // namespace ns3
