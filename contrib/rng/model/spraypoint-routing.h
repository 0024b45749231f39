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
 * pointing choose only among ports the deciding router's view believes usable (a router whose
 * pointer died falls back to its other candidates, h > 1). A router with a view of its own
 * (FabricFailureDetector) recomputes its levels over the links it believes usable when its
 * link-state computation finishes (NotifyNodeConverged: after flooding + ComputeDelay), and
 * reports it with TableChange when its own rows changed (the blast radius). After a failure
 * lowers a router's degree, the recomputation uses p <= d_min - 1 and h <= d_min of the
 * surviving routers (the Spraypoint constraints), with the level count of the intact fabric.
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

    /**
     * Number of all-up tables computed by SetGraph in this process, that is, SetGraph calls
     * without SetTables that missed the cache of the last graph's tables (see DoSetGraph).
     */
    static uint64_t GetTableBuilds();

    /// Signature of the TableChange trace: (router node, destinations whose row changed).
    typedef void (*TableChangeTracedCallback)(uint32_t node, uint32_t destinations);

  protected:
    /// \throws std::invalid_argument unless the graph was built by RngFabric::Build
    void DoSetGraph() override;
    /// Recompute the router's levels over its view (link-state convergence at that router).
    void DoNodeConverged(uint32_t node) override;

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
    std::shared_ptr<const SpraypointTables> m_tables;
    uint64_t m_seed{0};

    /// Tables over a router graph without some edges, and how their candidate indices map
    /// back to the intact router's ports.
    struct Reduced
    {
        std::set<uint32_t> removed; //!< router edges left out
        std::shared_ptr<const SpraypointTables> tables;
        std::vector<std::vector<uint16_t>> fullIndex; //!< per router: reduced -> intact index
    };
    /// Candidate \p i of router \p r toward \p t as an index of the intact neighbours.
    uint16_t CandidateAt(const Reduced* red, uint32_t t, uint32_t r, uint32_t i) const
    {
        return red ? red->fullIndex[r][red->tables->Candidate(t, r, i)]
                   : m_tables->Candidate(t, r, i);
    }
    uint32_t NCandidatesAt(const Reduced* red, uint32_t t, uint32_t r) const
    {
        return red ? red->tables->NCandidates(t, r) : m_tables->NCandidates(t, r);
    }
    const Reduced* ReducedAt(uint32_t node) const
    {
        return m_reduced.empty() ? nullptr : m_reduced[node].get();
    }
    /// What a graph's wiring alone determines (shared by the routings of one wiring).
    struct Wired
    {
        uint32_t nServers{0};
        uint32_t s{1};
        RouterGraph routers;
        std::vector<uint32_t> degree;                   //!< fabric ports per router
        std::vector<uint32_t> edgeLink;                 //!< router edge -> FabricGraph link
        std::vector<std::vector<uint32_t>> routerEdges; //!< per router: edges, neighbour order
    };
    static std::shared_ptr<const Wired> BuildWired(const FabricGraph& graph);
    std::shared_ptr<const Wired> m_wired;
    static uint64_t s_tableBuilds;                         //!< see GetTableBuilds
    std::vector<std::shared_ptr<const Reduced>> m_reduced; //!< per node (empty: none)
    TracedCallback<uint32_t, uint32_t> m_tableChangeTrace;
};

/**
 * \ingroup rng
 * A SpraypointRouting with flow-hash seed \p seed over tables computed once elsewhere (shared
 * by several routings of one fabric), bound to \p graph.
 */
Ptr<SpraypointRouting> MakeSpraypointRouting(std::shared_ptr<const FabricGraph> graph,
                                             std::shared_ptr<const SpraypointTables> tables,
                                             uint64_t seed);

} // namespace ns3

#endif // SPRAYPOINT_ROUTING_H
