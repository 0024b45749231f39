// SPDX-License-Identifier: GPL-2.0-only
#include "roce-receiver.h"

#include "roce-header.h"
#include "roce-nic.h"
#include "roce-sender.h"

#include "ns3/fabric-ipv4-routing.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceReceiver");
NS_OBJECT_ENSURE_REGISTERED(RoceReceiver);

TypeId
RoceReceiver::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RoceReceiver")
              .SetParent<Application>()
              .SetGroupName("Roce")
              .AddConstructor<RoceReceiver>()
              .AddAttribute("AckEveryPackets",
                            "Coalesce ACKs: one per this many packets.",
                            UintegerValue(4),
                            MakeUintegerAccessor(&RoceReceiver::m_ackEvery),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("AckMaxDelay",
                            "An arriving packet is ACKed if the last ACK is at least this old.",
                            TimeValue(MicroSeconds(10)),
                            MakeTimeAccessor(&RoceReceiver::m_ackMaxDelay),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("CnpInterval",
                            "At most one CNP per flow per interval (DCQCN paper: 50 us).",
                            TimeValue(MicroSeconds(50)),
                            MakeTimeAccessor(&RoceReceiver::m_cnpInterval),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("NackRetryInterval",
                            "A NACK for the same expected PSN is repeated only after this long.",
                            TimeValue(MicroSeconds(100)),
                            MakeTimeAccessor(&RoceReceiver::m_nackRetry),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("Deliver",
                              "In-order payload delivered (flow id, bytes).",
                              MakeTraceSourceAccessor(&RoceReceiver::m_deliverTrace),
                              "ns3::RoceReceiver::DeliverTracedCallback")
              .AddTraceSource("Complete",
                              "The last packet of a message arrived in order (flow id, bytes).",
                              MakeTraceSourceAccessor(&RoceReceiver::m_completeTrace),
                              "ns3::RoceReceiver::CompleteTracedCallback")
              .AddTraceSource("CnpSent",
                              "A CNP was sent (flow id).",
                              MakeTraceSourceAccessor(&RoceReceiver::m_cnpTrace),
                              "ns3::RoceSender::FlowTracedCallback")
              .AddTraceSource("NackSent",
                              "A NACK was sent (flow id, expected PSN).",
                              MakeTraceSourceAccessor(&RoceReceiver::m_nackTrace),
                              "ns3::RoceReceiver::NackTracedCallback");
    return tid;
}

RoceReceiver::RoceReceiver()
{
    NS_LOG_FUNCTION(this);
    // Pin the measured layouts (doc/scaling.md, session 12) so that a member added later
    // cannot silently undo them. offsetof on a class that is not standard-layout (a base
    // class, private members) is conditionally supported; GCC and Clang compute it as for
    // any class without virtual bases, and warn.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    constexpr size_t hot = offsetof(RoceReceiver, m_flows);
    static_assert(hot % 64 == 0, "the per-packet lines start a cache line");
    static_assert(offsetof(RoceReceiver, m_deliverTrace) + 8 <= hot + 128
                      && offsetof(RoceReceiver, m_cnpInterval) >= hot + 128,
                  "m_flows .. the Deliver trace's list head are two cache lines");
    // The map node's 16-byte header (next pointer, key) and these 72 bytes: two lines at most.
    static_assert(offsetof(FlowState, ackTimer) + sizeof(EventId) == 72,
                  "FlowState's per-packet fields are its first 72 bytes");
#pragma GCC diagnostic pop
}

RoceReceiver::~RoceReceiver()
{
    NS_LOG_FUNCTION(this);
}

void
RoceReceiver::DoDispose()
{
    m_socket = nullptr;
    m_udp = nullptr;
    m_nic = nullptr;
    if (m_fabricRouting)
    {
        m_fabricRouting->RemoveNodeViewListener(m_fabricNode, m_viewListener);
        m_fabricRouting = nullptr;
    }
    for (auto& [key, f] : m_flows)
    {
        f.ackTimer.Cancel();
        f.ackArmed = false;
    }
    m_flows.clear();
    Application::DoDispose();
}

void
RoceReceiver::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), PORT)) != 0,
                    "RoceReceiver: cannot bind UDP port " << PORT);
    m_socket->SetIpRecvTos(true);
    m_udp = GetNode()->GetObject<UdpL4Protocol>();
    m_nic = RoceNic::Get(GetNode());
    m_socket->SetRecvCallback(MakeCallback(&RoceReceiver::Receive, this));
    // With the fast host path, the NIC hands this host's UDP 4791 packets to ReceivePacket;
    // the socket still gets whatever goes through IPv4.
    m_nic->SetReceiver(this, true);
    Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
    m_primary = ipv4->GetNInterfaces() > 1 ? ipv4->GetAddress(1, 0).GetLocal() : Ipv4Address();
    if (auto fr = DynamicCast<FabricIpv4Routing>(ipv4->GetRoutingProtocol()))
    {
        m_fabricRouting = fr->GetFabricRouting();
        m_fabricNode = fr->GetFabricNode();
        if (m_fabricRouting)
        {
            // A NIC port failover: ask the host's routing again for every flow's way back.
            // Fires only when a detector gives nodes views of their own.
            m_viewListener = m_fabricRouting->AddNodeViewListener(
                m_fabricNode, MakeCallback(&RoceReceiver::OnNodeViewChange, this));
        }
    }
}

