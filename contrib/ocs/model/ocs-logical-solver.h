// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_LOGICAL_SOLVER_H
#define OCS_LOGICAL_SOLVER_H

#include "ns3/ocs-matrix.h"

#include <vector>

namespace ns3
{

/// \ingroup ocs A logical topology chosen for a demand matrix.
struct OcsLogicalSolution
{
    OcsMatrix logical;      //!< links per EG pair
    double mlu{0};          //!< max over demanded pairs of max(D_ab, D_ba) / (links * capacity)
    uint32_t spareLinks{0}; //!< links added after the MLU optimum to use idle ports
};

/**
 * \ingroup ocs
 * MLU-optimal logical topology for single-hop routing: traffic between EGs a and b uses only
 * the direct links between them, each of capacity \p linkCapacity per direction. For a
 * target MLU u, pair {a, b} needs n_ab(u) = ceil(max(D_ab, D_ba) / (u * capacity)) links, and
 * u is feasible if every EG's n-row sums to at most P; feasibility is monotone in u, so a
 * binary search (60 halvings) finds the least feasible u, and n(u) is the optimum (the MLU it
 * achieves is reported). Spare ports are then filled: first one link at a time to the most
 * utilized demanded pair whose two EGs both have a free port (lowering its utilization),
 * then, if \p fillIdle, between the EGs with the most free ports (links with no demand; each
 * EG ends with at most one idle port, or idle ports all on one EG).
 *
 * \param demand egs x egs row-major traffic matrix D_ab >= 0 (the diagonal is ignored)
 * \throws std::invalid_argument if the size is wrong, an entry is negative or not finite, or
 *         an EG has demand with more than P other EGs (single-hop routing needs a link each)
 */
OcsLogicalSolution SolveLogicalTopologyMlu(const std::vector<double>& demand,
                                           uint32_t egs,
                                           uint32_t ports,
                                           double linkCapacity = 1.0,
                                           bool fillIdle = true);

} // namespace ns3

#endif // OCS_LOGICAL_SOLVER_H
