// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_NETWORK_HELPER_H
#define FABRIC_NETWORK_HELPER_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"

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

    const FabricGraph& GetGraph() const { return *m_graph; }
    std::shared_ptr<const FabricGraph> GetGraphPtr() const { return m_graph; }
    /// The routing function (null for a network built with ns-3's global routing).
    std::shared_ptr<const FabricRouting> GetRouting() const { return m_routing; }

    Ptr<Node> GetNode(uint32_t fabricNode) const { return m_nodes.Get(fabricNode); }
    const NodeContainer& GetNodes() const { return m_nodes; }
    NodeContainer GetHostNodes() const;
    /// Device of port \p port of \p fabricNode.
    Ptr<PointToPointNetDevice> GetDevice(uint32_t fabricNode, uint32_t port) const;
    /// Device that transmits onto directed link \p dirLink.
    Ptr<PointToPointNetDevice> GetDirLinkDevice(uint32_t dirLink) const;
    /// The address flows of host \p host are sent from and to.
    Ipv4Address GetHostAddress(uint32_t host) const { return m_hostAddress.at(host); }
    /// Host owning \p addr (any of its NICs), or FabricAddressing::NOT_A_HOST.
    uint32_t GetHostOfAddress(Ipv4Address addr) const;
    FabricSwitchMode GetSwitchMode() const { return m_switchMode; }

    /**
     * Fix the random streams of the network's random elements (the switches' EcnMarkers).
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);
    bool UsesGlobalRouting() const { return m_globalRouting; }

  private:
    friend class FabricNetworkHelper;

    std::shared_ptr<const FabricGraph> m_graph;
    std::shared_ptr<const FabricRouting> m_routing;
    NodeContainer m_nodes;
    std::vector<std::vector<Ptr<PointToPointNetDevice>>> m_devices;
    std::vector<Ipv4Address> m_hostAddress;
    std::unordered_map<uint32_t, uint32_t> m_globalHostOf; //!< global routing: address -> host
    FabricSwitchMode m_switchMode{FabricSwitchMode::FAST};
    bool m_globalRouting{false};
};

/**
 * \ingroup fabric
 * Builds a FabricNetwork from a FabricGraph and a FabricRouting: nodes, point-to-point links,
 * IPv4 on hosts (FabricAddressing plan, FabricIpv4Routing), and on switches either the
 * device-level fast path or IPv4 with FabricIpv4Routing. No queue disc is installed: each
 * port has one drop-tail device queue. Every switch gets an EcnMarker (attributes settable
 * with Config::SetDefault("ns3::EcnMarker::...")); it only acts on ECN-capable packets.
 *
 * Link defaults (datacenter): 400 Gbps, 1 us propagation, MTU 4200 bytes (RoCE 4096-byte
 * payload plus headers), 2 MB egress queue per port. They are the attributes of
 * PointToPointNetDevice (DataRate, Mtu), PointToPointChannel (Delay) and the device's
 * DropTailQueue (MaxSize), set with the usual helper calls.
 */
class FabricNetworkHelper
{
  public:
    FabricNetworkHelper();

    /// Set an attribute of every PointToPointNetDevice (e.g. "DataRate", "Mtu").
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every PointToPointChannel (e.g. "Delay").
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every device queue (e.g. "MaxSize").
    void SetQueueAttribute(const std::string& name, const AttributeValue& value);
    void SetSwitchMode(FabricSwitchMode mode) { m_switchMode = mode; }
    /**
     * First random stream for the network's random elements (switch ECN markers); Install
     * assigns them from here, so the same network in the same program gives the same
     * output however many runs came before it. Default 1000000.
     */
    void SetStreamBase(int64_t base) { m_streamBase = base; }

    /**
     * Build the network. Links whose FabricLink::rateBps is non-zero get that rate.
     * \throws std::invalid_argument if the graph exceeds the addressing plan
     */
    Ptr<FabricNetwork> Install(std::shared_ptr<const FabricGraph> graph,
                               std::shared_ptr<const FabricRouting> routing);

    /**
     * Build the same links with ns-3's own IPv4 stack on every node and
     * Ipv4GlobalRouting (a /30 per link), for comparisons against stock ns-3.
     * A host's address is the one of its port 0.
     */
    Ptr<FabricNetwork> InstallGlobalRouting(std::shared_ptr<const FabricGraph> graph);

  private:
    Ptr<FabricNetwork> BuildLinks(std::shared_ptr<const FabricGraph> graph);

    PointToPointHelper m_p2p;
    FabricSwitchMode m_switchMode{FabricSwitchMode::FAST};
    int64_t m_streamBase{1000000};
};

} // namespace ns3

#endif // FABRIC_NETWORK_HELPER_H
