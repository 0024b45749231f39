// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_NETWORK_HELPER_H
#define FABRIC_NETWORK_HELPER_H

#include "ns3/enum.h"
#include "ns3/fabric-network.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

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
    /// How switches forward (default: the ns3::FabricNetwork::SwitchMode attribute's value).
    void SetSwitchMode(FabricSwitchMode mode)
    {
        m_networkFactory.Set("SwitchMode", EnumValue(static_cast<int>(mode)));
    }
    /// Set an attribute of the FabricNetwork objects built (e.g. "SwitchMode").
    void SetNetworkAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Choose the routing scheme by TypeId for Install(graph), with its attributes, e.g.
     * SetRouting("ns3::EcmpRouting", "Seed", UintegerValue(7)). Default: ns3::EcmpRouting.
     */
    template<typename... Ts>
    void SetRouting(const std::string& typeId, Ts&&... args)
    {
        m_routingFactory = ObjectFactory(typeId, std::forward<Ts>(args)...);
    }

    /**
     * A routing object from the factory set by SetRouting, bound to \p graph: the same
     * instance can serve analytic walks before (or instead of) a packet-level Install.
     * \throws std::invalid_argument if the TypeId is not a FabricRouting or cannot route
     *         the graph
     */
    Ptr<FabricRouting> CreateRouting(std::shared_ptr<const FabricGraph> graph) const;
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
                               Ptr<FabricRouting> routing);

    /// Build the network with a routing object from the SetRouting factory.
    Ptr<FabricNetwork> Install(std::shared_ptr<const FabricGraph> graph);

    /**
     * Build the same links with ns-3's own IPv4 stack on every node and
     * Ipv4GlobalRouting (a /30 per link), for comparisons against stock ns-3.
     * A host's address is the one of its port 0.
     */
    Ptr<FabricNetwork> InstallGlobalRouting(std::shared_ptr<const FabricGraph> graph);

  private:
    Ptr<FabricNetwork> BuildLinks(std::shared_ptr<const FabricGraph> graph);

    PointToPointHelper m_p2p;
    ObjectFactory m_networkFactory;
    ObjectFactory m_routingFactory;
    int64_t m_streamBase{1000000};
};

} // namespace ns3

#endif // FABRIC_NETWORK_HELPER_H
