// SPDX-License-Identifier: GPL-2.0-only
#ifndef SPRAYPOINT_TABLES_H
#define SPRAYPOINT_TABLES_H

#include "ns3/rng-topology.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup rng
 * Spraypoint parameters (RNG paper §5).
 */
struct SpraypointParams
{
    uint32_t p{2};   //!< waypoints chosen per node of the previous level, in [1, d-1]
    uint32_t h{2};   //!< candidate next hops per node, in [1, d]
    uint64_t key{0}; //!< the shared key every router hashes its selections with
    /// Number of waypoint levels; 0 = the paper's max(1, ceil(log_p(n / 2d^2))).
    uint32_t levels{0};
    /// A node already chosen into WP_l by an earlier node of WP_{l-1} is not eligible again,
    /// so each node adds p new waypoints when it has them (|WP_l| = p |WP_{l-1}| until the
    /// graph runs out). false: every node picks p of its eligible neighbours regardless, and
    /// common picks merge.
    bool distinctPicks{true};
    /// p and h are bounds per router: a router with fewer eligible neighbours (a degree
    /// lowered by failures) picks all it has, as the level rule already does when a level runs
    /// out of fresh neighbours. Only for recomputation over a degraded graph; false: p and h
    /// must fit the minimum degree (the paper's p in [1, d-1], h in [1, d]).
    bool perRouterBounds{false};
};

/**
 * \ingroup rng
 * The Spraypoint levels and pointing tables of a whole fabric. For each destination router t
 * the levels are computed once, from the graph and the shared key only (no router-specific
 * input), so every router would compute the same ones; the whole fabric costs O(n^2 d), not
 * O(n^3 d). Per (t, v): the pointing distance of v (hops to t along the pointing rules) and
 * up to h candidate next hops, as indices into Neighbours(v).
 *
 * Levels for t (§5): WP_0 = neighbours of t; WP_l = p neighbours of each node of WP_{l-1}
 * chosen by hashing (nodes of earlier levels and t not eligible); IR = neighbours of WP_L not
 * in earlier levels; OR = the rest, each at its BFS distance (through OR nodes) from IR.
 * Pointing distance: t 0, WP_l l+1, IR L+2, OR L+2+k. Pointing rule: a node's candidates are
 * its neighbours one pointing hop closer (WP_0 -> t, WP_l -> WP_{l-1}, IR -> WP_L, OR -> IR
 * or OR nodes closer to IR), h of them chosen by hashing the shared key. The pointing graph
 * strictly decreases the distance, so it is loop free.
 */
class SpraypointTables
{
  public:
    static constexpr uint8_t UNREACHABLE = 255;
    static constexpr uint16_t NONE = 0xFFFF;

    /**
     * Compute the tables of every destination.
     * \throws std::invalid_argument when the graph has a router of degree < 2, when p is not
     *         in [1, d-1] or h not in [1, d] (d = minimum degree; with perRouterBounds only
     *         p >= 1 and h >= 1 are required), or when d > 65534
     */
    SpraypointTables(const RouterGraph& graph, const SpraypointParams& params);

    /// max(1, ceil(log_p(n / (2 d^2)))), the paper's level count (p >= 2; p = 1 gives 1).
    static uint32_t PaperLevels(uint32_t n, uint32_t d, uint32_t p);

    /**
     * The rows a single router would compute on its own (its candidates toward every
     * destination), with the same per-destination procedure: for testing that routers agree.
     * \return per destination t, the candidate indices of \p router
     */
    static std::vector<std::vector<uint16_t>> ComputeRouterRows(const RouterGraph& graph,
                                                                const SpraypointParams& params,
                                                                uint32_t router);

    uint32_t GetN() const { return m_n; }
    uint32_t GetLevels() const { return m_levels; }
    const SpraypointParams& GetParams() const { return m_params; }

    /// Pointing distance of \p v toward \p t (0 for t itself, UNREACHABLE if cut off).
    uint8_t Distance(uint32_t t, uint32_t v) const { return m_dist[Idx(t, v)]; }
    /// Level name code of v for t: 0..L = WP_l, L+1 = IR, L+2 = OR, -1 = t, -2 = unreachable.
    int32_t Level(uint32_t t, uint32_t v) const;
    /// Number of candidate next hops of \p v toward \p t.
    uint32_t NCandidates(uint32_t t, uint32_t v) const;
    /// The i-th candidate of \p v toward \p t, as an index into Neighbours(v).
    uint16_t Candidate(uint32_t t, uint32_t v, uint32_t i) const
    {
        return m_cand[Idx(t, v) * m_params.h + i];
    }
    /// Sizes of WP_0..WP_L, IR, OR for destination \p t.
    std::vector<uint32_t> LevelSizes(uint32_t t) const;
    /// Bytes held by the tables.
    size_t MemoryBytes() const { return m_dist.size() + m_cand.size() * sizeof(uint16_t); }

  private:
    size_t Idx(uint32_t t, uint32_t v) const { return static_cast<size_t>(t) * m_n + v; }

    uint32_t m_n;
    uint32_t m_levels;
    SpraypointParams m_params;
    std::vector<uint8_t> m_dist;
    std::vector<uint16_t> m_cand;
};

} // namespace ns3

#endif // SPRAYPOINT_TABLES_H
