// SPDX-License-Identifier: GPL-2.0-only
#include "spraypoint-tables.h"

#include "ns3/flow-key.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

constexpr uint8_t UNSET = SpraypointTables::UNREACHABLE;

/// Rendezvous score of choosing \p w by \p v (for destination t, selection kind \p tag):
/// the lowest scores win, so the choice depends only on the shared key and the names.
inline uint64_t
Score(uint64_t tkey, uint32_t v, uint32_t w, uint64_t tag)
{
    return FabricMix64(tkey ^ FabricMix64((static_cast<uint64_t>(v) << 32 | w) ^ tag));
}

/// Scratch space and the per-destination procedure shared by the fabric-wide computation
/// and the single-router one.
class LevelBuilder
{
  public:
    LevelBuilder(const RouterGraph& g, const SpraypointParams& prm, uint32_t levels)
        : m_g(g),
          m_prm(prm),
          m_levels(levels),
          m_dist(g.GetN(), UNSET)
    {
    }

    /// Fill the pointing distance of every node toward t.
    const std::vector<uint8_t>& Compute(uint32_t t)
    {
        const uint32_t n = m_g.GetN();
        std::fill(m_dist.begin(), m_dist.end(), UNSET);
        m_tkey = FabricMix64(m_prm.key ^ (0x9E3779B97F4A7C15ULL * (uint64_t(t) + 1)));
        m_dist[t] = 0;
        m_cur.clear();
        for (uint32_t w : m_g.Neighbours(t))
        {
            if (m_dist[w] == UNSET)
            {
                m_dist[w] = 1;
                m_cur.push_back(w);
            }
        }
        for (uint32_t l = 1; l <= m_levels; ++l)
        {
            m_next.clear();
            // Claim order by router id, not by adjacency-list order, so that with distinct
            // picks every router derives the same levels from the graph and the key alone.
            std::sort(m_cur.begin(), m_cur.end());
            for (uint32_t u : m_cur)
            {
                m_elig.clear();
                for (uint32_t w : m_g.Neighbours(u))
                {
                    // Distinct picks: nodes chosen by an earlier u of this level are taken.
                    const bool free
                        = m_dist[w] == UNSET || (!m_prm.distinctPicks && m_dist[w] == l + 1);
                    if (free)
                    {
                        m_elig.emplace_back(Score(m_tkey, u, w, 0x5750 + l), w);
                    }
                }
                std::sort(m_elig.begin(), m_elig.end());
                m_elig.erase(std::unique(m_elig.begin(), m_elig.end()), m_elig.end());
                const size_t take = std::min<size_t>(m_prm.p, m_elig.size());
                for (size_t i = 0; i < take; ++i)
                {
                    const uint32_t w = m_elig[i].second;
                    if (m_dist[w] == UNSET)
                    {
                        m_dist[w] = static_cast<uint8_t>(l + 1);
                        m_next.push_back(w);
                    }
                }
            }
            m_cur.swap(m_next);
        }
        // Inner ring, then the outer ring by BFS from it through unassigned nodes.
        uint32_t d = m_levels + 2;
        m_next.clear();
        for (uint32_t u : m_cur)
        {
            for (uint32_t w : m_g.Neighbours(u))
            {
                if (m_dist[w] == UNSET)
                {
                    m_dist[w] = static_cast<uint8_t>(d);
                    m_next.push_back(w);
                }
            }
        }
        while (!m_next.empty() && d + 1 < UNSET)
        {
            m_cur.swap(m_next);
            m_next.clear();
            ++d;
            for (uint32_t u : m_cur)
            {
                for (uint32_t w : m_g.Neighbours(u))
                {
                    if (m_dist[w] == UNSET)
                    {
                        m_dist[w] = static_cast<uint8_t>(d);
                        m_next.push_back(w);
                    }
                }
            }
        }
        // Nodes the rings cannot reach (walled in by waypoints; not seen on expanders): one
        // hop beyond their closest assigned neighbour, so the distance still decreases.
        bool changed = true;
        while (changed)
        {
            changed = false;
            for (uint32_t v = 0; v < n; ++v)
            {
                if (m_dist[v] != UNSET)
                {
                    continue;
                }
                uint32_t best = UNSET;
                for (uint32_t w : m_g.Neighbours(v))
                {
                    best = std::min<uint32_t>(best, m_dist[w]);
                }
                if (best + 1 < UNSET)
                {
                    m_dist[v] = static_cast<uint8_t>(best + 1);
                    changed = true;
                }
            }
        }
        return m_dist;
    }

    /// Candidates of v (indices into Neighbours(v)): h neighbours one pointing hop closer.
    uint32_t Candidates(uint32_t v, uint16_t* out)
    {
        const uint8_t dv = m_dist[v];
        if (dv == 0 || dv == UNSET)
        {
            return 0;
        }
        const auto& nb = m_g.Neighbours(v);
        m_cands.clear();
        for (uint32_t j = 0; j < nb.size(); ++j)
        {
            if (m_dist[nb[j]] + 1 == dv)
            {
                // Scored by the neighbour's id (no port index): the same choice whatever
                // order the links are listed in.
                m_cands.emplace_back(Score(m_tkey, v, nb[j], 0x4850), j);
            }
        }
        const size_t take = std::min<size_t>(m_prm.h, m_cands.size());
        if (m_cands.size() > take)
        {
            std::partial_sort(m_cands.begin(), m_cands.begin() + take, m_cands.end());
        }
        for (size_t i = 0; i < take; ++i)
        {
            out[i] = static_cast<uint16_t>(m_cands[i].second);
        }
        return static_cast<uint32_t>(take);
    }

