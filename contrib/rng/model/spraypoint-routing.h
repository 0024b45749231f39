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

} // namespace ns3

#endif // SPRAYPOINT_ROUTING_H
