// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_COLLECTIVES_H
#define FLOW_COLLECTIVES_H

#include "ns3/traffic-pattern.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * AllReduce of \p bytesPerHost on every host by recursive halving (reduce-scatter) then
 * recursive doubling (all-gather), Rabenseifner's algorithm: 2 log2(n) steps, chained as
 * phases (a step starts when the whole previous step completed). In reduce-scatter step s
 * host i exchanges bytesPerHost / 2^(s+1) with host i XOR 2^s; all-gather mirrors it. n log n
 * flows instead of the n^2 of the uniform all-pairs matrix (MakeTraffic ALLREDUCE), which
 * is what makes 16k GPUs tractable; every host still exchanges with every bit-neighbour.
 * \throws std::invalid_argument unless n is a power of two >= 2 and bytesPerHost >= n
 */
std::vector<FlowSpec> MakeHalvingDoublingAllReduce(uint32_t hosts, uint64_t bytesPerHost);

/**
 * \ingroup flow
 * Disaggregated inference KV transfer with fixed partners: the first round(fraction * n)
 * hosts are Prefill, the rest Decode; Decode host j receives \p bytes from Prefill host
 * (j - P) mod P. Both roles are contiguous blocks, as in the ZCube paper §3.2, with one flow
 * per Decode host (MakeTraffic PREFILL sends from every Prefill host to every Decode host).
 * \throws std::invalid_argument on a fraction that leaves either role empty
 */
std::vector<FlowSpec> MakePrefillDecodePairs(uint32_t hosts, double fraction, uint64_t bytes);

} // namespace ns3

#endif // FLOW_COLLECTIVES_H
