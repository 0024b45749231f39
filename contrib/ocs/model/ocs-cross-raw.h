// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_CROSS_RAW_H
#define OCS_CROSS_RAW_H

#include "ns3/ocs-configurator.h"

namespace ns3
{

/**
 * \ingroup ocs
 * Greedy configuration of Cross Wiring read as its raw problem (the third reading of the
 * baselines on Cross Wiring, doc/ocs.md): a link between EGs a and b on OCS pair j uses port 2j
 * at one end and port 2j+1 at the other, the orientation chosen together with the colour.
 * Links are taken in row order (a < b, each link of the pair in turn) and get the lowest j for
 * which an orientation is free (a on 2j and b on 2j+1 first, then the reverse); a link with no
 * free (j, orientation) is lost. No decomposition L = A + A^T first: the orientation is what
 * the decomposition would fix.
 *
 * Circuits: a on 2j, b on 2j+1 is TX(a, 2j) -> RX(b, 2j+1) on OCS 2j (N a -> S b) and
 * TX(b, 2j+1) -> RX(a, 2j) on OCS 2j+1 (N b -> S a).
 * \throws std::invalid_argument unless \p wiring is Cross Wiring and \p logical a valid
 *         logical topology for it (ValidateLogicalTopology)
 */
OcsConfigResult ConfigureCrossRawGreedy(const OcsWiring& wiring, const OcsMatrix& logical);

} // namespace ns3

#endif // OCS_CROSS_RAW_H
