// SPDX-License-Identifier: GPL-2.0-only
#include "spraypoint-routing.h"

#include "ns3/boolean.h"
#include "ns3/fabric-addressing.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

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

NS_LOG_COMPONENT_DEFINE("SpraypointRouting");
NS_OBJECT_ENSURE_REGISTERED(SpraypointRouting);
NS_OBJECT_ENSURE_REGISTERED(KspRouting);
NS_OBJECT_ENSURE_REGISTERED(FailureMaskRouting);

TypeId
SpraypointRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::SpraypointRouting")
              .SetParent<FabricRouting>()
              .SetGroupName("Rng")
              .AddConstructor<SpraypointRouting>()
              .AddAttribute("P",
                            "Waypoints chosen per node of the previous level (RNG paper §5), in "
                            "[1, d-1].",
                            UintegerValue(2),
                            MakeUintegerAccessor(&SpraypointRouting::m_p),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("H",
                            "Candidate next hops per node (pointing), in [1, d].",
                            UintegerValue(2),
                            MakeUintegerAccessor(&SpraypointRouting::m_h),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("Levels",
                            "Waypoint levels; 0 = the paper's max(1, ceil(log_p(n / 2d^2))).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&SpraypointRouting::m_levels),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Key",
                            "The shared key every router hashes its waypoint and pointer "
                            "selections with.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&SpraypointRouting::m_key),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("DistinctPicks",
                            "Whether a node already chosen into a level is ineligible for later "
                            "picks of the same level.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&SpraypointRouting::m_distinctPicks),
                            MakeBooleanChecker())
              .AddAttribute("Seed",
                            "Flow-hash seed (each router mixes in its id).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&SpraypointRouting::m_seed),
                            MakeUintegerChecker<uint64_t>());
    return tid;
}

SpraypointRouting::SpraypointRouting()
{
    NS_LOG_FUNCTION(this);
}

void
SpraypointRouting::SetTables(std::shared_ptr<const SpraypointTables> tables)
{
    if (m_graph)
    {
        throw std::logic_error("SpraypointRouting::SetTables after SetGraph");
    }
    m_tables = std::move(tables);
}

void
SpraypointRouting::DoSetGraph()
{
    const RngFabric fabric = RngFabric::FromGraph(*m_graph);
    m_nServers = fabric.GetNServers();
    m_s = fabric.GetServersPerRouter();
    if (!m_tables)
    {
        SpraypointParams params;
        params.p = m_p;
        params.h = m_h;
        params.levels = m_levels;
        params.key = m_key;
        params.distinctPicks = m_distinctPicks;
        m_tables = std::make_shared<SpraypointTables>(fabric.GetRouters(), params);
    }
    if (m_tables->GetN() != fabric.GetNRouters())
    {
        throw std::invalid_argument("SpraypointRouting: tables, fabric and graph disagree");
    }
    m_degree.clear();
    for (uint32_t r = 0; r < fabric.GetNRouters(); ++r)
    {
        m_degree.push_back(fabric.GetRouters().GetDegree(r));
    }
}

Ptr<SpraypointRouting>
MakeSpraypointRouting(std::shared_ptr<const FabricGraph> graph,
                      std::shared_ptr<const SpraypointTables> tables,
                      uint64_t seed)
{
    auto routing = CreateObjectWithAttributes<SpraypointRouting>("Seed", UintegerValue(seed));
    routing->SetTables(std::move(tables));
    routing->SetGraph(std::move(graph));
    return routing;
}

uint32_t
SpraypointRouting::SelectPort(uint32_t node,
                              uint32_t inPort,
                              uint32_t dstHost,
                              const FlowKey& key) const
{
    uint32_t port;
    if (node < m_nServers)
    {
        port = node == dstHost ? NO_PORT : 0;
        return (port == NO_PORT || IsPortUp(node, port)) ? port : NO_PORT;
    }
    const uint32_t r = node - m_nServers;
    const uint32_t t = dstHost / m_s;
    if (t == r)
    {
        port = dstHost % m_s; // local server, both VRFs
        return IsPortUp(node, port) ? port : NO_PORT;
    }
    const uint32_t s = m_s;
    if (inPort == NO_PORT || inPort < m_s)
    {
        // Server-facing VRF: spray over every uplink.
        return PickUsable(
            node,
            m_degree[r],
            [s](uint32_t i) { return s + i; },
            FlowHash(key, NodeSeed(m_seed, node, 1)));
    }
    // Fabric-facing VRF: pointing rules.
    const uint32_t k = m_tables->NCandidates(t, r);
    const SpraypointTables& tab = *m_tables;
    return PickUsable(
        node,
        k,
        [s, &tab, t, r](uint32_t i) { return s + tab.Candidate(t, r, i); },
        k <= 1 ? 0 : FlowHash(key, NodeSeed(m_seed, node, 2)));
}

std::vector<uint32_t>
SpraypointRouting::Candidates(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    std::vector<uint32_t> ports;
    if (node < m_nServers)
    {
        if (node != dstHost)
        {
            ports.push_back(0);
        }
    }
    else
    {
        const uint32_t r = node - m_nServers;
        const uint32_t t = dstHost / m_s;
        if (t == r)
        {
            ports.push_back(dstHost % m_s);
        }
        else if (inPort == NO_PORT || inPort < m_s)
        {
            for (uint32_t i = 0; i < m_degree[r]; ++i)
            {
                ports.push_back(m_s + i);
            }
        }
        else
        {
            for (uint32_t i = 0; i < m_tables->NCandidates(t, r); ++i)
            {
                ports.push_back(m_s + m_tables->Candidate(t, r, i));
            }
        }
    }
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [this, node](uint32_t p) { return !IsPortUp(node, p); }),
                ports.end());
    return ports;
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

