// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-port-colouring.h"

#include "symmetric-decomposition.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Colour slots: shared problems have one slot row per vertex, bipartite ones two.
struct Slots
{
    Slots(const OcsColouringProblem& p)
        : m_v(p.vertices),
          m_c(p.colours),
          m_shared(p.shared),
          m_at(size_t(p.shared ? 1 : 2) * p.vertices * p.colours, -1)
    {
    }

    size_t L(uint32_t u, uint32_t c) const { return size_t(u) * m_c + c; }
    size_t R(uint32_t v, uint32_t c) const
    {
        return (m_shared ? size_t(v) : size_t(m_v) + v) * m_c + c;
    }
    bool Free(uint32_t u, uint32_t v, uint32_t c) const
    {
        return m_at[L(u, c)] < 0 && m_at[R(v, c)] < 0;
    }
    void Set(uint32_t u, uint32_t v, uint32_t c, int64_t id)
    {
        m_at[L(u, c)] = id;
        m_at[R(v, c)] = id;
    }

    uint32_t m_v;
    uint32_t m_c;
    bool m_shared;
    std::vector<int64_t> m_at;
};

using Clock = std::chrono::steady_clock;

} // namespace

void
OcsColouringProblem::Validate() const
{
    if (colours == 0)
    {
        throw std::invalid_argument("colouring: colours must be >= 1");
    }
    for (const Pair& q : pairs)
    {
        if (q.u >= vertices || q.v >= vertices || q.u == q.v || q.count == 0)
        {
            throw std::invalid_argument("colouring: pair (" + std::to_string(q.u) + ", "
                                        + std::to_string(q.v) + ") x" + std::to_string(q.count)
                                        + " is invalid: vertices in [0, "
                                        + std::to_string(vertices - 1) + "], distinct, count >= 1");
        }
    }
}

std::string
CheckColouring(const OcsColouringProblem& p, const OcsColouring& c)
{
    if (c.colours.size() != p.pairs.size())
    {
        return "colouring has " + std::to_string(c.colours.size()) + " entries for "
             + std::to_string(p.pairs.size()) + " pairs";
    }
    Slots s(p);
    for (size_t e = 0; e < p.pairs.size(); ++e)
    {
        const auto& q = p.pairs[e];
        if (c.colours[e].size() > q.count)
        {
            return "pair " + std::to_string(e) + " got more links than demanded";
        }
        for (uint32_t col : c.colours[e])
        {
            if (col >= p.colours)
            {
                return "pair " + std::to_string(e) + " has colour out of range";
            }
            if (!s.Free(q.u, q.v, col))
            {
                return "pair " + std::to_string(e) + " reuses colour " + std::to_string(col)
                     + " at a vertex";
            }
            s.Set(q.u, q.v, col, int64_t(e));
        }
    }
    return "";
}

double
ColouringScore(const OcsColouringProblem& p, const OcsColouring& c)
{
    if (p.pairs.empty())
    {
        return 1.0;
    }
    double sum = 0;
    for (size_t e = 0; e < p.pairs.size(); ++e)
    {
        sum += std::min(1.0, double(c.colours[e].size()) / p.pairs[e].count);
    }
    return sum / double(p.pairs.size());
}

// ---------------------------------------------------------------------------------------------
// Exact bipartite colouring (Kempe chains).

