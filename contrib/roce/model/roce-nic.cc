// SPDX-License-Identifier: GPL-2.0-only
#include "roce-nic.h"

#include "pfc-queue.h"
#include "roce-header.h"
#include "roce-receiver.h"
#include "roce-sender.h"

#include "ns3/arp-l3-protocol.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/fabric-addressing.h"
#include "ns3/fabric-ipv4-routing.h"
#include "ns3/fabric-link-device.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv6.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
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
}

void
RoceNic::DoDispose()
{
    for (auto& p : m_ports)
    {
        p.wake.Cancel();
        p.wakeArmed = false;
        p.qps.clear();
        p.device = nullptr;
        p.queue = nullptr;
    }
    m_qps.clear();
    m_hostPorts.clear();
    m_receiver = nullptr;
    m_ipv4 = nullptr;
    m_udp = nullptr;
    m_tc = nullptr;
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
        p.device = m_node->GetDevice(port);
        NS_ABORT_MSG_IF(!FabricLinkDevice::IsLinkDevice(p.device),
                        "RoceNic: port " << port << " is not point-to-point");
        p.queue = FabricLinkDevice::GetQueue(p.device);
        // Refill after each transmission; scheduled, not called, because the device is
        // still inside its transmit-complete handler when the trace fires.
        p.device->TraceConnectWithoutContext(
            "PhyTxEnd",
            Callback<void, Ptr<const Packet>>([this, port](Ptr<const Packet>) { Kick(port); }));
        p.pfc = DynamicCast<PfcQueue>(p.queue);
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
RoceNic::Wake(uint32_t port)
{
    m_ports[port].wakeArmed = false; // the wake event has run (cancelled only in DoDispose)
    Kick(port);
}

void
RoceNic::TrySend(uint32_t port)
{
    Port& p = m_ports[port];
    p.pending = false;
    const Time now = Simulator::Now();
    while (p.queue->GetNPackets() < m_depth && !p.qps.empty()
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
            if (earliest != Time::Max() && (!p.wakeArmed || earliest < p.wakeAt))
            {
                p.wake.Cancel();
                p.wakeAt = earliest;
                p.wake = Simulator::Schedule(earliest - now, &RoceNic::Wake, this, port);
                p.wakeArmed = true;
            }
            return;
        }
        chosen->SendOne(); // may unregister itself; the loop re-reads p.qps
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
    m_ipv4 = m_node->GetObject<Ipv4>();
    m_udp = m_node->GetObject<UdpL4Protocol>();
    m_tc = m_node->GetObject<TrafficControlLayer>();
    auto l3 = DynamicCast<Ipv4L3Protocol>(m_ipv4);
    auto fr = m_ipv4 ? DynamicCast<FabricIpv4Routing>(m_ipv4->GetRoutingProtocol()) : nullptr;
    if (m_hostPath != HOST_PATH_FAST || !l3 || !m_udp || !m_tc || !fr)
    {
        return; // the IPv4 path
    }
    m_fabricNode = fr->GetFabricNode();
    UintegerValue ttl;
    l3->GetAttribute("DefaultTtl", ttl);
    m_ttl = static_cast<uint8_t>(ttl.Get());
    m_hostPorts.resize(m_node->GetNDevices());
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
        hp.interface = m_ipv4->GetInterfaceForDevice(hp.device);
        if (auto ndqi = hp.device->GetObject<NetDeviceQueueInterface>())
        {
            hp.txq = ndqi->GetTxQueue(0);
        }
    }
    m_fast = true;
}

