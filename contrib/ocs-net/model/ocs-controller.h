// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_CONTROLLER_H
#define OCS_CONTROLLER_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-fabric.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/// \ingroup ocs-net What one controller step (demand -> circuits -> reconfiguration) did.
struct OcsControllerStep
{
    Time requested;             //!< Apply called
    double measuredSolveUs{0};  //!< wall time of logical solve + configuration, this machine
    Time solveTime;             //!< solve time counted in simulated time (set or measured)
    Time unhiddenSolve;         //!< the part of it that the computation overlap did not hide
    OcsReconfigRecord reconfig; //!< the fabric's record (drain, switching, restoration)
    double ltcr{0};             //!< of the configuration against the logical topology
    double mlu{0};              //!< of the logical topology for the demand (single hop)
    OcsMatrix logical;          //!< target logical topology
    OcsMatrix realized;         //!< what the circuits realize
    /// Stall: from the request to the new topology in place (unhidden solve + drain +
    /// switching + restoration).
    Time Stall() const { return reconfig.end - requested; }
};

/**
 * \ingroup ocs-net
 * The OCS controller of a cluster: takes an EG-to-EG demand, chooses the MLU-optimal logical
 * topology for single-hop routing (SolveLogicalTopologyMlu, spare ports filled), configures
 * the circuits with the chosen algorithm (OcsConfigurator) and has the OcsFabric reconfigure.
 * Routes follow on their own: the fabric maintains the routing view (with the default
 * EcmpRouting: direct links with ECMP over parallel links, two hops via another EG where no
 * direct link exists).
 *
 * Solve time in simulated time: SolveTime, or with MeasureSolveTime the measured wall time of
 * the solve (then runs are not reproducible bit for bit). Overlap is the computation that runs
 * while the controller solves (the MoE pipelining of the OCS paper §8): only
 * max(0, solve - Overlap) delays the reconfiguration.
 */
class OcsController : public Object
{
  public:
    static TypeId GetTypeId();
    OcsController();

    /// The cluster to drive.
    void SetFabric(Ptr<OcsFabric> fabric) { m_fabric = fabric; }
    Ptr<OcsFabric> GetFabric() const { return m_fabric; }
    OcsAlgorithm GetAlgorithm() const { return static_cast<OcsAlgorithm>(m_algorithm); }

    /**
     * Logical topology and circuits for \p demand (E x E row-major, bytes or any unit), with
     * the measured solve time in OcsConfigResult::solveUs (logical solve included).
     * \throws std::invalid_argument as SolveLogicalTopologyMlu and OcsConfigurator::Configure
     */
    OcsConfigResult Plan(const std::vector<double>& demand,
                         double* mlu = nullptr,
                         OcsMatrix* logical = nullptr) const;

    /// Configure the fabric for \p demand at once (time 0: no stall).
    OcsControllerStep Install(const std::vector<double>& demand);

    /**
     * Reconfigure the fabric for \p demand now; \p done is called with the step when the new
     * topology is in place.
     * \throws as Plan; std::logic_error while a reconfiguration is under way
     */
    void Apply(const std::vector<double>& demand, Callback<void, const OcsControllerStep&> done);

    const std::vector<OcsControllerStep>& GetSteps() const { return m_steps; }

  protected:
    void DoDispose() override;

  private:
    void Reconfigured(const OcsReconfigRecord& rec);

    Ptr<OcsFabric> m_fabric;
    int m_algorithm;
    double m_timeLimitMs{1000};
    Time m_solveTime;
    bool m_measureSolveTime{false};
    Time m_overlap;
    bool m_busy{false};
    EventId m_applyEvent; //!< the circuits' installation after the unhidden solve time
    OcsControllerStep m_current;
    std::vector<OcsCircuit> m_pending;
    Callback<void, const OcsControllerStep&> m_done;
    std::vector<OcsControllerStep> m_steps;
};

} // namespace ns3

#endif // OCS_CONTROLLER_H