namespace
{

/// Kempe-chain colouring of the units \p ids (bipartite, degree <= C) with colours
/// base..base+C-1.
void
KempeColour(const OcsColouringProblem& p,
            const std::vector<uint32_t>& unitPair,
            const std::vector<uint32_t>& ids,
            uint32_t base,
            uint32_t C,
            std::vector<uint32_t>& colour)
{
    OcsColouringProblem sub = p;
    sub.colours = C;
    Slots s(sub);
    std::vector<uint32_t> path;
    auto firstFree = [&](size_t slot)
    {
        for (uint32_t c = 0; c < C; ++c)
        {
            if (s.m_at[slot + c] < 0)
            {
                return c;
            }
        }
        return C; // cannot happen within the degree bound
    };
    std::vector<uint32_t> local(unitPair.size(), 0);
    for (uint32_t k : ids)
    {
        const auto& q = p.pairs[unitPair[k]];
        const uint32_t a = firstFree(s.L(q.u, 0));
        const uint32_t b = firstFree(s.R(q.v, 0));
        if (s.m_at[s.R(q.v, a)] >= 0)
        {
            // a is taken at v (b is free there, a is free at u): swap the a/b path from v.
            path.clear();
            uint32_t x = q.v;
            bool atRight = true;
            uint32_t want = a;
            while (true)
            {
                const int64_t id = s.m_at[atRight ? s.R(x, want) : s.L(x, want)];
                if (id < 0)
                {
                    break;
                }
                path.push_back(uint32_t(id));
                const auto& pq = p.pairs[unitPair[id]];
                x = atRight ? pq.u : pq.v;
                atRight = !atRight;
                want = want == a ? b : a;
            }
            for (uint32_t id : path)
            {
                const auto& pq = p.pairs[unitPair[id]];
                s.Set(pq.u, pq.v, local[id], -1);
            }
            for (uint32_t id : path)
            {
                const auto& pq = p.pairs[unitPair[id]];
                local[id] = local[id] == a ? b : a;
                s.Set(pq.u, pq.v, local[id], int64_t(id));
            }
        }
        local[k] = a;
        s.Set(q.u, q.v, a, int64_t(k));
    }
    for (uint32_t k : ids)
    {
        colour[k] = base + local[k];
    }
}

/// Colour the units \p ids (bipartite, every vertex side degree <= C) with base..base+C-1:
/// while C is even, split by a balanced Euler orientation into two halves of degree <= C/2;
/// an odd C is coloured by Kempe chains, C = 1 is a matching already.
void
SplitColour(const OcsColouringProblem& p,
            const std::vector<uint32_t>& unitPair,
            const std::vector<uint32_t>& ids,
            uint32_t base,
            uint32_t C,
            std::vector<uint32_t>& colour)
{
    if (ids.empty())
    {
        return;
    }
    if (C == 1)
    {
        for (uint32_t k : ids)
        {
            colour[k] = base;
        }
        return;
    }
    if (C % 2)
    {
        KempeColour(p, unitPair, ids, base, C, colour);
        return;
    }
    std::vector<uint32_t> eu(ids.size());
    std::vector<uint32_t> ev(ids.size());
    for (size_t k = 0; k < ids.size(); ++k)
    {
        const auto& q = p.pairs[unitPair[ids[k]]];
        eu[k] = q.u;
        ev[k] = p.vertices + q.v;
    }
    const std::vector<uint8_t> forward = OrientBalanced(2 * p.vertices, eu, ev);
    std::vector<uint32_t> first;
    std::vector<uint32_t> second;
    first.reserve(ids.size() / 2 + p.vertices);
    second.reserve(ids.size() / 2 + p.vertices);
    for (size_t k = 0; k < ids.size(); ++k)
    {
        (forward[k] ? first : second).push_back(ids[k]);
    }
    SplitColour(p, unitPair, first, base, C / 2, colour);
    SplitColour(p, unitPair, second, base + C / 2, C / 2, colour);
}

} // namespace

