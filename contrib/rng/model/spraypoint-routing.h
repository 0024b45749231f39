// SPDX-License-Identifier: GPL-2.0-only
#ifndef SPRAYPOINT_ROUTING_H
#define SPRAYPOINT_ROUTING_H

#include "ns3/fabric-routing.h"
#include "ns3/ptr.h"
#include "ns3/rng-topology.h"
#include "ns3/spraypoint-tables.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup rng
 * Spraypoint forwarding (RNG paper §5) as a FabricRouting over an RngFabric's graph, with the
 * two VRFs selected by the arrival port:
 * - server-facing VRF (the packet came from a server, or the router originated it): spray to
 *   any fabric-facing port, one chosen by seeded flow hash over all d uplinks, whatever the
 *   destination, except that a destination server on this router is delivered directly;
 * - fabric-facing VRF: the pointing rules, flow-hash ECMP among the h candidates of
 *   SpraypointTables; a local destination server is delivered directly.
 * A packet sprayed to a neighbour that points back to the source revisits the source once and
 * leaves by the pointing VRF: pointing distances strictly decrease, so it never loops.
 *
 * ns3::SpraypointRouting binds to a graph built by RngFabric::Build. View: spraying and
 * pointing choose only among ports the view believes usable (a router whose pointer died falls
 * back to its other candidates, h > 1); the levels are not recomputed.
 */
class SpraypointRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    SpraypointRouting();

    /**
     * Use tables computed once elsewhere (shared by several routings of one fabric, e.g.
     * several seeds) instead of computing them in SetGraph from the P, H, Levels, Key and
     * DistinctPicks attributes. Call before SetGraph.
     */
    void SetTables(std::shared_ptr<const SpraypointTables> tables);

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "spraypoint"; }

    const SpraypointTables& GetTables() const { return *m_tables; }

  protected:
    /// \throws std::invalid_argument unless the graph was built by RngFabric::Build
    void DoSetGraph() override;

  private:
    /// Number of ports SelectPort picks from, and the i-th of them (view applied).
    template<typename F>
    uint32_t ForEachCandidate(uint32_t node, uint32_t inPort, uint32_t dstHost, F f) const;

    // Table parameters (SpraypointParams), used when no tables were given.
    uint32_t m_p{2};
    uint32_t m_h{2};
    uint32_t m_levels{0};
    uint64_t m_key{0};
    bool m_distinctPicks{true};
    uint32_t m_nServers{0};
    uint32_t m_s{1};
    std::vector<uint32_t> m_degree; //!< fabric ports per router
    std::shared_ptr<const SpraypointTables> m_tables;
    uint64_t m_seed{0};
};

/**
 * \ingroup rng
 * A SpraypointRouting with flow-hash seed \p seed over tables computed once elsewhere (shared
 * by several routings of one fabric), bound to \p graph.
 */
Ptr<SpraypointRouting> MakeSpraypointRouting(std::shared_ptr<const FabricGraph> graph,
                                             std::shared_ptr<const SpraypointTables> tables,
                                             uint64_t seed);

/**
 * \ingroup rng
 * k-shortest-paths routing on an RngFabric: for every ordered router pair, up to k shortest
 * simple paths (Yen's algorithm, each spur path a Boost.Graph BFS on the graph with the
 * root's nodes and used edges filtered out). The source router picks one by seeded flow hash
 * of the 5-tuple; every router on it forwards along it, so the choice is a pure function of
 * the flow key (the source is read from the source address). A local destination is
 * delivered directly.
 */
class KspRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    KspRouting();

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "ksp"; }

    /// The paths (router sequences) from router \p a to router \p b.
    const std::vector<std::vector<uint32_t>>& GetPaths(uint32_t a, uint32_t b) const
    {
        return m_paths[static_cast<size_t>(a) * m_n + b];
    }

    /// Up to k shortest simple paths from \p a to \p b in \p g (Yen; BFS spur paths).
    static std::vector<std::vector<uint32_t>> ShortestPaths(const RouterGraph& g,
                                                            uint32_t a,
                                                            uint32_t b,
                                                            uint32_t k);

  protected:
    /// \throws std::invalid_argument unless the graph was built by RngFabric::Build
    void DoSetGraph() override;

  private:
    /// Whether the view believes every hop of \p path usable.
    bool PathUp(const std::vector<uint32_t>& path) const;
    /// The path a flow from router \p a to router \p b takes (null if none).
    const std::vector<uint32_t>* ChoosePath(uint32_t a, uint32_t b, const FlowKey& key) const;
    /// Router port toward neighbour router \p next of router \p r.
    uint32_t PortTo(uint32_t r, uint32_t next) const;

    uint32_t m_k{4};
    uint32_t m_n{0};
    uint32_t m_nServers{0};
    uint32_t m_s{1};
    std::vector<std::vector<uint32_t>> m_adj;
    std::vector<std::vector<std::vector<uint32_t>>> m_paths;
    uint64_t m_seed{0};
};

/**
 * \ingroup rng
 * A routing function as it behaves right after a failure, before the control plane
 * reconverges: the inner routing's choice, but a packet whose chosen egress link has failed,
 * or that would be sent to a failed node, is dropped (NO_PORT: reason "no-route" in the
 * packet-level run).
 */
class FailureMaskRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    /// \param inner a routing bound to a graph; its graph becomes this routing's graph
    FailureMaskRouting(Ptr<FabricRouting> inner,
                       std::set<uint32_t> failedLinks,
                       std::set<uint32_t> failedNodes);

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return m_inner->GetName() + "+failed"; }

  protected:
    void DoSetGraph() override;
    void DoDispose() override;

  private:
    bool Masked(uint32_t node, uint32_t port) const;

    Ptr<FabricRouting> m_inner;
    std::set<uint32_t> m_links;
    std::set<uint32_t> m_nodes;
};

} // namespace ns3

#endif // SPRAYPOINT_ROUTING_H
