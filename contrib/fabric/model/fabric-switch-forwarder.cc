// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-switch-forwarder.h"

#include "fabric-addressing.h"
#include "fabric-packet-key.h"

#include "ns3/log.h"

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
              .AddTraceSource("Forward",
                              "A packet was sent out of an egress port.",
                              MakeTraceSourceAccessor(&FabricSwitchForwarder::m_forwardTrace),
                              "ns3::FabricSwitchForwarder::ForwardTracedCallback")
              .AddTraceSource("Drop",
                              "A packet was dropped by the switch, with the reason "
                              "(no-route, not-ipv4).",
                              MakeTraceSourceAccessor(&FabricSwitchForwarder::m_dropTrace),
                              "ns3::FabricSwitchForwarder::DropTracedCallback");
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
    m_ports.clear();
    m_routing.reset();
    Object::DoDispose();
}

void
FabricSwitchForwarder::Install(Ptr<Node> node,
                               uint32_t fabricNode,
                               std::shared_ptr<const FabricRouting> routing)
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
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        m_ports.push_back(node->GetDevice(p));
        node->RegisterProtocolHandler(MakeCallback(&FabricSwitchForwarder::Receive, this),
                                      IPV4_ETHERTYPE,
                                      node->GetDevice(p));
    }
}

void
FabricSwitchForwarder::Drop(Ptr<const Packet> p, const std::string& reason)
{
    NS_LOG_LOGIC("node " << m_fabricNode << " drops: " << reason);
    m_dropTrace(p, reason);
}

void
FabricSwitchForwarder::Receive(Ptr<NetDevice> device,
                               Ptr<const Packet> packet,
                               uint16_t /*protocol*/,
                               const Address& /*from*/,
                               const Address& /*to*/,
                               NetDevice::PacketType /*packetType*/)
{
    FlowKey key;
    if (!ReadFlowKeyFromIpv4Packet(packet, key))
    {
        Drop(packet, "not-ipv4");
        return;
    }
    const uint32_t dstHost = FabricAddressing::HostOf(key.dstAddr);
    const uint32_t inPort = device->GetIfIndex();
    const uint32_t port = (dstHost == FabricAddressing::NOT_A_HOST)
                            ? FabricRouting::NO_PORT
                            : m_routing->SelectPort(m_fabricNode, inPort, dstHost, key);
    if (port == FabricRouting::NO_PORT)
    {
        Drop(packet, "no-route");
        return;
    }
    ++m_forwarded;
    m_forwardTrace(packet, inPort, port);
    // A full egress queue drops inside Send(); the link monitor counts it there.
    const Ptr<NetDevice>& out = m_ports[port];
    out->Send(packet->Copy(), out->GetBroadcast(), IPV4_ETHERTYPE);
}

} // namespace ns3
