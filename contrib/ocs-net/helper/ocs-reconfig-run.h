// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_RECONFIG_RUN_H
#define OCS_RECONFIG_RUN_H

#include "ns3/fabric-results.h"
#include "ns3/gnuplot.h"
#include "ns3/nstime.h"
#include "ns3/ocs-phased-workload.h"
#include "ns3/roce-traffic-helper.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// \ingroup ocs-net One run of the OCS reconfiguration experiment: cluster, controller, load.
struct OcsReconfigRunConfig
{
    std::string wiring{"cross"};    //!< OcsSetup wiring name
    std::string algorithm{"exact"}; //!< OcsController Algorithm
    std::string policy{"drain"};    //!< OcsFabric Policy
    double switchingUs{10};         //!< OcsSwitch SwitchingDelay (us)
    uint32_t egs{8};
    uint32_t ports{4};
    uint32_t hostsPerEg{2};
    bool moe{true};              //!< MoE layers (else: the job trace)
    double bytesPerUnit{256000}; //!< flow bytes per demand unit (OcsDemandFlows)
    Time solve;                  //!< OcsController SolveTime
    Time overlap;                //!< OcsController Overlap
    Time restoration{MicroSeconds(10)};
    Time drainTimeout{MicroSeconds(50)};

    Time stepPeriod{MicroSeconds(200)}; //!< job trace: time between steps
    Time bin{MicroSeconds(5)};          //!< aggregate throughput bin
    Time stopAt{Seconds(1)};            //!< safety horizon
};

/// \ingroup ocs-net What one phase (MoE layer or job-trace step) did.
struct OcsPhaseRecord
{
    double startUs{0};    //!< its reconfiguration was requested
    double solveUs{0};    //!< measured wall time of the solve
    double solveSimUs{0}; //!< solve time counted in simulated time
    double stallUs{0};
    double drainUs{0};
    uint32_t changedCircuits{0};
    uint32_t linksDown{0};
    double ltcr{1};
    uint64_t lostPackets{0};
    uint64_t lostBytes{0}; //!< dropped packets as on the wire (headers, control included)
    uint64_t retxPackets{0};
    uint64_t retxBytes{0};   //!< data payload sent again
    double reconfigEndUs{0}; //!< the controller reported the new topology in place
    double flowsStartUs{-1}; //!< its first flow started (-1: none)

    double completionUs{0}; //!< start -> its last flow completed
    uint32_t flows{0};
    uint32_t unroutableFlows{0}; //!< left out: the realized topology cannot join their EGs
};

/// \ingroup ocs-net What a run did.
struct OcsReconfigRunResult
{
    OcsReconfigRunConfig config;
    FabricRoceRunResult roce;
    std::vector<OcsPhaseRecord> phases;
    std::vector<std::pair<double, double>> windows; //!< reconfiguration windows (us)
    std::vector<double> throughputGbps;             //!< aggregate delivered rate per bin
    double totalUs{0}; //!< when the last flow completed (iteration time / makespan)
};

/**
 * \ingroup ocs-net
 * Run the OCS reconfiguration experiment once: an OcsClusterHelper cluster, an OcsController
 * that installs step 0's configuration at time 0 and reconfigures for every later step,
 * RoCE flows of \p load.sending (OcsDemandFlows) over it.
 * - MoE: layer s+1's reconfiguration is requested when every flow of layer s completed (the
 *   solve overlaps the computation: only the solve time beyond Overlap delays it), and the
 *   layer's flows start when the controller reports the reconfiguration done (a phase gate of
 *   RoceTrafficHelper): the stall is exactly what the reconfiguration costs.
 * - Job trace: step s arrives at s x stepPeriod and the controller reconfigures for it while
 *   the running jobs' flows are in flight; the step's flows start when the controller reports
 *   the reconfiguration done (RoceTrafficHelper phase gate with independent phases).
 * A flow of a later phase that starts while the fabric is still reconfiguring is an error
 * (std::logic_error), never a silent start on the old topology.
 * Flows whose EGs a realized topology cannot join are left out and counted per phase.
 * Destroys the simulator at the end.
 * \throws std::invalid_argument on bad names or sizes (OcsSetup, OcsClusterHelper)
 */
OcsReconfigRunResult RunOcsReconfig(const OcsReconfigRunConfig& config,
                                    const OcsPhasedWorkload& load);

/// The run as summary.json's runs[] entry (the keys of issue 10 and more).
nlohmann::json OcsReconfigRunToJson(const OcsReconfigRunResult& run);

/// Columns of the per-phase CSV (WriteOcsPhaseRows).
std::vector<std::string> OcsPhaseCsvColumns();
/// One row per phase of \p run; \p workload fills the first column.
void WriteOcsPhaseRows(CsvWriter& csv,
                       const std::string& workload,
                       const OcsReconfigRunResult& run);

/**
 * Aggregate throughput over time of every run in \p runs (one line each, named
 * wiring+algorithm), the reconfiguration windows of the first run shaded.
 */
Gnuplot OcsReconfigThroughputPlot(const std::vector<OcsReconfigRunResult>& runs,
                                  const std::string& title);

} // namespace ns3

#endif // OCS_RECONFIG_RUN_H
