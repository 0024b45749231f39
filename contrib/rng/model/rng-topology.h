// SPDX-License-Identifier: GPL-2.0-only
#ifndef RNG_TOPOLOGY_H
#define RNG_TOPOLOGY_H

#include "ns3/fabric-graph.h"

#include <cstdint>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rng
 * An undirected router graph (the RNG mesh), kept as an edge list and adjacency lists in
 * edge order: the j-th neighbour of router v is Neighbours(v)[j], and in a fabric built by
 * RngFabric it sits behind router port s + j (s = servers per router).
 */
class RouterGraph
{
  public:
    /// \param n number of routers
    explicit RouterGraph(uint32_t n = 0);

    /**
     * Add the undirected edge (a, b).
     * \throws std::invalid_argument on a router out of range or a self-loop
     */
    void AddEdge(uint32_t a, uint32_t b);

    uint32_t GetN() const { return static_cast<uint32_t>(m_adj.size()); }
    uint32_t GetNEdges() const { return static_cast<uint32_t>(m_edges.size()); }
    const std::vector<uint32_t>& Neighbours(uint32_t v) const { return m_adj[v]; }
    uint32_t GetDegree(uint32_t v) const { return static_cast<uint32_t>(m_adj[v].size()); }
    const std::vector<std::pair<uint32_t, uint32_t>>& GetEdges() const { return m_edges; }
    /// Whether some pair of routers is joined by more than one edge.
    bool HasMultiEdges() const;
    /// Whether every router has degree \p d.
    bool IsRegular(uint32_t d) const;

    /// The same routers without the edges whose indices are in \p edges.
    RouterGraph WithoutEdges(const std::set<uint32_t>& edges) const;
    /// The same routers without any edge of router \p v (v stays, isolated).
    RouterGraph WithoutRouter(uint32_t v) const;

  private:
    std::vector<std::vector<uint32_t>> m_adj;
    std::vector<std::pair<uint32_t, uint32_t>> m_edges;
};

/**
 * \ingroup rng
 * What the random regular generator had to repair.
 */
struct RandomRegularReport
{
    uint32_t selfLoops{0};  //!< self-loops drawn by the pairing model
    uint32_t multiEdges{0}; //!< surplus copies of repeated edges drawn by the pairing model
    uint64_t swaps{0};      //!< double-edge swaps applied to repair them
    uint64_t attempts{0};   //!< swaps tried (rejected ones included)
};

/**
 * \ingroup rng
 * A seeded random d-regular simple graph on n routers: the pairing (configuration) model
 * with FabricRng, then every self-loop and repeated edge is repaired by a random double-edge
 * swap {a,b},{c,e} -> {a,c},{b,e} that creates neither (degrees are unchanged). Same seed,
 * same graph on every platform.
 * \param n routers, >= 3
 * \param d degree, in [1, n-1], with n*d even
 * \param report if not null, receives what was repaired
 * \throws std::invalid_argument naming the parameter and its valid range
 */
RouterGraph MakeRandomRegularGraph(uint32_t n,
                                   uint32_t d,
                                   uint64_t seed,
                                   RandomRegularReport* report = nullptr);

/**
 * \ingroup rng
 * An RNG fabric: routers of a RouterGraph, each with s servers. FabricGraph layout: servers
 * first (server h on router h / s is node h), then routers (router r is node n*s + r).
 * Router port j < s faces server r*s + j (server-facing); port s + j is the router's j-th
 * uplink lane, to Neighbours(r)[j] (fabric-facing). Servers have one port.
 */
class RngFabric
{
  public:
    /**
     * \param routers the mesh
     * \param serversPerRouter s >= 1
     * \param serverRateBps rate of server links (0: the network helper's default)
     * \param laneRateBps rate of router uplink lanes (0: the network helper's default)
     * \throws std::invalid_argument on s == 0 or an empty mesh
     */
    RngFabric(RouterGraph routers,
              uint32_t serversPerRouter,
              double serverRateBps = 0,
              double laneRateBps = 0);

    const RouterGraph& GetRouters() const { return m_routers; }
    uint32_t GetNRouters() const { return m_routers.GetN(); }
    uint32_t GetServersPerRouter() const { return m_s; }
    uint32_t GetNServers() const { return m_routers.GetN() * m_s; }
    uint32_t RouterOf(uint32_t server) const { return server / m_s; }
    uint32_t RouterNode(uint32_t router) const { return GetNServers() + router; }
    /// Whether \p port of a router faces a server.
    bool IsServerPort(uint32_t port) const { return port < m_s; }

    /**
     * The FabricGraph link of router edge \p e (GetRouters().GetEdges()[e]) in \p graph, found
     * by a graph query (the port of one end router whose peer is the other).
     * \throws std::invalid_argument if \p e is out of range or the graph has no such link
     */
    uint32_t RouterLink(const FabricGraph& graph, uint32_t e) const;

    /// Build the FabricGraph (see the class comment for the layout).
    std::shared_ptr<FabricGraph> Build() const;

    /**
     * The RngFabric that built \p graph (kind "rng"): routers, their edges in port order and
     * s, read back from the graph, so routing created by TypeId can bind to the graph alone.
     * \throws std::invalid_argument if the graph was not built by RngFabric::Build
     */
    static RngFabric FromGraph(const FabricGraph& graph);

  private:
    RouterGraph m_routers;
    uint32_t m_s;
    double m_serverRate;
    double m_laneRate;
};

} // namespace ns3

#endif // RNG_TOPOLOGY_H
