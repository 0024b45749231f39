// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-network.h"

#include "ns3/boolean.h"
#include "ns3/ecn-marker.h"
#include "ns3/enum.h"
#include "ns3/fabric-addressing.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetwork");
NS_OBJECT_ENSURE_REGISTERED(FabricNetwork);

TypeId
FabricNetwork::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricNetwork")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricNetwork>()
              .AddAttribute("SwitchMode",
                            "How switches forward: fast (device-level FabricSwitchForwarder, no "
                            "IPv4 stack on switches) or ipv4 (IPv4 stack with FabricIpv4Routing).",
                            EnumValue(static_cast<int>(FabricSwitchMode::FAST)),
                            MakeEnumAccessor(&FabricNetwork::SetSwitchModeValue,
                                             &FabricNetwork::GetSwitchModeValue),
                            MakeEnumChecker(static_cast<int>(FabricSwitchMode::FAST),
                                            "fast",
                                            static_cast<int>(FabricSwitchMode::IPV4),
                                            "ipv4"))
              .AddAttribute("LinkDevice",
                            "The device/channel pair of every link: p2p (ns-3's "
                            "PointToPointNetDevice and PointToPointChannel) or fast "
                            "(FastP2pNetDevice and FastP2pChannel: the same semantics, traces "
                            "and attributes, no transmit-complete event for a frame that has "
                            "nothing queued behind it; see doc/fabric.md, Devices).",
                            EnumValue(static_cast<int>(FabricLinkDeviceType::P2P)),
                            MakeEnumAccessor(&FabricNetwork::SetLinkDeviceValue,
                                             &FabricNetwork::GetLinkDeviceValue),
                            MakeEnumChecker(static_cast<int>(FabricLinkDeviceType::P2P),
                                            "p2p",
                                            static_cast<int>(FabricLinkDeviceType::FAST),
                                            "fast"))
              .AddAttribute("ControlPriority",
                            "Every device queue (switch ports and host NICs) serves control "
                            "packets (IPv4 DSCP >= ns3::DscpPriorityQueue<Packet>::"
                            "ControlDscpMin, 48: RoCE ACK/NACK/CNP) before queued data, in a "
                            "lossy fabric: the queues are ns3::DscpPriorityQueue<Packet> instead "
                            "of ns3::DropTailQueue<Packet>, with the same MaxSize. A queue type "
                            "chosen with FabricNetworkHelper::SetQueueType must then be one of "
                            "these two or ns3::PfcQueue (which has its own classes).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FabricNetwork::m_controlPriority),
                            MakeBooleanChecker())
              .AddAttribute("FastQueue",
                            "Device queues that would be ns3::DropTailQueue<Packet> (the "
                            "default queue type) are ns3::FabricDropTailQueue<Packet>: a "
                            "DropTailQueue<Packet> with the same MaxSize, drops, counters and "
                            "trace sources, fewer instructions per packet, and counters that "
                            "ns3::FabricLinkMonitor reads instead of connecting sinks. False "
                            "in the library (a program that asks a device queue for its exact "
                            "TypeId sees ns-3's); the project's programs set it (FabricCli).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FabricNetwork::m_fastQueue),
                            MakeBooleanChecker());
    return tid;
}

FabricNetwork::FabricNetwork()
{
    NS_LOG_FUNCTION(this);
}

FabricNetwork::~FabricNetwork()
{
    NS_LOG_FUNCTION(this);
    // The state may outlive the network (a failure helper or a test holds it): stop it
    // from reaching the devices.
    if (m_state && m_stateListener != UINT32_MAX)
    {
        m_state->RemoveListener(m_stateListener);
    }
}

NodeContainer
FabricNetwork::GetHostNodes() const
{
    NodeContainer c;
    for (uint32_t h = 0; h < m_graph->GetNHosts(); ++h)
    {
        c.Add(m_nodes.Get(h));
    }
    return c;
}

uint32_t
FabricNetwork::GetHostOfAddress(Ipv4Address addr) const
{
    if (!m_globalRouting)
    {
        return FabricAddressing::HostOf(addr.Get());
    }
    auto it = m_globalHostOf.find(addr.Get());
    return it == m_globalHostOf.end() ? FabricAddressing::NOT_A_HOST : it->second;
}

int64_t
FabricNetwork::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (uint32_t v = m_graph->GetNHosts(); v < m_graph->GetNNodes(); ++v)
    {
        if (auto ecn = m_nodes.Get(v)->GetObject<EcnMarker>())
        {
            used += ecn->AssignStreams(stream + used);
        }
    }
    return used;
}

Ptr<NetDevice>
FabricNetwork::GetDevice(uint32_t fabricNode, uint32_t port) const
{
    return m_devices.at(fabricNode).at(port);
}

Ptr<NetDevice>
FabricNetwork::GetDirLinkDevice(uint32_t dirLink) const
{
    const FabricLink& l = m_graph->GetLink(dirLink / 2);
    return GetDevice(l.node[dirLink % 2], l.port[dirLink % 2]);
}

uint32_t
FabricNetwork::AddPacketHolder(std::function<uint64_t()> count)
{
    m_holders.emplace(m_nextHolder, std::move(count));
    return m_nextHolder++;
}

void
FabricNetwork::RemovePacketHolder(uint32_t id)
{
    m_holders.erase(id);
}

uint64_t
FabricNetwork::GetHeldPackets() const
{
    uint64_t n = 0;
    for (const auto& [id, count] : m_holders)
    {
        n += count();
    }
    return n;
}

} // namespace ns3
