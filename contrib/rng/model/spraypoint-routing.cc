// SPDX-License-Identifier: GPL-2.0-only
#include "spraypoint-routing.h"

#include "ns3/fabric-addressing.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
inline uint64_t
NodeSeed(uint64_t seed, uint32_t node, uint64_t vrf)
{
    return seed ^ FabricMix64((static_cast<uint64_t>(node) + 1) ^ (vrf << 40));
}
} // namespace

SpraypointRouting::SpraypointRouting(std::shared_ptr<const FabricGraph> graph,
                                     const RngFabric& fabric,
                                     std::shared_ptr<const SpraypointTables> tables,
                                     uint64_t seed)
    : FabricRouting(std::move(graph)),
      m_nServers(fabric.GetNServers()),
      m_s(fabric.GetServersPerRouter()),
      m_tables(std::move(tables)),
      m_seed(seed)
{
    if (m_tables->GetN() != fabric.GetNRouters() || m_graph->GetNHosts() != m_nServers)
    {
        throw std::invalid_argument("SpraypointRouting: tables, fabric and graph disagree");
    }
    for (uint32_t r = 0; r < fabric.GetNRouters(); ++r)
    {
        m_degree.push_back(fabric.GetRouters().GetDegree(r));
    }
}

uint32_t
SpraypointRouting::SelectPort(uint32_t node,
                              uint32_t inPort,
                              uint32_t dstHost,
                              const FlowKey& key) const
{
    if (node < m_nServers)
    {
        return node == dstHost ? NO_PORT : 0;
    }
    const uint32_t r = node - m_nServers;
    const uint32_t t = dstHost / m_s;
    if (t == r)
    {
        return dstHost % m_s; // local server, both VRFs
    }
    if (inPort == NO_PORT || inPort < m_s)
    {
        // Server-facing VRF: spray over every uplink.
        const uint32_t d = m_degree[r];
        if (d == 0)
        {
            return NO_PORT;
        }
        return m_s + HashToIndex(FlowHash(key, NodeSeed(m_seed, node, 1)), d);
    }
    // Fabric-facing VRF: pointing rules.
    const uint32_t k = m_tables->NCandidates(t, r);
    if (k == 0)
    {
        return NO_PORT;
    }
    const uint32_t i = (k == 1) ? 0 : HashToIndex(FlowHash(key, NodeSeed(m_seed, node, 2)), k);
    return m_s + m_tables->Candidate(t, r, i);
}

// ---------------------------------------------------------------------------------------------

namespace
{
using BGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
using BEdge = boost::graph_traits<BGraph>::edge_descriptor;

struct EdgeFilter
{
    const std::set<std::pair<uint32_t, uint32_t>>* removed{nullptr};
    const BGraph* g{nullptr};

    bool operator()(const BEdge& e) const
    {
        const uint32_t a = boost::source(e, *g);
        const uint32_t b = boost::target(e, *g);
        return !removed->count({std::min(a, b), std::max(a, b)});
    }
};

struct VertexFilter
{
    const std::vector<char>* removed{nullptr};

    bool operator()(uint32_t v) const { return !(*removed)[v]; }
};

/// BFS shortest path from a to b in g without the removed edges and vertices (empty if none).
std::vector<uint32_t>
BfsPath(const BGraph& g,
        uint32_t a,
        uint32_t b,
        const std::set<std::pair<uint32_t, uint32_t>>& edges,
        const std::vector<char>& vertices)
{
    EdgeFilter ef{&edges, &g};
    VertexFilter vf{&vertices};
    boost::filtered_graph<BGraph, EdgeFilter, VertexFilter> fg(g, ef, vf);
    const uint32_t n = boost::num_vertices(g);
    std::vector<uint32_t> pred(n, UINT32_MAX);
    pred[a] = a;
    boost::breadth_first_search(fg,
                                a,
                                boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(
                                    pred.data(), boost::on_tree_edge()))));
    if (pred[b] == UINT32_MAX)
    {
        return {};
    }
    std::vector<uint32_t> path;
    for (uint32_t v = b; v != a; v = pred[v])
    {
        path.push_back(v);
    }
    path.push_back(a);
    std::reverse(path.begin(), path.end());
    return path;
}
} // namespace

