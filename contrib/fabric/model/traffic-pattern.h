// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAFFIC_PATTERN_H
#define TRAFFIC_PATTERN_H

#include "ns3/fabric-rng.h"
#include "ns3/flow-key.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * One flow of a traffic pattern, as both the analytic and the packet-level runs use it.
 * Hosts are 0-based (paper GPU i is host i-1).
 */
struct FlowSpec
{
    uint32_t id{0};
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0}; //!< message size (application payload)
    double startS{0};  //!< start time in seconds
    /// UDP source port (the ECMP entropy); 0 = a deterministic ephemeral port (SourcePort()).
    uint16_t srcPort{0};
    uint16_t dstPort{ROCEV2_UDP_PORT};
    /// Start only after flow \p after (an id) completed; startS is then a delay after that.
    int64_t after{-1};
    /// Collective step: a flow of phase p > 0 starts when every flow of phase p-1 completed
    /// (startS is then a delay after that). Phases are numbered from 0 without gaps.
    uint32_t phase{0};

    /**
     * The source port on the wire: srcPort, or for srcPort 0 a port in the ephemeral range
     * [49152, 65535] drawn from a hash of (src, dst, id) - the same in every run, in the
     * analytic walk and at packet level.
     */
    uint16_t SourcePort() const;

    /// The 5-tuple on the wire: primary host addresses (FabricAddressing), UDP, SourcePort().
    FlowKey Key() const;

    /**
     * Check the flow against a fabric of \p nHosts hosts.
     * \throws std::invalid_argument naming the flow (its id) and the field: src/dst not a
     *         host or equal, bytes 0, a negative or non-finite startS, dstPort 0
     */
    void Validate(uint32_t nHosts) const;
};

/// Traffic patterns of the ZCube paper (§5.4, §7.2) and common collectives.
enum class TrafficPattern
{
    ALLREDUCE,   //!< every ordered pair, equal volume
    PREFILL,     //!< the first x% of hosts send to every other host (contiguous blocks)
    ELEPHANTS,   //!< a number of random (src, dst) pairs, distinct sources
    ALL_TO_ONE,  //!< every host to one destination
    PERMUTATION, //!< a random derangement: every host sends to one, receives from one
};

/// Parse "allreduce|prefill|elephants|all-to-one|permutation".
/// \throws std::invalid_argument naming the valid values
TrafficPattern ParseTrafficPattern(const std::string& name);
std::string TrafficPatternName(TrafficPattern p);

/**
 * \ingroup fabric
 * Parameters of a pattern; only those the pattern uses are read.
 */
struct TrafficPatternParams
{
    uint32_t hosts{0};
    uint64_t bytes{1000000}; //!< per flow
    double prefillFraction{0.25};
    uint32_t elephants{8};
    uint32_t allToOneDst{0};
    uint64_t seed{1}; //!< for the random patterns
};

/**
 * Generate a pattern's flows. Source ports are 49152 + (index of the flow among its source's
 * flows), so every flow of a host has its own port and the same flows always get the same
 * keys; hash seeds, not ports, vary the ECMP draw.
 * \throws std::invalid_argument on a parameter outside its valid range (named in the message)
 */
std::vector<FlowSpec> MakeTraffic(TrafficPattern pattern, const TrafficPatternParams& params);

/**
 * The number of flows MakeTraffic(pattern, params) gives, without generating them (for
 * estimates before allocating). Parameters are not validated here.
 */
uint64_t TrafficFlowCount(TrafficPattern pattern, const TrafficPatternParams& params);

/**
 * All-to-all as steps of shifted permutations: in step j every host i sends \p bytes to host
 * (i + shift_j) mod hosts from UDP source port 49152 + j, and starts its step-j flow when its
 * step-(j-1) flow completed (FlowSpec::after: pairwise exchange without a global barrier). The
 * shifts are \p steps distinct values of [1, hosts-1] in a seeded random order (all hosts-1
 * when steps is 0 or >= hosts-1).
 * \throws std::invalid_argument when hosts < 2, bytes == 0 or more than 16383 steps (one
 * source port each)
 */
std::vector<FlowSpec> MakeShiftedAllToAll(uint32_t hosts,
                                          uint64_t bytes,
                                          uint32_t steps,
                                          uint64_t seed);

/**
 * Per-flow sending rates when every source host splits \p hostRateBps evenly over its flows.
 * \param hosts number of hosts (every flow's src must be below it)
 */
std::vector<double> HostShareRates(const std::vector<FlowSpec>& flows,
                                   uint32_t hosts,
                                   double hostRateBps);

/**
 * Bytes per flow (whole packets of \p packetBytes, at least one) so that the busiest source
 * host sends about \p hostBytes in all.
 */
uint64_t HostBudgetFlowBytes(const std::vector<FlowSpec>& flows,
                             uint32_t hosts,
                             uint64_t hostBytes,
                             uint32_t packetBytes);

/// One entry of a pattern list: a traffic pattern with its own prefill fraction.
struct PatternCase
{
    std::string key; //!< as written ("prefill:0.5"), e.g. the key in summary.json
    TrafficPattern pattern;
    double prefillFraction;
};

/**
 * Parse pattern names (ParseTrafficPattern), where "prefill:x" gives Prefill its own fraction
 * x in (0, 1); other entries get \p defaultFraction.
 * \param what the parameter's name for messages (e.g. "--pattern")
 * \throws std::invalid_argument naming \p what and the bad entry
 */
std::vector<PatternCase> ParsePatternCases(const std::vector<std::string>& items,
                                           double defaultFraction,
                                           const std::string& what = "--pattern");

} // namespace ns3

#endif // TRAFFIC_PATTERN_H
