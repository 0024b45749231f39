// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_CLUSTER_HELPER_H
#define OCS_CLUSTER_HELPER_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/object-factory.h"
#include "ns3/ocs-fabric.h"
#include "ns3/ocs-wiring.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup ocs-net
 * Builds a packet-level OCS cluster: E EGs (electrical switches, FabricGraph tier 1) with
 * HostsPerEg hosts below each (host h under EG h / HostsPerEg), and every logical EG-EG link
 * the wiring can realize (OcsLogicalLink), then the FabricNetwork (the SetRouting scheme,
 * EcmpRouting by default, over a routing view that the OcsFabric maintains), one OcsSwitch per OCS
 * and an OcsFibreChannel per logical link. All OCSes start dark: call OcsFabric::SetCircuits with
 * the first configuration.
 */
class OcsClusterHelper
{
  public:
    OcsClusterHelper();

    /// Hosts under each EG, in [1, 1024] (default 1).
    void SetHostsPerEg(uint32_t hosts);
    uint32_t GetHostsPerEg() const { return m_hostsPerEg; }
    /// Attribute of every OcsSwitch (e.g. "SwitchingDelay").
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /// Attribute of the OcsFabric (e.g. "Policy").
    void SetFabricAttribute(const std::string& name, const AttributeValue& value);
    /**
     * The routing scheme by TypeId with its attributes, e.g. SetRouting("ns3::EcmpRouting",
     * "Seed", UintegerValue(7)) (FabricNetworkHelper::SetRouting). Default ns3::EcmpRouting.
     * The scheme decides from the routing view the OcsFabric maintains; Install throws
     * std::invalid_argument if the TypeId is not a FabricRouting or cannot route the cluster.
     */
    template<typename... Ts>
    void SetRouting(const std::string& typeId, Ts&&... args)
    {
        m_links.SetRouting(typeId, std::forward<Ts>(args)...);
    }
    /// The link builder (rates, delays, queues of every link, hosts' and EGs').
    FabricNetworkHelper& GetLinkHelper() { return m_links; }

    /**
     * The graph of a cluster: hosts first (host i = node i), then EG e = node E*H + e; host
     * links first (host i's link id i), then the logical links, listed in \p links.
     * Logical links of EG port pairs (A, x) < (B, y), A != B, whose two circuits exist on the
     * wiring (TX of each end and RX of the other on one OCS). Pairs within one EG are not
     * links of the graph (a self-loop carries no traffic); OcsFabric measures them apart.
     * \throws std::invalid_argument if \p hostsPerEg is out of [1, 1024]
     */
    static std::shared_ptr<FabricGraph> BuildGraph(const OcsWiring& wiring,
                                                   uint32_t hostsPerEg,
                                                   std::vector<OcsLogicalLink>* links);

    /// Build the cluster (see the class description).
    Ptr<OcsFabric> Install(const OcsWiring& wiring);

  private:
    uint32_t m_hostsPerEg{1};
    ObjectFactory m_switchFactory;
    ObjectFactory m_fabricFactory;
    FabricNetworkHelper m_links;
};

} // namespace ns3

#endif // OCS_CLUSTER_HELPER_H