  private:
    const RouterGraph& m_g;
    const SpraypointParams& m_prm;
    uint32_t m_levels;
    uint64_t m_tkey{0};
    std::vector<uint8_t> m_dist;
    std::vector<uint32_t> m_cur;
    std::vector<uint32_t> m_next;
    std::vector<std::pair<uint64_t, uint32_t>> m_elig;
    std::vector<std::pair<uint64_t, uint32_t>> m_cands;
};

void
Validate(const RouterGraph& g, const SpraypointParams& prm)
{
    if (g.GetN() < 3)
    {
        throw std::invalid_argument("Spraypoint: n=" + std::to_string(g.GetN())
                                    + " routers, must be >= 3");
    }
    uint32_t dmin = UINT32_MAX;
    uint32_t dmax = 0;
    for (uint32_t v = 0; v < g.GetN(); ++v)
    {
        if (g.GetDegree(v) > 0) // an isolated (failed) router does not constrain p and h
        {
            dmin = std::min(dmin, g.GetDegree(v));
        }
        dmax = std::max(dmax, g.GetDegree(v));
    }
    if (dmax > 65534)
    {
        throw std::invalid_argument("Spraypoint: degree " + std::to_string(dmax)
                                    + " is above 65534");
    }
    // Per-router bounds: each router takes min(p, eligible) and min(h, candidates).
    const uint32_t d = prm.perRouterBounds ? UINT32_MAX : std::max(dmin, 2u);
    if (prm.p < 1 || prm.p > d - 1)
    {
        throw std::invalid_argument("Spraypoint: p=" + std::to_string(prm.p)
                                    + " must be in [1, d-1] = [1, " + std::to_string(d - 1) + "]");
    }
    if (prm.h < 1 || prm.h > d)
    {
        throw std::invalid_argument("Spraypoint: h=" + std::to_string(prm.h)
                                    + " must be in [1, d] = [1, " + std::to_string(d) + "]");
    }
    if (prm.levels > 64)
    {
        throw std::invalid_argument("Spraypoint: levels=" + std::to_string(prm.levels)
                                    + " must be in [0, 64] (0 = the paper's rule)");
    }
}

uint32_t
AverageDegree(const RouterGraph& g)
{
    return static_cast<uint32_t>(std::lround(2.0 * g.GetNEdges() / g.GetN()));
}

} // namespace

uint32_t
SpraypointTables::PaperLevels(uint32_t n, uint32_t d, uint32_t p)
{
    if (p < 2 || d == 0)
    {
        return 1;
    }
    const double x = double(n) / (2.0 * d * d);
    if (x <= 1)
    {
        return 1;
    }
    // ceil(log_p x), guarded against floating-point error at exact powers.
    uint32_t l = 0;
    double pw = 1;
    while (pw < x * (1 - 1e-12))
    {
        pw *= p;
        ++l;
    }
    return std::max(1u, l);
}

SpraypointTables::SpraypointTables(const RouterGraph& graph, const SpraypointParams& params)
    : m_n(graph.GetN()),
      m_params(params)
{
    Validate(graph, params);
    m_levels = params.levels ? params.levels : PaperLevels(m_n, AverageDegree(graph), params.p);
    m_params.levels = m_levels;
    m_dist.assign(static_cast<size_t>(m_n) * m_n, UNREACHABLE);
    m_cand.assign(static_cast<size_t>(m_n) * m_n * m_params.h, NONE);
    LevelBuilder b(graph, m_params, m_levels);
    for (uint32_t t = 0; t < m_n; ++t)
    {
        const std::vector<uint8_t>& dist = b.Compute(t);
        std::copy(dist.begin(), dist.end(), m_dist.begin() + Idx(t, 0));
        for (uint32_t v = 0; v < m_n; ++v)
        {
            b.Candidates(v, &m_cand[Idx(t, v) * m_params.h]);
        }
    }
}

std::vector<std::vector<uint16_t>>
SpraypointTables::ComputeRouterRows(const RouterGraph& graph,
                                    const SpraypointParams& params,
                                    uint32_t router)
{
    Validate(graph, params);
    SpraypointParams prm = params;
    prm.levels
        = params.levels ? params.levels : PaperLevels(graph.GetN(), AverageDegree(graph), params.p);
    LevelBuilder b(graph, prm, prm.levels);
    std::vector<std::vector<uint16_t>> rows(graph.GetN());
    std::vector<uint16_t> buf(prm.h);
    for (uint32_t t = 0; t < graph.GetN(); ++t)
    {
        b.Compute(t);
        const uint32_t k = b.Candidates(router, buf.data());
        rows[t].assign(buf.begin(), buf.begin() + k);
    }
    return rows;
}

int32_t
SpraypointTables::Level(uint32_t t, uint32_t v) const
{
    const uint8_t d = Distance(t, v);
    if (d == 0)
    {
        return -1;
    }
    if (d == UNREACHABLE)
    {
        return -2;
    }
    return std::min<int32_t>(d - 1, m_levels + 2);
}

uint32_t
SpraypointTables::NCandidates(uint32_t t, uint32_t v) const
{
    const uint16_t* c = &m_cand[Idx(t, v) * m_params.h];
    uint32_t k = 0;
    while (k < m_params.h && c[k] != NONE)
    {
        ++k;
    }
    return k;
}

std::vector<uint32_t>
SpraypointTables::LevelSizes(uint32_t t) const
{
    std::vector<uint32_t> sizes(m_levels + 3, 0);
    for (uint32_t v = 0; v < m_n; ++v)
    {
        const int32_t l = Level(t, v);
        if (l >= 0)
        {
            sizes[l]++;
        }
    }
    return sizes;
}

} // namespace ns3
