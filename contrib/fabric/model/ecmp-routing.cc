// SPDX-License-Identifier: GPL-2.0-only
#include "ecmp-routing.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <limits>
#include <map>

namespace ns3
{

namespace
{
constexpr uint32_t UNREACHABLE = std::numeric_limits<uint32_t>::max();
}

NS_LOG_COMPONENT_DEFINE("EcmpRouting");
NS_OBJECT_ENSURE_REGISTERED(EcmpRouting);

TypeId
EcmpRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::EcmpRouting")
              .SetParent<FabricRouting>()
              .SetGroupName("Fabric")
              .AddConstructor<EcmpRouting>()
              .AddAttribute("Seed",
                            "Flow-hash seed; changing it re-draws every choice (a rehash).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&EcmpRouting::m_seed),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("MixSwitchId",
                            "Whether each node mixes its id into the hash seed (no polarization "
                            "between consecutive stages).",
                            BooleanValue(true),
                            MakeBooleanAccessor(&EcmpRouting::m_mixSwitchId),
                            MakeBooleanChecker())
              .AddAttribute("HostHashesPorts",
                            "Whether a multi-NIC host hashes the whole 5-tuple to choose its NIC "
                            "(false: the addresses only, so all flows of a host pair share one "
                            "NIC).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&EcmpRouting::m_hostHashesPorts),
                            MakeBooleanChecker());
    return tid;
}

uint64_t EcmpRouting::s_tableBuilds = 0;

EcmpRouting::EcmpRouting()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
EcmpRouting::GetTableBuilds()
{
    return s_tableBuilds;
}

void
EcmpRouting::DoSetGraph()
{
    // The all-up tables depend on the graph's wiring only (never on attributes or state), and
    // a comparison or a benchmark builds many routing objects over one graph: the tables of
    // the last graph are reused when its wiring is the same, entry by entry (nodes, hosts,
    // ports per node, both ends of every link). Kept only for graphs of at most 2^20
    // node-host pairs whose tables hold at most 8 MiB, and dropped before
    // building another graph's: at most 8 MiB outlive their routing objects. The cache is
    // process-global and not thread-safe (ns-3 objects are not either): build routing objects
    // from one thread. Each build (a miss) is counted in s_tableBuilds (GetTableBuilds).
    static std::vector<uint32_t> s_wiring;
    static std::shared_ptr<const Tables> s_tables;
    const FabricGraph& g = *m_graph;
    std::vector<uint32_t> wiring{g.GetNNodes(), g.GetNHosts(), g.GetNLinks()};
    const bool small = uint64_t(g.GetNNodes()) * g.GetNHosts() <= (1u << 20);
    if (small)
    {
        wiring.reserve(3 + g.GetNNodes() + 4 * size_t(g.GetNLinks()));
        for (uint32_t v = 0; v < g.GetNNodes(); ++v)
        {
            wiring.push_back(g.GetNPorts(v));
        }
        for (uint32_t l = 0; l < g.GetNLinks(); ++l)
        {
            const FabricLink& link = g.GetLink(l);
            wiring.insert(wiring.end(), {link.node[0], link.port[0], link.node[1], link.port[1]});
        }
        if (s_tables && wiring == s_wiring)
        {
            NS_LOG_LOGIC("all-up tables reused: the same wiring as the last graph's");
            m_baseTables = s_tables;
            m_tables = m_baseTables;
            return;
        }
    }
    s_tables.reset();
    s_wiring.clear();
    m_baseTables = BuildTables(g, FabricState(m_graph));
    ++s_tableBuilds;
    NS_LOG_LOGIC("all-up tables built (" << s_tableBuilds << " builds in this process)");
    m_tables = m_baseTables;
    const Tables& t = *m_baseTables;
    if (small && t.Bytes() <= (size_t(1) << 23))
    {
        s_wiring = std::move(wiring);
        s_tables = m_baseTables;
    }
}

void
EcmpRouting::DoViewChanged(const FabricStateChange& /*change*/)
{
    // Reconverged routing: shortest paths over what the view believes usable.
    m_tables = (m_view->GetNDirLinksDown() == 0 && m_view->GetNNodesDown() == 0)
                 ? m_baseTables
                 : BuildTables(*m_graph, *m_view);
}