OcsColouring
ColourBipartiteExact(const OcsColouringProblem& p)
{
    if (p.shared)
    {
        throw std::invalid_argument("exact colouring needs a bipartite (mirror-symmetric) "
                                    "problem; Uniform has none");
    }
    p.Validate();
    const uint32_t C = p.colours;
    {
        std::vector<uint32_t> out(p.vertices, 0);
        std::vector<uint32_t> in(p.vertices, 0);
        for (const auto& q : p.pairs)
        {
            out[q.u] += q.count;
            in[q.v] += q.count;
        }
        for (uint32_t v = 0; v < p.vertices; ++v)
        {
            if (out[v] > C || in[v] > C)
            {
                throw std::invalid_argument("exact colouring: vertex " + std::to_string(v) + " has "
                                            + std::to_string(std::max(out[v], in[v]))
                                            + " links on one side, more than the "
                                            + std::to_string(C) + " colours");
            }
        }
    }
    std::vector<uint32_t> unitPair;
    for (size_t e = 0; e < p.pairs.size(); ++e)
    {
        unitPair.insert(unitPair.end(), p.pairs[e].count, uint32_t(e));
    }
    std::vector<uint32_t> ids(unitPair.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::vector<uint32_t> colour(unitPair.size(), 0);
    SplitColour(p, unitPair, ids, 0, C, colour);
    OcsColouring out;
    out.colours.resize(p.pairs.size());
    for (size_t k = 0; k < unitPair.size(); ++k)
    {
        out.colours[unitPair[k]].push_back(colour[k]);
    }
    out.provedOptimal = true;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Greedy (MixNet-like).

OcsColouring
ColourGreedy(const OcsColouringProblem& p)
{
    p.Validate();
    std::vector<uint32_t> order(p.pairs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(),
                     order.end(),
                     [&](uint32_t x, uint32_t y) { return p.pairs[x].count > p.pairs[y].count; });
    Slots s(p);
    OcsColouring out;
    out.colours.resize(p.pairs.size());
    std::vector<uint8_t> stuck(p.pairs.size(), 0);
    bool progress = true;
    while (progress)
    {
        progress = false;
        for (uint32_t e : order)
        {
            const auto& q = p.pairs[e];
            if (stuck[e] || out.colours[e].size() >= q.count)
            {
                continue;
            }
            uint32_t c = 0;
            while (c < p.colours && !s.Free(q.u, q.v, c))
            {
                ++c;
            }
            if (c == p.colours)
            {
                stuck[e] = 1;
                continue;
            }
            s.Set(q.u, q.v, c, e);
            out.colours[e].push_back(c);
            progress = true;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Birkhoff-von Neumann.

OcsColouring
ColourBvn(const OcsColouringProblem& p)
{
    p.Validate();
    const uint32_t V = p.vertices;
    const uint32_t C = p.colours;
    // Remaining real and dummy units per (row, column), sparse per row.
    std::vector<std::vector<uint32_t>> cols(V);
    std::vector<std::vector<int64_t>> real(V);
    std::vector<std::vector<int64_t>> dummy(V);
    std::vector<std::vector<int64_t>> pairOf(V); // pair id for real units (-1 dummy only)
    auto cell = [&](uint32_t r, uint32_t c) -> size_t
    {
        for (size_t k = 0; k < cols[r].size(); ++k)
        {
            if (cols[r][k] == c)
            {
                return k;
            }
        }
        cols[r].push_back(c);
        real[r].push_back(0);
        dummy[r].push_back(0);
        pairOf[r].push_back(-1);
        return cols[r].size() - 1;
    };
    std::vector<int64_t> rowSum(V, 0);
    std::vector<int64_t> colSum(V, 0);
    for (size_t e = 0; e < p.pairs.size(); ++e)
    {
        const auto& q = p.pairs[e];
        const size_t k = cell(q.u, q.v);
        real[q.u][k] += q.count;
        pairOf[q.u][k] = int64_t(e);
        rowSum[q.u] += q.count;
        colSum[q.v] += q.count;
        if (p.shared)
        {
            const size_t k2 = cell(q.v, q.u);
            real[q.v][k2] += q.count;
            pairOf[q.v][k2] = int64_t(e);
            rowSum[q.v] += q.count;
            colSum[q.u] += q.count;
        }
    }
    for (uint32_t v = 0; v < V; ++v)
    {
        if (rowSum[v] > C || colSum[v] > C)
        {
            throw std::invalid_argument("BvN: vertex " + std::to_string(v)
                                        + " has more links than the " + std::to_string(C)
                                        + " colours");
        }
    }
    // Pad to C-regular: idle ports as dummies (diagonal first, then north-west corner).
    {
        std::vector<int64_t> dr(V);
        std::vector<int64_t> dc(V);
        for (uint32_t v = 0; v < V; ++v)
        {
            dr[v] = C - rowSum[v];
            dc[v] = C - colSum[v];
        }
        for (uint32_t v = 0; v < V; ++v)
        {
            const int64_t d = std::min(dr[v], dc[v]);
            if (d > 0)
            {
                dummy[v][cell(v, v)] += d;
                dr[v] -= d;
                dc[v] -= d;
            }
        }
        uint32_t c = 0;
        for (uint32_t r = 0; r < V; ++r)
        {
            while (dr[r] > 0)
            {
                while (dc[c] == 0)
                {
                    ++c;
                }
                const int64_t d = std::min(dr[r], dc[c]);
                dummy[r][cell(r, c)] += d;
                dr[r] -= d;
                dc[c] -= d;
            }
        }
    }
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    using VD = boost::graph_traits<Graph>::vertex_descriptor;
    OcsColouring out;
    out.colours.resize(p.pairs.size());
    std::vector<VD> mate(2 * V);
    std::vector<int64_t> sigma(V);
    for (uint32_t colour = 0; colour < C; ++colour)
    {
        Graph g(2 * V);
        for (uint32_t r = 0; r < V; ++r)
        {
            for (size_t k = 0; k < cols[r].size(); ++k)
            {
                if (real[r][k] + dummy[r][k] > 0)
                {
                    boost::add_edge(r, V + cols[r][k], g);
                }
            }
        }
        // Greedy start: real units first; for shared, pairs matched both ways first.
        const VD none = boost::graph_traits<Graph>::null_vertex();
        std::fill(mate.begin(), mate.end(), none);
        auto has = [&](uint32_t r, uint32_t c, bool realOnly)
        {
            for (size_t k = 0; k < cols[r].size(); ++k)
            {
                if (cols[r][k] == c)
                {
                    return real[r][k] > 0 || (!realOnly && dummy[r][k] > 0);
                }
            }
            return false;
        };
        auto tryMatch = [&](uint32_t r, uint32_t c)
        {
            if (mate[r] == none && mate[V + c] == none)
            {
                mate[r] = V + c;
                mate[V + c] = r;
                return true;
            }
            return false;
        };
        for (int pass = 0; pass < 2; ++pass)
        {
            for (uint32_t r = 0; r < V; ++r)
            {
                for (size_t k = 0; k < cols[r].size() && mate[r] == none; ++k)
                {
                    const uint32_t c = cols[r][k];
                    if (real[r][k] == 0)
                    {
                        continue;
                    }
                    if (p.shared && pass == 0)
                    {
                        if (c != r && has(c, r, true) && mate[c] == none && mate[V + r] == none
                            && mate[V + c] == none)
                        {
                            tryMatch(r, c);
                            tryMatch(c, r);
                        }
                    }
                    else
                    {
                        tryMatch(r, c);
                    }
                }
            }
        }
        boost::edmonds_augmenting_path_finder<
            Graph,
            VD*,
            boost::vec_adj_list_vertex_id_map<boost::no_property, std::size_t>>
            augmentor(g, mate.data(), boost::get(boost::vertex_index, g));
        while (augmentor.augment_matching())
        {
        }
        augmentor.get_current_matching(mate.data());
        // Peel the permutation off (real units first).
        for (uint32_t r = 0; r < V; ++r)
        {
            sigma[r] = -1;
            if (mate[r] == none)
            {
                continue; // cannot happen for a regular multigraph
            }
            const auto c = uint32_t(mate[r] - V);
            const size_t k = cell(r, c);
            if (real[r][k] > 0)
            {
                real[r][k]--;
                sigma[r] = c;
            }
            else
            {
                dummy[r][k]--;
            }
        }
        for (uint32_t r = 0; r < V; ++r)
        {
            if (sigma[r] < 0)
            {
                continue;
            }
            const auto c = uint32_t(sigma[r]);
            const int64_t e = pairOf[r][cell(r, c)];
            if (!p.shared)
            {
                out.colours[e].push_back(colour);
            }
            else if (r < c && sigma[c] == int64_t(r))
            {
                out.colours[e].push_back(colour); // a 2-cycle: a bidirectional link
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// DFS branch and bound.

namespace
{

class DfsSearch
{
  public:
    DfsSearch(const OcsColouringProblem& p, double timeLimitMs)
        : m_p(p),
          m_s(p),
          m_deadline(Clock::now() + std::chrono::microseconds(int64_t(timeLimitMs * 1000)))
    {
        // Units in greedy's order: round robin over the pairs, largest demand first, so the
        // first descent is the greedy colouring; then the search improves on it.
        std::vector<uint32_t> order(p.pairs.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(),
                         order.end(),
                         [&](uint32_t x, uint32_t y)
                         { return p.pairs[x].count > p.pairs[y].count; });
        std::vector<int64_t> lastUnit(p.pairs.size(), -1);
        for (uint32_t round = 0; !order.empty(); ++round)
        {
            std::vector<uint32_t> keep;
            for (uint32_t e : order)
            {
                m_prevOfPair.push_back(lastUnit[e]);
                lastUnit[e] = int64_t(m_unitPair.size());
                m_unitPair.push_back(e);
                if (p.pairs[e].count > round + 1)
                {
                    keep.push_back(e);
                }
            }
            order.swap(keep);
        }
        m_suffix.assign(m_unitPair.size() + 1, 0);
        for (size_t k = m_unitPair.size(); k-- > 0;)
        {
            m_suffix[k] = m_suffix[k + 1] + 1.0 / p.pairs[m_unitPair[k]].count;
        }
        m_colour.assign(m_unitPair.size(), -1);
        m_used.assign(p.colours, 0);
        // Incumbent: the greedy colouring (same unit order).
        const OcsColouring g = ColourGreedy(p);
        m_best = m_colour;
        std::vector<size_t> taken(p.pairs.size(), 0);
        m_bestScore = 0;
        for (size_t k = 0; k < m_unitPair.size(); ++k)
        {
            const uint32_t e = m_unitPair[k];
            if (taken[e] < g.colours[e].size())
            {
                m_best[k] = g.colours[e][taken[e]++];
                m_bestScore += 1.0 / p.pairs[e].count;
            }
        }
    }

    void Run() { Visit(0, 0.0); }

    OcsColouring Result() const
    {
        OcsColouring out;
        out.colours.resize(m_p.pairs.size());
        for (size_t k = 0; k < m_unitPair.size(); ++k)
        {
            if (m_best[k] >= 0)
            {
                out.colours[m_unitPair[k]].push_back(uint32_t(m_best[k]));
            }
        }
        out.timedOut = m_timedOut;
        out.provedOptimal = !m_timedOut;
        return out;
    }

  private:
    void Visit(size_t k, double score)
    {
        if (m_timedOut)
        {
            return;
        }
        if ((++m_nodes & 1023) == 0 && Clock::now() > m_deadline)
        {
            m_timedOut = true;
            return;
        }
        if (score + m_suffix[k] <= m_bestScore + 1e-12)
        {
            return; // cannot beat the best
        }
        if (k == m_unitPair.size())
        {
            m_bestScore = score;
            m_best = m_colour;
            return;
        }
        const auto& q = m_p.pairs[m_unitPair[k]];
        // Links of one pair are interchangeable: their colours increase, and once one is
        // given up the later ones are given up too.
        const int64_t prev = m_prevOfPair[k];
        const bool prevGivenUp = prev >= 0 && m_colour[prev] < 0;
        if (!prevGivenUp)
        {
            const uint32_t first = prev >= 0 ? uint32_t(m_colour[prev]) + 1 : 0;
            bool opened = false; // colours no link uses yet are interchangeable: try one
            for (uint32_t c = first; c < m_p.colours; ++c)
            {
                if (!m_s.Free(q.u, q.v, c))
                {
                    continue;
                }
                if (m_used[c] == 0)
                {
                    if (opened)
                    {
                        continue;
                    }
                    opened = true;
                }
                m_s.Set(q.u, q.v, c, int64_t(k));
                m_used[c]++;
                m_colour[k] = c;
                Visit(k + 1, score + 1.0 / q.count);
                m_colour[k] = -1;
                m_used[c]--;
                m_s.Set(q.u, q.v, c, -1);
                if (m_timedOut)
                {
                    return;
                }
            }
        }
        Visit(k + 1, score); // give the link up
    }

    const OcsColouringProblem& m_p;
    Slots m_s;
    Clock::time_point m_deadline;
    std::vector<uint32_t> m_unitPair;
    std::vector<int64_t> m_prevOfPair; //!< previous unit of the same pair, or -1
    std::vector<double> m_suffix;
    std::vector<int64_t> m_colour;
    std::vector<int64_t> m_best;
    std::vector<uint32_t> m_used;
    double m_bestScore{-1};
    uint64_t m_nodes{0};
    bool m_timedOut{false};
};

} // namespace

OcsColouring
ColourDfs(const OcsColouringProblem& p, double timeLimitMs)
{
    p.Validate();
    if (!(timeLimitMs > 0))
    {
        throw std::invalid_argument("DFS: time limit must be > 0 ms");
    }
    DfsSearch search(p, timeLimitMs);
    search.Run();
    return search.Result();
}

// ---------------------------------------------------------------------------------------------
// ILP with GLPK.

namespace
{

struct IlpContext
{
    const OcsColouringProblem* p;
    const OcsColouring* start;
    bool offered{false};
};

void
IlpCallback(glp_tree* tree, void* info)
{
    auto* ctx = static_cast<IlpContext*>(info);
    if (glp_ios_reason(tree) == GLP_IHEUR && !ctx->offered)
    {
        ctx->offered = true;
        const uint32_t C = ctx->p->colours;
        std::vector<double> x(1 + ctx->p->pairs.size() * C, 0.0);
        for (size_t e = 0; e < ctx->p->pairs.size(); ++e)
        {
            for (uint32_t c : ctx->start->colours[e])
            {
                x[1 + e * C + c] = 1.0;
            }
        }
        glp_ios_heur_sol(tree, x.data());
    }
}

} // namespace

OcsColouring
ColourIlp(const OcsColouringProblem& p, double timeLimitMs)
{
    p.Validate();
    if (!(timeLimitMs > 0))
    {
        throw std::invalid_argument("ILP: time limit must be > 0 ms");
    }
    const OcsColouring greedy = ColourGreedy(p);
    if (p.pairs.empty())
    {
        return greedy;
    }
    const uint32_t C = p.colours;
    const size_t slotRows = size_t(p.shared ? 1 : 2) * p.vertices * C;
    glp_prob* lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, int(slotRows + p.pairs.size()));
    for (size_t r = 1; r <= slotRows; ++r)
    {
        glp_set_row_bnds(lp, int(r), GLP_UP, 0.0, 1.0);
    }
    for (size_t e = 0; e < p.pairs.size(); ++e)
    {
        glp_set_row_bnds(lp, int(slotRows + 1 + e), GLP_UP, 0.0, double(p.pairs[e].count));
    }
    const size_t nVars = p.pairs.size() * C;
    glp_add_cols(lp, int(nVars));
    std::vector<int> ia{0};
    std::vector<int> ja{0};
    std::vector<double> ar{0.0};
    for (size_t e = 0; e < p.pairs.size(); ++e)
    {
        const auto& q = p.pairs[e];
        for (uint32_t c = 0; c < C; ++c)
        {
            const int col = int(1 + e * C + c);
            glp_set_col_kind(lp, col, GLP_BV);
            glp_set_obj_coef(lp, col, 1.0 / q.count);
            const size_t left = size_t(q.u) * C + c;
            const size_t right = (p.shared ? size_t(q.v) : size_t(p.vertices) + q.v) * C + c;
            for (size_t row : {left + 1, right + 1, slotRows + 1 + e})
            {
                ia.push_back(int(row));
                ja.push_back(col);
                ar.push_back(1.0);
            }
        }
    }
    glp_load_matrix(lp, int(ia.size() - 1), ia.data(), ja.data(), ar.data());
    glp_term_out(GLP_OFF);
    // LP relaxation first (no MIP presolve, so the callback's columns are ours).
    const auto t0 = Clock::now();
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    sm.tm_lim = std::max(1, int(std::lround(timeLimitMs)));
    int ret = glp_simplex(lp, &sm);
    int status = GLP_UNDEF;
    const double spentMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ret == 0 && glp_get_status(lp) == GLP_OPT && spentMs < timeLimitMs)
    {
        IlpContext ctx{&p, &greedy};
        glp_iocp parm;
        glp_init_iocp(&parm);
        parm.presolve = GLP_OFF;
        parm.msg_lev = GLP_MSG_OFF;
        parm.tm_lim = std::max(1, int(std::lround(timeLimitMs - spentMs)));
        parm.cb_func = IlpCallback;
        parm.cb_info = &ctx;
        ret = glp_intopt(lp, &parm);
        status = glp_mip_status(lp);
    }
    else if (ret == 0)
    {
        ret = GLP_ETMLIM;
    }
    OcsColouring out;
    if (status == GLP_OPT || status == GLP_FEAS)
    {
        out.colours.resize(p.pairs.size());
        for (size_t e = 0; e < p.pairs.size(); ++e)
        {
            for (uint32_t c = 0; c < C; ++c)
            {
                if (glp_mip_col_val(lp, int(1 + e * C + c)) > 0.5)
                {
                    out.colours[e].push_back(c);
                }
            }
        }
        out.provedOptimal = status == GLP_OPT && ret == 0;
        out.timedOut = ret == GLP_ETMLIM;
        out.note = out.provedOptimal ? "optimal" : "feasible (time limit)";
        if (ColouringScore(p, out) < ColouringScore(p, greedy))
        {
            out.colours = greedy.colours;
        }
    }
    else
    {
        out = greedy;
        out.timedOut = ret == GLP_ETMLIM;
        out.note = "no integer solution in time; greedy incumbent returned";
    }
    glp_delete_prob(lp);
    return out;
}

} // namespace ns3
