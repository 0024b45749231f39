// SPDX-License-Identifier: GPL-2.0-only
#include "spraypoint-routing.h"

#include "ns3/boolean.h"
#include "ns3/fabric-addressing.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

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
                            MakeUintegerChecker<uint64_t>())
              .AddTraceSource("TableChange",
                              "A router recomputed its levels over its view and its own rows "
                              "changed: (router node, destinations whose row changed).",
                              MakeTraceSourceAccessor(&SpraypointRouting::m_tableChangeTrace),
                              "ns3::SpraypointRouting::TableChangeTracedCallback");
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
    m_routers = fabric.GetRouters();
    m_edgeLink.clear();
    m_routerEdges.assign(m_routers.GetN(), {});
    for (uint32_t e = 0; e < m_routers.GetNEdges(); ++e)
    {
        m_edgeLink.push_back(fabric.RouterLink(*m_graph, e));
        // RouterGraph::AddEdge appends to both ends in edge order: Neighbours(v)[i] is the
        // i-th edge touching v.
        m_routerEdges[m_routers.GetEdges()[e].first].push_back(e);
        m_routerEdges[m_routers.GetEdges()[e].second].push_back(e);
    }
}

void
SpraypointRouting::DoNodeConverged(uint32_t node)
{
    if (node < m_nServers || m_nodeViews.empty() || !m_nodeViews[node])
    {
        return;
    }
    if (m_reduced.empty())
    {
        m_reduced.resize(m_graph->GetNNodes());
    }
    const FabricState& v = ViewAt(node);
    std::set<uint32_t> removed;
    for (uint32_t e = 0; e < m_edgeLink.size(); ++e)
    {
        if (!v.IsDirLinkUsable(2 * m_edgeLink[e]) || !v.IsDirLinkUsable(2 * m_edgeLink[e] + 1))
        {
            removed.insert(e);
        }
    }
    std::shared_ptr<const Reduced> next;
    if (!removed.empty())
    {
        for (const auto& other : m_reduced)
        {
            if (other && other->removed == removed)
            {
                next = other; // the same belief: the same tables
                break;
            }
        }
        if (!next)
        {
            auto red = std::make_shared<Reduced>();
            red->removed = removed;
            const RouterGraph g = m_routers.WithoutEdges(removed);
            // p and h stay those of the fabric, as bounds per router: only a router whose
            // degree fell below them picks fewer (all it has), so a failure changes the rows
            // its levels actually touch, not every router's. The level count stays that of
            // the intact fabric.
            SpraypointParams prm = m_tables->GetParams();
            prm.perRouterBounds = true;
            prm.levels = m_tables->GetLevels();
            red->tables = std::make_shared<SpraypointTables>(g, prm);
            red->fullIndex.resize(g.GetN());
            for (uint32_t r = 0; r < g.GetN(); ++r)
            {
                for (uint32_t i = 0; i < m_routerEdges[r].size(); ++i)
                {
                    if (!removed.count(m_routerEdges[r][i]))
                    {
                        red->fullIndex[r].push_back(static_cast<uint16_t>(i));
                    }
                }
            }
            next = red;
        }
    }
    // Blast radius: did this router's own rows change?
    const uint32_t r = node - m_nServers;
    const Reduced* before = m_reduced[node].get();
    uint32_t changed = 0;
    for (uint32_t t = 0; t < m_routers.GetN(); ++t)
    {
        const uint32_t nb = NCandidatesAt(before, t, r);
        const uint32_t na = NCandidatesAt(next.get(), t, r);
        bool differ = nb != na;
        for (uint32_t i = 0; i < std::min(na, nb) && !differ; ++i)
        {
            differ = CandidateAt(before, t, r, i) != CandidateAt(next.get(), t, r, i);
        }
        changed += differ ? 1 : 0;
    }
    m_reduced[node] = next;
    if (changed > 0)
    {
        NS_LOG_INFO("router node " << node << " recomputed its levels: " << changed
                                   << " destinations changed");
        m_tableChangeTrace(node, changed);
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
    // Fabric-facing VRF: pointing rules (the router's recomputed levels if it has any).
    const Reduced* red = ReducedAt(node);
    const uint32_t k = NCandidatesAt(red, t, r);
    return PickUsable(
        node,
        k,
        [this, s, red, t, r](uint32_t i) { return s + CandidateAt(red, t, r, i); },
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
            const Reduced* red = ReducedAt(node);
            for (uint32_t i = 0; i < NCandidatesAt(red, t, r); ++i)
            {
                ports.push_back(m_s + CandidateAt(red, t, r, i));
            }
        }
    }
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [this, node](uint32_t p) { return !IsPortUp(node, p); }),
                ports.end());
    return ports;
}

} // namespace ns3