std::vector<std::vector<uint32_t>>
KspRouting::ShortestPaths(const RouterGraph& rg, uint32_t a, uint32_t b, uint32_t k)
{
    const uint32_t n = rg.GetN();
    BGraph g(n);
    for (const auto& [x, y] : rg.GetEdges())
    {
        boost::add_edge(x, y, g);
    }
    std::vector<std::vector<uint32_t>> found;
    std::set<std::pair<uint32_t, uint32_t>> noEdges;
    std::vector<char> noVertices(n, 0);
    auto first = BfsPath(g, a, b, noEdges, noVertices);
    if (first.empty() || a == b)
    {
        return found;
    }
    found.push_back(first);
    // Candidates ordered by (length, node sequence) so the result is deterministic.
    std::set<std::pair<size_t, std::vector<uint32_t>>> candidates;
    while (found.size() < k)
    {
        const auto& last = found.back();
        for (size_t i = 0; i + 1 < last.size(); ++i)
        {
            const uint32_t spur = last[i];
            std::vector<uint32_t> root(last.begin(), last.begin() + i + 1);
            std::set<std::pair<uint32_t, uint32_t>> edges;
            for (const auto& p : found)
            {
                if (p.size() > i + 1 && std::equal(root.begin(), root.end(), p.begin()))
                {
                    edges.insert({std::min(p[i], p[i + 1]), std::max(p[i], p[i + 1])});
                }
            }
            std::vector<char> vertices(n, 0);
            for (size_t j = 0; j < i; ++j)
            {
                vertices[root[j]] = 1;
            }
            auto spurPath = BfsPath(g, spur, b, edges, vertices);
            if (spurPath.empty())
            {
                continue;
            }
            std::vector<uint32_t> total(root.begin(), root.end() - 1);
            total.insert(total.end(), spurPath.begin(), spurPath.end());
            if (std::find(found.begin(), found.end(), total) == found.end())
            {
                candidates.insert({total.size(), total});
            }
        }
        if (candidates.empty())
        {
            break;
        }
        found.push_back(candidates.begin()->second);
        candidates.erase(candidates.begin());
    }
    return found;
}

KspRouting::KspRouting(std::shared_ptr<const FabricGraph> graph,
                       const RngFabric& fabric,
                       uint32_t k,
                       uint64_t seed)
    : FabricRouting(std::move(graph)),
      m_n(fabric.GetNRouters()),
      m_nServers(fabric.GetNServers()),
      m_s(fabric.GetServersPerRouter()),
      m_seed(seed)
{
    if (k == 0)
    {
        throw std::invalid_argument("KspRouting: k=0 must be >= 1");
    }
    const RouterGraph& rg = fabric.GetRouters();
    for (uint32_t v = 0; v < m_n; ++v)
    {
        m_adj.push_back(rg.Neighbours(v));
    }
    m_paths.resize(static_cast<size_t>(m_n) * m_n);
    for (uint32_t a = 0; a < m_n; ++a)
    {
        for (uint32_t b = 0; b < m_n; ++b)
        {
            if (a != b)
            {
                m_paths[static_cast<size_t>(a) * m_n + b] = ShortestPaths(rg, a, b, k);
            }
        }
    }
}

uint32_t
KspRouting::SelectPort(uint32_t node,
                       uint32_t /*inPort*/,
                       uint32_t dstHost,
                       const FlowKey& key) const
{
    if (node < m_nServers)
    {
        return node == dstHost ? NO_PORT : 0;
    }
    const uint32_t r = node - m_nServers;
    const uint32_t t = dstHost / m_s;
    if (t == r)
    {
        return dstHost % m_s;
    }
    const uint32_t srcHost = FabricAddressing::HostOf(key.srcAddr);
    if (srcHost >= m_nServers)
    {
        return NO_PORT;
    }
    const auto& paths = GetPaths(srcHost / m_s, t);
    if (paths.empty())
    {
        return NO_PORT;
    }
    const auto& path = paths[HashToIndex(FlowHash(key, m_seed), paths.size())];
    auto it = std::find(path.begin(), path.end(), r);
    if (it == path.end() || it + 1 == path.end())
    {
        return NO_PORT;
    }
    const auto& nb = m_adj[r];
    auto j = std::find(nb.begin(), nb.end(), *(it + 1));
    return m_s + static_cast<uint32_t>(j - nb.begin());
}

// ---------------------------------------------------------------------------------------------

FailureMaskRouting::FailureMaskRouting(std::shared_ptr<const FabricRouting> inner,
                                       std::set<uint32_t> failedLinks,
                                       std::set<uint32_t> failedNodes)
    : FabricRouting(inner->GetGraphPtr()),
      m_inner(std::move(inner)),
      m_links(std::move(failedLinks)),
      m_nodes(std::move(failedNodes))
{
}

uint32_t
FailureMaskRouting::SelectPort(uint32_t node,
                               uint32_t inPort,
                               uint32_t dstHost,
                               const FlowKey& key) const
{
    if (m_nodes.count(node))
    {
        return NO_PORT;
    }
    const uint32_t port = m_inner->SelectPort(node, inPort, dstHost, key);
    if (port == NO_PORT)
    {
        return port;
    }
    if (m_links.count(m_graph->GetPortLink(node, port))
        || m_nodes.count(m_graph->GetPeer(node, port)))
    {
        return NO_PORT;
    }
    return port;
}

} // namespace ns3
