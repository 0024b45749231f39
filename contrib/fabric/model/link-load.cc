// SPDX-License-Identifier: GPL-2.0-only
#include "link-load.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

std::vector<double>
ComputeDirLinkLoads(const FabricRouting& routing,
                    const std::vector<FlowSpec>& flows,
                    const std::vector<double>& weight,
                    uint32_t* undelivered)
{
    if (weight.size() != flows.size())
    {
        throw std::invalid_argument("ComputeDirLinkLoads: one weight per flow expected");
    }
    std::vector<double> load(2 * static_cast<size_t>(routing.GetGraph().GetNLinks()), 0.0);
    for (size_t f = 0; f < flows.size(); ++f)
    {
        const FabricPath path = TracePath(routing, flows[f].src, flows[f].dst, flows[f].Key());
        if (!path.delivered && undelivered)
        {
            ++*undelivered;
        }
        for (uint32_t d : path.dirLinks)
        {
            load[d] += weight[f];
        }
    }
    return load;
}

ImbalanceStats
ComputeImbalance(const std::vector<double>& loads, const std::vector<uint32_t>& set)
{
    ImbalanceStats s;
    double sum = 0;
    for (uint32_t d : set)
    {
        const double x = loads.at(d);
        s.max = std::max(s.max, x);
        sum += x;
        s.loadedLinks += (x > 0) ? 1 : 0;
    }
    s.links = static_cast<uint32_t>(set.size());
    if (s.links == 0 || sum <= 0)
    {
        return s;
    }
    s.mean = sum / s.links;
    s.imbalance = s.max / s.mean;
    s.loadedImbalance = s.max / (sum / s.loadedLinks);
    return s;
}

MeanStd
ComputeMeanStd(const std::vector<double>& xs)
{
    MeanStd r;
    if (xs.empty())
    {
        return r;
    }
    double sum = 0;
    for (double x : xs)
    {
        sum += x;
    }
    r.mean = sum / xs.size();
    double var = 0;
    for (double x : xs)
    {
        var += (x - r.mean) * (x - r.mean);
    }
    r.std = std::sqrt(var / xs.size());
    return r;
}

} // namespace ns3
