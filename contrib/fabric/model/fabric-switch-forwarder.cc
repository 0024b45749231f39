// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-switch-forwarder.h"

#include "fabric-addressing.h"
#include "fabric-callback.h"
#include "fabric-drop-reason.h"
#include "fabric-link-device.h"
#include "fabric-link-guard.h"
#include "fabric-packet-key.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/point-to-point-net-device.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitchForwarder");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitchForwarder);

namespace
{
constexpr uint16_t IPV4_ETHERTYPE = 0x0800;
}

TypeId
FabricSwitchForwarder::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricSwitchForwarder")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricSwitchForwarder>()
              .AddAttribute(
                  "Ttl",
                  "When to decrement the IPv4 TTL of forwarded packets and drop them "
                  "at 0 (ttl-expired): always; while-down (only while some link or "
                  "node of the physical state is down, when routing views may "
                  "disagree and loop; no per-hop header rewrite otherwise); never.",
                  EnumValue(TTL_WHILE_DOWN),
                  MakeEnumAccessor(&FabricSwitchForwarder::m_ttlMode),
                  MakeEnumChecker(
                      TTL_ALWAYS, "always", TTL_WHILE_DOWN, "while-down", TTL_NEVER, "never"))
              .AddAttribute(
                  "DirectReceive",
                  "Take the frames of the switch's ports from the devices directly, not "
                  "through Node::ReceiveFromDevice (read by Install): on FastP2pNetDevice "
                  "ports the IPv4 frames, on other devices every frame. The same results "
                  "unless a program registers its own non-promiscuous protocol handler or a "
                  "packet socket on a switch node, which then does not see those frames. "
                  "Off by default (ns-3's dispatch); the project's programs turn it on "
                  "(FabricCli).",
                  BooleanValue(false),
                  MakeBooleanAccessor(&FabricSwitchForwarder::m_directReceive),
                  MakeBooleanChecker())
              .AddTraceSource("Forward",
                              "A packet is sent out of an egress port (fired before its TTL "
                              "and ECN are rewritten and it is queued: a sink that keeps the "
                              "packet must Copy() it).",
                              MakeTraceSourceAccessor(&FabricSwitchForwarder::m_forwardTrace),
                              "ns3::FabricSwitchForwarder::ForwardTracedCallback")
              .AddTraceSource("Drop",
                              "A packet was dropped by the switch, with the reason "
                              "(FabricDropReason: no-route, link-down, ttl-expired, not-ipv4).",
                              MakeTraceSourceAccessor(&FabricSwitchForwarder::m_dropTrace),
                              "ns3::FabricSwitchForwarder::DropTracedCallback")
              .AddTraceSource("EcnMark",
                              "An ECN-capable packet was marked CE and queued on a port.",
                              MakeTraceSourceAccessor(&FabricSwitchForwarder::m_ecnTrace),
                              "ns3::FabricSwitchForwarder::EcnMarkTracedCallback");
    return tid;
}

FabricSwitchForwarder::FabricSwitchForwarder()
{
    NS_LOG_FUNCTION(this);
}

FabricSwitchForwarder::~FabricSwitchForwarder()
{
    NS_LOG_FUNCTION(this);
}

void
FabricSwitchForwarder::DoDispose()
{
    ReleaseFastPorts();
    m_ports.clear();
    m_broadcast.clear();
    m_queues.clear();
    m_ecn = nullptr;
    m_egressCb = EgressCallback();
    m_routing = nullptr;
    m_truth = nullptr;
    Object::DoDispose();
}

