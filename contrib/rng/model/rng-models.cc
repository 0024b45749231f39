// SPDX-License-Identifier: GPL-2.0-only
#include "rng-models.h"

#include "ns3/link-load.h"
#include "ns3/traffic-pattern.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ns3
{

std::map<uint32_t, double>
ModelPathLength(uint32_t n, uint32_t d, uint32_t p, uint32_t levels)
{
    const uint32_t l = levels ? levels : SpraypointTables::PaperLevels(n, d, p);
    std::map<uint32_t, double> f;
    f[1] = 1.0 / n;
    double sum = f[1];
    for (uint32_t i = 2; i <= l + 2; ++i)
    {
        f[i] = std::pow(double(p), double(i - 2)) * d / n;
        sum += f[i];
    }
    f[l + 4] = std::exp(-std::pow(double(p), double(l)) * d * d / n);
    sum += f[l + 4];
    f[l + 3] = 1.0 - sum;
    return f;
}

double
ModelEdgeDisjointFraction(uint32_t d, uint32_t p, uint32_t h, bool neighbour)
{
    if (!neighbour)
    {
        return 1.0 - std::exp(-double(h));
    }
    const double alpha = 1.0 - double(p) / d;
    return std::min(alpha, 1.0 - std::exp(-alpha * h));
}

OversubModel
ModelOversubscription(uint32_t n, uint32_t d, uint32_t p, uint32_t h)
{
    OversubModel m;
    const double dn = double(d) / n;
    const double e = std::exp(-double(p) * d * d / n);
    m.mu2 = dn;
    m.phi3 = std::min(p * dn, 1 - dn) * (1 - dn) * (1 - std::pow(4 * dn, double(h)));
    m.kappa3 = std::pow(1 - m.phi3, 6) / 2 + std::pow(1 - m.phi3 * m.phi3, 3) / 6 + 1.0 / 3;
    m.mu3 = m.phi3 * m.kappa3;
    m.mu4 = (1 - (p + 1) * dn - e)
          * (1 - std::pow(1 - (1 - 2 * dn) * (1 - std::pow(4 * dn, double(h))), double(h)))
          * (1 - m.mu2 - 2 * m.mu3) / 4;
    m.mu5 = e * (1 - m.mu2 - 2 * m.mu3 - 3 * m.mu4) / 5;
    m.oversub = 1.0 / (m.mu2 + m.mu3 + m.mu4 + m.mu5);
    return m;
}

std::map<uint32_t, double>
MeasurePathLength(const SpraypointTables& tables,
                  const RouterGraph& g,
                  const std::vector<uint32_t>& dests)
{
    std::vector<uint64_t> count(SpraypointTables::UNREACHABLE + 2, 0);
    uint64_t total = 0;
    for (uint32_t t : dests)
    {
        for (uint32_t s = 0; s < g.GetN(); ++s)
        {
            if (s == t)
            {
                continue;
            }
            for (uint32_t w : g.Neighbours(s))
            {
                const uint8_t dw = tables.Distance(t, w);
                count[dw == SpraypointTables::UNREACHABLE ? 0 : 1 + dw]++;
                ++total;
            }
        }
    }
    std::map<uint32_t, double> f;
    for (uint32_t i = 0; i < count.size(); ++i)
    {
        if (count[i])
        {
            f[i] = double(count[i]) / total;
        }
    }
    return f;
}

uint32_t
CandidateMaxFlow(const FabricRouting& routing, const RngFabric& fab, uint32_t s, uint32_t t)
{
    using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
    using Graph = boost::adjacency_list<
        boost::vecS,
        boost::vecS,
        boost::directedS,
        boost::no_property,
        boost::property<
            boost::edge_capacity_t,
            long,
            boost::property<boost::edge_residual_capacity_t,
                            long,
                            boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
    const FabricGraph& g = routing.GetGraph();
    const uint32_t servers = fab.GetNServers();
    Graph fg(fab.GetNRouters());
    auto cap = boost::get(boost::edge_capacity, fg);
    auto rev = boost::get(boost::edge_reverse, fg);
    // The router links the routing can use from s's first server to t's (the links
    // FluidSplit would load, found by a reachability walk): each has capacity 1.
    for (uint32_t d :
         CandidateDirLinks(routing, s * fab.GetServersPerRouter(), t * fab.GetServersPerRouter()))
    {
        const uint32_t a = g.GetDirLinkTail(d);
        const uint32_t b = g.GetDirLinkHead(d);
        if (a < servers || b < servers)
        {
            continue; // a server link: not part of the router graph
        }
        auto e1 = boost::add_edge(a - servers, b - servers, fg).first;
        auto e2 = boost::add_edge(b - servers, a - servers, fg).first;
        cap[e1] = 1;
        cap[e2] = 0;
        rev[e1] = e2;
        rev[e2] = e1;
    }
    return static_cast<uint32_t>(boost::push_relabel_max_flow(fg, s, t));
}

MaxFlowSample
SampleCandidateMaxFlow(const FabricRouting& routing,
                       const SpraypointTables& tables,
                       const RngFabric& fab,
                       const std::vector<uint32_t>& dests,
                       uint32_t perDest,
                       bool nonNeighbour,
                       FabricRng& rng)
{
    const RouterGraph& g = fab.GetRouters();
    const uint32_t n = g.GetN();
    double sumN = 0;
    double sumO = 0;
    uint32_t cntN = 0;
    uint32_t cntO = 0;
    for (uint32_t t : dests)
    {
        const auto& nb = g.Neighbours(t);
        for (uint32_t i = 0; i < perDest; ++i)
        {
            sumN += CandidateMaxFlow(routing, fab, nb[rng.Below(nb.size())], t);
            ++cntN;
            if (!nonNeighbour)
            {
                continue;
            }
            uint32_t o;
            do
            {
                o = static_cast<uint32_t>(rng.Below(n));
            } while (o == t || tables.Distance(t, o) == 1);
            sumO += CandidateMaxFlow(routing, fab, o, t);
            ++cntO;
        }
    }
    MaxFlowSample r;
    r.neighbour = cntN ? sumN / cntN : 0.0;
    r.nonNeighbour = cntO ? sumO / cntO : 0.0;
    r.samples = cntN + cntO;
    return r;
}

std::vector<uint32_t>
SampleRouters(uint32_t n, uint32_t count, uint64_t seed)
{
    std::vector<uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    FabricRng rng(seed ^ 0x64657374ULL);
    for (size_t i = n; i > 1; --i)
    {
        std::swap(all[i - 1], all[rng.Below(i)]);
    }
    all.resize(std::min(n, count));
    return all;
}

FluidThroughput
MeasureFluidThroughput(const FabricRouting& routing,
                       const RngFabric& fab,
                       const std::vector<std::pair<uint32_t, uint32_t>>& flows)
{
    const FabricGraph& graph = routing.GetGraph();
    const RouterGraph& g = fab.GetRouters();
    const uint32_t servers = fab.GetNServers();
    std::vector<std::vector<std::pair<uint32_t, double>>> use(flows.size());
    std::vector<double> load(2 * graph.GetNLinks(), 0);
    FluidThroughput r;
    for (size_t f = 0; f < flows.size(); ++f)
    {
        FluidSplit(routing,
                   flows[f].first * fab.GetServersPerRouter(),
                   flows[f].second * fab.GetServersPerRouter(),
                   use[f]);
        // Lanes between routers only: server links are not part of the model.
        use[f].erase(std::remove_if(use[f].begin(),
                                    use[f].end(),
                                    [&](const std::pair<uint32_t, double>& u) {
                                        return graph.GetDirLinkTail(u.first) < servers
                                            || graph.GetDirLinkHead(u.first) < servers;
                                    }),
                     use[f].end());
        double hops = 0;
        for (const auto& [e, x] : use[f])
        {
            load[e] += x;
            hops += x;
        }
        r.meanPathHops += hops / flows.size();
    }
    r.maxLinkLoad = *std::max_element(load.begin(), load.end());
    r.uniformRate = r.maxLinkLoad > 0 ? 1.0 / r.maxLinkLoad : 0;

    // Max-min fair by progressive filling; a flow is also capped at its source's d lanes.
    std::vector<double> rate(flows.size(), 0);
    std::vector<char> frozen(flows.size(), 0);
    std::vector<double> used(load.size(), 0);
    std::vector<double> weight(load.size(), 0);
    size_t active = flows.size();
    while (active > 0)
    {
        std::fill(weight.begin(), weight.end(), 0);
        double step = 1e300;
        for (size_t f = 0; f < flows.size(); ++f)
        {
            if (!frozen[f])
            {
                for (const auto& [e, x] : use[f])
                {
                    weight[e] += x;
                }
                step = std::min(step, double(g.GetDegree(flows[f].first)) - rate[f]);
            }
        }
        for (size_t e = 0; e < load.size(); ++e)
        {
            if (weight[e] > 0)
            {
                step = std::min(step, (1.0 - used[e]) / weight[e]);
            }
        }
        step = std::max(step, 0.0);
        for (size_t e = 0; e < load.size(); ++e)
        {
            used[e] += step * weight[e];
        }
        for (size_t f = 0; f < flows.size(); ++f)
        {
            if (frozen[f])
            {
                continue;
            }
            rate[f] += step;
            bool stop = rate[f] >= g.GetDegree(flows[f].first) - 1e-9;
            for (const auto& [e, x] : use[f])
            {
                stop = stop || used[e] >= 1.0 - 1e-9;
            }
            if (stop)
            {
                frozen[f] = 1;
                --active;
            }
        }
    }
    r.maxMinMean = std::accumulate(rate.begin(), rate.end(), 0.0) / rate.size();
    r.maxMinMin = *std::min_element(rate.begin(), rate.end());
    return r;
}

std::vector<std::pair<uint32_t, uint32_t>>
RandomRouterPermutation(uint32_t n, uint64_t seed)
{
    if (n < 2)
    {
        throw std::invalid_argument("RandomRouterPermutation: n must be >= 2");
    }
    FabricRng rng(seed ^ 0x7065726dULL);
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    // Sattolo's algorithm: a uniformly random cyclic permutation (no fixed points).
    for (uint32_t i = n - 1; i > 0; --i)
    {
        std::swap(perm[i], perm[rng.Below(i)]);
    }
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    for (uint32_t i = 0; i < n; ++i)
    {
        flows.emplace_back(i, perm[i]);
    }
    return flows;
}

} // namespace ns3
