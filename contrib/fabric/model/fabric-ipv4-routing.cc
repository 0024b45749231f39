// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-ipv4-routing.h"

#include "fabric-addressing.h"
#include "fabric-drop-reason.h"
#include "fabric-link-device.h"
#include "fabric-packet-key.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-route.h"
#include "ns3/log.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/point-to-point-net-device.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricIpv4Routing");
NS_OBJECT_ENSURE_REGISTERED(FabricIpv4Routing);

TypeId
FabricIpv4Routing::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricIpv4Routing")
              .SetParent<Ipv4RoutingProtocol>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricIpv4Routing>()
              .AddTraceSource("Forward",
                              "A packet was given an egress port (originated or forwarded).",
                              MakeTraceSourceAccessor(&FabricIpv4Routing::m_forwardTrace),
                              "ns3::FabricIpv4Routing::ForwardTracedCallback")
              .AddTraceSource("Drop",
                              "A packet was dropped by routing, with the reason (no-route, "
                              "link-down, host-not-forwarding).",
                              MakeTraceSourceAccessor(&FabricIpv4Routing::m_dropTrace),
                              "ns3::FabricIpv4Routing::DropTracedCallback")
              .AddTraceSource("EcnMark",
                              "A forwarded ECN-capable packet was marked CE and queued (switches "
                              "only).",
                              MakeTraceSourceAccessor(&FabricIpv4Routing::m_ecnTrace),
                              "ns3::FabricSwitchForwarder::EcnMarkTracedCallback");
    return tid;
}

FabricIpv4Routing::FabricIpv4Routing()
{
    NS_LOG_FUNCTION(this);
}

FabricIpv4Routing::~FabricIpv4Routing()
{
    NS_LOG_FUNCTION(this);
}

void
FabricIpv4Routing::DoDispose()
{
    m_ipv4 = nullptr;
    m_routeByPort.clear();
    m_portUp.clear();
    m_portQueue.clear();
    m_ecn = nullptr;
    m_routing = nullptr;
    m_interfaceStateCb = InterfaceStateCallback();
    Ipv4RoutingProtocol::DoDispose();
}

void
FabricIpv4Routing::SetFabric(uint32_t fabricNode, Ptr<FabricRouting> routing, Ipv4Address primary)
{
    NS_LOG_FUNCTION(this << fabricNode << primary);
    NS_ABORT_MSG_IF(!m_ipv4, "FabricIpv4Routing::SetFabric before the protocol joined an Ipv4");
    m_fabricNode = fabricNode;
    m_routing = std::move(routing);
    m_isHost = m_routing->GetGraph().IsHost(fabricNode);
    m_primary = primary;
    const uint32_t nPorts = m_routing->GetGraph().GetNPorts(fabricNode);
    NS_ABORT_MSG_IF(m_ipv4->GetNInterfaces() != nPorts + 1,
                    "FabricIpv4Routing: node " << fabricNode << " has " << m_ipv4->GetNInterfaces()
                                               << " interfaces, expected loopback + " << nPorts);
    // One immutable route per egress port, made once: forwarding then costs no allocation
    // and no address lookup per packet. Hosts send from their primary address whichever NIC
    // is used; a switch's packets carry the egress interface's address.
    m_routeByPort.clear();
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        auto r = Create<Ipv4Route>();
        r->SetSource(m_isHost ? m_primary : m_ipv4->GetAddress(p + 1, 0).GetLocal());
        r->SetGateway(Ipv4Address::GetZero()); // point-to-point: no next-hop address needed
        r->SetOutputDevice(m_ipv4->GetNetDevice(p + 1));
        m_routeByPort.push_back(r);
    }
    m_portUp.assign(nPorts, 0);
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        m_portUp[p] = m_ipv4->IsUp(p + 1) ? 1 : 0;
    }
    m_ecn = m_isHost ? nullptr : m_ipv4->GetObject<EcnMarker>();
    m_portQueue.clear();
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        Ptr<NetDevice> dev = m_ipv4->GetNetDevice(p + 1);
        const bool link = FabricLinkDevice::IsLinkDevice(dev);
        m_portQueue.emplace_back(link ? FabricLinkDevice::GetQueue(dev) : nullptr,
                                 link ? FabricLinkDevice::GetDataRate(dev).GetBitRate() : 0);
    }
}

bool
FabricIpv4Routing::ShouldMark(const Ipv4Header& h, uint32_t port)
{
    const auto ecn = h.GetEcn();
    const auto& [queue, rate] = m_portQueue[port];
    return m_ecn && queue && (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1)
        && m_ecn->ShouldMark(queue->GetNBytes(), rate);
}

void
FabricIpv4Routing::Drop(Ptr<const Packet> p, const Ipv4Header& h, const std::string& reason)
{
    NS_LOG_LOGIC("drop " << h.GetSource() << "->" << h.GetDestination() << ": " << reason);
    m_dropTrace(p, reason);
}