void
RoceReceiver::OnNodeViewChange(uint32_t node, bool /*isNode*/, uint32_t /*id*/, bool /*up*/)
{
    if (node != m_fabricNode)
    {
        return;
    }
    for (auto& [key, f] : m_flows)
    {
        f.route = nullptr;
    }
}

void
RoceReceiver::StopApplication()
{
    if (m_nic)
    {
        m_nic->SetReceiver(this, false);
    }
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
RoceReceiver::SendControl(FlowState& f, uint8_t type, uint32_t psn, uint16_t round)
{
    Ptr<Packet> p = Create<Packet>();
    RoceHeader rh;
    rh.SetType(static_cast<RoceHeader::Type>(type));
    rh.SetQp(f.qp);
    rh.SetPsn(psn);
    rh.SetRound(round);
    const bool routed = static_cast<bool>(f.route);
    if (!routed)
    {
        // The routing protocol is asked with the packet IPv4 would give it.
        p->AddHeader(rh);
        Ipv4Header h;
        h.SetDestination(f.peer);
        h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
        Socket::SocketErrno err;
        f.route
            = GetNode()->GetObject<Ipv4>()->GetRoutingProtocol()->RouteOutput(p, h, nullptr, err);
    }
    ++m_txControl;
    // DSCP 48 (CS6), not ECN-capable: control packets ride the high-priority class of a
    // lossless fabric (PfcQueue), as deployments give CNPs their own priority.
    // To UDP 4791 of the sender's host, from the flow's own source port, so that a flow's
    // control packets hash alike, as RoCEv2 NICs do. With no route back (every port believed
    // dead) IPv4 drops it (no-route) and the sender's timeout recovers.
    const Ipv4Address src = f.route ? f.route->GetSource() : m_primary;
    // With a route the header goes in with the UDP/IPv4 headers (RoceNic::SendIp).
    m_nic->SendIp(p, src, f.peer, f.peerPort, PORT, CONTROL_TOS, f.route, routed ? &rh : nullptr);
}

void
RoceReceiver::SendAck(FlowState& f)
{
    f.ackTimer.Cancel();
    f.ackArmed = false;
    f.sinceAck = 0;
    f.lastAck = Simulator::Now();
    SendControl(f, RoceHeader::ACK, f.expected - 1);
}

void
RoceReceiver::AckTimer(uint64_t key)
{
    auto it = m_flows.find(key);
    if (it != m_flows.end())
    {
        it->second.ackArmed = false; // this event has run
    }
    if (it != m_flows.end() && it->second.sinceAck > 0 && it->second.expected > 0)
    {
        SendAck(it->second);
    }
}

void
RoceReceiver::Receive(Ptr<Socket> socket)
{
    Address from;
    Ptr<Packet> p;
    while ((p = socket->RecvFrom(from)))
    {
        const InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
        SocketIpTosTag tos;
        const uint8_t t = p->RemovePacketTag(tos) ? tos.GetTos() : 0;
        ReceivePacket(p, a.GetIpv4(), a.GetPort(), t);
    }
}

void
RoceReceiver::ReceivePacket(Ptr<Packet> p, Ipv4Address peer, uint16_t peerPort, uint8_t tosByte)
{
    RoceHeader rh;
    if (p->GetSize() < RoceHeader::SIZE || p->RemoveHeader(rh) != RoceHeader::SIZE)
    {
        return;
    }
    Process(rh, p->GetSize(), peer, peerPort, tosByte);
}

void
RoceReceiver::ReceiveInPlace(Ptr<const Packet> packet,
                             uint32_t offset,
                             uint32_t size,
                             Ipv4Address peer,
                             uint16_t peerPort,
                             uint8_t tos)
{
    // At most 60 bytes of IPv4 header and 8 of UDP before the RoCE header.
    uint8_t bytes[60 + 8 + RoceHeader::SIZE];
    if (size < RoceHeader::SIZE || offset + RoceHeader::SIZE > sizeof(bytes))
    {
        return;
    }
    packet->CopyData(bytes, offset + RoceHeader::SIZE);
    RoceHeader rh;
    rh.Read(bytes + offset);
    Process(rh, size - RoceHeader::SIZE, peer, peerPort, tos);
}

void
RoceReceiver::Process(
    const RoceHeader& rh, uint32_t payload, Ipv4Address peer, uint16_t peerPort, uint8_t tosByte)
{
    if (rh.GetType() != RoceHeader::DATA)
    {
        // ACK, NACK or CNP for one of this host's queue pairs.
        ++m_rxControl;
        if (Ptr<RoceSender> qp = m_nic->FindQp(rh.GetQp()))
        {
            qp->ReceiveControl(rh);
        }
        return;
    }
    ++m_rxData;
    const Time now = Simulator::Now();
    // A flow is its sender's host and queue-pair number, as in RoCE: two messages that
    // happen to reuse a UDP source port are still told apart.
    const uint64_t key = (uint64_t(peer.Get()) << 32) | rh.GetQp();
    FlowState& f = m_flows[key];
    f.peer = peer;
    f.peerPort = peerPort;
    f.qp = rh.GetQp();

    if ((tosByte & 0x03) == Ipv4Header::ECN_CE)
    {
        ++f.marked;
        if (f.lastCnp.IsNegative() || now - f.lastCnp >= m_cnpInterval)
        {
            f.lastCnp = now;
            ++f.cnpsSent;
            m_cnpTrace(f.qp);
            SendControl(f, RoceHeader::CNP, 0);
        }
    }

    const uint32_t psn = rh.GetPsn();
    const bool last = rh.GetFlags() & RoceHeader::FLAG_LAST;
    if (psn == f.expected)
    {
        ++f.expected;
        f.deliveredBytes += payload;
        m_deliverTrace(f.qp, payload);
        if (last && !f.complete)
        {
            f.complete = true;
            m_completeTrace(f.qp, f.deliveredBytes);
        }
    }
    else if (psn > f.expected)
    {
        ++f.discarded;
        // A packet of a later round than the last NACK's means the sender rewound since,
        // and the expected PSN is still missing: its resend was lost. Say so at once.
        if (f.lastNackPsn != f.expected || now - f.lastNack >= m_nackRetry
            || RoceHeader::RoundAfter(rh.GetRound(), f.lastNackRound))
        {
            f.lastNackPsn = f.expected;
            f.lastNackRound = rh.GetRound();
            f.lastNack = now;
            NS_LOG_LOGIC("flow " << f.qp << " NACK " << f.expected << " on psn " << psn << " round "
                                 << rh.GetRound());
            m_nackTrace(f.qp, f.expected);
            SendControl(f, RoceHeader::NACK, f.expected, rh.GetRound());
            f.ackTimer.Cancel(); // the NACK acknowledges everything before expected
            f.ackArmed = false;
            f.sinceAck = 0;
            f.lastAck = now;
        }
        return;
    }
    else
    {
        ++f.duplicates; // data delivered before; re-ACK below
    }
    ++f.sinceAck;
    if (f.expected > 0
        && (last || f.sinceAck >= m_ackEvery || f.lastAck.IsNegative()
            || now - f.lastAck >= m_ackMaxDelay))
    {
        SendAck(f);
    }
    else if (f.expected > 0 && !f.ackArmed)
    {
        f.ackTimer = Simulator::Schedule(m_ackMaxDelay, &RoceReceiver::AckTimer, this, key);
        f.ackArmed = true;
    }
}

} // namespace ns3