TypeId
KspRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KspRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("Rng")
                            .AddConstructor<KspRouting>()
                            .AddAttribute("K",
                                          "Shortest simple paths per router pair, >= 1.",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&KspRouting::m_k),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddAttribute("Seed",
                                          "Flow-hash seed of the source router's path choice.",
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
    const RngFabric fabric = RngFabric::FromGraph(*m_graph);
    m_n = fabric.GetNRouters();
    m_nServers = fabric.GetNServers();
    m_s = fabric.GetServersPerRouter();
    const RouterGraph& rg = fabric.GetRouters();
    m_adj.clear();
    for (uint32_t v = 0; v < m_n; ++v)
    {
        m_adj.push_back(rg.Neighbours(v));
    }
    m_paths.assign(static_cast<size_t>(m_n) * m_n, {});
    for (uint32_t a = 0; a < m_n; ++a)
    {
        for (uint32_t b = 0; b < m_n; ++b)
        {
            if (a != b)
            {
                m_paths[static_cast<size_t>(a) * m_n + b] = ShortestPaths(rg, a, b, m_k);
            }
        }
    }
}

uint32_t
KspRouting::PortTo(uint32_t r, uint32_t next) const
{
    const auto& nb = m_adj[r];
    auto j = std::find(nb.begin(), nb.end(), next);
    return m_s + static_cast<uint32_t>(j - nb.begin());
}

bool
KspRouting::PathUp(const std::vector<uint32_t>& path) const
{
    for (size_t i = 0; i + 1 < path.size(); ++i)
    {
        if (!IsPortUp(m_nServers + path[i], PortTo(path[i], path[i + 1])))
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
    // The source router's choice among the paths its view believes whole; every router on
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
    if (node < m_nServers)
    {
        const uint32_t port = node == dstHost ? NO_PORT : 0;
        return (port == NO_PORT || IsPortUp(node, port)) ? port : NO_PORT;
    }
    const uint32_t r = node - m_nServers;
    const uint32_t t = dstHost / m_s;
    if (t == r)
    {
        return IsPortUp(node, dstHost % m_s) ? dstHost % m_s : NO_PORT;
    }
    const uint32_t srcHost = FabricAddressing::HostOf(key.srcAddr);
    if (srcHost >= m_nServers)
    {
        return NO_PORT;
    }
    const std::vector<uint32_t>* path = ChoosePath(srcHost / m_s, t, key);
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
    // The choice depends on the source (read from the key), so the candidates at a router are
    // the next hops of every path through it toward dstHost's router, from any source.
    std::vector<uint32_t> ports;
    if (node < m_nServers)
    {
        if (node != dstHost && IsPortUp(node, 0))
        {
            ports.push_back(0);
        }
        return ports;
    }
    const uint32_t r = node - m_nServers;
    const uint32_t t = dstHost / m_s;
    if (t == r)
    {
        if (IsPortUp(node, dstHost % m_s))
        {
            ports.push_back(dstHost % m_s);
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

// ---------------------------------------------------------------------------------------------

TypeId
FailureMaskRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FailureMaskRouting").SetParent<FabricRouting>().SetGroupName("Rng");
    return tid;
}

FailureMaskRouting::FailureMaskRouting(Ptr<FabricRouting> inner,
                                       std::set<uint32_t> failedLinks,
                                       std::set<uint32_t> failedNodes)
    : m_inner(std::move(inner)),
      m_links(std::move(failedLinks)),
      m_nodes(std::move(failedNodes))
{
    SetGraph(m_inner->GetGraphPtr());
}

void
FailureMaskRouting::DoSetGraph()
{
}

void
FailureMaskRouting::DoDispose()
{
    m_inner = nullptr;
    FabricRouting::DoDispose();
}

bool
FailureMaskRouting::Masked(uint32_t node, uint32_t port) const
{
    return m_links.count(m_graph->GetPortLink(node, port))
        || m_nodes.count(m_graph->GetPeer(node, port));
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
    return (port == NO_PORT || Masked(node, port)) ? NO_PORT : port;
}

std::vector<uint32_t>
FailureMaskRouting::Candidates(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    // The inner choice stands even when masked (the packet is then dropped), so the masked
    // ports stay out of the set.
    if (m_nodes.count(node))
    {
        return {};
    }
    auto ports = m_inner->Candidates(node, inPort, dstHost);
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [this, node](uint32_t p) { return Masked(node, p); }),
                ports.end());
    return ports;
}

} // namespace ns3