Ptr<Ipv4Route>
FabricIpv4Routing::RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr)
{
    const uint32_t dstHost = FabricAddressing::HostOf(header.GetDestination().Get());
    if (!m_routing || dstHost == FabricAddressing::NOT_A_HOST)
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    const Ipv4Address src = m_isHost ? m_primary : m_ipv4->GetAddress(1, 0).GetLocal();
    if (dstHost == m_fabricNode)
    {
        auto r = Create<Ipv4Route>();
        r->SetSource(src);
        r->SetDestination(header.GetDestination());
        r->SetGateway(Ipv4Address::GetZero());
        r->SetOutputDevice(m_ipv4->GetNetDevice(0)); // loopback
        sockerr = Socket::ERROR_NOTERROR;
        return r;
    }
    uint32_t port;
    if (oif)
    {
        port = oif->GetIfIndex(); // a socket bound to a device keeps it
    }
    else
    {
        // Ports are not in the packet yet at route-output time; host choices hash addresses
        // only (FlowKey::WithoutPorts), the same key the analytic walk uses.
        FlowKey key;
        key.srcAddr = src.Get();
        key.dstAddr = header.GetDestination().Get();
        key.protocol = header.GetProtocol();
        port = m_routing->SelectPort(m_fabricNode, FabricRouting::NO_PORT, dstHost, key);
    }
    if (port == FabricRouting::NO_PORT || port >= m_routeByPort.size())
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    sockerr = Socket::ERROR_NOTERROR;
    m_forwardTrace(p, header, FabricRouting::NO_PORT, port);
    return m_routeByPort[port];
}

bool
FabricIpv4Routing::RouteInput(Ptr<const Packet> p,
                              const Ipv4Header& header,
                              Ptr<const NetDevice> idev,
                              UnicastForwardCallback ucb,
                              MulticastForwardCallback /*mcb*/,
                              LocalDeliverCallback lcb,
                              ErrorCallback ecb)
{
    const uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    const uint32_t dst = header.GetDestination().Get();
    const uint32_t dstHost = FabricAddressing::HostOf(dst);
    if (dstHost == m_fabricNode
        || (dstHost == FabricAddressing::NOT_A_HOST
            && m_ipv4->IsDestinationAddress(header.GetDestination(), iif)))
    {
        lcb(p, header, iif);
        return true;
    }
    if (m_isHost)
    {
        Drop(p, header, FabricDropReason::HOST_NOT_FORWARDING);
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return true;
    }
    const uint32_t inPort = idev->GetIfIndex();
    const uint32_t port
        = (dstHost == FabricAddressing::NOT_A_HOST)
            ? FabricRouting::NO_PORT
            : m_routing->SelectPort(m_fabricNode, inPort, dstHost, ReadFlowKey(p, header));
    if (port == FabricRouting::NO_PORT)
    {
        Drop(p, header, FabricDropReason::NO_ROUTE);
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return true;
    }
    if (!m_portUp[port])
    {
        // The view still believes the port up; the link is dead.
        Drop(p, header, FabricDropReason::LINK_DOWN);
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return true;
    }
    m_forwardTrace(p, header, inPort, port);
    const Ptr<Ipv4Route>& route = m_routeByPort[port];
    if (!ShouldMark(header, port))
    {
        ucb(route, p, header);
        return true;
    }
    Ipv4Header marked = header;
    marked.SetEcn(Ipv4Header::ECN_CE);
    // Forwarding is synchronous down to the device queue: the mark counts only if the packet
    // was queued there (the same rule as the fast path).
    const Ptr<Queue<Packet>>& queue = m_portQueue[port].first;
    const uint32_t queued = queue->GetTotalReceivedPackets();
    ucb(route, p, marked);
    if (queue->GetTotalReceivedPackets() != queued)
    {
        m_ecnTrace(p, port);
    }
    return true;
}

void
FabricIpv4Routing::NotifyInterfaceUp(uint32_t interface)
{
    NS_LOG_FUNCTION(this << interface);
    if (interface >= 1 && interface <= m_portUp.size())
    {
        m_portUp[interface - 1] = 1;
    }
    if (!m_interfaceStateCb.IsNull())
    {
        m_interfaceStateCb(interface, true);
    }
}

void
FabricIpv4Routing::NotifyInterfaceDown(uint32_t interface)
{
    NS_LOG_FUNCTION(this << interface);
    if (interface >= 1 && interface <= m_portUp.size())
    {
        m_portUp[interface - 1] = 0;
    }
    if (!m_interfaceStateCb.IsNull())
    {
        m_interfaceStateCb(interface, false);
    }
}

void
FabricIpv4Routing::NotifyAddAddress(uint32_t /*interface*/, Ipv4InterfaceAddress /*address*/)
{
}

void
FabricIpv4Routing::NotifyRemoveAddress(uint32_t /*interface*/, Ipv4InterfaceAddress /*address*/)
{
}

void
FabricIpv4Routing::SetIpv4(Ptr<Ipv4> ipv4)
{
    NS_LOG_FUNCTION(this << ipv4);
    m_ipv4 = ipv4;
}

void
FabricIpv4Routing::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit /*unit*/) const
{
    std::ostream& os = *stream->GetStream();
    os << "FabricIpv4Routing on fabric node " << m_fabricNode << " ("
       << (m_routing ? m_routing->GetName() : std::string("unbound"))
       << "): routes are computed per packet by the fabric routing function\n";
    for (uint32_t port = 0; port < m_portUp.size(); ++port)
    {
        if (!m_portUp[port])
        {
            os << "  port " << port << " (interface " << port + 1 << ") is down\n";
        }
    }
}

} // namespace ns3
