// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_ROUTED_MLU_H
#define OCS_ROUTED_MLU_H

#include "ns3/ocs-matrix.h"

#include <vector>

namespace ns3
{

/// \ingroup ocs The load of a demand routed over a realized logical topology.
struct OcsRoutedLoad
{
    /// Max over EG pairs and directions of load / (links x capacity); 0 without demand.
    double mlu{0};
    /// Demand between EGs the topology does not connect (not routed, not in mlu).
    double unroutedDemand{0};
    /// Demand routed over more than one EG hop.
    double multiHopDemand{0};
};

/**
 * \ingroup ocs
 * Route \p demand (E x E row-major, D_ab >= 0, diagonal ignored) over the links of \p topology
 * as the packet level does (EcmpRouting over the same links): along shortest EG paths, and at
 * every EG the traffic toward a destination splits equally over the equal-cost egress links
 * (parallel links counted one by one). Fluid and exact for that rule. The MLU of the logical
 * topology's own single-hop routing (SolveLogicalTopologyMlu) is the bound this is compared with:
 * equal when the realization is exact.
 * \param capacity per link and direction, > 0
 * \throws std::invalid_argument on a size mismatch, a negative or non-finite demand, or a
 *         capacity <= 0
 */
OcsRoutedLoad RouteDemandEcmp(const OcsMatrix& topology,
                              const std::vector<double>& demand,
                              double capacity = 1.0);

} // namespace ns3

#endif // OCS_ROUTED_MLU_H
