// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_NETWORK_H
#define FABRIC_NETWORK_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-link-device.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-state.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/object.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// How switches forward packets.
enum class FabricSwitchMode
{
    FAST, //!< device-level FabricSwitchForwarder, no IPv4 stack on switches (default)
    IPV4, //!< full IPv4 stack on switches with FabricIpv4Routing
};

/**
 * \ingroup fabric
 * The ns-3 side of a FabricGraph: one ns-3 Node per fabric node (same index), one
 * point-to-point link per fabric link, device i of a node = fabric port i.
 */
class FabricNetwork : public Object
{
  public:
    static TypeId GetTypeId();
    FabricNetwork();
    ~FabricNetwork() override;

    const FabricGraph& GetGraph() const { return *m_graph; }
    std::shared_ptr<const FabricGraph> GetGraphPtr() const { return m_graph; }
    /// The routing function (null for a network built with ns-3's global routing).
    Ptr<FabricRouting> GetRouting() const { return m_routing; }
    /**
     * The physical truth: which links and nodes are up. Devices obey it (through the
     * FabricLinkGuard aggregated to every node); routing decides from its own view
     * (FabricRouting::GetView), which learns of changes only through a detector.
     */
    std::shared_ptr<FabricState> GetState() const { return m_state; }

    Ptr<Node> GetNode(uint32_t fabricNode) const { return m_nodes.Get(fabricNode); }
    const NodeContainer& GetNodes() const { return m_nodes; }
    NodeContainer GetHostNodes() const;
    /**
     * Device of port \p port of \p fabricNode: a PointToPointNetDevice or, with
     * LinkDevice=fast, a FastP2pNetDevice (FabricLinkDevice reaches its queue and rate).
     */
    Ptr<NetDevice> GetDevice(uint32_t fabricNode, uint32_t port) const;
    /// Device that transmits onto directed link \p dirLink.
    Ptr<NetDevice> GetDirLinkDevice(uint32_t dirLink) const;
    /// The address flows of host \p host are sent from and to.
    Ipv4Address GetHostAddress(uint32_t host) const { return m_hostAddress.at(host); }
    /// Host owning \p addr (any of its NICs), or FabricAddressing::NOT_A_HOST.
    uint32_t GetHostOfAddress(Ipv4Address addr) const;
    FabricSwitchMode GetSwitchMode() const { return m_switchMode; }
    /// The device/channel pair the links are built from (the LinkDevice attribute).
    FabricLinkDeviceType GetLinkDevice() const { return m_linkDevice; }
    /// Whether device queues serve control packets first (the ControlPriority attribute).
    bool GetControlPriority() const { return m_controlPriority; }
    /// Whether default device queues are FabricDropTailQueue (attribute FastQueue).
    bool GetFastQueue() const { return m_fastQueue; }

    /**
     * Fix the random streams of the network's random elements (the switches' EcnMarkers).
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);
    bool UsesGlobalRouting() const { return m_globalRouting; }

    /**
     * Register a model that can hold packets outside device queues and channels (an OCS EG
     * holding frames over a reconfiguration): \p count tells how many it holds now, so that
     * FabricLinkMonitor can count packets in flight where they are.
     * \return an id for RemovePacketHolder (call it before the holder goes away)
     */
    uint32_t AddPacketHolder(std::function<uint64_t()> count);
    void RemovePacketHolder(uint32_t id);
    /// Packets the registered holders hold now.
    uint64_t GetHeldPackets() const;

  private:
    friend class FabricNetworkHelper;

    // The SwitchMode attribute's accessors (EnumValue holds an int).
    void SetSwitchModeValue(int mode) { m_switchMode = static_cast<FabricSwitchMode>(mode); }
    int GetSwitchModeValue() const { return static_cast<int>(m_switchMode); }
    void SetLinkDeviceValue(int t) { m_linkDevice = static_cast<FabricLinkDeviceType>(t); }
    int GetLinkDeviceValue() const { return static_cast<int>(m_linkDevice); }

    std::shared_ptr<const FabricGraph> m_graph;
    Ptr<FabricRouting> m_routing;
    std::shared_ptr<FabricState> m_state;
    uint32_t m_stateListener{UINT32_MAX}; //!< the guards' listener on m_state
    NodeContainer m_nodes;
    std::vector<std::vector<Ptr<NetDevice>>> m_devices;
    std::vector<Ipv4Address> m_hostAddress;
    std::unordered_map<uint32_t, uint32_t> m_globalHostOf; //!< global routing: address -> host
    FabricSwitchMode m_switchMode{FabricSwitchMode::FAST};
    FabricLinkDeviceType m_linkDevice{FabricLinkDeviceType::P2P};
    bool m_controlPriority{false};
    bool m_fastQueue{false};
    bool m_globalRouting{false};
    std::map<uint32_t, std::function<uint64_t()>> m_holders;
    uint32_t m_nextHolder{0};
};

} // namespace ns3

#endif // FABRIC_NETWORK_H