void
FabricSwitchForwarder::Install(Ptr<Node> node, uint32_t fabricNode, Ptr<FabricRouting> routing)
{
    NS_LOG_FUNCTION(this << node << fabricNode);
    m_fabricNode = fabricNode;
    m_routing = std::move(routing);
    const uint32_t nPorts = m_routing->GetGraph().GetNPorts(fabricNode);
    NS_ABORT_MSG_IF(node->GetNDevices() != nPorts,
                    "FabricSwitchForwarder: node has " << node->GetNDevices()
                                                       << " devices, fabric node has " << nPorts
                                                       << " ports");
    m_ports.clear();
    m_broadcast.clear();
    m_egress.clear();
    m_queues.clear();
    m_rates.clear();
    m_ecn = node->GetObject<EcnMarker>();
    if (auto guard = node->GetObject<FabricLinkGuard>())
    {
        m_truth = guard->GetTruth();
    }
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        m_ports.push_back(node->GetDevice(p));
        m_broadcast.push_back(node->GetDevice(p)->GetBroadcast());
        m_egress.push_back(m_routing->GetGraph().GetEgressDirLink(fabricNode, p));
        Ptr<NetDevice> dev = node->GetDevice(p);
        const bool link = FabricLinkDevice::IsLinkDevice(dev);
        m_queues.push_back(link ? FabricLinkDevice::GetQueue(dev) : nullptr);
        m_rates.push_back(link ? FabricLinkDevice::GetDataRate(dev).GetBitRate() : 0);
    }
    if (!m_directReceive)
    {
        // Installed again with DirectReceive off: the fast ports stop calling this forwarder
        // directly (a p2p port's receive callback cannot be given back to the node: ns-3 has no
        // public way; such a port keeps calling ReceiveFromPort).
        ReleaseFastPorts();
    }
    else
    {
        // Every frame of a port comes here, not through the node's handler list (the handler
        // below still serves devices that are not ports, and DirectReceive=false).
        for (uint32_t inPort = 0; inPort < nPorts; ++inPort)
        {
            const Ptr<NetDevice>& dev = m_ports[inPort];
            if (auto fast = DynamicCast<FastP2pNetDevice>(dev))
            {
                fast->SetDirectReceiver(this);
            }
            else
            {
                // Called per packet: the inline form reads one object fewer per call, and the
                // port is bound in it, so the device and the port table are not read to find
                // it.
                dev->SetReceiveCallback(FabricLambdaCallback<bool,
                                                             Ptr<NetDevice>,
                                                             Ptr<const Packet>,
                                                             uint16_t,
                                                             const Address&>(
                    [this, inPort](
                        Ptr<NetDevice>, Ptr<const Packet> packet, uint16_t protocol, const Address&)
                    { return ReceiveFromPort(inPort, packet, protocol); }));
            }
        }
    }
    // One handler for all the node's devices, not one per port: Node::ReceiveFromDevice scans
    // its handler list for every frame, so per-port entries cost O(ports) per hop (64 entries
    // on a leaf of a 1024-GPU ROFT). Receive() ignores a device that is not one of the ports.
    if (m_registeredOn != PeekPointer(node))
    {
        m_registeredOn = PeekPointer(node);
        node->RegisterProtocolHandler(
            MakeCallback(&FabricSwitchForwarder::Receive, this), IPV4_ETHERTYPE, nullptr);
    }
}

void
FabricSwitchForwarder::Drop(Ptr<const Packet> p, const std::string& reason)
{
    NS_LOG_LOGIC("node " << m_fabricNode << " drops: " << reason);
    m_dropTrace(p, reason);
}

void
FabricSwitchForwarder::Forward(Ptr<const Packet> ipv4, uint32_t inPort)
{
    const Ptr<NetDevice>& device = m_ports.at(inPort);
    Receive(device,
            ipv4->Copy(), // Receive rewrites and sends the packet it gets
            IPV4_ETHERTYPE,
            device->GetAddress(),
            device->GetAddress(),
            NetDevice::PACKET_HOST);
}

void
FabricSwitchForwarder::ReleaseFastPorts()
{
    for (const Ptr<NetDevice>& dev : m_ports)
    {
        if (auto fast = DynamicCast<FastP2pNetDevice>(dev))
        {
            fast->ClearDirectReceiver(this);
        }
    }
}

uint32_t
FabricSwitchForwarder::PortOfIpv4Frame(const NetDevice* device, uint16_t protocol) const
{
    const uint32_t inPort = device->GetIfIndex();
    return protocol == IPV4_ETHERTYPE && inPort < m_ports.size()
                && PeekPointer(m_ports[inPort]) == device
             ? inPort
             : NOT_A_PORT;
}

bool
FabricSwitchForwarder::ReceiveFromFastDevice(FastP2pNetDevice* device,
                                             const Ptr<Packet>& packet,
                                             uint16_t protocol)
{
    const uint32_t inPort = PortOfIpv4Frame(device, protocol);
    if (inPort == NOT_A_PORT)
    {
        return false; // what the node's handler list would not have given us
    }
    Route(inPort, packet);
    return true;
}

