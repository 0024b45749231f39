// SPDX-License-Identifier: GPL-2.0-only
#include "ksp-routing.h"

#include "ns3/fabric-addressing.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("KspRouting");
NS_OBJECT_ENSURE_REGISTERED(KspRouting);

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

/// Yen's algorithm over a prebuilt graph.
std::vector<std::vector<uint32_t>>
Yen(const BGraph& g, uint32_t a, uint32_t b, uint32_t k)
{
    const uint32_t n = boost::num_vertices(g);
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

BGraph
MakeBGraph(uint32_t n, const std::vector<std::pair<uint32_t, uint32_t>>& edges)
{
    BGraph g(n);
    for (const auto& [x, y] : edges)
    {
        boost::add_edge(x, y, g);
    }
    return g;
}
} // namespace

std::vector<std::vector<uint32_t>>
KspRouting::ShortestPaths(uint32_t n,
                          const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                          uint32_t a,
                          uint32_t b,
                          uint32_t k)
{
    if (a >= n || b >= n)
    {
        throw std::invalid_argument("KspRouting::ShortestPaths: vertex out of range [0, "
                                    + std::to_string(n) + ")");
    }
    return Yen(MakeBGraph(n, edges), a, b, k);
}

TypeId
KspRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KspRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("Fabric")
                            .AddConstructor<KspRouting>()
                            .AddAttribute("K",
                                          "Shortest simple paths per switch pair, >= 1.",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&KspRouting::m_k),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddAttribute("Seed",
                                          "Flow-hash seed of the source switch's path choice.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&KspRouting::m_seed),
                                          MakeUintegerChecker<uint64_t>());
    return tid;
}

KspRouting::KspRouting()
{
    NS_LOG_FUNCTION(this);
}

void
KspRouting::DoSetGraph()
{
    if (m_k == 0)
    {
        throw std::invalid_argument("KspRouting: K=0 must be >= 1");
    }
    const FabricGraph& g = *m_graph;
    m_nHosts = g.GetNHosts();
    m_n = g.GetNNodes() - m_nHosts;
    m_hostSwitch.assign(m_nHosts, 0);
    m_hostPort.assign(m_nHosts, 0);
    for (uint32_t h = 0; h < m_nHosts; ++h)
    {
        if (g.GetNPorts(h) != 1 || g.IsHost(g.GetPeer(h, 0)))
        {
            throw std::invalid_argument("KspRouting: host " + g.GetName(h)
                                        + " must have exactly one port, to a switch");
        }
        m_hostSwitch[h] = g.GetPeer(h, 0) - m_nHosts;
        m_hostPort[h] = g.GetPeerPort(h, 0);
    }
    // Switch graph: switch-switch links in link-id order (the BFS tie-breaking order).
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        if (!g.IsHost(link.node[0]) && !g.IsHost(link.node[1]))
        {
            edges.emplace_back(link.node[0] - m_nHosts, link.node[1] - m_nHosts);
        }
    }
    m_nbr.assign(m_n, {});
    for (uint32_t r = 0; r < m_n; ++r)
    {
        const uint32_t node = m_nHosts + r;
        for (uint32_t p = 0; p < g.GetNPorts(node); ++p)
        {
            const uint32_t peer = g.GetPeer(node, p);
            if (!g.IsHost(peer))
            {
                m_nbr[r].emplace_back(peer - m_nHosts, p);
            }
        }
    }
    const BGraph bg = MakeBGraph(m_n, edges);
    m_paths.assign(static_cast<size_t>(m_n) * m_n, {});
    // Only switches with hosts are path ends.
    std::vector<char> hasHosts(m_n, 0);
    for (uint32_t h = 0; h < m_nHosts; ++h)
    {
        hasHosts[m_hostSwitch[h]] = 1;
    }
    for (uint32_t a = 0; a < m_n; ++a)
    {
        for (uint32_t b = 0; b < m_n; ++b)
        {
            if (a != b && hasHosts[a] && hasHosts[b])
            {
                m_paths[static_cast<size_t>(a) * m_n + b] = Yen(bg, a, b, m_k);
            }
        }
    }
}

