// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-phased-workload.h"

#include "ns3/fabric-rng.h"
#include "ns3/log.h"
#include "ns3/ocs-toe-workload.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsPhasedWorkload");

OcsPhasedWorkload
OcsMoeWorkload(uint32_t egs, uint32_t layers, uint32_t k, uint64_t seed)
{
    if (egs < 2 || egs % 2)
    {
        throw std::invalid_argument("OcsMoeWorkload: egs must be even and >= 2 (EGs are paired), "
                                    "got "
                                    + std::to_string(egs));
    }
    if (layers == 0 || k == 0)
    {
        throw std::invalid_argument("OcsMoeWorkload: layers and k must be >= 1, got layers="
                                    + std::to_string(layers) + " k=" + std::to_string(k));
    }
    OcsPhasedWorkload out;
    FabricRng rng(seed);
    for (uint32_t l = 0; l < layers; ++l)
    {
        std::vector<double> d(size_t(egs) * egs, 0.0);
        for (uint32_t m = 0; m < k; ++m)
        {
            std::vector<uint32_t> perm(egs);
            for (uint32_t i = 0; i < egs; ++i)
            {
                perm[i] = i;
            }
            for (uint32_t i = egs - 1; i > 0; --i)
            {
                std::swap(perm[i], perm[rng.Below(i + 1)]);
            }
            for (uint32_t i = 0; i + 1 < egs; i += 2)
            {
                const uint32_t a = perm[i];
                const uint32_t b = perm[i + 1];
                d[size_t(a) * egs + b] += 0.5 + double(rng.Below(1000)) / 1000.0;
                d[size_t(b) * egs + a] += 0.5 + double(rng.Below(1000)) / 1000.0;
            }
        }
        out.demands.push_back(d);
    }
    out.sending = out.demands;
    return out;
}

OcsPhasedWorkload
OcsJobTraceWorkload(uint32_t egs, uint32_t hostsPerEg, uint32_t steps, uint64_t seed)
{
    if (steps == 0)
    {
        throw std::invalid_argument("OcsJobTraceWorkload: steps must be >= 1");
    }
    const uint32_t h = hostsPerEg;
    OcsToeWorkload w(egs, h, seed, 0.5, {2 * h, 3 * h, 4 * h}, 4.0);
    OcsPhasedWorkload out;
    std::vector<std::vector<OcsToeJob>> jobs;
    for (uint32_t s = 0; s < steps; ++s)
    {
        if (s > 0)
        {
            w.Step();
        }
        out.demands.push_back(w.Demand());
        jobs.push_back(w.GetJobs());
    }
    for (uint32_t s = 0; s < steps; ++s)
    {
        std::vector<double> d = out.demands[s];
        if (s + 1 < steps)
        {
            for (const OcsToeJob& j : jobs[s])
            {
                const bool stays = std::any_of(jobs[s + 1].begin(),
                                               jobs[s + 1].end(),
                                               [&j](const OcsToeJob& k)
                                               { return k.seed == j.seed && k.egs == j.egs; });
                if (!stays)
                {
                    for (uint32_t a : j.egs)
                    {
                        for (uint32_t b : j.egs)
                        {
                            d[size_t(a) * egs + b] = 0;
                        }
                    }
                }
            }
        }
        out.sending.push_back(d);
    }
    return out;
}

std::vector<FlowSpec>
OcsDemandFlows(const std::vector<double>& demand,
               uint32_t egs,
               uint32_t hostsPerEg,
               double bytesPerUnit,
               uint32_t firstId)
{
    if (demand.size() != size_t(egs) * egs || hostsPerEg == 0 || !(bytesPerUnit > 0))
    {
        throw std::invalid_argument("OcsDemandFlows: the demand must be egs x egs ("
                                    + std::to_string(size_t(egs) * egs) + " entries, got "
                                    + std::to_string(demand.size())
                                    + "), hostsPerEg >= 1 and bytesPerUnit > 0");
    }
    std::vector<FlowSpec> flows;
    for (uint32_t a = 0; a < egs; ++a)
    {
        for (uint32_t b = 0; b < egs; ++b)
        {
            const double x = demand[size_t(a) * egs + b];
            if (a == b || x <= 0)
            {
                continue;
            }
            for (uint32_t i = 0; i < hostsPerEg; ++i)
            {
                FlowSpec f;
                f.id = firstId + uint32_t(flows.size());
                f.src = a * hostsPerEg + i;
                f.dst = b * hostsPerEg + i;
                f.bytes = std::max<uint64_t>(1000, uint64_t(x * bytesPerUnit / hostsPerEg));
                flows.push_back(f);
            }
        }
    }
    return flows;
}

bool
OcsEgReachable(const OcsMatrix& l, uint32_t a, uint32_t b)
{
    std::vector<uint8_t> seen(l.GetN(), 0);
    std::vector<uint32_t> queue{a};
    seen[a] = 1;
    for (size_t i = 0; i < queue.size(); ++i)
    {
        for (uint32_t v = 0; v < l.GetN(); ++v)
        {
            if (!seen[v] && l(queue[i], v) > 0)
            {
                seen[v] = 1;
                queue.push_back(v);
            }
        }
    }
    return seen[b] != 0;
}

} // namespace ns3
