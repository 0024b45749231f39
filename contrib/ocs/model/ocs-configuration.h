// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_CONFIGURATION_H
#define OCS_CONFIGURATION_H

#include "ns3/ocs-matrix.h"
#include "ns3/ocs-wiring.h"

#include <vector>

namespace ns3
{

/// \ingroup ocs One circuit: N half-port \c n joined to S half-port \c s of OCS \c ocs.
struct OcsCircuit
{
    uint32_t ocs;
    uint32_t n;
    uint32_t s;
    bool operator==(const OcsCircuit& o) const { return ocs == o.ocs && n == o.n && s == o.s; }
    bool operator<(const OcsCircuit& o) const
    {
        return ocs != o.ocs ? ocs < o.ocs : (n != o.n ? n < o.n : s < o.s);
    }
};

/**
 * \ingroup ocs
 * Check the physical-topology constraint: every circuit names an existing OCS and half-ports
 * on it, and no N or S half-port carries more than one circuit.
 * \throws std::invalid_argument naming the first offending circuit
 */
void ValidateCircuits(const OcsWiring& wiring, const std::vector<OcsCircuit>& circuits);

/// \ingroup ocs What a set of circuits realizes.
struct OcsRealization
{
    /// Bidirectional links per EG pair (symmetric; self-links of an EG on its diagonal).
    OcsMatrix logical;
    /// Circuits whose reverse direction (same two EG ports) is not also a circuit.
    uint32_t oneWayCircuits{0};
};

/**
 * \ingroup ocs
 * The logical topology a configuration realizes under the symmetry constraint: EG A port x and
 * EG B port y form a link only if TX(A.x)->RX(B.y) and TX(B.y)->RX(A.x) are both circuits.
 * One-way circuits are counted in OcsRealization::oneWayCircuits, not as links.
 * Validates the circuits first (ValidateCircuits).
 */
OcsRealization RealizeCircuits(const OcsWiring& wiring, const std::vector<OcsCircuit>& circuits);

} // namespace ns3

#endif // OCS_CONFIGURATION_H
