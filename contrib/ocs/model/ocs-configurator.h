// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_CONFIGURATOR_H
#define OCS_CONFIGURATOR_H

#include "ns3/ocs-configuration.h"
#include "ns3/ocs-matrix.h"
#include "ns3/ocs-port-colouring.h"
#include "ns3/ocs-wiring.h"

#include <string>
#include <vector>

namespace ns3
{

/// \ingroup ocs OCS configuration algorithms.
enum class OcsAlgorithm
{
    EXACT,  //!< decomposition + bipartite edge colouring + mirroring (Single/2-Uniform/Cross)
    GREEDY, //!< MixNet-like greedy port pairing
    BVN,    //!< Birkhoff-von Neumann permutations
    DFS,    //!< depth-first branch and bound under a time bound
    ILP,    //!< GLPK integer program under a time limit
};

/// The algorithm's name (the ns3::OcsSetup Algorithm attribute's; OcsSetup::AlgorithmByName
/// goes back).
std::string OcsAlgorithmName(OcsAlgorithm a);

/// \ingroup ocs The outcome of one configuration.
struct OcsConfigResult
{
    std::vector<OcsCircuit> circuits; //!< sorted by (ocs, n, s)
    OcsMatrix realized;               //!< bidirectional links per EG pair (RealizeCircuits)
    double ltcr{0};                   //!< Eq. (1) of the target against realized
    double solveUs{0};          //!< wall time of the solve (decomposition + colouring + circuits)
    double decompositionUs{0};  //!< of which the L = A + A^T decomposition
    bool timedOut{false};       //!< DFS / ILP stopped at the time limit
    bool provedOptimal{false};  //!< exact, finished DFS, or ILP optimal
    uint32_t oneWayCircuits{0}; //!< always 0 for these algorithms (checked)
    std::string note;
};

/**
 * \ingroup ocs
 * Computes OCS configurations realizing a logical topology on a wiring.
 *
 * - Single: every algorithm is the O(n^2) scan-and-set of §3.1 (link k of pair {a, b} joins
 *   the next free port of a with the next free port of b, both directions): always exact.
 * - 2-Uniform / Cross Wiring: L = A + A^T (DecomposeSymmetricEuler), then A is split into
 *   P/2 partial permutations (one per OCS pair) by the chosen colouring algorithm, and each
 *   circuit a -> b on the first OCS of a pair is mirrored b -> a on the second (§4.3). With
 *   EXACT the colouring is ColourBipartiteExact, so LTCR = 1 for every valid topology.
 * - Uniform: the links are coloured with the P ports directly (shared colouring); a link of
 *   colour k is the two circuits a -> b and b -> a on OCS k. EXACT is refused (no polynomial
 *   exact algorithm; the problem is NP-complete, Theorem 3.1).
 *
 * Every result is checked: circuits obey the physical constraint, no one-way circuit is
 * emitted, and the realized topology never exceeds the target.
 */
class OcsConfigurator
{
  public:
    explicit OcsConfigurator(const OcsWiring& wiring);

    const OcsWiring& GetWiring() const { return m_wiring; }

    /**
     * \param logical target logical topology (validated with ValidateLogicalTopology)
     * \param algorithm the algorithm
     * \param timeLimitMs time bound of DFS and ILP, > 0
     * \throws std::invalid_argument on an invalid topology, or EXACT on Uniform
     */
    OcsConfigResult Configure(const OcsMatrix& logical,
                              OcsAlgorithm algorithm,
                              double timeLimitMs = 1000) const;

  private:
    OcsWiring m_wiring;
};

} // namespace ns3

#endif // OCS_CONFIGURATOR_H
