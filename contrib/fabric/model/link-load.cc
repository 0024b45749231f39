// SPDX-License-Identifier: GPL-2.0-only
#include "link-load.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
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

double
FluidSplit(const FabricRouting& routing,
           uint32_t srcHost,
           uint32_t dstHost,
           std::vector<std::pair<uint32_t, double>>& shares,
           uint32_t maxHops)
{
    const FabricGraph& g = routing.GetGraph();
    shares.clear();
    // One layer per hop, of (node, in port, share); equal states of a layer are merged, so
    // the work is bounded by the links, not by the number of paths.
    struct State
    {
        uint32_t node;
        uint32_t inPort;
        double share;
    };

    std::vector<State> layer{{srcHost, FabricRouting::NO_PORT, 1.0}};
    std::vector<State> next;
    double delivered = 0;
    for (uint32_t hop = 0; !layer.empty(); ++hop)
    {
        next.clear();
        for (const State& at : layer)
        {
            if (at.node == dstHost)
            {
                delivered += at.share;
                continue;
            }
            if (hop == maxHops)
            {
                continue;
            }
            const std::vector<uint32_t> ports = routing.Candidates(at.node, at.inPort, dstHost);
            for (uint32_t p : ports)
            {
                const double x = at.share / ports.size();
                shares.emplace_back(g.GetEgressDirLink(at.node, p), x);
                next.push_back({g.GetPeer(at.node, p), g.GetPeerPort(at.node, p), x});
            }
        }
        std::stable_sort(next.begin(),
                         next.end(),
                         [](const State& a, const State& b)
                         { return a.node != b.node ? a.node < b.node : a.inPort < b.inPort; });
        layer.clear();
        for (const State& s : next)
        {
            if (!layer.empty() && layer.back().node == s.node && layer.back().inPort == s.inPort)
            {
                layer.back().share += s.share;
            }
            else
            {
                layer.push_back(s);
            }
        }
    }
    std::stable_sort(shares.begin(),
                     shares.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t w = 0;
    for (size_t r = 0; r < shares.size(); ++r)
    {
        if (w > 0 && shares[w - 1].first == shares[r].first)
        {
            shares[w - 1].second += shares[r].second;
        }
        else
        {
            shares[w++] = shares[r];
        }
    }
    shares.resize(w);
    return delivered;
}

std::vector<uint32_t>
CandidateDirLinks(const FabricRouting& routing,
                  uint32_t srcHost,
                  uint32_t dstHost,
                  uint32_t maxHops)
{
    const FabricGraph& g = routing.GetGraph();
    // Breadth first, so every state is met first at its smallest hop count: it is expanded
    // exactly when FluidSplit would expand it in some layer (hop < maxHops).
    std::set<std::pair<uint32_t, uint32_t>> seen{{srcHost, FabricRouting::NO_PORT}};
    std::vector<std::pair<uint32_t, uint32_t>> layer{{srcHost, FabricRouting::NO_PORT}};
    std::vector<std::pair<uint32_t, uint32_t>> next;
    std::vector<uint32_t> links;
    for (uint32_t hop = 0; hop < maxHops && !layer.empty(); ++hop)
    {
        next.clear();
        for (const auto& [node, inPort] : layer)
        {
            if (node == dstHost)
            {
                continue;
            }
            for (uint32_t p : routing.Candidates(node, inPort, dstHost))
            {
                links.push_back(g.GetEgressDirLink(node, p));
                const std::pair<uint32_t, uint32_t> to{g.GetPeer(node, p), g.GetPeerPort(node, p)};
                if (seen.insert(to).second)
                {
                    next.push_back(to);
                }
            }
        }
        layer.swap(next);
    }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    return links;
}

std::vector<SharedLink>
FindSharedFabricLinks(const FabricRouting& routing, const std::vector<FlowSpec>& flows)
{
    const FabricGraph& g = routing.GetGraph();
    std::map<uint32_t, std::vector<uint32_t>> byLink;
    for (uint32_t f = 0; f < flows.size(); ++f)
    {
        const FabricPath p = TracePath(routing, flows[f].src, flows[f].dst, flows[f].Key());
        for (uint32_t d : p.dirLinks)
        {
            if (!g.IsHost(g.GetDirLinkTail(d)) && !g.IsHost(g.GetDirLinkHead(d)))
            {
                byLink[d].push_back(f);
            }
        }
    }
    std::vector<SharedLink> out;
    for (const auto& [d, fs] : byLink)
    {
        if (fs.size() > 1)
        {
            out.push_back({d, fs});
        }
    }
    return out;
}

} // namespace ns3