void
EcmpRouting::DoNodeViewChanged(uint32_t node, const FabricStateChange& change)
{
    if (m_nodeTables.empty())
    {
        m_nodeTables.resize(m_graph->GetNNodes());
        m_nodeTableViews.resize(m_graph->GetNNodes());
    }
    // A single change: the node drops dead members from its groups at once (SelectPort
    // filters by its view) and recomputes its groups at convergence. A whole view (SetNodeView)
    // is taken as converged.
    if (change.id == UINT32_MAX)
    {
        DoNodeConverged(node);
    }
}

void
EcmpRouting::DoNodeConverged(uint32_t node)
{
    if (m_nodeTables.empty())
    {
        m_nodeTables.resize(m_graph->GetNNodes());
        m_nodeTableViews.resize(m_graph->GetNNodes());
    }
    if (m_nodeViews.empty() || m_nodeViews[node] == nullptr)
    {
        m_nodeTables[node] = nullptr; // the scheme's view decides
        m_nodeTableViews[node] = nullptr;
        return;
    }
    const FabricState& v = ViewAt(node);
    // The node's equal-cost sets are those of shortest paths over what it believes usable.
    // Nodes sharing the same belief share one table (a failure learnt by many nodes at once
    // costs one rebuild per distinct belief, not per node).
    if (v.GetNDirLinksDown() == 0 && v.GetNNodesDown() == 0)
    {
        m_nodeTables[node] = m_baseTables;
        m_nodeTableViews[node] = nullptr;
        return;
    }
    for (uint32_t u = 0; u < m_nodeTables.size(); ++u)
    {
        if (u != node && m_nodeTables[u] && m_nodeTables[u] != m_baseTables && m_nodeViews[u]
            && m_nodeTableViews[u] && m_nodeTableViews[u]->SameUsable(v))
        {
            m_nodeTables[node] = m_nodeTables[u];
            m_nodeTableViews[node] = m_nodeTableViews[u];
            return;
        }
    }
    NS_LOG_INFO("node " << node << " recomputes its equal-cost sets (" << v.GetNDirLinksDown()
                        << " directed links, " << v.GetNNodesDown() << " nodes down)");
    m_nodeTables[node] = BuildTables(*m_graph, v);
    auto snapshot = std::make_shared<FabricState>(m_graph);
    snapshot->CopyFrom(v);
    m_nodeTableViews[node] = snapshot;
}

Ptr<EcmpRouting>
EcmpRouting::Reseeded(uint64_t seed) const
{
    auto copy = CreateObject<EcmpRouting>();
    copy->m_seed = seed;
    copy->m_mixSwitchId = m_mixSwitchId;
    copy->m_hostHashesPorts = m_hostHashesPorts;
    copy->m_graph = m_graph;
    copy->m_tables = m_tables;
    copy->m_baseTables = m_baseTables;
    copy->SetView(m_view);
    return copy;
}

