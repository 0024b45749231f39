// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAILURE_MASK_ROUTING_H
#define FAILURE_MASK_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/fabric-state.h"

#include <memory>
#include <set>

namespace ns3
{

/**
 * \ingroup fabric
 * A routing function as it behaves right after a failure, before the control plane
 * reconverges: the inner routing's choice (made from the inner routing's own view, which has
 * not learnt of the failure), but a packet whose chosen egress port is not usable in the
 * \p failed state (link down or far node down), or that sits on a failed node, is dropped
 * (NO_PORT: reason "no-route" in the packet-level run). Code-only decorator (no TypeId
 * constructor): CreateObject<FailureMaskRouting>(inner, failedState).
 */
class FailureMaskRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    /**
     * \param inner a routing bound to a graph; its graph becomes this routing's graph
     * \param failed the true state of that graph (shared; later changes are seen)
     * \throws std::invalid_argument if \p failed is of another graph
     */
    FailureMaskRouting(Ptr<FabricRouting> inner, std::shared_ptr<const FabricState> failed);
    /// The same with the failed undirected links and nodes given as id sets.
    FailureMaskRouting(Ptr<FabricRouting> inner,
                       const std::set<uint32_t>& failedLinks,
                       const std::set<uint32_t>& failedNodes);

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return m_inner->GetName() + "+failed"; }

    const FabricState& GetFailedState() const { return *m_failed; }

  protected:
    void DoSetGraph() override;
    void DoDispose() override;

  private:
    bool Masked(uint32_t node, uint32_t port) const { return !m_failed->IsPortUsable(node, port); }

    Ptr<FabricRouting> m_inner;
    std::shared_ptr<const FabricState> m_failed;
};

} // namespace ns3

#endif // FAILURE_MASK_ROUTING_H
