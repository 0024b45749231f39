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
 *
 * ns3::ZCubeRouting binds to a graph built by ZCubeLayout::Build (which records n, k and the
 * parallel link count in the graph). View: a port the view believes down is not chosen; with
 * parallel core links the flow hash picks among the surviving ones, otherwise the node has no
 * route (the controller detours of §6.2 are not part of this scheme).
 */
class ZCubeRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    ZCubeRouting();

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "zcube"; }

    /// The layout read from the graph (valid after SetGraph).
    const ZCubeLayout& GetLayout() const { return m_layout; }

  protected:
    /// \throws std::invalid_argument unless the graph was built by ZCubeLayout::Build
    void DoSetGraph() override;

  private:
    ZCubeLayout m_layout{2, 1};
    uint64_t m_seed{0};
};

/**
 * \ingroup zcube
 * Eq. 3: L_ab = sum over flows with o(src) = a and e(dst) = b of the flow's weight, the load
 * on core link O_a -> E_b. Returned row-major, m x m.
 */
std::vector<double> ZCubeCoreLoadMatrix(const ZCubeLayout& layout,
                                        const std::vector<FlowSpec>& flows,
                                        const std::vector<double>& weight);

/**
 * \ingroup zcube
 * The Eq. 3 cross-check of a routing walk: whether \p walked (per directed link of \p graph,
 * e.g. from ComputeDirLinkLoads over ZCubeRouting) equals ZCubeCoreLoadMatrix on every core
 * link O_a -> E_b. With parallel core links the load of a pair is split by the flow hash, so
 * the walked sum over the pair's links is compared.
 */
bool ZCubeWalkMatchesEq3(const ZCubeLayout& layout,
                         const FabricGraph& graph,
                         const std::vector<FlowSpec>& flows,
                         const std::vector<double>& weight,
                         const std::vector<double>& walked);

} // namespace ns3

#endif // ZCUBE_ROUTING_H
