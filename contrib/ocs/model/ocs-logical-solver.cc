// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-logical-solver.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>

namespace ns3
{

OcsLogicalSolution
SolveLogicalTopologyMlu(const std::vector<double>& demand,
                        uint32_t egs,
                        uint32_t ports,
                        double linkCapacity,
                        bool fillIdle)
{
    if (demand.size() != size_t(egs) * egs)
    {
        throw std::invalid_argument("logical solver: demand has " + std::to_string(demand.size())
                                    + " entries, needs egs^2 = "
                                    + std::to_string(size_t(egs) * egs));
    }
    if (ports < 1)
    {
        throw std::invalid_argument("logical solver: ports must be >= 1");
    }
    if (!(linkCapacity > 0) || !std::isfinite(linkCapacity))
    {
        throw std::invalid_argument("logical solver: link capacity must be > 0");
    }
    struct Pair
    {
        uint32_t a;
        uint32_t b;
        double m;
    };
    std::vector<Pair> pairs;
    std::vector<uint32_t> partners(egs, 0);
    for (uint32_t a = 0; a < egs; ++a)
    {
        for (uint32_t b = 0; b < egs; ++b)
        {
            const double d = demand[size_t(a) * egs + b];
            if (!(d >= 0) || !std::isfinite(d))
            {
                throw std::invalid_argument("logical solver: demand[" + std::to_string(a) + "]["
                                            + std::to_string(b) + "] must be finite and >= 0");
            }
            if (d == 0 || a == b)
            {
                continue;
            }
            // Visit each pair once: from its upper entry, or from the lower one if the upper
            // entry is zero (reads the transposed entry only for non-zero demand).
            const double t = demand[size_t(b) * egs + a];
            if (b > a || t == 0)
            {
                pairs.push_back({std::min(a, b), std::max(a, b), std::max(d, t)});
                partners[a]++;
                partners[b]++;
            }
        }
    }
    for (uint32_t a = 0; a < egs; ++a)
    {
        if (partners[a] > ports)
        {
            throw std::invalid_argument("logical solver: EG " + std::to_string(a)
                                        + " has demand with " + std::to_string(partners[a])
                                        + " EGs, more than its " + std::to_string(ports)
                                        + " ports (single-hop routing needs a link to each)");
        }
    }
    std::vector<int64_t> row(egs, 0);
    const double invCap = 1.0 / linkCapacity;
    auto linksAt = [&](double m, double invU)
    {
        return std::max<int64_t>(1, int64_t(std::ceil(m * invU * invCap - 1e-12)));
    };
    // One pass at MLU u: feasible?, the MLU n(u) achieves, and the least breakpoint above u
    // (the next u at which some pair needs one link fewer).
    struct Eval
    {
        bool feasible;
        double achieved;
        double nextAbove;
    };
    auto evaluate = [&](double u)
    {
        std::fill(row.begin(), row.end(), 0);
        Eval r{true, 0, INFINITY};
        const double invU = 1.0 / u;
        for (const Pair& p : pairs)
        {
            const int64_t n = linksAt(p.m, invU);
            row[p.a] += n;
            row[p.b] += n;
            r.feasible = r.feasible && row[p.a] <= ports && row[p.b] <= ports;
            r.achieved = std::max(r.achieved, p.m * invCap / n);
            if (n > 1)
            {
                r.nextAbove = std::min(r.nextAbove, p.m * invCap / (n - 1));
            }
        }
        return r;
    };
    OcsLogicalSolution s{OcsMatrix(egs), 0, 0};
    if (!pairs.empty())
    {
        // The optimum is a breakpoint m / k; search (lo, hi] with hi snapped to breakpoints.
        double hi = 0;
        for (const Pair& p : pairs)
        {
            hi = std::max(hi, p.m * invCap); // one link each: feasible (checked above)
        }
        double lo = hi / ports / 2; // below the bound max m / (P c): infeasible
        double nextAboveLo = 0;
        for (int it = 0; it < 200 && nextAboveLo < hi * (1 - 1e-12); ++it)
        {
            const double mid = 0.5 * (lo + hi);
            if (mid <= lo || mid >= hi)
            {
                break;
            }
            const Eval e = evaluate(mid);
            if (e.feasible)
            {
                hi = e.achieved;
            }
            else
            {
                lo = mid;
                nextAboveLo = e.nextAbove;
            }
        }
        const double invU = 1.0 / hi;
        for (const Pair& p : pairs)
        {
            const int64_t n = linksAt(p.m, invU);
            s.logical(p.a, p.b) = s.logical(p.b, p.a) = n;
            s.mlu = std::max(s.mlu, p.m / (n * linkCapacity));
        }
    }
    std::vector<int64_t> spare(egs);
    for (uint32_t a = 0; a < egs; ++a)
    {
        spare[a] = ports - s.logical.RowSum(a);
    }
    // Phase 1: lower the utilization of the hottest demanded pairs.
    using Item = std::pair<double, uint32_t>; // utilization, pair index
    std::priority_queue<Item> pq;
    for (uint32_t k = 0; k < pairs.size(); ++k)
    {
        const Pair& p = pairs[k];
        pq.push({p.m / (s.logical(p.a, p.b) * linkCapacity), k});
    }
    while (!pq.empty())
    {
        const uint32_t k = pq.top().second;
        pq.pop();
        const Pair& p = pairs[k];
        if (spare[p.a] > 0 && spare[p.b] > 0)
        {
            const int64_t n = ++s.logical(p.a, p.b);
            s.logical(p.b, p.a) = n;
            spare[p.a]--;
            spare[p.b]--;
            s.spareLinks++;
            pq.push({p.m / (n * linkCapacity), k});
        }
    }
    // Phase 2: idle ports, EGs with the most free ports first.
    if (fillIdle)
    {
        std::priority_queue<std::pair<int64_t, uint32_t>> free;
        for (uint32_t a = 0; a < egs; ++a)
        {
            if (spare[a] > 0)
            {
                free.push({spare[a], egs - 1 - a}); // ties: lower EG index first
            }
        }
        while (free.size() >= 2)
        {
            auto x = free.top();
            free.pop();
            auto y = free.top();
            free.pop();
            const uint32_t a = egs - 1 - x.second;
            const uint32_t b = egs - 1 - y.second;
            s.logical(a, b)++;
            s.logical(b, a)++;
            s.spareLinks++;
            if (--x.first > 0)
            {
                free.push(x);
            }
            if (--y.first > 0)
            {
                free.push(y);
            }
        }
    }
    return s;
}

} // namespace ns3