std::shared_ptr<const EcmpRouting::Tables>
EcmpRouting::BuildTables(const FabricGraph& g, const FabricState& view)
{
    auto tab = std::make_shared<Tables>();
    const uint32_t nNodes = g.GetNNodes();
    const uint32_t nHosts = g.GetNHosts();
    tab->nHosts = nHosts;
    auto dist = [&tab](uint32_t node, uint32_t host)
    {
        return tab->dist[static_cast<size_t>(node) * tab->nHosts + host];
    };
    const uint32_t nSw = nNodes - nHosts;

    // Switch-only graph: hosts never transit, so distances between switches ignore them.
    using SwGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    SwGraph sw(nSw);
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        if (!g.IsHost(link.node[0]) && !g.IsHost(link.node[1]) && view.IsDirLinkUsable(2 * l)
            && view.IsDirLinkUsable(2 * l + 1))
        {
            boost::add_edge(link.node[0] - nHosts, link.node[1] - nHosts, sw);
        }
    }
    std::vector<std::vector<uint32_t>> swDist(nSw, std::vector<uint32_t>(nSw, UNREACHABLE));
    for (uint32_t s = 0; s < nSw; ++s)
    {
        auto& d = swDist[s]; // record_distances writes reached vertices only
        d[s] = 0;
        boost::breadth_first_search(sw,
                                    boost::vertex(s, sw),
                                    boost::visitor(boost::make_bfs_visitor(
                                        boost::record_distances(d.data(), boost::on_tree_edge()))));
    }

    // Distance from every node to every host.
    tab->dist.assign(static_cast<size_t>(nNodes) * nHosts, UNREACHABLE);
    for (uint32_t t = 0; t < nHosts; ++t)
    {
        tab->dist[static_cast<size_t>(t) * nHosts + t] = 0;
        for (uint32_t p = 0; p < g.GetNPorts(t); ++p)
        {
            const uint32_t a = g.GetPeer(t, p);
            if (g.IsHost(a) || !view.IsPortUsable(a, g.GetPeerPort(t, p)))
            {
                continue;
            }
            for (uint32_t s = 0; s < nSw; ++s)
            {
                const uint32_t d = swDist[a - nHosts][s];
                if (d != UNREACHABLE)
                {
                    auto& cur = tab->dist[static_cast<size_t>(s + nHosts) * nHosts + t];
                    cur = std::min(cur, d + 1);
                }
            }
        }
    }
    // Every port's peer and usability, read from the graph and the view once: the loops below
    // visit each port once per destination host.
    std::vector<uint32_t> portStart(nNodes + 1, 0);
    for (uint32_t v = 0; v < nNodes; ++v)
    {
        portStart[v + 1] = portStart[v] + g.GetNPorts(v);
    }
    std::vector<uint32_t> peerOf(portStart.back());
    std::vector<uint8_t> usableOf(portStart.back());
    for (uint32_t v = 0; v < nNodes; ++v)
    {
        for (uint32_t p = 0; p < portStart[v + 1] - portStart[v]; ++p)
        {
            peerOf[portStart[v] + p] = g.GetPeer(v, p);
            usableOf[portStart[v] + p] = view.IsPortUsable(v, p) ? 1 : 0;
        }
    }
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        for (uint32_t t = 0; t < nHosts; ++t)
        {
            if (h == t)
            {
                continue;
            }
            uint32_t best = UNREACHABLE;
            for (uint32_t p = 0; p < portStart[h + 1] - portStart[h]; ++p)
            {
                if (!usableOf[portStart[h] + p])
                {
                    continue;
                }
                const uint32_t a = peerOf[portStart[h] + p];
                const uint32_t d = (a == t) ? 0 : (a < nHosts ? UNREACHABLE : dist(a, t));
                if (d != UNREACHABLE)
                {
                    best = std::min(best, d + 1);
                }
            }
            tab->dist[static_cast<size_t>(h) * nHosts + t] = best;
        }
    }

    // Equal-cost egress ports: the peer is the destination, or a switch one hop closer. Each
    // distinct set is stored once (set 0: the empty one); an entry is its set's number.
    const size_t nEntries = static_cast<size_t>(nNodes) * nHosts;
    std::vector<uint32_t> setOf(nEntries, 0);
    std::map<std::vector<uint32_t>, uint32_t> setNumber;
    tab->setOffset.assign(1, 0);
    tab->setOffset.push_back(0); // set 0: empty
    std::vector<uint32_t> set;
    for (uint32_t v = 0; v < nNodes; ++v)
    {
        for (uint32_t t = 0; t < nHosts; ++t)
        {
            const size_t idx = static_cast<size_t>(v) * nHosts + t;
            const uint32_t dv = tab->dist[idx];
            if (v == t || dv == UNREACHABLE)
            {
                continue;
            }
            set.clear();
            for (uint32_t p = 0; p < portStart[v + 1] - portStart[v]; ++p)
            {
                if (!usableOf[portStart[v] + p])
                {
                    continue;
                }
                const uint32_t a = peerOf[portStart[v] + p];
                const bool closer = (a == t) || (a >= nHosts && dist(a, t) + 1 == dv);
                if (closer)
                {
                    set.push_back(p);
                }
            }
            if (set.empty())
            {
                continue;
            }
            auto it = setNumber.find(set);
            if (it == setNumber.end())
            {
                it = setNumber.emplace(set, static_cast<uint32_t>(tab->setOffset.size() - 1)).first;
                tab->setPorts.insert(tab->setPorts.end(), set.begin(), set.end());
                tab->setOffset.push_back(static_cast<uint32_t>(tab->setPorts.size()));
            }
            setOf[idx] = it->second;
        }
    }
    const size_t nSets = tab->setOffset.size() - 1;
    tab->indexBytes = nSets <= 0x100 ? 1 : (nSets <= 0x10000 ? 2 : 4);
    tab->setIndex.resize(nEntries * tab->indexBytes);
    for (size_t idx = 0; idx < nEntries; ++idx)
    {
        for (uint8_t b = 0; b < tab->indexBytes; ++b)
        {
            tab->setIndex[idx * tab->indexBytes + b] = static_cast<uint8_t>(setOf[idx] >> (8 * b));
        }
    }
    NS_LOG_LOGIC(nSets << " distinct equal-cost sets, " << int(tab->indexBytes)
                       << " bytes per entry");
    return tab;
}

