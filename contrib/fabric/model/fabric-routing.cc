// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-routing.h"

#include <stdexcept>

namespace ns3
{

FabricRouting::FabricRouting(std::shared_ptr<const FabricGraph> graph)
    : m_graph(std::move(graph))
{
    if (!m_graph)
    {
        throw std::invalid_argument("FabricRouting: graph must not be null");
    }
}

FabricPath
TracePath(const FabricRouting& routing,
          uint32_t srcHost,
          uint32_t dstHost,
          const FlowKey& key,
          uint32_t maxHops)
{
    const FabricGraph& g = routing.GetGraph();
    if (!g.IsHost(srcHost) || !g.IsHost(dstHost))
    {
        throw std::invalid_argument("TracePath: srcHost and dstHost must be hosts in [0, "
                                    + std::to_string(g.GetNHosts()) + ")");
    }
    FabricPath path;
    path.nodes.push_back(srcHost);
    uint32_t node = srcHost;
    uint32_t inPort = FabricRouting::NO_PORT;
    while (node != dstHost && path.dirLinks.size() < maxHops)
    {
        const uint32_t port = routing.SelectPort(node, inPort, dstHost, key);
        if (port == FabricRouting::NO_PORT)
        {
            return path;
        }
        path.dirLinks.push_back(g.GetEgressDirLink(node, port));
        inPort = g.GetPeerPort(node, port);
        node = g.GetPeer(node, port);
        path.nodes.push_back(node);
    }
    path.delivered = (node == dstHost);
    return path;
}

} // namespace ns3