bool
RoceNic::ChecksumOn()
{
    // A global value looked up by name (~350 instructions): read at the first packet, not at
    // install (a program may bind ChecksumEnabled after installing its applications), and
    // then kept: ns-3 reads it per packet, but changing it mid-run is not supported.
    if (!m_checksumKnown)
    {
        m_checksum = Node::ChecksumEnabled();
        m_checksumKnown = true;
    }
    return m_checksum;
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
                const Ptr<Ipv4Route>& route)
{
    InitHost();
    if (m_fast && route)
    {
        const Ptr<NetDevice>& dev = route->GetOutputDevice();
        const uint32_t idx = dev->GetIfIndex();
        // What IPv4 does with a route, an interface up, a destination not on this host and a
        // running device queue: UdpL4Protocol::Send, Ipv4L3Protocol::Send/BuildHeader/
        // SendRealOut, Ipv4Interface::Send, TrafficControlLayer::Send, then NetDevice::Send.
        // A datagram over the port's MTU goes to IPv4, which fragments it.
        if (idx < m_hostPorts.size() && m_hostPorts[idx].interface >= 0
            && p->GetSize() + 8 + 20 <= dev->GetMtu() && m_hostPorts[idx].device == dev
            && m_ipv4->IsUp(m_hostPorts[idx].interface)
            && !(m_hostPorts[idx].txq && m_hostPorts[idx].txq->IsStopped())
            && FabricAddressing::HostOf(dst.Get()) != m_fabricNode)
        {
            const bool checksum = ChecksumOn();
            UdpHeader udp;
            if (checksum)
            {
                udp.EnableChecksums();
                udp.InitializeChecksum(src, dst, UdpL4Protocol::PROT_NUMBER);
            }
            udp.SetDestinationPort(dport);
            udp.SetSourcePort(sport);
            p->AddHeader(udp);
            Ipv4Header ip;
            ip.SetSource(src);
            ip.SetDestination(dst);
            ip.SetProtocol(UdpL4Protocol::PROT_NUMBER);
            ip.SetPayloadSize(p->GetSize());
            ip.SetTtl(m_ttl);
            ip.SetTos(tos);
            ip.SetMayFragment();
            // IPv4 numbers datagrams per (source, destination, protocol).
            uint16_t& id = m_ipId[(uint64_t(src.Get()) << 32) | dst.Get()];
            ip.SetIdentification(id++);
            if (checksum)
            {
                ip.EnableChecksum();
            }
            p->AddHeader(ip);
            ++m_fastTx;
            dev->Send(p, m_hostPorts[idx].broadcast, Ipv4L3Protocol::PROT_NUMBER);
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
    if (m_receiverActive && IsFastPath())
    {
        InstallDemux();
    }
}

void
RoceNic::InstallDemux()
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
    // devices, which go to ReceiveFromDevice (which passes on what is not RoCE).
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
        const uint32_t idx = dev->GetIfIndex();
        const bool fast = idx < m_hostPorts.size() && m_hostPorts[idx].interface >= 0;
        m_node->RegisterProtocolHandler(fast ? MakeCallback(&RoceNic::ReceiveFromDevice, this)
                                             : tcRx,
                                        Ipv4L3Protocol::PROT_NUMBER,
                                        dev);
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
RoceNic::ReceiveFromDevice(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& from,
                           const Address& to,
                           NetDevice::PacketType packetType)
{
    // Local delivery of a UDP 4791 packet as Ipv4L3Protocol::Receive, FabricIpv4Routing::
    // RouteInput, LocalDeliver, UdpL4Protocol::Receive and the receiver's socket would do it.
    // Anything else (a packet for another host, a fragment, a down interface, a stopped
    // receiver, checksums to verify) goes to IPv4 as before.
    constexpr uint32_t minSize = 20 + 8 + RoceHeader::SIZE;
    if (m_receiverActive && packet->GetSize() >= minSize && !ChecksumOn())
    {
        const int32_t iface = m_hostPorts[device->GetIfIndex()].interface;
        if (iface >= 0 && m_ipv4->IsUp(iface))
        {
            // Each header read once, from a copy: the received packet is left untouched for
            // the IPv4 path if this is not a RoCE packet for this host.
            Ptr<Packet> p = packet->Copy();
            Ipv4Header ip;
            p->RemoveHeader(ip);
            if (ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER
                && FabricAddressing::HostOf(ip.GetDestination().Get()) == m_fabricNode
                && ip.IsLastFragment() && ip.GetFragmentOffset() == 0)
            {
                if (ip.GetPayloadSize() < p->GetSize())
                {
                    p->RemoveAtEnd(p->GetSize() - ip.GetPayloadSize()); // frame padding, as IPv4
                }
                UdpHeader udp;
                p->RemoveHeader(udp);
                if (udp.GetDestinationPort() == RoceReceiver::PORT)
                {
                    ++m_fastRx;
                    m_receiver->ReceivePacket(p, ip.GetSource(), udp.GetSourcePort(), ip.GetTos());
                    return;
                }
            }
        }
    }
    m_tc->Receive(device, packet, protocol, from, to, packetType);
}

} // namespace ns3
