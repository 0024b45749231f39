// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_ROUTING_H
#define FABRIC_ROUTING_H

#include "ns3/fabric-graph.h"
#include "ns3/flow-key.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * A routing scheme as a pure function over a FabricGraph: the egress port at a node for a
 * packet of a flow. Both the packet-level adapters and the analytic/flow-level models call
 * the same function with the same key, so a flow takes the same path in both.
 */
class FabricRouting
{
  public:
    static constexpr uint32_t NO_PORT = UINT32_MAX;

    explicit FabricRouting(std::shared_ptr<const FabricGraph> graph);
    virtual ~FabricRouting() = default;

    /**
     * \param node the node holding the packet
     * \param inPort the port it arrived on, or NO_PORT when the node originated it
     * \param dstHost destination host (node id)
     * \param key the flow's 5-tuple
     * \return the egress port, or NO_PORT when the node has no route (the packet is dropped
     *         with reason "no-route") or \p node is \p dstHost
     */
    virtual uint32_t SelectPort(uint32_t node,
                                uint32_t inPort,
                                uint32_t dstHost,
                                const FlowKey& key) const = 0;

    /// Short name for tables and traces ("zcube", "ecmp", ...).
    virtual std::string GetName() const = 0;

    const FabricGraph& GetGraph() const { return *m_graph; }
    std::shared_ptr<const FabricGraph> GetGraphPtr() const { return m_graph; }

  protected:
    std::shared_ptr<const FabricGraph> m_graph;
};

/**
 * \ingroup fabric
 * The route a flow takes, found by asking the routing function hop by hop.
 */
struct FabricPath
{
    std::vector<uint32_t> nodes;    //!< node ids from source to the last node reached
    std::vector<uint32_t> dirLinks; //!< directed links traversed
    bool delivered{false};          //!< reached the destination host
};

/**
 * Walk a flow's route from \p srcHost to \p dstHost.
 * \param maxHops a packet still travelling after this many hops is reported undelivered
 *        (a loop in a routing function shows up as an undelivered path, never a hang)
 */
FabricPath TracePath(const FabricRouting& routing,
                     uint32_t srcHost,
                     uint32_t dstHost,
                     const FlowKey& key,
                     uint32_t maxHops = 64);

} // namespace ns3

#endif // FABRIC_ROUTING_H
