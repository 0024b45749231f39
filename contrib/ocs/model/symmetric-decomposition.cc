// SPDX-License-Identifier: GPL-2.0-only
#include "symmetric-decomposition.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// Validates l (reading (j, i) only where (i, j) is non-zero) and returns the even halves
/// (i < j, value L_ij / 2, or the diagonal L_ii / 2) and the odd pairs (i < j).
void
SplitEven(const OcsMatrix& l,
          std::vector<OcsMatrixEntry>& half,
          std::vector<std::pair<uint32_t, uint32_t>>& odd)
{
    const uint32_t n = l.GetN();
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            const int64_t x = l(i, j);
            if (x == 0)
            {
                continue;
            }
            if (i == j)
            {
                if (x < 0 || x % 2 != 0)
                {
                    throw std::invalid_argument("symmetric decomposition: diagonal entry ["
                                                + std::to_string(i) + "][" + std::to_string(i)
                                                + "] = " + std::to_string(x)
                                                + " must be even and non-negative");
                }
                half.push_back({i, i, x / 2});
                continue;
            }
            if (x != l(j, i) || x < 0)
            {
                throw std::invalid_argument(
                    "symmetric decomposition: L must be symmetric and non-negative; ["
                    + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(x)
                    + ", [" + std::to_string(j) + "][" + std::to_string(i)
                    + "] = " + std::to_string(l(j, i)));
            }
            if (j > i)
            {
                if (x / 2 > 0)
                {
                    half.push_back({i, j, x / 2});
                }
                if (x % 2)
                {
                    odd.emplace_back(i, j);
                }
            }
        }
    }
}

/// Dense A from the halves (both directions) and oriented odd units.
OcsMatrix
Assemble(uint32_t n,
         const std::vector<OcsMatrixEntry>& half,
         const std::vector<std::pair<uint32_t, uint32_t>>& odd,
         const std::vector<uint8_t>& forward)
{
    OcsMatrix a(n);
    for (const auto& h : half)
    {
        a(h.i, h.j) += h.value;
        if (h.i != h.j)
        {
            a(h.j, h.i) += h.value;
        }
    }
    for (size_t k = 0; k < odd.size(); ++k)
    {
        if (forward[k])
        {
            a(odd[k].first, odd[k].second)++;
        }
        else
        {
            a(odd[k].second, odd[k].first)++;
        }
    }
    return a;
}

} // namespace

std::vector<uint8_t>
OrientBalanced(uint32_t vertices, const std::vector<uint32_t>& eu, const std::vector<uint32_t>& ev)
{
    if (eu.size() != ev.size())
    {
        throw std::invalid_argument("OrientBalanced: endpoint lists differ in length");
    }
    const uint32_t n = vertices;
    const uint32_t extra = n;
    const size_t m0 = eu.size();
    std::vector<uint32_t> degree(n + 1, 0);
    for (size_t e = 0; e < m0; ++e)
    {
        if (eu[e] >= n || ev[e] >= n)
        {
            throw std::invalid_argument("OrientBalanced: vertex out of range");
        }
        degree[eu[e]]++;
        degree[ev[e]]++;
    }
    std::vector<uint32_t> xu;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (degree[i] % 2)
        {
            xu.push_back(i);
        }
    }
    const size_t m = m0 + xu.size();
    auto U = [&](size_t e)
    {
        return e < m0 ? eu[e] : xu[e - m0];
    };
    auto V = [&](size_t e)
    {
        return e < m0 ? ev[e] : extra;
    };
    // Adjacency in CSR form: incident edge ids per vertex.
    std::vector<uint32_t> start(n + 2, 0);
    for (size_t e = 0; e < m; ++e)
    {
        start[U(e) + 1]++;
        start[V(e) + 1]++;
    }
    for (uint32_t v = 0; v <= n; ++v)
    {
        start[v + 1] += start[v];
    }
    std::vector<uint32_t> inc(2 * m);
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t e = 0; e < m; ++e)
    {
        inc[fill[U(e)]++] = uint32_t(e);
        inc[fill[V(e)]++] = uint32_t(e);
    }
    std::vector<uint32_t> next(start.begin(), start.end() - 1); // next unscanned incidence
    std::vector<uint8_t> used(m, 0);
    std::vector<uint8_t> forward(m0, 1);
    // Closed walks: every degree is even, so a walk that starts at v can only end at v.
    for (uint32_t v = 0; v <= n; ++v)
    {
        while (true)
        {
            uint32_t cur = v;
            bool moved = false;
            while (true)
            {
                while (next[cur] < start[cur + 1] && used[inc[next[cur]]])
                {
                    next[cur]++;
                }
                if (next[cur] == start[cur + 1])
                {
                    break;
                }
                const uint32_t e = inc[next[cur]++];
                used[e] = 1;
                moved = true;
                const uint32_t to = U(e) == cur ? V(e) : U(e);
                if (e < m0)
                {
                    forward[e] = U(e) == cur ? 1 : 0;
                }
                cur = to;
            }
            if (!moved)
            {
                break;
            }
        }
    }
    return forward;
}

