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

uint64_t SpraypointRouting::s_tableBuilds = 0;

uint64_t
SpraypointRouting::GetTableBuilds()
{
    return s_tableBuilds;
}

std::shared_ptr<const SpraypointRouting::Wired>
SpraypointRouting::BuildWired(const FabricGraph& graph)
{
    const RngFabric fabric = RngFabric::FromGraph(graph);
    auto w = std::make_shared<Wired>();
    w->nServers = fabric.GetNServers();
    w->s = fabric.GetServersPerRouter();
    w->routers = fabric.GetRouters();
    const RouterGraph& routers = w->routers;
    for (uint32_t r = 0; r < routers.GetN(); ++r)
    {
        w->degree.push_back(routers.GetDegree(r));
    }
    w->routerEdges.assign(routers.GetN(), {});
    for (uint32_t e = 0; e < routers.GetNEdges(); ++e)
    {
        w->edgeLink.push_back(fabric.RouterLink(graph, e));
        // RouterGraph::AddEdge appends to both ends in edge order: Neighbours(v)[i] is the
        // i-th edge touching v.
        w->routerEdges[routers.GetEdges()[e].first].push_back(e);
        w->routerEdges[routers.GetEdges()[e].second].push_back(e);
    }
    return w;
}

void
SpraypointRouting::DoSetGraph()
{
    // What SetGraph derives depends on the graph's wiring (and the tables also on P, H,
    // Levels, Key and DistinctPicks), never on the state or the other attributes, and a
    // comparison or a benchmark builds many routing objects over one graph: as EcmpRouting's
    // all-up tables, the last graph's are reused when its wiring is the same entry by entry
    // (kind, s, nodes, hosts, ports per node, both ends of every link), the tables only when
    // those five attributes are the same too. Tables computed after failures (DoNodeConverged)
    // are per object and never cached. Kept only while the tables hold at most 8 MiB, and
    // dropped before building another graph's. Process-global and not thread-safe (ns-3
    // objects are not either): build routing objects from one thread.
    static std::vector<uint32_t> s_wiring;
    static std::shared_ptr<const Wired> s_wired;
    static SpraypointParams s_params;
    static std::shared_ptr<const SpraypointTables> s_tables;
    const FabricGraph& g = *m_graph;
    if (g.GetKind() != "rng")
    {
        RngFabric::FromGraph(g); // throws, naming the kind
    }
    std::vector<uint32_t> wiring{
        static_cast<uint32_t>(g.GetParameter("s")), g.GetNNodes(), g.GetNHosts(), g.GetNLinks()};
    wiring.reserve(4 + g.GetNNodes() + 4 * size_t(g.GetNLinks()));
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        wiring.push_back(g.GetNPorts(v));
    }
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        wiring.insert(wiring.end(), {link.node[0], link.port[0], link.node[1], link.port[1]});
    }
    SpraypointParams params;
    params.p = m_p;
    params.h = m_h;
    params.levels = m_levels;
    params.key = m_key;
    params.distinctPicks = m_distinctPicks;
    const bool sameWiring = s_wired && wiring == s_wiring;
    if (sameWiring)
    {
        m_wired = s_wired;
    }
    else
    {
        m_wired = BuildWired(g);
        s_tables.reset();
        s_wired.reset();
        s_wiring.clear();
    }
    if (!m_tables)
    {
        if (s_tables && s_params.p == params.p && s_params.h == params.h
            && s_params.levels == params.levels && s_params.key == params.key
            && s_params.distinctPicks == params.distinctPicks)
        {
            NS_LOG_LOGIC("tables reused: the same wiring and parameters as the last graph's");
            m_tables = s_tables;
        }
        else
        {
            m_tables = std::make_shared<SpraypointTables>(m_wired->routers, params);
            ++s_tableBuilds;
            NS_LOG_LOGIC("tables built (" << s_tableBuilds << " builds in this process)");
            if (m_tables->MemoryBytes() <= (size_t(1) << 23))
            {
                s_tables = m_tables;
                s_params = params;
            }
        }
    }
    if (!sameWiring)
    {
        s_wiring = std::move(wiring);
        s_wired = m_wired;
    }
    m_nServers = m_wired->nServers;
    m_s = m_wired->s;
    if (m_tables->GetN() != m_wired->routers.GetN())
    {
        throw std::invalid_argument("SpraypointRouting: tables, fabric and graph disagree");
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
    for (uint32_t e = 0; e < m_wired->edgeLink.size(); ++e)
    {
        if (!v.IsDirLinkUsable(2 * m_wired->edgeLink[e])
            || !v.IsDirLinkUsable(2 * m_wired->edgeLink[e] + 1))
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
            const RouterGraph g = m_wired->routers.WithoutEdges(removed);
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
                for (uint32_t i = 0; i < m_wired->routerEdges[r].size(); ++i)
                {
                    if (!removed.count(m_wired->routerEdges[r][i]))
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
    for (uint32_t t = 0; t < m_wired->routers.GetN(); ++t)
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
            m_wired->degree[r],
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
            for (uint32_t i = 0; i < m_wired->degree[r]; ++i)
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
