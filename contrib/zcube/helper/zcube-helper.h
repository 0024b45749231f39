// SPDX-License-Identifier: GPL-2.0-only
#ifndef ZCUBE_HELPER_H
#define ZCUBE_HELPER_H

#include "ns3/ecmp-routing.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/zcube-routing.h"
#include "ns3/zcube-topology.h"

namespace ns3
{

/**
 * \ingroup zcube
 * Builds a ZCube(n, k) fabric with ZCube unique-path routing (Eq. 1):
 * \code
 *   ZCubeHelper zcube(128, 16);
 *   FabricNetworkHelper links;            // 400 Gbps, 1 us, ... by default
 *   Ptr<FabricNetwork> net = zcube.Install(links);
 * \endcode
 */
class ZCubeHelper
{
  public:
    /// \throws std::invalid_argument on invalid sizes (see ZCubeLayout)
    ZCubeHelper(uint32_t n, uint32_t k, uint32_t parallelCoreLinks = 1, uint64_t hashSeed = 0);

    const ZCubeLayout& GetLayout() const { return m_layout; }
    std::shared_ptr<const FabricGraph> GetGraph() const { return m_graph; }
    Ptr<ZCubeRouting> GetRouting() const { return m_routing; }

    Ptr<FabricNetwork> Install(FabricNetworkHelper& links) const;

  private:
    ZCubeLayout m_layout;
    std::shared_ptr<const FabricGraph> m_graph;
    Ptr<ZCubeRouting> m_routing;
};

/**
 * \ingroup zcube
 * Builds a rail-optimized leaf-spine fabric with seeded flow-hash ECMP.
 */
class RoftHelper
{
  public:
    /// \throws std::invalid_argument on invalid sizes (see RoftLayout)
    RoftHelper(const RoftLayout& layout, uint64_t hashSeed, bool mixSwitchId = true);

    const RoftLayout& GetLayout() const { return m_layout; }
    std::shared_ptr<const FabricGraph> GetGraph() const { return m_graph; }
    Ptr<EcmpRouting> GetRouting() const { return m_routing; }

    Ptr<FabricNetwork> Install(FabricNetworkHelper& links) const;

  private:
    RoftLayout m_layout;
    std::shared_ptr<const FabricGraph> m_graph;
    Ptr<EcmpRouting> m_routing;
};

} // namespace ns3

#endif // ZCUBE_HELPER_H
