// SPDX-License-Identifier: GPL-2.0-only
#include "max-min-fair.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>

namespace ns3
{

std::vector<double>
MaxMinFairRates(const std::vector<double>& capacity, const std::vector<MaxMinFlow>& flows)
{
    MaxMinFairSolver solver;
    return solver.Solve(capacity, flows);
}

const std::vector<double>&
MaxMinFairSolver::Solve(const std::vector<double>& capacity, const std::vector<MaxMinFlow>& flows)
{
    return Solve(capacity, flows, flows.size());
}

namespace
{

/// A flow's links in a MaxMinFlowSet.
struct LinkRange
{
    const std::pair<uint32_t, double>* b;
    const std::pair<uint32_t, double>* e;

    const std::pair<uint32_t, double>* begin() const { return b; }
    const std::pair<uint32_t, double>* end() const { return e; }
};

} // namespace

const std::vector<double>&
MaxMinFairSolver::Solve(const std::vector<double>& capacity,
                        const std::vector<MaxMinFlow>& flows,
                        size_t nFlows)
{
    if (nFlows > flows.size())
    {
        throw std::invalid_argument("MaxMinFairSolver::Solve: nFlows " + std::to_string(nFlows)
                                    + " must be <= the number of flows, "
                                    + std::to_string(flows.size()));
    }
    return SolveImpl(
        capacity,
        nFlows,
        [&](size_t f) -> const std::vector<std::pair<uint32_t, double>>& { return flows[f].links; },
        [&](size_t f) { return flows[f].cap; });
}

const std::vector<double>&
MaxMinFairSolver::Solve(const std::vector<double>& capacity, const MaxMinFlowSet& flows)
{
    const size_t nf = flows.Size();
    if (flows.start.size() != nf + 1 || flows.start.back() != flows.links.size())
    {
        throw std::invalid_argument("MaxMinFairSolver::Solve: a MaxMinFlowSet needs one start "
                                    "per flow plus one, the last equal to the number of links");
    }
    const auto* base = flows.links.data();
    return SolveImpl(
        capacity,
        nf,
        [&](size_t f) {
            return LinkRange{base + flows.start[f], base + flows.start[f + 1]};
        },
        [&](size_t f) { return flows.cap[f]; });
}

template<typename LinksOf, typename CapOf>
const std::vector<double>&
MaxMinFairSolver::SolveImpl(const std::vector<double>& capacity,
                            size_t nf,
                            LinksOf linksOf,
                            CapOf capOf)
{
    const size_t nl = capacity.size();
    // Per link, side by side (one reset per call, one cache line per link visited): spare
    // capacity, unfrozen weight and flow count, level.
    auto& ls = m_links;
    if (ls.size() < nl)
    {
        ls.resize(nl); // never shrunk: a smaller instance does not make the next one re-grow
    }
    for (size_t l = 0; l < nl; ++l)
    {
        if (!(capacity[l] >= 0))
        {
            throw std::invalid_argument("MaxMinFairRates: capacity of link " + std::to_string(l)
                                        + " must be >= 0");
        }
        ls[l] = LinkState{capacity[l], 0, 0, 0};
    }
    // Link -> flows (CSR), unfrozen weight and flow count per link.
    auto& start = m_start;
    start.assign(nl + 1, 0);
    for (size_t f = 0; f < nf; ++f)
    {
        if (!(capOf(f) >= 0))
        {
            throw std::invalid_argument("MaxMinFairRates: cap of flow " + std::to_string(f)
                                        + " must be >= 0");
        }
        for (const auto& [l, w] : linksOf(f))
        {
            if (l >= nl)
            {
                throw std::invalid_argument("MaxMinFairRates: flow " + std::to_string(f)
                                            + " names link " + std::to_string(l) + ", valid [0, "
                                            + std::to_string(nl) + ")");
            }
            if (!(w > 0 && w <= 1))
            {
                throw std::invalid_argument("MaxMinFairRates: weight of flow " + std::to_string(f)
                                            + " must be in (0, 1]");
            }
            start[l + 1]++;
        }
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    auto& members = m_members;
    members.resize(start.back());
    auto& fill = m_fill;
    fill.assign(start.begin(), start.end() - 1);
    for (size_t f = 0; f < nf; ++f)
    {
        for (const auto& [l, w] : linksOf(f))
        {
            members[fill[l]++] = static_cast<uint32_t>(f);
            ls[l].weight += w;
            ls[l].count++;
        }
    }
    auto& rate = m_rate;
    rate.assign(nf, 0);
    auto& frozen = m_frozen;
    frozen.assign(nf, 0);

    // Each link's level (spare capacity per unit of unfrozen weight), kept current: a freeze
    // recomputes it on the links it touches only.
    auto level = [&](uint32_t l)
    {
        return std::max(0.0, ls[l].spare) / ls[l].weight;
    };
    // Min-heap of (level, link) in m_heap's storage, ordered by level, then link.
    using Entry = HeapEntry;
    auto& heap = m_heap;
    heap.clear();
    auto later = [](const Entry& a, const Entry& b)
    {
        return a.level > b.level || (a.level == b.level && a.link > b.link);
    };
    // Few links: a linear scan for the lowest level beats keeping a heap up to date. The scan
    // runs over the links that still have unfrozen flows, in index order (ties go to the
    // lowest index), dropping the others as it goes.
    const bool scan = nl <= 64;
    auto& active = m_active;
    active.clear();
    if (scan && active.capacity() < nl)
    {
        active.reserve(nl); // at most every link, once: no growth step by step
    }
    // The heap holds one entry per link, so its keys are distinct and its top (the lowest
    // key) does not depend on how the entries are laid out: it is built at once (Floyd) and
    // a stale top is replaced in place (one sift-down instead of a pop and a push). Entry e
    // goes into slot i or below; it travels by value and is written member by member (a
    // braced entry just stored to the stack and copied whole stalled on its narrower stores).
    auto siftDown = [&](size_t i, const double entryLevel, const uint32_t entryLink)
    {
        const size_t size = heap.size();
        const Entry e{entryLevel, entryLink};
        while (true)
        {
            size_t c = 2 * i + 1;
            if (c >= size)
            {
                break;
            }
            if (c + 1 < size && later(heap[c], heap[c + 1]))
            {
                ++c;
            }
            if (!later(e, heap[c]))
            {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        heap[i].level = entryLevel;
        heap[i].link = entryLink;
    };
    auto pop = [&]()
    {
        const Entry last = heap.back();
        heap.pop_back();
        if (!heap.empty())
        {
            siftDown(0, last.level, last.link);
        }
    };
    for (uint32_t l = 0; l < nl; ++l)
    {
        if (ls[l].count > 0)
        {
            ls[l].level = level(l);
            if (scan)
            {
                active.push_back(l);
            }
            else
            {
                heap.emplace_back();
                heap.back().level = ls[l].level;
                heap.back().link = l;
            }
        }
    }
    for (size_t i = heap.size() / 2; i-- > 0;)
    {
        siftDown(i, heap[i].level, heap[i].link);
    }
    // Flows with a finite cap, smallest first; flows without links are limited by their cap.
    auto& byCap = m_byCap;
    byCap.clear();
    if (byCap.capacity() < nf)
    {
        byCap.reserve(nf);
    }
    for (uint32_t f = 0; f < nf; ++f)
    {
        if (std::isfinite(capOf(f)))
        {
            byCap.push_back(f);
        }
    }
    std::sort(byCap.begin(),
              byCap.end(),
              [&](uint32_t a, uint32_t b)
              { return capOf(a) < capOf(b) || (capOf(a) == capOf(b) && a < b); });
    size_t nextCap = 0;

    auto freeze = [&](uint32_t f, double r)
    {
        frozen[f] = 1;
        rate[f] = r;
        for (const auto& [l, w] : linksOf(f))
        {
            LinkState& x = ls[l];
            x.spare -= w * r;
            x.count--;
            x.weight -= w;
            if (x.count > 0)
            {
                x.weight = std::max(x.weight, 1e-12);
                x.level = level(l);
            }
        }
    };

    while (true)
    {
        while (nextCap < byCap.size() && frozen[byCap[nextCap]])
        {
            ++nextCap;
        }
        uint32_t l = UINT32_MAX;
        double linkLevel = std::numeric_limits<double>::infinity();
        if (scan)
        {
            size_t kept = 0;
            for (size_t i = 0; i < active.size(); ++i)
            {
                const uint32_t a = active[i];
                if (ls[a].count == 0)
                {
                    continue;
                }
                active[kept++] = a;
                if (ls[a].level < linkLevel)
                {
                    linkLevel = ls[a].level;
                    l = a;
                }
            }
            active.resize(kept);
        }
        else
        {
            // A freeze at the water level never lowers a link's level (it takes at most the
            // link's fair share), so an entry whose level went up is replaced only when
            // it reaches the top: the top entry that is current is the lowest link.
            while (!heap.empty())
            {
                const uint32_t top = heap.front().link;
                if (ls[top].count == 0)
                {
                    pop();
                    continue;
                }
                const double now = ls[top].level;
                if (now == heap.front().level)
                {
                    break;
                }
                siftDown(0, now, top);
            }
            if (!heap.empty())
            {
                linkLevel = heap.front().level;
                l = heap.front().link;
            }
        }
        const bool haveCap = nextCap < byCap.size();
        if (l == UINT32_MAX && !haveCap)
        {
            break;
        }
        if (haveCap && capOf(byCap[nextCap]) <= linkLevel)
        {
            freeze(byCap[nextCap], capOf(byCap[nextCap]));
            continue;
        }
        if (!scan)
        {
            pop();
        }
        for (uint32_t i = start[l]; i < start[l + 1]; ++i)
        {
            if (!frozen[members[i]])
            {
                freeze(members[i], linkLevel);
            }
        }
    }
    // Flows with no link and no cap have nothing limiting them: report infinity honestly.
    for (uint32_t f = 0; f < nf; ++f)
    {
        if (!frozen[f])
        {
            rate[f] = std::numeric_limits<double>::infinity();
        }
    }
    return rate;
}

} // namespace ns3
