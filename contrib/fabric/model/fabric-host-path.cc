// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-host-path.h"

#include "fabric-addressing.h"
#include "fabric-callback.h"
#include "fabric-ipv4-routing.h"
#include "fabric-link-device.h"

#include "ns3/abort.h"
#include "ns3/arp-l3-protocol.h"
#include "ns3/boolean.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv6.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/packet-metadata.h"
#include "ns3/queue-disc.h"
#include "ns3/socket.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHostPath");
NS_OBJECT_ENSURE_REGISTERED(FabricHostPath);

TypeId
FabricHostPath::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricHostPath")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricHostPath>()
              .AddAttribute("DirectReceive",
                            "Take the IPv4 frames of the host's FastP2pNetDevice ports from "
                            "the devices directly, not through Node::ReceiveFromDevice (read "
                            "when the first port is bound). The same results unless a program "
                            "registers its own non-promiscuous IPv4 protocol handler (or an "
                            "IPv4 packet socket) on a host, which then does not see those "
                            "frames. Off by default (ns-3's dispatch); the project's programs "
                            "turn it on (FabricCli).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FabricHostPath::m_directReceive),
                            MakeBooleanChecker())
              .AddTraceSource("Tx",
                              "A UDP datagram sent by the fast path (not IPv4), "
                              "with its IPv4 header, as handed to the device.",
                              MakeTraceSourceAccessor(&FabricHostPath::m_txTrace),
                              "ns3::FabricHostPath::TxRxTracedCallback")
              .AddTraceSource("Rx",
                              "A UDP datagram for this host taken by the fast path "
                              "(a bound port's handler), with its IPv4 header, as "
                              "received from the device.",
                              MakeTraceSourceAccessor(&FabricHostPath::m_rxTrace),
                              "ns3::FabricHostPath::TxRxTracedCallback");
    return tid;
}

FabricHostPath::FabricHostPath()
{
    NS_LOG_FUNCTION(this);
}