bool
FabricSwitchForwarder::ReceiveFromPort(uint32_t inPort,
                                       const Ptr<const Packet>& packet,
                                       uint16_t protocol)
{
    if (protocol != IPV4_ETHERTYPE)
    {
        // Not an IPv4 frame: nothing this forwarder handles. (The device's callback was
        // replaced, so the node's other handlers do not get it: see DirectReceive.)
        return false;
    }
    Route(inPort, ConstCast<Packet>(packet));
    return true;
}

void
FabricSwitchForwarder::Receive(Ptr<NetDevice> device,
                               Ptr<const Packet> packet,
                               uint16_t /*protocol*/,
                               const Address& /*from*/,
                               const Address& /*to*/,
                               NetDevice::PacketType /*packetType*/)
{
    // Registered for IPv4 only.
    const uint32_t inPort = PortOfIpv4Frame(PeekPointer(device), IPV4_ETHERTYPE);
    if (inPort == NOT_A_PORT)
    {
        return; // a device added after Install: not a port (per-port handlers never saw it)
    }
    Route(inPort, ConstCast<Packet>(packet));
}

void
FabricSwitchForwarder::Route(uint32_t inPort, const Ptr<Packet>& packet)
{
    FlowKey key;
    uint8_t ecn = 0;
    uint8_t ttl = 0;
    if (!ReadFlowKeyFromIpv4Packet(*packet, key, &ecn, &ttl))
    {
        Drop(packet, FabricDropReason::NOT_IPV4);
        return;
    }
    // while-down: while something is down, or some node's view still differs from the truth
    // (views converging after a repair can loop too); three counters, no scan.
    const bool decrement
        = m_ttlMode == TTL_ALWAYS
       || (m_ttlMode == TTL_WHILE_DOWN
           && ((m_truth && (m_truth->GetNDirLinksDown() != 0 || m_truth->GetNNodesDown() != 0))
               || m_routing->GetViewDisagreements() != 0));
    if (decrement && ttl <= 1)
    {
        Drop(packet, FabricDropReason::TTL_EXPIRED);
        return;
    }
    const uint32_t dstHost = FabricAddressing::HostOf(key.dstAddr);
    const uint32_t port = (dstHost == FabricAddressing::NOT_A_HOST)
                            ? FabricRouting::NO_PORT
                            : m_routing->SelectPort(m_fabricNode, inPort, dstHost, key);
    if (port == FabricRouting::NO_PORT)
    {
        Drop(packet, FabricDropReason::NO_ROUTE);
        return;
    }
    // The routing view may still believe a dead port up: the packet goes into the hole.
    if (m_truth && !m_truth->IsDirLinkUsable(m_egress[port]))
    {
        Drop(packet, FabricDropReason::LINK_DOWN);
        return;
    }
    ++m_forwarded;
    if (!m_forwardTrace.IsEmpty())
    {
        m_forwardTrace(packet, inPort, port);
    }
    // No copy: the link device hands its protocol handlers a packet nobody else holds (the copy
    // PointToPointChannel::TransmitStart made, or FastP2pNetDevice's frame, copied on arrival
    // only if something still held it), and on a switch this
    // forwarder is the only IPv4 handler. So it is ours to rewrite and pass on (Forward() copies
    // what a caller hands it).
    const Ptr<Packet>& copy = packet;
    const bool marked = m_ecn && (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1)
                     && m_queues[port]
                     && m_ecn->ShouldMark(m_queues[port]->GetNBytes(), m_rates[port]);
    if (decrement || marked)
    {
        // One header rewrite per hop for both the TTL and the mark.
        Ipv4Header ip;
        copy->RemoveHeader(ip);
        if (decrement)
        {
            ip.SetTtl(ttl - 1);
        }
        if (marked)
        {
            ip.SetEcn(Ipv4Header::ECN_CE);
        }
        copy->AddHeader(ip);
    }
    // A full egress queue drops inside Send(); the link monitor counts it there. A mark counts
    // only when the marked packet was queued.
    const Ptr<NetDevice>& out = m_ports[port];
    const bool queued = m_egressCb.IsNull() ? out->Send(copy, m_broadcast[port], IPV4_ETHERTYPE)
                                            : m_egressCb(copy, inPort, port);
    if (queued && marked)
    {
        m_ecnTrace(copy, port);
    }
}

} // namespace ns3
