// SPDX-License-Identifier: GPL-2.0-only
#include "traffic-pattern.h"

#include "fabric-addressing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ns3
{

FlowKey
FlowSpec::Key() const
{
    FlowKey k;
    k.srcAddr = FabricAddressing::HostAddress(src);
    k.dstAddr = FabricAddressing::HostAddress(dst);
    k.srcPort = SourcePort();
    k.dstPort = dstPort;
    k.protocol = 17;
    return k;
}

uint16_t
FlowSpec::SourcePort() const
{
    if (srcPort != 0)
    {
        return srcPort;
    }
    const uint64_t h = FabricMix64((uint64_t(src) << 40) ^ (uint64_t(dst) << 16) ^ id);
    return static_cast<uint16_t>(49152 + h % 16384);
}

void
FlowSpec::Validate(uint32_t nHosts) const
{
    const std::string flow = "flow " + std::to_string(id) + " (" + std::to_string(src) + " -> "
                           + std::to_string(dst) + "): ";
    if (src >= nHosts || dst >= nHosts)
    {
        throw std::invalid_argument(flow + "src and dst must be hosts in [0, "
                                    + std::to_string(nHosts) + ")");
    }
    if (src == dst)
    {
        throw std::invalid_argument(flow + "src and dst must differ");
    }
    if (bytes == 0)
    {
        throw std::invalid_argument(flow + "bytes must be >= 1");
    }
    if (!(startS >= 0) || !std::isfinite(startS))
    {
        throw std::invalid_argument(flow + "startS must be a finite time >= 0 s");
    }
    if (dstPort == 0)
    {
        throw std::invalid_argument(flow + "dstPort must be in [1, 65535]");
    }
}

TrafficPattern
ParseTrafficPattern(const std::string& name)
{
    static const std::pair<const char*, TrafficPattern> names[] = {
        {"allreduce", TrafficPattern::ALLREDUCE},
        {"prefill", TrafficPattern::PREFILL},
        {"elephants", TrafficPattern::ELEPHANTS},
        {"all-to-one", TrafficPattern::ALL_TO_ONE},
        {"permutation", TrafficPattern::PERMUTATION},
    };
    for (const auto& [n, p] : names)
    {
        if (name == n)
        {
            return p;
        }
    }
    throw std::invalid_argument("pattern '" + name
                                + "' unknown; valid: allreduce|prefill|elephants|all-to-one|"
                                  "permutation");
}

std::string
TrafficPatternName(TrafficPattern p)
{
    switch (p)
    {
    case TrafficPattern::ALLREDUCE:
        return "allreduce";
    case TrafficPattern::PREFILL:
        return "prefill";
    case TrafficPattern::ELEPHANTS:
        return "elephants";
    case TrafficPattern::ALL_TO_ONE:
        return "all-to-one";
    case TrafficPattern::PERMUTATION:
        return "permutation";
    }
    return "?";
}

namespace
{

void
AddFlow(std::vector<FlowSpec>& flows,
        std::vector<uint32_t>& perSrc,
        uint32_t src,
        uint32_t dst,
        uint64_t bytes)
{
    if (perSrc[src] >= 16384)
    {
        throw std::invalid_argument("traffic: more than 16384 flows from one host");
    }
    FlowSpec f;
    f.id = static_cast<uint32_t>(flows.size());
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.srcPort = static_cast<uint16_t>(49152 + perSrc[src]++);
    flows.push_back(f);
}

} // namespace

std::vector<FlowSpec>
MakeTraffic(TrafficPattern pattern, const TrafficPatternParams& p)
{
    const uint32_t n = p.hosts;
    if (n < 2)
    {
        throw std::invalid_argument("traffic: hosts must be >= 2 (got " + std::to_string(n) + ")");
    }
    if (p.bytes == 0)
    {
        throw std::invalid_argument("traffic: bytes per flow must be >= 1");
    }
    std::vector<FlowSpec> flows;
    std::vector<uint32_t> perSrc(n, 0);
    FabricRng rng(p.seed);
    switch (pattern)
    {
    case TrafficPattern::ALLREDUCE:
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                if (i != j)
                {
                    AddFlow(flows, perSrc, i, j, p.bytes);
                }
            }
        }
        break;
    case TrafficPattern::PREFILL:
    {
        if (!(p.prefillFraction > 0 && p.prefillFraction < 1))
        {
            throw std::invalid_argument("prefill-fraction must be in (0, 1) (got "
                                        + std::to_string(p.prefillFraction) + ")");
        }
        const auto senders = static_cast<uint32_t>(std::llround(p.prefillFraction * n));
        if (senders < 1 || senders >= n)
        {
            throw std::invalid_argument("prefill-fraction * hosts must round to [1, hosts-1]");
        }
        for (uint32_t i = 0; i < senders; ++i)
        {
            for (uint32_t j = senders; j < n; ++j)
            {
                AddFlow(flows, perSrc, i, j, p.bytes);
            }
        }
        break;
    }
    case TrafficPattern::ELEPHANTS:
    {
        if (p.elephants < 1 || p.elephants > n)
        {
            throw std::invalid_argument("elephants must be in [1, hosts=" + std::to_string(n)
                                        + "] (got " + std::to_string(p.elephants) + ")");
        }
        // Distinct sources (a GPU pushes one elephant); destinations any other host.
        std::vector<uint32_t> src(n);
        std::iota(src.begin(), src.end(), 0);
        for (uint32_t e = 0; e < p.elephants; ++e)
        {
            std::swap(src[e], src[e + rng.Below(n - e)]);
            uint32_t dst = static_cast<uint32_t>(rng.Below(n - 1));
            dst += (dst >= src[e]) ? 1 : 0;
            AddFlow(flows, perSrc, src[e], dst, p.bytes);
        }
        break;
    }
    case TrafficPattern::ALL_TO_ONE:
        if (p.allToOneDst >= n)
        {
            throw std::invalid_argument("all-to-one destination must be in [0, "
                                        + std::to_string(n - 1) + "]");
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            if (i != p.allToOneDst)
            {
                AddFlow(flows, perSrc, i, p.allToOneDst, p.bytes);
            }
        }
        break;
    case TrafficPattern::PERMUTATION:
    {
        // Random derangement by Sattolo's algorithm: a single n-cycle, no fixed point.
        std::vector<uint32_t> perm(n);
        std::iota(perm.begin(), perm.end(), 0);
        for (uint32_t i = n - 1; i > 0; --i)
        {
            std::swap(perm[i], perm[rng.Below(i)]);
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            AddFlow(flows, perSrc, i, perm[i], p.bytes);
        }
        break;
    }
    }
    return flows;
}

} // namespace ns3
