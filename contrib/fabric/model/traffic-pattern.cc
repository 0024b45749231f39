// SPDX-License-Identifier: GPL-2.0-only
#include "traffic-pattern.h"

#include "fabric-addressing.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

uint64_t
TrafficFlowCount(TrafficPattern pattern, const TrafficPatternParams& p)
{
    const uint64_t n = p.hosts;
    switch (pattern)
    {
    case TrafficPattern::ALLREDUCE:
        return n * (n > 0 ? n - 1 : 0);
    case TrafficPattern::PREFILL:
    {
        const auto senders = static_cast<uint64_t>(std::llround(p.prefillFraction * n));
        return senders * (n - std::min(n, senders));
    }
    case TrafficPattern::ELEPHANTS:
        return p.elephants;
    case TrafficPattern::ALL_TO_ONE:
        return n > 0 ? n - 1 : 0;
    case TrafficPattern::PERMUTATION:
        return n;
    }
    return 0;
}

std::vector<FlowSpec>
MakeShiftedAllToAll(uint32_t hosts, uint64_t bytes, uint32_t steps, uint64_t seed)
{
    if (hosts < 2)
    {
        throw std::invalid_argument("all-to-all: hosts=" + std::to_string(hosts) + " must be >= 2");
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("all-to-all: bytes per flow must be >= 1");
    }
    std::vector<uint32_t> shifts;
    for (uint32_t j = 1; j < hosts; ++j)
    {
        shifts.push_back(j);
    }
    FabricRng rng(seed ^ 0x61326131ULL);
    for (size_t i = shifts.size(); i > 1; --i)
    {
        std::swap(shifts[i - 1], shifts[rng.Below(i)]);
    }
    if (steps > 0 && steps < shifts.size())
    {
        shifts.resize(steps);
    }
    if (shifts.size() > 16383)
    {
        throw std::invalid_argument("all-to-all: " + std::to_string(shifts.size())
                                    + " steps exceed 16383 (one UDP source port per step)");
    }
    std::vector<FlowSpec> flows;
    std::vector<int64_t> prev(hosts, -1);
    for (size_t j = 0; j < shifts.size(); ++j)
    {
        for (uint32_t i = 0; i < hosts; ++i)
        {
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = i;
            f.dst = (i + shifts[j]) % hosts;
            f.bytes = bytes;
            f.srcPort = static_cast<uint16_t>(49152 + j);
            f.after = prev[i];
            prev[i] = f.id;
            flows.push_back(f);
        }
    }
    return flows;
}

namespace
{
std::vector<uint32_t>
FlowsPerSource(const std::vector<FlowSpec>& flows, uint32_t hosts)
{
    std::vector<uint32_t> perSrc(hosts, 0);
    for (const auto& f : flows)
    {
        if (f.src >= hosts)
        {
            throw std::invalid_argument("flow source " + std::to_string(f.src) + " outside [0, "
                                        + std::to_string(hosts) + ")");
        }
        perSrc[f.src]++;
    }
    return perSrc;
}
} // namespace

std::vector<double>
HostShareRates(const std::vector<FlowSpec>& flows, uint32_t hosts, double hostRateBps)
{
    const auto perSrc = FlowsPerSource(flows, hosts);
    std::vector<double> rates;
    rates.reserve(flows.size());
    for (const auto& f : flows)
    {
        rates.push_back(hostRateBps / perSrc[f.src]);
    }
    return rates;
}

uint64_t
HostBudgetFlowBytes(const std::vector<FlowSpec>& flows,
                    uint32_t hosts,
                    uint64_t hostBytes,
                    uint32_t packetBytes)
{
    if (packetBytes == 0)
    {
        throw std::invalid_argument("HostBudgetFlowBytes: packet bytes must be >= 1");
    }
    const auto perSrc = FlowsPerSource(flows, hosts);
    const uint32_t maxPerSrc = std::max(1u, *std::max_element(perSrc.begin(), perSrc.end()));
    const uint64_t pkts = std::max<uint64_t>(1, (hostBytes / maxPerSrc) / packetBytes);
    return pkts * packetBytes;
}

std::vector<PatternCase>
ParsePatternCases(const std::vector<std::string>& items,
                  double defaultFraction,
                  const std::string& what)
{
    std::vector<PatternCase> out;
    for (const auto& item : items)
    {
        const size_t colon = item.find(':');
        PatternCase c{item, ParseTrafficPattern(item.substr(0, colon)), defaultFraction};
        if (colon != std::string::npos)
        {
            if (c.pattern != TrafficPattern::PREFILL)
            {
                throw std::invalid_argument(what
                                            + ": only prefill takes a fraction (prefill:0.5), "
                                              "got '"
                                            + item + "'");
            }
            char* end = nullptr;
            const std::string f = item.substr(colon + 1);
            c.prefillFraction = std::strtod(f.c_str(), &end);
            if (f.empty() || *end != '\0' || !(c.prefillFraction > 0 && c.prefillFraction < 1))
            {
                throw std::invalid_argument(what + ": prefill fraction in '" + item
                                            + "' must be a number in (0, 1)");
            }
        }
        out.push_back(c);
    }
    return out;
}

} // namespace ns3
