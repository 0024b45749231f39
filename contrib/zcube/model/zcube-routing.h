// SPDX-License-Identifier: GPL-2.0-only
#ifndef ZCUBE_ROUTING_H
#define ZCUBE_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/traffic-pattern.h"
#include "ns3/zcube-topology.h"

namespace ns3
{

/**
 * \ingroup zcube
 * ZCube unique-path routing, Eq. 1 of the ZCube paper: i -> O_{o(i)} -> E_{e(j)} -> j for
 * every pair, including pairs that share a switch (the path never shortcuts). GPUs originate
 * on their O-side port and never forward. With parallel core links, the flow hash picks
 * one of the parallel links of the single switch-level path.
 */
class ZCubeRouting : public FabricRouting
{
  public:
    /**
     * \param graph a graph built by \p layout
     * \param layout the ZCube parameters
     * \param seed hash seed for choosing among parallel core links
     * \throws std::invalid_argument if the graph does not match the layout
     */
    ZCubeRouting(std::shared_ptr<const FabricGraph> graph,
                 const ZCubeLayout& layout,
                 uint64_t seed = 0);

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::string GetName() const override { return "zcube"; }

    const ZCubeLayout& GetLayout() const { return m_layout; }

  private:
    ZCubeLayout m_layout;
    uint64_t m_seed;
};

/**
 * \ingroup zcube
 * Eq. 3: L_ab = sum over flows with o(src) = a and e(dst) = b of the flow's weight, the load
 * on core link O_a -> E_b. Returned row-major, m x m.
 */
std::vector<double> ZCubeCoreLoadMatrix(const ZCubeLayout& layout,
                                        const std::vector<FlowSpec>& flows,
                                        const std::vector<double>& weight);

} // namespace ns3

#endif // ZCUBE_ROUTING_H
