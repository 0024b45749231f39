// SPDX-License-Identifier: GPL-2.0-only
#ifndef RNG_MODELS_H
#define RNG_MODELS_H

#include "ns3/fabric-rng.h"
#include "ns3/fabric-routing.h"
#include "ns3/rng-topology.h"
#include "ns3/spraypoint-tables.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup rng
 * Model 7.2 (RNG paper §7.2, §E.2): fraction of Spraypoint paths of each length, keyed by
 * hop count (router-to-router links): 1/n for 1, p^(i-2) d/n for 2 <= i <= l+2,
 * exp(-p^l d^2/n) for l+4, the rest for l+3. Values are the paper's formulas as written (for
 * pd > n they exceed 1 or go negative; the paper notes lower-order terms matter there).
 * \param levels l (0: the paper's rule)
 */
std::map<uint32_t, double> ModelPathLength(uint32_t n, uint32_t d, uint32_t p, uint32_t levels = 0);

/**
 * \ingroup rng
 * Model 7.1 (§7.1, §F.3): expected number of edge-disjoint Spraypoint paths, as a fraction
 * of d: 1 - exp(-h) for a source that is not a neighbour of the destination;
 * min(1 - p/d, 1 - exp(-(1 - p/d) h)) for a neighbour.
 */
double ModelEdgeDisjointFraction(uint32_t d, uint32_t p, uint32_t h, bool neighbour);

/**
 * \ingroup rng
 * The §7.3 oversubscription model (l = 1 regime): mu_2..mu_5 and 1 / sum.
 */
struct OversubModel
{
    double mu2{0};
    double mu3{0};
    double mu4{0};
    double mu5{0};
    double phi3{0};
    double kappa3{0};
    double oversub{0};
};

OversubModel ModelOversubscription(uint32_t n, uint32_t d, uint32_t p, uint32_t h);

/**
 * \ingroup rng
 * Measured Spraypoint path-length distribution: for each destination in \p dests, every
 * source router s != t and every one of its spray choices (each uplink), the hops to t
 * (1 if the spray lands on t, else 1 + the pointing distance of the sprayed-to router).
 * \return fraction per hop count; key 0 collects paths that never arrive
 */
std::map<uint32_t, double> MeasurePathLength(const SpraypointTables& tables,
                                             const RouterGraph& g,
                                             const std::vector<uint32_t>& dests);

/**
 * \ingroup rng
 * s-t max-flow (unit capacity per directed router link) over the router links \p routing can
 * use from a server of router \p s to a server of router \p t (FluidSplit's links: the
 * routing's own Candidates rule and view). For Spraypoint this is the graph S_{s,t} of the
 * paper: the pointing graph toward t plus the spray links of s (Boost.Graph push-relabel).
 * \param routing bound to the graph \p fab built
 */
uint32_t CandidateMaxFlow(const FabricRouting& routing,
                          const RngFabric& fab,
                          uint32_t s,
                          uint32_t t);

/**
 * \ingroup rng
 * Mean CandidateMaxFlow (edge-disjoint paths, in lanes) over sampled sources.
 */
struct MaxFlowSample
{
    double neighbour{0};    //!< mean max-flow from neighbours of the destination
    double nonNeighbour{0}; //!< mean max-flow from other routers (0 if not sampled)
    uint32_t samples{0};    //!< max-flows computed
};

/**
 * \ingroup rng
 * For each destination t of \p dests, \p perDest times: a random neighbour of t as source and,
 * if \p nonNeighbour, then a random router that is neither t nor a neighbour of t (drawn in
 * that order from \p rng, so a seed gives the same samples); the CandidateMaxFlow of each.
 * \param tables the Spraypoint tables of \p routing (their distances tell neighbours apart)
 */
MaxFlowSample SampleCandidateMaxFlow(const FabricRouting& routing,
                                     const SpraypointTables& tables,
                                     const RngFabric& fab,
                                     const std::vector<uint32_t>& dests,
                                     uint32_t perDest,
                                     bool nonNeighbour,
                                     FabricRng& rng);

/**
 * \ingroup rng
 * \p count distinct routers of 0..n-1 (all n if count >= n): the first ones of a seeded
 * Fisher-Yates shuffle, e.g. the destinations a model is sampled at.
 */
std::vector<uint32_t> SampleRouters(uint32_t n, uint32_t count, uint64_t seed);

/**
 * \ingroup rng
 * Throughput of a router-level traffic matrix under Spraypoint's fluid ECMP splits (a source
 * splits evenly over its uplinks, every router evenly over its candidates), links of
 * capacity 1 (one lane).
 */
struct FluidThroughput
{
    double uniformRate{0};  //!< the largest common rate every flow gets: 1 / max link load
    double maxMinMean{0};   //!< mean rate of the max-min fair allocation (progressive filling)
    double maxMinMin{0};    //!< smallest max-min fair rate
    double meanPathHops{0}; //!< traffic-weighted mean path length
    double maxLinkLoad{0};  //!< per unit demand
};

/**
 * Fluid throughput of flows (src router, dst router), each from a server of the source router
 * to a server of the destination router, split by FluidSplit over \p routing's Candidates,
 * each of demand up to d lanes (rates are capped at the source's uplink capacity d); only
 * router-to-router lanes (capacity 1) constrain.
 * \param routing bound to the graph \p fab built
 */
FluidThroughput MeasureFluidThroughput(const FabricRouting& routing,
                                       const RngFabric& fab,
                                       const std::vector<std::pair<uint32_t, uint32_t>>& flows);

/// A random single n-cycle of the routers (Sattolo's algorithm with FabricRng; no fixed
/// point, not uniform over derangements): flows (i, perm[i]).
std::vector<std::pair<uint32_t, uint32_t>> RandomRouterPermutation(uint32_t n, uint64_t seed);

} // namespace ns3

#endif // RNG_MODELS_H
