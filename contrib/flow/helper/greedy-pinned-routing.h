// SPDX-License-Identifier: GPL-2.0-only
#ifndef GREEDY_PINNED_ROUTING_H
#define GREEDY_PINNED_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/traffic-pattern.h"

#include <map>
#include <tuple>

namespace ns3
{

/**
 * \ingroup flow
 * Congestion-aware greedy path choice on a leaf-spine (ZCube §4's "greedy routing"): each
 * pinned flow leaves its source leaf towards the spine it was given; everything else is as the
 * inner routing decides. Code-only (no attributes): the caller chooses the spines (flow-scale
 * part C: each flow in turn takes the spine whose links carry the fewest bytes so far).
 */
class GreedyPinnedRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();

    /**
     * \param inner the routing for everything not pinned (bound to the same graph)
     * \param layout the leaf-spine's layout
     */
    GreedyPinnedRouting(Ptr<FabricRouting> inner, const LeafSpineLayout& layout);

    /// Flow \p key leaves its source leaf towards \p spine.
    void Pin(const FlowKey& key, uint32_t spine);

    /**
     * Congestion-aware greedy choice: in the order given, each flow between two leaves is
     * pinned to the spine whose uplink (from its source leaf) and downlink (to its destination
     * leaf) carry the fewest bytes so far, counting the flows pinned before it (ties: the
     * lowest spine). Flows within one leaf cross no spine and are not pinned.
     * \throws std::logic_error if the routing has no graph (SetGraph first)
     */
    void PinLeastLoaded(const std::vector<FlowSpec>& flows);

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "greedy"; }

  protected:
    void DoSetGraph() override {}

  private:
    static std::tuple<uint32_t, uint32_t, uint16_t> Id(const FlowKey& k)
    {
        return {k.srcAddr, k.dstAddr, k.srcPort};
    }

    Ptr<FabricRouting> m_inner;
    LeafSpineLayout m_layout;
    std::map<std::tuple<uint32_t, uint32_t, uint16_t>, uint32_t> m_pin;
};

} // namespace ns3

#endif // GREEDY_PINNED_ROUTING_H
