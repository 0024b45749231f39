// SPDX-License-Identifier: GPL-2.0-only
#include "udp-flow-sender.h"

#include "ns3/enum.h"
#include "ns3/fabric-host-path.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UdpFlowSender");
NS_OBJECT_ENSURE_REGISTERED(UdpFlowSender);

TypeId
UdpFlowSender::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::UdpFlowSender")
              .SetParent<Application>()
              .SetGroupName("Fabric")
              .AddConstructor<UdpFlowSender>()
              .AddAttribute("Remote",
                            "Destination address and UDP port.",
                            AddressValue(),
                            MakeAddressAccessor(&UdpFlowSender::m_remote),
                            MakeAddressChecker())
              .AddAttribute("LocalPort",
                            "UDP source port (the flow's ECMP entropy).",
                            UintegerValue(49152),
                            MakeUintegerAccessor(&UdpFlowSender::m_localPort),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("DataRate",
                            "Constant on-wire sending rate (payload plus UDP/IPv4/PPP headers).",
                            DataRateValue(DataRate("400Gbps")),
                            MakeDataRateAccessor(&UdpFlowSender::m_rate),
                            MakeDataRateChecker())
              .AddAttribute("PacketSize",
                            "UDP payload bytes per packet (the last packet may be shorter).",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&UdpFlowSender::m_payload),
                            MakeUintegerChecker<uint32_t>(1, 65000))
              .AddAttribute("MaxBytes",
                            "Flow size: payload bytes to send in total.",
                            UintegerValue(1000000),
                            MakeUintegerAccessor(&UdpFlowSender::m_maxBytes),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("HostPath",
                            "How packets cross the sending host: ipv4 (UdpL4Protocol and "
                            "Ipv4L3Protocol; FlowMonitor and IPv4 traces see them) or fast "
                            "(FabricHostPath writes the same UDP/IPv4 headers and sends to the "
                            "device; the same bytes on the wire and the same results). "
                            "FabricTrafficHelper's receive side follows this attribute's "
                            "default. Read when the application starts.",
                            EnumValue(HOST_PATH_FAST),
                            MakeEnumAccessor(&UdpFlowSender::m_hostPath),
                            MakeEnumChecker(HOST_PATH_IPV4, "ipv4", HOST_PATH_FAST, "fast"))
              .AddTraceSource(
                  "Tx",
                  "A packet of the flow (its payload) is being sent: next handed to the host fast "
                  "path or UdpL4Protocol, or refused (no route: Refused follows).",
                  MakeTraceSourceAccessor(&UdpFlowSender::m_txTrace),
                  "ns3::Packet::TracedCallback")
              .AddTraceSource("Refused",
                              "No route at the source for a packet: a drop.",
                              MakeTraceSourceAccessor(&UdpFlowSender::m_refusedTrace),
                              "ns3::Packet::TracedCallback")
              .AddTraceSource("Done",
                              "The last packet of the flow was sent (or refused).",
                              MakeTraceSourceAccessor(&UdpFlowSender::m_doneTrace),
                              "ns3::TracedCallback::Void");
    return tid;
}

UdpFlowSender::UdpFlowSender()
{
    NS_LOG_FUNCTION(this);
}

UdpFlowSender::~UdpFlowSender()
{
    NS_LOG_FUNCTION(this);
}

void
UdpFlowSender::DoDispose()
{
    m_udp = nullptr;
    m_ipv4 = nullptr;
    m_fast = nullptr;
    Application::DoDispose();
}

void
UdpFlowSender::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "UdpFlowSender: DataRate must be > 0");
    NS_ABORT_MSG_IF(!InetSocketAddress::IsMatchingType(m_remote),
                    "UdpFlowSender: Remote must be an InetSocketAddress");
    m_udp = GetNode()->GetObject<UdpL4Protocol>();
    m_ipv4 = GetNode()->GetObject<Ipv4>();
    NS_ABORT_MSG_IF(!m_udp || !m_ipv4,
                    "UdpFlowSender: node " << GetNode()->GetId() << " has no UDP/IPv4 stack");
    const InetSocketAddress remote = InetSocketAddress::ConvertFrom(m_remote);
    m_dstAddr = remote.GetIpv4();
    m_dstPort = remote.GetPort();
    if (m_hostPath == HOST_PATH_FAST)
    {
        Ptr<FabricHostPath> hp = FabricHostPath::Get(GetNode());
        m_fast = hp->IsAvailable() ? hp : nullptr;
    }
    SendNext();
}

void
UdpFlowSender::StopApplication()
{
    NS_LOG_FUNCTION(this);
    Simulator::Cancel(m_sendEvent);
}

void
UdpFlowSender::SendNext()
{
    const uint64_t left = m_maxBytes - m_sentBytes;
    const auto size = static_cast<uint32_t>(std::min<uint64_t>(left, m_payload));
    Ptr<Packet> p = Create<Packet>(size);
    if (m_sentPackets == 0)
    {
        m_firstTx = Simulator::Now();
    }
    m_txTrace(p);
    // What a connected UDP socket bound to (any, LocalPort) does: a route per packet (the
    // host's view may change during the flow), the source address from the route.
    Ptr<Ipv4Route> route;
    if (Ptr<Ipv4RoutingProtocol> rp = m_ipv4->GetRoutingProtocol())
    {
        // What the routing protocol is asked with (destination, UDP): one header object for
        // every sender, its two fields set per call (no per-flow copy, no construction per
        // packet).
        static Ipv4Header query;
        query.SetDestination(m_dstAddr);
        query.SetProtocol(UdpL4Protocol::PROT_NUMBER);
        Socket::SocketErrno err;
        route = rp->RouteOutput(p, query, nullptr, err);
    }
    if (route)
    {
        // The trace saw the payload alone: copy only if someone may keep it.
        Ptr<Packet> q = m_txTrace.IsEmpty() ? p : p->Copy();
        if (m_fast
            && m_fast->SendUdp(q, route->GetSource(), m_dstAddr, m_localPort, m_dstPort, 0, route))
        {
            ++m_fastPackets;
        }
        else
        {
            m_udp->Send(q, route->GetSource(), m_dstAddr, m_localPort, m_dstPort, route);
        }
    }
    else
    {
        NS_LOG_WARN("UdpFlowSender: no route for a packet of node " << GetNode()->GetId());
        ++m_refusedPackets;
        m_refusedTrace(p);
    }
    m_sentBytes += size;
    ++m_sentPackets;
    if (m_sentBytes >= m_maxBytes)
    {
        m_doneTrace();
        return;
    }
    Time gap;
    if (size == m_payload)
    {
        if (m_gapBps != m_rate.GetBitRate())
        {
            m_gapBps = m_rate.GetBitRate();
            m_fullGap = m_rate.CalculateBytesTxTime(m_payload + WIRE_OVERHEAD);
        }
        gap = m_fullGap;
    }
    else
    {
        gap = m_rate.CalculateBytesTxTime(size + WIRE_OVERHEAD);
    }
    m_sendEvent = Simulator::Schedule(gap, &UdpFlowSender::SendNext, this);
}

} // namespace ns3
