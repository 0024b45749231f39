// SPDX-License-Identifier: GPL-2.0-only
#include "flow-collectives.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

std::vector<FlowSpec>
MakeHalvingDoublingAllReduce(uint32_t hosts, uint64_t bytesPerHost)
{
    if (hosts < 2 || (hosts & (hosts - 1)) != 0)
    {
        throw std::invalid_argument("halving-doubling AllReduce: hosts must be a power of two "
                                    ">= 2 (got "
                                    + std::to_string(hosts) + ")");
    }
    if (bytesPerHost < hosts)
    {
        throw std::invalid_argument("halving-doubling AllReduce: bytes per host must be >= "
                                    "hosts ("
                                    + std::to_string(hosts) + ")");
    }
    uint32_t steps = 0;
    while ((1u << steps) < hosts)
    {
        ++steps;
    }
    std::vector<FlowSpec> flows;
    flows.reserve(size_t(2) * steps * hosts);
    for (uint32_t phase = 0; phase < 2 * steps; ++phase)
    {
        // Reduce-scatter halves the data each step; all-gather doubles it back.
        const uint32_t s = phase < steps ? phase : 2 * steps - 1 - phase;
        const uint64_t bytes = bytesPerHost >> (s + 1);
        for (uint32_t i = 0; i < hosts; ++i)
        {
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = i;
            f.dst = i ^ (1u << s);
            f.bytes = bytes;
            f.phase = phase;
            f.srcPort = static_cast<uint16_t>(49152 + phase);
            flows.push_back(f);
        }
    }
    return flows;
}

std::vector<FlowSpec>
MakeRingAllReduce(uint32_t hosts, uint64_t bytesPerHost, bool pipelined)
{
    if (hosts < 2 || hosts > 8192)
    {
        throw std::invalid_argument("ring AllReduce: hosts must be in [2, 8192] (one UDP source "
                                    "port per step; got "
                                    + std::to_string(hosts) + ")");
    }
    if (bytesPerHost < hosts)
    {
        throw std::invalid_argument("ring AllReduce: bytes per host must be >= hosts ("
                                    + std::to_string(hosts) + ")");
    }
    const uint64_t base = bytesPerHost / hosts;
    const uint64_t extra = bytesPerHost % hosts; // chunks [0, extra) carry one byte more
    auto chunkBytes = [base, extra](uint32_t c)
    {
        return base + (c < extra ? 1 : 0);
    };
    const uint32_t steps = 2 * (hosts - 1);
    std::vector<FlowSpec> flows;
    flows.reserve(size_t(steps) * hosts);
    for (uint32_t t = 0; t < steps; ++t)
    {
        // Reduce-scatter (t < n-1) forwards chunk i - s; all-gather forwards chunk i + 1 - s.
        const bool gather = t >= hosts - 1;
        const uint32_t s = gather ? t - (hosts - 1) : t;
        for (uint32_t i = 0; i < hosts; ++i)
        {
            const uint32_t chunk = (i + (gather ? 1 : 0) + hosts - s) % hosts;
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = i;
            f.dst = (i + 1) % hosts;
            f.bytes = chunkBytes(chunk);
            f.srcPort = static_cast<uint16_t>(49152 + t);
            if (pipelined)
            {
                // What host i forwards in step t arrived from its predecessor in step t-1.
                if (t > 0)
                {
                    f.after = int64_t(t - 1) * hosts + (i + hosts - 1) % hosts;
                }
            }
            else
            {
                f.phase = t;
            }
            flows.push_back(f);
        }
    }
    return flows;
}

std::vector<FlowSpec>
MakePrefillDecodePairs(uint32_t hosts, double fraction, uint64_t bytes)
{
    const auto prefill = static_cast<uint32_t>(std::llround(fraction * hosts));
    if (!(fraction > 0 && fraction < 1) || prefill < 1 || prefill >= hosts)
    {
        throw std::invalid_argument("prefill-decode: fraction * hosts must round to [1, hosts-1]");
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("prefill-decode: bytes must be >= 1");
    }
    std::vector<FlowSpec> flows;
    std::vector<uint32_t> perSrc(prefill, 0);
    for (uint32_t j = prefill; j < hosts; ++j)
    {
        FlowSpec f;
        f.id = static_cast<uint32_t>(flows.size());
        f.src = (j - prefill) % prefill;
        f.dst = j;
        f.bytes = bytes;
        f.srcPort = static_cast<uint16_t>(49152 + perSrc[f.src]++);
        flows.push_back(f);
    }
    return flows;
}

} // namespace ns3
