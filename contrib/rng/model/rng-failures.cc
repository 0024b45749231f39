// SPDX-License-Identifier: GPL-2.0-only
#include "rng-failures.h"

#include "ns3/log.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RngFailures");

std::set<uint32_t>
RouterEdgesOf(const RouterGraph& g, uint32_t router)
{
    std::set<uint32_t> edges;
    for (uint32_t e = 0; e < g.GetNEdges(); ++e)
    {
        const auto& ed = g.GetEdges()[e];
        if (ed.first == router || ed.second == router)
        {
            edges.insert(e);
        }
    }
    return edges;
}

std::set<uint32_t>
PickRandomEdges(const RouterGraph& g, uint32_t count, FabricRng& rng)
{
    if (count > g.GetNEdges())
    {
        throw std::invalid_argument("PickRandomEdges: count=" + std::to_string(count)
                                    + " must be in [0, " + std::to_string(g.GetNEdges())
                                    + "] (the graph's edges)");
    }
    std::set<uint32_t> edges;
    while (edges.size() < count)
    {
        edges.insert(static_cast<uint32_t>(rng.Below(g.GetNEdges())));
    }
    return edges;
}

std::shared_ptr<FabricState>
FailRouterEdges(const RngFabric& fab,
                std::shared_ptr<const FabricGraph> graph,
                const std::set<uint32_t>& edges)
{
    auto state = std::make_shared<FabricState>(graph);
    for (uint32_t e : edges)
    {
        state->FailLink(fab.RouterLink(*graph, e));
    }
    return state;
}

std::vector<FlowSpec>
FlowsAvoidingRouter(const std::vector<FlowSpec>& flows, uint32_t router, uint32_t serversPerRouter)
{
    std::vector<FlowSpec> kept;
    for (const auto& f : flows)
    {
        if (f.src / serversPerRouter != router && f.dst / serversPerRouter != router)
        {
            kept.push_back(f);
            kept.back().id = static_cast<uint32_t>(kept.size() - 1);
        }
    }
    return kept;
}

} // namespace ns3