uint32_t
EcmpRouting::GetDistance(uint32_t node, uint32_t dstHost) const
{
    const Tables& t = TablesAt(node);
    return t.dist[static_cast<size_t>(node) * t.nHosts + dstHost];
}

std::vector<uint32_t>
EcmpRouting::GetCandidates(uint32_t node, uint32_t dstHost) const
{
    const Tables& t = TablesAt(node);
    const PortSet set = t.At(static_cast<size_t>(node) * t.nHosts + dstHost);
    return std::vector<uint32_t>(set.ports, set.ports + set.n);
}

std::vector<uint32_t>
EcmpRouting::Candidates(uint32_t node, uint32_t /*inPort*/, uint32_t dstHost) const
{
    return GetCandidates(node, dstHost);
}

uint64_t
EcmpRouting::NodeSeed(uint32_t node) const
{
    return m_mixSwitchId ? m_seed ^ FabricMix64(static_cast<uint64_t>(node) + 1) : m_seed;
}

uint32_t
EcmpRouting::SelectPort(uint32_t node,
                        uint32_t /*inPort*/,
                        uint32_t dstHost,
                        const FlowKey& key) const
{
    const Tables& t = TablesAt(node);
    const size_t idx = static_cast<size_t>(node) * t.nHosts + dstHost;
    const PortSet set = t.At(idx);
    const uint32_t n = set.n;
    if (n == 0)
    {
        return NO_PORT;
    }
    if (n == 1)
    {
        const uint32_t only = set.ports[0];
        return (!HasNodeViews() || IsPortUp(node, only)) ? only : NO_PORT;
    }
    const FlowKey k = (m_graph->IsHost(node) && !m_hostHashesPorts) ? key.WithoutPorts() : key;
    const uint64_t h = FlowHash(k, NodeSeed(node));
    // The flow's all-up choice; it stands while it is in the node's set and the node believes
    // its port usable.
    uint32_t port = NO_PORT;
    if (&t == m_baseTables.get())
    {
        port = set.ports[HashToIndex(h, n)];
    }
    else
    {
        const PortSet base = m_baseTables->At(idx);
        if (base.n > 0)
        {
            const uint32_t had = base.ports[base.n == 1 ? 0 : HashToIndex(h, base.n)];
            for (uint32_t i = 0; i < n && port == NO_PORT; ++i)
            {
                port = set.ports[i] == had ? had : NO_PORT;
            }
        }
    }
    if (port != NO_PORT && (!HasNodeViews() || IsPortUp(node, port)))
    {
        return port;
    }
    // Displaced (its all-up port left the set, or the node believes it dead and has not
    // recomputed its groups yet: local fast failover). One rule for both, the highest random
    // weight over the members the node believes usable: the fast failover's choice is the
    // one the recomputed group keeps (a set that lost exactly those members), and a later
    // failure of another member moves no displaced flow again (resilient, as switches with
    // resilient ECMP groups are).
    uint32_t best = NO_PORT;
    uint64_t bestWeight = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t p = set.ports[i];
        if (HasNodeViews() && !IsPortUp(node, p))
        {
            continue;
        }
        const uint64_t w = FabricMix64(h ^ FabricMix64(uint64_t(p) + 1));
        if (best == NO_PORT || w > bestWeight || (w == bestWeight && p < best))
        {
            best = p;
            bestWeight = w;
        }
    }
    return best;
}

} // namespace ns3
