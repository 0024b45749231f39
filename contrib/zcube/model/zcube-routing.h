// SPDX-License-Identifier: GPL-2.0-only
#ifndef ZCUBE_ROUTING_H
#define ZCUBE_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/traffic-pattern.h"
#include "ns3/zcube-topology.h"

#include <unordered_map>

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
 * parallel link count in the graph). View: a port the deciding node's view believes down is
 * not chosen; with parallel core links the flow hash picks among the surviving ones.
 *
 * Failover (§6.2; doc/failures.md), none of which changes an all-up path:
 * - NIC failover: a GPU whose view believes its O-side port down sends on its E-side port.
 * - Pre-installed rule at E_c for packets arriving from one of its GPUs for a GPU of another
 *   group: up to some O_d, d != o(src), chosen by flow hash among the ports E_c believes up
 *   (then Eq. 1 from O_d). Steady state never uses it: GPUs send on their O side.
 * - Controller detours, recomputed from the controller view (SetControllerView) at every
 *   change, for exactly the affected destinations: core link O_a -> E_b dead: O_a -> E_c ->
 *   O_d -> E_b (4 switches, the E -> O direction of the core); j's even side dead (E_b or
 *   its link): O_a -> E_c -> O_{o(j)} -> j, delivered on j's odd side. Repair removes them.
 *
 * DetourShape "reverse-plane" (an option; "paper" is the default) replaces, for a dead core
 * link O_a -> E_b, the 4-switch detour of every affected pair (i, j) (o(i) = a, e(j) = b) by
 * the 2-switch path over links Eq. 1 never loads: i's E-side port -> E_{e(i)} -> (E -> O
 * core) -> O_{o(j)} -> j's O side. Its entries are per pair: at host i for j; at E_{e(i)} for
 * packets from i's port toward j; at O_{o(j)} for packets from E_{e(i)}'s core port toward
 * j. A pair whose reverse-plane path has a piece down in the controller view keeps the paper
 * detour, which stays installed at O_a for whatever still reaches it. Hosts whose per-pair
 * choice changed are told through their node-view listeners (cached routes re-resolve).
 */
class ZCubeRouting : public FabricRouting
{
  public:
    /// Shape of the controller's core-link detours.
    enum DetourShape
    {
        PAPER,        //!< §6.2: O_a -> E_c -> O_d -> E_b, 4 switches
        REVERSE_PLANE //!< i's E side -> E_{e(i)} -> O_{o(j)} -> j's O side, 2 switches
    };

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

    /// Number of controller-installed detour entries (node, destination) in force.
    size_t GetNDetours() const { return m_detours.size(); }
    /// The detour port at \p node for \p dstHost, or NO_PORT if none is installed.
    uint32_t GetDetour(uint32_t node, uint32_t dstHost) const;
    /// Number of controller-installed per-pair (reverse-plane) entries in force.
    size_t GetNPairDetours() const { return m_pairDetours.size(); }
    /// The shape of the core-link detours (attribute DetourShape).
    DetourShape GetDetourShape() const { return m_shape; }

    /// Signature of the DetourChange trace: entries installed, removed, in force after.
    typedef void (*DetourChangeTracedCallback)(uint32_t installed,
                                               uint32_t removed,
                                               uint32_t inForce);

  protected:
    /// \throws std::invalid_argument unless the graph was built by ZCubeLayout::Build
    void DoSetGraph() override;
    /// Recompute the detours from the controller view.
    void DoControllerViewChanged(const FabricStateChange& change) override;

  private:
    static uint64_t DetourKey(uint32_t node, uint32_t dst) { return (uint64_t(node) << 32) | dst; }
    /**
     * Key of a per-pair entry: \p from is 0 at a host (the source itself), the host port the
     * packet arrived on at an E switch (so the source GPU), the E group it arrived from at an
     * O switch. from < 1024 (switch radix), dst < 2^21 (FabricAddressing::MAX_HOSTS).
     */
    static uint64_t PairKey(uint32_t node, uint32_t from, uint32_t dst)
    {
        return (uint64_t(node) << 31) | (uint64_t(from) << 21) | dst;
    }
    /// The per-pair entry at \p node for a packet that arrived on \p inPort, or NO_PORT.
    uint32_t PairDetour(uint32_t node, uint32_t inPort, uint32_t dstHost) const;
    /// Add the reverse-plane entries of (i, j) if every piece is usable in \p view.
    bool AddReversePlane(const FabricState& view,
                         uint32_t i,
                         uint32_t j,
                         std::unordered_map<uint64_t, uint32_t>& pairs) const;
    /// O_a's port toward GPU i of its group.
    uint32_t OddHostPort(uint32_t gpu) const { return gpu / m_layout.GetM(); }
    /// E_b's r-th port toward O_a.
    uint32_t EvenCorePort(uint32_t a, uint32_t r = 0) const
    {
        return m_layout.GetK() + a * m_layout.GetParallel() + r;
    }
    /// The first parallel port of \p node among \p first + r usable in \p view, or NO_PORT.
    uint32_t FirstUsable(const FabricState& view, uint32_t node, uint32_t first) const;
    /// The E-side upward rule for a packet from one of E_b's GPUs (\p srcGpu).
    uint32_t EvenUpward(uint32_t node, uint32_t srcGpu, const FlowKey& key) const;

    ZCubeLayout m_layout{2, 1};
    uint64_t m_seed{0};
    DetourShape m_shape{PAPER};
    std::unordered_map<uint64_t, uint32_t> m_detours; //!< controller-installed
    /// controller-installed per-pair entries (reverse-plane), by PairKey
    std::unordered_map<uint64_t, uint32_t> m_pairDetours;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_detourTrace;
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