std::vector<OcsMatrixEntry>
DecomposeSymmetricEulerSparse(const OcsMatrix& l)
{
    std::vector<OcsMatrixEntry> half;
    std::vector<std::pair<uint32_t, uint32_t>> odd;
    SplitEven(l, half, odd);
    std::vector<uint32_t> eu(odd.size());
    std::vector<uint32_t> ev(odd.size());
    for (size_t k = 0; k < odd.size(); ++k)
    {
        eu[k] = odd[k].first;
        ev[k] = odd[k].second;
    }
    const std::vector<uint8_t> forward = OrientBalanced(l.GetN(), eu, ev);
    // SplitEven lists both in row-major order of the upper triangle: merge the two lists.
    std::vector<OcsMatrixEntry> out;
    out.reserve(2 * (half.size() + odd.size()));
    size_t h = 0;
    size_t k = 0;
    auto before = [](uint32_t i1, uint32_t j1, uint32_t i2, uint32_t j2)
    {
        return i1 != i2 ? i1 < i2 : j1 < j2;
    };
    while (h < half.size() || k < odd.size())
    {
        uint32_t i;
        uint32_t j;
        int64_t x = 0;
        bool hasOdd = false;
        if (k == odd.size()
            || (h < half.size() && before(half[h].i, half[h].j, odd[k].first, odd[k].second)))
        {
            i = half[h].i;
            j = half[h].j;
            x = half[h++].value;
        }
        else
        {
            i = odd[k].first;
            j = odd[k].second;
            hasOdd = true;
        }
        if (hasOdd && h < half.size() && half[h].i == i && half[h].j == j)
        {
            x = half[h++].value;
        }
        if (i == j)
        {
            out.push_back({i, i, x});
            continue;
        }
        const int64_t up = x + (hasOdd && forward[k] ? 1 : 0);
        const int64_t down = x + (hasOdd && !forward[k] ? 1 : 0);
        k += hasOdd ? 1 : 0;
        if (up > 0)
        {
            out.push_back({i, j, up});
        }
        if (down > 0)
        {
            out.push_back({j, i, down});
        }
    }
    return out;
}

OcsMatrix
DecomposeSymmetricEuler(const OcsMatrix& l)
{
    OcsMatrix a(l.GetN());
    for (const auto& e : DecomposeSymmetricEulerSparse(l))
    {
        a(e.i, e.j) = e.value;
    }
    return a;
}

