// SPDX-License-Identifier: GPL-2.0-only
#ifndef RNG_FAILURES_H
#define RNG_FAILURES_H

#include "ns3/fabric-rng.h"
#include "ns3/fabric-state.h"
#include "ns3/rng-topology.h"
#include "ns3/traffic-pattern.h"

#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup rng
 * The router-graph edges (ids into RouterGraph::GetEdges) that end at \p router: the links
 * that go down with it.
 */
std::set<uint32_t> RouterEdgesOf(const RouterGraph& g, uint32_t router);

/**
 * \ingroup rng
 * \p count distinct random edges of \p g, drawn with rng.Below(edges) until that many are
 * distinct (a seed gives the same set).
 * \throws std::invalid_argument if \p count exceeds the number of edges
 */
std::set<uint32_t> PickRandomEdges(const RouterGraph& g, uint32_t count, FabricRng& rng);

/**
 * \ingroup rng
 * A FabricState of \p graph (the graph \p fab built) with both directions of the fabric link of
 * every router edge in \p edges down: the truth after those failures, link ids unchanged.
 */
std::shared_ptr<FabricState> FailRouterEdges(const RngFabric& fab,
                                             std::shared_ptr<const FabricGraph> graph,
                                             const std::set<uint32_t>& edges);

/**
 * \ingroup rng
 * The flows of \p flows neither from nor to a server of \p router (servers r*s .. r*s+s-1),
 * renumbered 0, 1, ... in their order: the traffic a router failure leaves to measure.
 */
std::vector<FlowSpec> FlowsAvoidingRouter(const std::vector<FlowSpec>& flows,
                                          uint32_t router,
                                          uint32_t serversPerRouter);

} // namespace ns3

#endif // RNG_FAILURES_H
