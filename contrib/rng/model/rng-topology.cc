// SPDX-License-Identifier: GPL-2.0-only
#include "rng-topology.h"

#include "ns3/traffic-pattern.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ns3
{

RouterGraph::RouterGraph(uint32_t n)
    : m_adj(n)
{
}

void
RouterGraph::AddEdge(uint32_t a, uint32_t b)
{
    if (a >= GetN() || b >= GetN())
    {
        throw std::invalid_argument("RouterGraph::AddEdge: router out of range [0, "
                                    + std::to_string(GetN()) + ")");
    }
    if (a == b)
    {
        throw std::invalid_argument("RouterGraph::AddEdge: self-loop at router "
                                    + std::to_string(a));
    }
    m_adj[a].push_back(b);
    m_adj[b].push_back(a);
    m_edges.emplace_back(a, b);
}

bool
RouterGraph::HasMultiEdges() const
{
    for (const auto& nb : m_adj)
    {
        std::vector<uint32_t> s(nb);
        std::sort(s.begin(), s.end());
        if (std::adjacent_find(s.begin(), s.end()) != s.end())
        {
            return true;
        }
    }
    return false;
}

bool
RouterGraph::IsRegular(uint32_t d) const
{
    return std::all_of(m_adj.begin(), m_adj.end(), [d](const auto& nb) { return nb.size() == d; });
}

RouterGraph
RouterGraph::WithoutEdges(const std::set<uint32_t>& edges) const
{
    RouterGraph g(GetN());
    for (uint32_t e = 0; e < m_edges.size(); ++e)
    {
        if (!edges.count(e))
        {
            g.AddEdge(m_edges[e].first, m_edges[e].second);
        }
    }
    return g;
}

RouterGraph
RouterGraph::WithoutRouter(uint32_t v) const
{
    std::set<uint32_t> drop;
    for (uint32_t e = 0; e < m_edges.size(); ++e)
    {
        if (m_edges[e].first == v || m_edges[e].second == v)
        {
            drop.insert(e);
        }
    }
    return WithoutEdges(drop);
}

namespace
{
uint64_t
PairKey(uint32_t a, uint32_t b)
{
    return (static_cast<uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
}
} // namespace

RouterGraph
MakeRandomRegularGraph(uint32_t n, uint32_t d, uint64_t seed, RandomRegularReport* report)
{
    if (n < 3)
    {
        throw std::invalid_argument("random regular graph: n=" + std::to_string(n)
                                    + " must be >= 3");
    }
    if (d < 1 || d >= n)
    {
        throw std::invalid_argument("random regular graph: d=" + std::to_string(d)
                                    + " must be in [1, n-1] = [1, " + std::to_string(n - 1) + "]");
    }
    if ((static_cast<uint64_t>(n) * d) % 2 != 0)
    {
        throw std::invalid_argument("random regular graph: n*d = " + std::to_string(n) + "*"
                                    + std::to_string(d) + " must be even");
    }
    FabricRng rng(seed ^ 0x52'4e'47'5f'67'72'61'70ULL);
    std::vector<uint32_t> stubs;
    stubs.reserve(static_cast<size_t>(n) * d);
    for (uint32_t v = 0; v < n; ++v)
    {
        stubs.insert(stubs.end(), d, v);
    }
    for (size_t i = stubs.size(); i > 1; --i)
    {
        std::swap(stubs[i - 1], stubs[rng.Below(i)]);
    }
    const size_t m = stubs.size() / 2;
    std::vector<std::pair<uint32_t, uint32_t>> edges(m);
    std::unordered_map<uint64_t, uint32_t> count;
    count.reserve(m * 2);
    RandomRegularReport rep;
    std::vector<size_t> bad;
    for (size_t i = 0; i < m; ++i)
    {
        edges[i] = {stubs[2 * i], stubs[2 * i + 1]};
        if (edges[i].first == edges[i].second)
        {
            rep.selfLoops++;
            bad.push_back(i);
        }
        else if (++count[PairKey(edges[i].first, edges[i].second)] > 1)
        {
            rep.multiEdges++;
            bad.push_back(i);
        }
    }
    auto isBad = [&](size_t i)
    {
        const auto& e = edges[i];
        return e.first == e.second || count[PairKey(e.first, e.second)] > 1;
    };
    auto dec = [&](uint32_t a, uint32_t b)
    {
        if (a != b)
        {
            count[PairKey(a, b)]--;
        }
    };
    const uint64_t maxAttempts = 1000ULL * m + 1000000;
    while (!bad.empty())
    {
        const size_t i = bad.back();
        if (!isBad(i))
        {
            bad.pop_back();
            continue;
        }
        if (++rep.attempts > maxAttempts)
        {
            throw std::runtime_error("random regular graph: could not repair the pairing");
        }
        const size_t j = rng.Below(m);
        if (j == i)
        {
            continue;
        }
        uint32_t a = edges[i].first;
        uint32_t b = edges[i].second;
        uint32_t c = edges[j].first;
        uint32_t e = edges[j].second;
        if (rng.Below(2))
        {
            std::swap(c, e);
        }
        // New edges {a,c} and {b,e}: no self-loop, no repeat, not the same pair twice.
        if (a == c || b == e || PairKey(a, c) == PairKey(b, e) || count[PairKey(a, c)] > 0
            || count[PairKey(b, e)] > 0)
        {
            continue;
        }
        dec(a, b);
        dec(c, e);
        count[PairKey(a, c)]++;
        count[PairKey(b, e)]++;
        edges[i] = {a, c};
        edges[j] = {b, e};
        rep.swaps++;
    }
    RouterGraph g(n);
    for (const auto& [a, b] : edges)
    {
        g.AddEdge(a, b);
    }
    if (report)
    {
        *report = rep;
    }
    return g;
}

RngFabric::RngFabric(RouterGraph routers,
                     uint32_t serversPerRouter,
                     double serverRateBps,
                     double laneRateBps)
    : m_routers(std::move(routers)),
      m_s(serversPerRouter),
      m_serverRate(serverRateBps),
      m_laneRate(laneRateBps)
{
    if (m_s == 0)
    {
        throw std::invalid_argument("RngFabric: servers per router s=0 must be >= 1");
    }
    if (m_routers.GetN() == 0)
    {
        throw std::invalid_argument("RngFabric: the router graph is empty (n must be >= 1)");
    }
}

std::shared_ptr<FabricGraph>
RngFabric::Build() const
{
    auto g = std::make_shared<FabricGraph>();
    g->SetKind("rng");
    g->SetParameter("s", m_s);
    const uint32_t n = m_routers.GetN();
    for (uint32_t h = 0; h < n * m_s; ++h)
    {
        g->AddNode(FabricRole::HOST, "srv" + std::to_string(h), 0);
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        g->AddNode(FabricRole::SWITCH, "R" + std::to_string(r), 1);
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t j = 0; j < m_s; ++j)
        {
            g->Connect(r * m_s + j, RouterNode(r), m_serverRate);
        }
    }
    for (const auto& [a, b] : m_routers.GetEdges())
    {
        g->Connect(RouterNode(a), RouterNode(b), m_laneRate);
    }
    return g;
}

RngFabric
RngFabric::FromGraph(const FabricGraph& graph)
{
    if (graph.GetKind() != "rng")
    {
        throw std::invalid_argument("RngFabric::FromGraph: the graph was not built by RngFabric "
                                    "(kind '"
                                    + graph.GetKind() + "')");
    }
    const auto s = static_cast<uint32_t>(graph.GetParameter("s"));
    const uint32_t nServers = graph.GetNHosts();
    if (s == 0 || nServers % s != 0 || graph.GetNNodes() - nServers != nServers / s)
    {
        throw std::invalid_argument("RngFabric::FromGraph: servers, routers and s disagree");
    }
    RouterGraph routers(nServers / s);
    double serverRate = 0;
    double laneRate = 0;
    // Links were created servers first, then router edges in edge order: AddEdge in link
    // order gives back the same neighbour order (router port s + j = j-th neighbour).
    for (uint32_t l = 0; l < graph.GetNLinks(); ++l)
    {
        const FabricLink& link = graph.GetLink(l);
        if (graph.IsHost(link.node[0]) || graph.IsHost(link.node[1]))
        {
            serverRate = link.rateBps;
            continue;
        }
        routers.AddEdge(link.node[0] - nServers, link.node[1] - nServers);
        laneRate = link.rateBps;
    }
    return RngFabric(std::move(routers), s, serverRate, laneRate);
}

uint32_t
RngFabric::RouterLink(const FabricGraph& graph, uint32_t e) const
{
    if (e >= m_routers.GetNEdges())
    {
        throw std::invalid_argument("RngFabric::RouterLink: edge " + std::to_string(e)
                                    + " out of range [0, " + std::to_string(m_routers.GetNEdges())
                                    + ")");
    }
    const auto& [a, b] = m_routers.GetEdges()[e];
    const uint32_t na = RouterNode(a);
    const uint32_t nb = RouterNode(b);
    for (uint32_t p = 0; na < graph.GetNNodes() && p < graph.GetNPorts(na); ++p)
    {
        if (graph.GetPeer(na, p) == nb)
        {
            return graph.GetPortLink(na, p);
        }
    }
    throw std::invalid_argument("RngFabric::RouterLink: the graph has no link for edge "
                                + std::to_string(e));
}

} // namespace ns3