OcsMatrix
DecomposeSymmetricMaxFlow(const OcsMatrix& l)
{
    using namespace boost;
    using Traits = adjacency_list_traits<vecS, vecS, directedS>;
    using Graph
        = adjacency_list<vecS,
                         vecS,
                         directedS,
                         property<vertex_name_t, std::string>,
                         property<edge_capacity_t,
                                  long,
                                  property<edge_residual_capacity_t,
                                           long,
                                           property<edge_reverse_t, Traits::edge_descriptor>>>>;
    std::vector<OcsMatrixEntry> half;
    std::vector<std::pair<uint32_t, uint32_t>> odd;
    SplitEven(l, half, odd);
    const uint32_t n = l.GetN();
    std::vector<uint8_t> forward(odd.size(), 0);
    if (odd.empty())
    {
        return Assemble(n, half, odd, forward);
    }
    std::vector<uint32_t> degree(n, 0);
    for (const auto& [i, j] : odd)
    {
        degree[i]++;
        degree[j]++;
    }
    // Vertices: 0 source, 1 sink, 2 spare, 3..3+n-1 EGs, then one per odd pair.
    const size_t source = 0;
    const size_t sink = 1;
    const size_t spare = 2;
    Graph g(3 + n + odd.size());
    auto cap = get(edge_capacity, g);
    auto rev = get(edge_reverse, g);
    auto res = get(edge_residual_capacity, g);
    auto addEdge = [&](size_t u, size_t v, long c)
    {
        auto e = add_edge(u, v, g).first;
        auto r = add_edge(v, u, g).first;
        cap[e] = c;
        cap[r] = 0;
        rev[e] = r;
        rev[r] = e;
        return e;
    };
    std::vector<Traits::edge_descriptor> toI;
    toI.reserve(odd.size());
    for (size_t k = 0; k < odd.size(); ++k)
    {
        const size_t pv = 3 + n + k;
        addEdge(source, pv, 1);
        toI.push_back(addEdge(pv, 3 + odd[k].first, 1));
        addEdge(pv, 3 + odd[k].second, 1);
    }
    long oddVertices = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (degree[i] / 2 > 0)
        {
            addEdge(3 + i, sink, degree[i] / 2);
        }
        if (degree[i] % 2)
        {
            addEdge(3 + i, spare, 1);
            oddVertices++;
        }
    }
    if (oddVertices > 0)
    {
        addEdge(spare, sink, oddVertices / 2);
    }
    const long flow = push_relabel_max_flow(g, source, sink);
    if (flow != long(odd.size()))
    {
        throw std::logic_error("symmetric decomposition (max-flow): flow " + std::to_string(flow)
                               + " < " + std::to_string(odd.size())
                               + " odd pairs; Theorem 4.2 says this cannot happen");
    }
    for (size_t k = 0; k < odd.size(); ++k)
    {
        // Flow into EG i is a unit of A's row i: orientation i -> j.
        forward[k] = cap[toI[k]] - res[toI[k]] == 1 ? 1 : 0;
    }
    return Assemble(n, half, odd, forward);
}

std::string
CheckSymmetricDecomposition(const OcsMatrix& l, const OcsMatrix& a)
{
    const uint32_t n = l.GetN();
    if (a.GetN() != n)
    {
        return "A has the wrong size";
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (a(i, j) < 0)
            {
                return "A[" + std::to_string(i) + "][" + std::to_string(j) + "] < 0";
            }
            if (a(i, j) + a(j, i) != l(i, j))
            {
                return "A + A^T != L at [" + std::to_string(i) + "][" + std::to_string(j) + "]";
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const int64_t r = l.RowSum(i);
        const int64_t c = l.ColSum(i);
        const int64_t ar = a.RowSum(i);
        const int64_t ac = a.ColSum(i);
        if (ar < r / 2 || ar > (r + 1) / 2)
        {
            return "row " + std::to_string(i) + " of A sums to " + std::to_string(ar)
                 + ", outside [floor, ceil] of " + std::to_string(r) + "/2";
        }
        if (ac < c / 2 || ac > (c + 1) / 2)
        {
            return "column " + std::to_string(i) + " of A sums to " + std::to_string(ac)
                 + ", outside [floor, ceil] of " + std::to_string(c) + "/2";
        }
    }
    return "";
}

} // namespace ns3
