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
