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
 * Ring AllReduce of \p bytesPerHost on every host: the data is cut into n chunks (sizes
 * differing by at most one byte, together exactly bytesPerHost); n-1 reduce-scatter steps, in
 * step s host i sends chunk (i - s) mod n to host (i + 1) mod n, after which host i holds the
 * reduced chunk (i + 1) mod n; then n-1 all-gather steps, in step s host i sends chunk
 * (i + 1 - s) mod n to its successor. 2(n-1) steps of n neighbour transfers: n flows at a time
 * instead of the n(n-1) of the all-pairs matrix. Step t's flows have FlowSpec::phase t and
 * source port 49152 + t.
 * \param pipelined false: a step starts when the whole previous step completed (phases, a
 *        barrier); true: host i's step-t flow starts as soon as the step-(t-1) chunk it
 *        forwards has arrived from its predecessor (FlowSpec::after, no barrier; phase 0
 *        for all)
 * \throws std::invalid_argument unless 2 <= hosts <= 8192 (one source port per step) and
 *         bytesPerHost >= hosts
 */
std::vector<FlowSpec> MakeRingAllReduce(uint32_t hosts, uint64_t bytesPerHost, bool pipelined);

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
