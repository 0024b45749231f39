// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-routed-mlu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

OcsRoutedLoad
RouteDemandEcmp(const OcsMatrix& topology, const std::vector<double>& demand, double capacity)
{
    const uint32_t n = topology.GetN();
    if (demand.size() != size_t(n) * n)
    {
        throw std::invalid_argument("RouteDemandEcmp: demand has " + std::to_string(demand.size())
                                    + " entries for " + std::to_string(n) + " EGs");
    }
    if (!(capacity > 0) || !std::isfinite(capacity))
    {
        throw std::invalid_argument("RouteDemandEcmp: capacity must be > 0");
    }
    for (double d : demand)
    {
        if (!(d >= 0) || !std::isfinite(d))
        {
            throw std::invalid_argument("RouteDemandEcmp: demand entries must be finite and >= 0");
        }
    }
    OcsRoutedLoad out;
    // load[u * n + v]: traffic from EG u to EG v over their direct links.
    std::vector<double> load(size_t(n) * n, 0.0);
    std::vector<uint32_t> dist(n);
    std::vector<uint32_t> order;
    std::vector<double> through(n);
    for (uint32_t dst = 0; dst < n; ++dst)
    {
        // BFS from the destination (links are symmetric).
        std::fill(dist.begin(), dist.end(), UINT32_MAX);
        order.assign(1, dst);
        dist[dst] = 0;
        for (size_t i = 0; i < order.size(); ++i)
        {
            const uint32_t u = order[i];
            for (uint32_t v = 0; v < n; ++v)
            {
                if (v != u && topology(u, v) > 0 && dist[v] == UINT32_MAX)
                {
                    dist[v] = dist[u] + 1;
                    order.push_back(v);
                }
            }
        }
        // Traffic toward dst at each EG: its own demand plus what others pass through it.
        for (uint32_t u = 0; u < n; ++u)
        {
            through[u] = u == dst ? 0.0 : demand[size_t(u) * n + dst];
            if (u != dst && dist[u] == UINT32_MAX)
            {
                out.unroutedDemand += through[u];
                through[u] = 0;
            }
            else if (u != dst && dist[u] > 1)
            {
                out.multiHopDemand += through[u];
            }
        }
        // Farthest first: split each EG's traffic equally over its links one hop closer.
        for (size_t i = order.size(); i-- > 1;)
        {
            const uint32_t u = order[i];
            if (through[u] == 0)
            {
                continue;
            }
            int64_t links = 0;
            for (uint32_t v = 0; v < n; ++v)
            {
                if (v != u && topology(u, v) > 0 && dist[v] + 1 == dist[u])
                {
                    links += topology(u, v);
                }
            }
            for (uint32_t v = 0; v < n; ++v)
            {
                if (v != u && topology(u, v) > 0 && dist[v] + 1 == dist[u])
                {
                    const double share = through[u] * double(topology(u, v)) / double(links);
                    load[size_t(u) * n + v] += share;
                    through[v] += v == dst ? 0.0 : share;
                }
            }
        }
    }
    for (uint32_t u = 0; u < n; ++u)
    {
        for (uint32_t v = 0; v < n; ++v)
        {
            if (u != v && topology(u, v) > 0)
            {
                out.mlu = std::max(out.mlu,
                                   load[size_t(u) * n + v] / (double(topology(u, v)) * capacity));
            }
        }
    }
    return out;
}

} // namespace ns3