uint32_t
KspRouting::PortTo(uint32_t r, uint32_t next) const
{
    for (const auto& [peer, port] : m_nbr[r])
    {
        if (peer == next)
        {
            return port;
        }
    }
    return NO_PORT;
}

bool
KspRouting::PathUp(const std::vector<uint32_t>& path) const
{
    for (size_t i = 0; i + 1 < path.size(); ++i)
    {
        if (!IsPortUp(m_nHosts + path[i], PortTo(path[i], path[i + 1])))
        {
            return false;
        }
    }
    return true;
}

const std::vector<uint32_t>*
KspRouting::ChoosePath(uint32_t a, uint32_t b, const FlowKey& key) const
{
    const auto& paths = GetPaths(a, b);
    if (paths.empty())
    {
        return nullptr;
    }
    const uint64_t h = FlowHash(key, m_seed);
    if (ViewAllUp())
    {
        return &paths[HashToIndex(h, paths.size())];
    }
    // The source switch's choice among the paths its view believes whole; every switch on
    // the path shares the view, so they agree on the choice.
    uint32_t nUp = 0;
    for (const auto& p : paths)
    {
        nUp += PathUp(p) ? 1 : 0;
    }
    if (nUp == 0)
    {
        return nullptr;
    }
    uint32_t pick = HashToIndex(h, nUp);
    for (const auto& p : paths)
    {
        if (PathUp(p) && pick-- == 0)
        {
            return &p;
        }
    }
    return nullptr;
}

uint32_t
KspRouting::SelectPort(uint32_t node,
                       uint32_t /*inPort*/,
                       uint32_t dstHost,
                       const FlowKey& key) const
{
    if (node < m_nHosts)
    {
        const uint32_t port = node == dstHost ? NO_PORT : 0;
        return (port == NO_PORT || IsPortUp(node, port)) ? port : NO_PORT;
    }
    const uint32_t r = node - m_nHosts;
    const uint32_t t = m_hostSwitch[dstHost];
    if (t == r)
    {
        return IsPortUp(node, m_hostPort[dstHost]) ? m_hostPort[dstHost] : NO_PORT;
    }
    const uint32_t srcHost = FabricAddressing::HostOf(key.srcAddr);
    if (srcHost >= m_nHosts)
    {
        return NO_PORT;
    }
    const std::vector<uint32_t>* path = ChoosePath(m_hostSwitch[srcHost], t, key);
    if (!path)
    {
        return NO_PORT;
    }
    auto it = std::find(path->begin(), path->end(), r);
    if (it == path->end() || it + 1 == path->end())
    {
        return NO_PORT;
    }
    const uint32_t port = PortTo(r, *(it + 1));
    return IsPortUp(node, port) ? port : NO_PORT;
}

std::vector<uint32_t>
KspRouting::Candidates(uint32_t node, uint32_t /*inPort*/, uint32_t dstHost) const
{
    // The choice depends on the source (read from the key), so the candidates at a switch are
    // the next hops of every path through it toward dstHost's switch, from any source.
    std::vector<uint32_t> ports;
    if (node < m_nHosts)
    {
        if (node != dstHost && IsPortUp(node, 0))
        {
            ports.push_back(0);
        }
        return ports;
    }
    const uint32_t r = node - m_nHosts;
    const uint32_t t = m_hostSwitch[dstHost];
    if (t == r)
    {
        if (IsPortUp(node, m_hostPort[dstHost]))
        {
            ports.push_back(m_hostPort[dstHost]);
        }
        return ports;
    }
    for (uint32_t a = 0; a < m_n; ++a)
    {
        if (a == t)
        {
            continue;
        }
        for (const auto& path : GetPaths(a, t))
        {
            if (!ViewAllUp() && !PathUp(path))
            {
                continue;
            }
            auto it = std::find(path.begin(), path.end(), r);
            if (it != path.end() && it + 1 != path.end())
            {
                ports.push_back(PortTo(r, *(it + 1)));
            }
        }
    }
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    return ports;
}

} // namespace ns3
