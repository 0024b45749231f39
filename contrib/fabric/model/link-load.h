// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINK_LOAD_H
#define LINK_LOAD_H

#include "ns3/fabric-routing.h"
#include "ns3/traffic-pattern.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Analytic per-directed-link load: every flow's weight added to each link of the path the
 * routing function gives it.
 * \param weight per-flow weight, indexed by position in \p flows (bytes, rate, ...)
 * \param undelivered incremented for every flow whose path does not reach its destination
 * \return load indexed by directed link id (2 * link + direction)
 */
std::vector<double> ComputeDirLinkLoads(const FabricRouting& routing,
                                        const std::vector<FlowSpec>& flows,
                                        const std::vector<double>& weight,
                                        uint32_t* undelivered = nullptr);

/**
 * \ingroup fabric
 * The fluid limit of a multipath scheme for one unit of traffic from \p srcHost to
 * \p dstHost: every node splits what reaches it evenly over routing.Candidates (node, in
 * port, dstHost), hop by hop, as hashing many flows or packets would on average. The shares
 * follow the routing's own rule and view, so analyses (fluid throughput, max-flow over the
 * links used) and the packets share one definition.
 * \param[out] shares (directed link, share of the unit) for every link that carries any,
 *             sorted by directed link id
 * \param maxHops a share still travelling after this many hops is dropped (a loop)
 * \return the share that reaches \p dstHost (1 unless some candidates lead nowhere)
 */
double FluidSplit(const FabricRouting& routing,
                  uint32_t srcHost,
                  uint32_t dstHost,
                  std::vector<std::pair<uint32_t, double>>& shares,
                  uint32_t maxHops = 64);

/**
 * \ingroup fabric
 * The directed links FluidSplit gives a share to, found without computing the shares: a
 * reachability walk over (node, in port) states from \p srcHost along routing.Candidates,
 * stopping at \p dstHost and after \p maxHops hops (as FluidSplit drops a share that is
 * still travelling then). Each state is expanded once, so the cost is bounded by the states,
 * not by the hop-by-hop layers of a split.
 * \return sorted directed link ids
 */
std::vector<uint32_t> CandidateDirLinks(const FabricRouting& routing,
                                        uint32_t srcHost,
                                        uint32_t dstHost,
                                        uint32_t maxHops = 64);

/**
 * \ingroup fabric
 * A switch-to-switch directed link that the routing puts more than one flow on.
 */
struct SharedLink
{
    uint32_t dirLink;
    std::vector<uint32_t> flows; //!< indices into the flow list, ascending
};

/**
 * \ingroup fabric
 * The fabric links (neither end a host) that carry more than one of \p flows along the paths
 * the routing function gives them (TracePath with each flow's key): the collisions of a
 * flow-hash scheme, known before any packet is sent.
 * \return in ascending order of directed link id
 */
std::vector<SharedLink> FindSharedFabricLinks(const FabricRouting& routing,
                                              const std::vector<FlowSpec>& flows);

/**
 * \ingroup fabric
 * Max-over-mean imbalance of a set of link loads.
 */
struct ImbalanceStats
{
    double max{0};
    double mean{0};
    double imbalance{0};       //!< max / mean over all links of the set (0 if all are idle)
    double loadedImbalance{0}; //!< max / mean over links of the set that carry load
    uint32_t links{0};
    uint32_t loadedLinks{0};
};

/// Imbalance over the directed links \p set of \p loads.
ImbalanceStats ComputeImbalance(const std::vector<double>& loads, const std::vector<uint32_t>& set);

/// Mean and (population) standard deviation.
struct MeanStd
{
    double mean{0};
    double std{0};
};

MeanStd ComputeMeanStd(const std::vector<double>& xs);

} // namespace ns3

#endif // LINK_LOAD_H