void
FabricHostPath::DoDispose()
{
    for (const auto& dev : m_directDevices)
    {
        dev->ClearDirectReceiver(this);
    }
    m_directDevices.clear();
    if (m_routing)
    {
        m_routing->SetInterfaceStateCallback(FabricIpv4Routing::InterfaceStateCallback());
        m_routing = nullptr;
    }
    m_ports = nullptr;
    m_nPorts = 0;
    m_hostPorts.clear();
    m_bindings.clear();
    m_ipv4 = nullptr;
    m_tc = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

void
FabricHostPath::NotifyNewAggregate()
{
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    Object::NotifyNewAggregate();
}

Ptr<FabricHostPath>
FabricHostPath::Get(Ptr<Node> node)
{
    Ptr<FabricHostPath> hp = node->GetObject<FabricHostPath>();
    if (!hp)
    {
        hp = CreateObject<FabricHostPath>();
        hp->m_node = node;
        node->AggregateObject(hp);
    }
    return hp;
}

void
FabricHostPath::Init()
{
    if (m_init || !m_node)
    {
        return;
    }
    m_init = true;
    m_ipv4 = m_node->GetObject<Ipv4>();
    m_tc = m_node->GetObject<TrafficControlLayer>();
    auto l3 = DynamicCast<Ipv4L3Protocol>(m_ipv4);
    auto fr = m_ipv4 ? DynamicCast<FabricIpv4Routing>(m_ipv4->GetRoutingProtocol()) : nullptr;
    if (!l3 || !m_node->GetObject<UdpL4Protocol>() || !m_tc || !fr)
    {
        return; // IPv4 only
    }
    m_fabricNode = fr->GetFabricNode();
    m_routing = fr;
    m_available = true;
}

void
FabricHostPath::NotifyInterfaceState(uint32_t interface, bool up)
{
    NS_LOG_FUNCTION(this << interface << up);
    for (HostPort& hp : m_hostPorts)
    {
        if (hp.ipv4If >= 0 && static_cast<uint32_t>(hp.ipv4If) == interface)
        {
            hp.up = up;
        }
    }
}

void
FabricHostPath::InitPorts()
{
    // At the first packet, not when a helper binds a port: a program may change DefaultTtl or
    // install a queue disc on a host port from its run hook, after the helpers.
    m_portsKnown = true;
    UintegerValue ttl;
    DynamicCast<Ipv4L3Protocol>(m_ipv4)->GetAttribute("DefaultTtl", ttl);
    m_ttl = static_cast<uint8_t>(ttl.Get());
    // Packet metadata (Packet::EnablePrinting / EnableChecking, before the first packet) records
    // each header's type: then keep ns-3's two headers, so that the records match what readers
    // remove. With it off, a header leaves no record. Asked of a bare PacketMetadata: a Packet
    // would take a packet uid and shift those of the run's packets.
    PacketMetadata probe(0, 0);
    UdpHeader udp;
    probe.AddHeader(udp, udp.GetSerializedSize());
    Buffer bytes;
    bytes.AddAtStart(udp.GetSerializedSize());
    m_oneHeader = !probe.BeginItem(bytes).HasNext();
    NS_ABORT_MSG_IF(m_node->GetNDevices() > UINT16_MAX,
                    "FabricHostPath: a host of more than 65535 devices");
    m_hostPorts.resize(m_node->GetNDevices());
    m_ports = m_hostPorts.data();
    m_nPorts = static_cast<uint16_t>(m_hostPorts.size());
    for (uint32_t i = 0; i < m_node->GetNDevices(); ++i)
    {
        HostPort& hp = m_hostPorts[i];
        hp.device = m_node->GetDevice(i);
        hp.broadcast = hp.device->GetBroadcast();
        // A port with a queue disc keeps the IPv4 path: the disc decides what the device gets.
        if (!FabricLinkDevice::IsLinkDevice(hp.device) || m_tc->GetRootQueueDiscOnDevice(hp.device))
        {
            continue;
        }
        hp.ipv4If = m_ipv4->GetInterfaceForDevice(hp.device);
        if (hp.ipv4If >= 0)
        {
            // From now on kept by NotifyInterfaceState (registered below).
            hp.up = m_ipv4->IsUp(hp.ipv4If);
        }
        if (auto ndqi = hp.device->GetObject<NetDeviceQueueInterface>())
        {
            hp.txq = ndqi->GetTxQueue(0);
        }
    }
    // Ipv4::SetUp and SetDown notify the routing protocol, which tells us. (A direct
    // Ipv4Interface::SetUp or SetDown, bypassing Ipv4, is not seen: nothing in ns-3 or this
    // project does that to a fabric port.)
    NS_ASSERT(m_routing);
    m_routing->SetInterfaceStateCallback(MakeCallback(&FabricHostPath::NotifyInterfaceState, this));
}

bool
FabricHostPath::IsAvailable()
{
    Init();
    return m_available;
}

bool
FabricHostPath::ChecksumOn()
{
    // A global value looked up by name (~350 instructions): read at the first packet, not at
    // install (a program may bind ChecksumEnabled after installing its applications), and
    // then kept: ns-3 reads it per packet, but changing it mid-run is not supported.
    if (m_checksum == CHECKSUM_UNKNOWN)
    {
        m_checksum = Node::ChecksumEnabled() ? CHECKSUM_ON : CHECKSUM_OFF;
    }
    return m_checksum == CHECKSUM_ON;
}

bool
FabricHostPath::TakesPrefix()
{
    Init();
    if (!m_available)
    {
        return false;
    }
    if (!m_portsKnown)
    {
        InitPorts();
    }
    return m_oneHeader && !ChecksumOn();
}

bool
FabricHostPath::SendUdp(Ptr<Packet> p,
                        Ipv4Address src,
                        Ipv4Address dst,
                        uint16_t sport,
                        uint16_t dport,
                        uint8_t tos,
                        const Ptr<Ipv4Route>& route,
                        const uint8_t* prefix,
                        uint32_t prefixSize)
{
    Init();
    if (!m_available)
    {
        return false;
    }
    if (!m_portsKnown)
    {
        InitPorts();
    }
    NS_ABORT_MSG_IF(prefix && (!route || !TakesPrefix()),
                    "FabricHostPath::SendUdp: a prefix needs a route and TakesPrefix()");
    // Ipv4L3Protocol::Send numbers datagrams per (source, destination, protocol) in
    // BuildHeader. With a route (case 1b) the number stays taken whatever happens next (an
    // interface down, a stopped device queue, fragmentation, loopback delivery). Without one
    // (case 4) it asks the routing protocol itself: with no route either, it drops the datagram
    // and gives the number back (DecreaseIdentification); with one, it sends as with that
    // route. Do the same, so that this counter keeps the one IPv4 would have.
    Ptr<Ipv4Route> found;
    if (!route)
    {
        // FabricIpv4Routing reads the destination and protocol; the packet and header are what
        // IPv4 would pass (its forward trace sees them).
        Ptr<Packet> q = p->Copy();
        UdpHeader udp;
        udp.SetDestinationPort(dport);
        udp.SetSourcePort(sport);
        q->AddHeader(udp);
        SocketIpTosTag tag;
        tag.SetTos(tos);
        q->AddPacketTag(tag);
        const Ipv4Header h = UdpIpv4Header(src, dst, tos, q->GetSize(), IpId(src, dst), false);
        Socket::SocketErrno err;
        found = m_ipv4->GetRoutingProtocol()->RouteOutput(q, h, nullptr, err);
        if (!found)
        {
            return false; // IPv4 drops it (no-route) and takes no number
        }
    }
    const Ptr<Ipv4Route>& rt = route ? route : found;
    uint16_t& id = IpId(src, dst);
    const uint16_t myId = id++;
    const Ptr<NetDevice>& dev = rt->GetOutputDevice();
    // The port of the last datagram, if this is its device; else the device tells.
    uint32_t idx = m_lastPort;
    if (idx >= m_nPorts || m_ports[idx].device != dev)
    {
        idx = dev->GetIfIndex();
        if (idx >= m_nPorts)
        {
            return false;
        }
        if (idx <= UINT8_MAX)
        {
            m_lastPort = static_cast<uint8_t>(idx);
        }
    }
    // What IPv4 does with a route (with a gateway), an interface up, a destination not on
    // this host and a running device queue: UdpL4Protocol::Send, Ipv4L3Protocol::Send/
    // BuildHeader/SendRealOut, Ipv4Interface::Send, TrafficControlLayer::Send, then
    // NetDevice::Send. A datagram over the port's MTU goes to IPv4, which fragments it.
    const HostPort& hp = m_ports[idx];
    if (hp.ipv4If < 0 || hp.device != dev || p->GetSize() + prefixSize + 8 + 20 > dev->GetMtu()
        || !rt->GetGateway().IsInitialized() || !hp.up || (hp.txq && hp.txq->IsStopped())
        || FabricAddressing::HostOf(dst.Get()) == m_fabricNode)
    {
        return false;
    }
    const bool checksum = ChecksumOn();
    if (!checksum && m_oneHeader)
    {
        // The same 28 bytes as the two headers below, in one AddHeader.
        FabricUdpIpv4Header h;
        h.Set(src, dst, tos, m_ttl, myId, sport, dport, p->GetSize() + prefixSize);
        if (prefix)
        {
            h.SetPrefix(prefix, prefixSize);
        }
        p->AddHeader(h);
    }
    else
    {
        AddUdpIpv4Headers(p, src, dst, sport, dport, tos, myId, checksum);
    }
    ++m_fastTx;
    if (!m_txTrace.IsEmpty())
    {
        m_txTrace(p->Copy(), m_ipv4, hp.ipv4If); // a copy: the device adds its header to p
    }
    dev->Send(p, hp.broadcast, Ipv4L3Protocol::PROT_NUMBER);
    return true;
}

void
FabricHostPath::AddUdpIpv4Headers(Ptr<Packet> p,
                                  Ipv4Address src,
                                  Ipv4Address dst,
                                  uint16_t sport,
                                  uint16_t dport,
                                  uint8_t tos,
                                  uint16_t id,
                                  bool checksum) const
{
    UdpHeader udp;
    if (checksum)
    {
        udp.EnableChecksums();
        udp.InitializeChecksum(src, dst, UdpL4Protocol::PROT_NUMBER);
    }
    udp.SetDestinationPort(dport);
    udp.SetSourcePort(sport);
    p->AddHeader(udp);
    const Ipv4Header ip = UdpIpv4Header(src, dst, tos, p->GetSize(), id, checksum);
    p->AddHeader(ip);
}

Ipv4Header
FabricHostPath::UdpIpv4Header(Ipv4Address src,
                              Ipv4Address dst,
                              uint8_t tos,
                              uint32_t payloadSize,
                              uint16_t id,
                              bool checksum) const
{
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(UdpL4Protocol::PROT_NUMBER);
    ip.SetPayloadSize(payloadSize);
    ip.SetTtl(m_ttl);
    ip.SetTos(tos);
    ip.SetMayFragment();
    ip.SetIdentification(id);
    if (checksum)
    {
        ip.EnableChecksum();
    }
    return ip;
}

bool
FabricHostPath::BindUdp(uint16_t port, UdpHandler handler, uint32_t minPayload)
{
    NS_LOG_FUNCTION(this << port << minPayload);
    return AddBinding(Binding{port, minPayload, handler, UdpInPlaceHandler()});
}

bool
FabricHostPath::BindUdpInPlace(uint16_t port, UdpInPlaceHandler handler, uint32_t minPayload)
{
    NS_LOG_FUNCTION(this << port << minPayload);
    return AddBinding(Binding{port, minPayload, UdpHandler(), handler});
}

bool
FabricHostPath::AddBinding(Binding binding)
{
    for (const Binding& b : m_bindings)
    {
        if (b.port == binding.port)
        {
            return false;
        }
    }
    if (!IsAvailable())
    {
        return false;
    }
    m_bindings.push_back(binding);
    InstallDemux();
    return true;
}

void
FabricHostPath::InstallDemux()
{
    if (m_demux)
    {
        return;
    }
    m_demux = true;
    // Ipv4L3Protocol::AddInterface registers TrafficControlLayer::Receive on the node for the
    // IPv4 and ARP ethertypes of each interface's device (Ipv6L3Protocol likewise for IPv6),
    // all with one and the same callback; Node::UnregisterProtocolHandler removes the first
    // equal one. So remove them all, then put back all but the IPv4 ones of the fabric
    // devices, which go to ReceiveFromDevice (which passes on what it does not take).
    const Node::ProtocolHandler tcRx = MakeCallback(&TrafficControlLayer::Receive, m_tc);
    const uint32_t bound = 3 * (m_node->GetNDevices() + 1);
    for (uint32_t i = 0; i < bound; ++i)
    {
        m_node->UnregisterProtocolHandler(tcRx);
    }
    for (uint32_t i = 0; i < m_ipv4->GetNInterfaces(); ++i)
    {
        Ptr<NetDevice> dev = m_ipv4->GetNetDevice(i);
        if (DynamicCast<LoopbackNetDevice>(dev))
        {
            continue; // registered to Ipv4L3Protocol::Receive itself, untouched
        }
        // Which ports are fast is learnt at the first packet (InitPorts); ReceiveFromDevice
        // passes on what arrives on the others.
        const bool fast = FabricLinkDevice::IsLinkDevice(dev);
        // Called per packet (through the node): inline, one object fewer read per call.
        m_node->RegisterProtocolHandler(
            fast ? FabricMemberCallback<&FabricHostPath::ReceiveFromDevice>(this) : tcRx,
            Ipv4L3Protocol::PROT_NUMBER,
            dev);
        // The same handler called by the device itself (DirectReceive): no walk of the node's
        // handler list, no Callback layers.
        auto fastDevice = DynamicCast<FastP2pNetDevice>(dev);
        if (fast && fastDevice && m_directReceive)
        {
            fastDevice->SetDirectReceiver(this);
            m_directDevices.push_back(fastDevice);
        }
        m_node->RegisterProtocolHandler(tcRx, ArpL3Protocol::PROT_NUMBER, dev);
    }
    if (Ptr<Ipv6> ipv6 = m_node->GetObject<Ipv6>())
    {
        for (uint32_t i = 0; i < ipv6->GetNInterfaces(); ++i)
        {
            Ptr<NetDevice> dev = ipv6->GetNetDevice(i);
            if (!DynamicCast<LoopbackNetDevice>(dev))
            {
                m_node->RegisterProtocolHandler(tcRx, 0x86DD, dev);
            }
        }
    }
}

void
FabricHostPath::ReceiveFromDevice(Ptr<NetDevice> device,
                                  Ptr<const Packet> packet,
                                  uint16_t protocol,
                                  const Address& from,
                                  const Address& to,
                                  NetDevice::PacketType packetType)
{
    if (!TakeUdp(device->GetIfIndex(), packet))
    {
        m_tc->Receive(device, packet, protocol, from, to, packetType);
    }
}

bool
FabricHostPath::ReceiveFromFastDevice(FastP2pNetDevice* device,
                                      const Ptr<Packet>& packet,
                                      uint16_t protocol)
{
    if (protocol != Ipv4L3Protocol::PROT_NUMBER)
    {
        return false; // the node's handlers (ARP, IPv6, ...), as before
    }
    // What the node's IPv4 handler of this device (ReceiveFromDevice) does, with the
    // addresses Node::ReceiveFromDevice would pass.
    const Ptr<const Packet> p = packet;
    if (!TakeUdp(device->GetIfIndex(), p))
    {
        m_tc->Receive(Ptr<NetDevice>(device),
                      p,
                      protocol,
                      device->GetRemoteAddress(),
                      device->GetAddress(),
                      NetDevice::PACKET_HOST);
    }
    return true;
}

bool
FabricHostPath::TakeUdp(uint32_t idx, const Ptr<const Packet>& packet)
{
    // Local delivery of a UDP datagram as Ipv4L3Protocol::Receive, FabricIpv4Routing::
    // RouteInput, LocalDeliver, UdpL4Protocol::Receive and the port's socket would do it.
    // Anything else (a packet for another host, a fragment, a down interface, an unbound
    // port or one whose handler declines, checksums to verify) goes to IPv4 as before.
    if (!m_bindings.empty() && packet->GetSize() >= 20 + 8 && !ChecksumOn())
    {
        if (!m_portsKnown)
        {
            InitPorts();
        }
        const int32_t iface = idx < m_nPorts ? m_ports[idx].ipv4If : -1;
        if (iface >= 0 && m_ports[idx].up)
        {
            // The IPv4 header read once (peeked: the received packet stays untouched for the
            // IPv4 path if the fast path does not take it), the UDP ports from the bytes.
            Ipv4Header ip;
            const uint32_t hl = packet->PeekHeader(ip);
            // IPv4 payload and frame padding (0 for a header longer than the packet: declined)
            const uint32_t datagram = hl + 8 <= packet->GetSize() ? packet->GetSize() - hl : 0;
            if (ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER
                && FabricAddressing::HostOf(ip.GetDestination().Get()) == m_fabricNode
                && ip.IsLastFragment() && ip.GetFragmentOffset() == 0 && ip.GetPayloadSize() >= 8
                && ip.GetPayloadSize() <= datagram)
            {
                uint8_t bytes[64]; // at most 60 bytes of IPv4 header, then the UDP ports
                packet->CopyData(bytes, hl + 4);
                const auto sourcePort = static_cast<uint16_t>((bytes[hl] << 8) | bytes[hl + 1]);
                const auto port = static_cast<uint16_t>((bytes[hl + 2] << 8) | bytes[hl + 3]);
                const uint32_t payload = ip.GetPayloadSize() - 8;
                for (const Binding& b : m_bindings)
                {
                    if (b.port == port)
                    {
                        if (payload < b.minPayload)
                        {
                            break;
                        }
                        // Nothing of b is read after the call (a handler that binds a port
                        // may move m_bindings; its callback's implementation is shared, so
                        // the call itself survives that).
                        bool taken = false;
                        if (!b.inPlace.IsNull())
                        {
                            taken = b.inPlace(packet, hl + 8, payload, ip, sourcePort);
                        }
                        else
                        {
                            // The handler's payload: a copy with both headers cut off in one
                            // step, and any frame padding, as IPv4 removes it.
                            Ptr<Packet> p = packet->Copy();
                            p->RemoveAtStart(hl + 8);
                            if (payload < p->GetSize())
                            {
                                p->RemoveAtEnd(p->GetSize() - payload);
                            }
                            taken = b.handler(p, ip, sourcePort);
                        }
                        if (taken)
                        {
                            ++m_fastRx;
                            if (!m_rxTrace.IsEmpty())
                            {
                                m_rxTrace(packet, m_ipv4, iface);
                            }
                            return true;
                        }
                        break;
                    }
                }
            }
        }
    }
    return false;
}

} // namespace ns3
