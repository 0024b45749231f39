// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_PHASED_WORKLOAD_H
#define OCS_PHASED_WORKLOAD_H

#include "ns3/ocs-matrix.h"
#include "ns3/traffic-pattern.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ocs-net
 * The phased workloads of the OCS reconfiguration experiment (issue 10), plain C++: one
 * EG-to-EG demand per step (E x E, row-major), what the controller configures for, and the
 * flows that carry it. Same seed, same demands.
 */
struct OcsPhasedWorkload
{
    /// demands[s]: what the controller configures for at step s.
    std::vector<std::vector<double>> demands;
    /// sending[s]: the traffic of step s (equal to demands[s] for MoE layers).
    std::vector<std::vector<double>> sending;
};

/**
 * MoE layers: per layer, \p k random perfect matchings of the EGs, a random weight in
 * [0.5, 1.5) per direction of every matched pair (the dispatch demand changes every layer).
 * \throws std::invalid_argument if \p egs is odd or < 2, \p layers or \p k is 0
 */
OcsPhasedWorkload OcsMoeWorkload(uint32_t egs, uint32_t layers, uint32_t k, uint64_t seed);

/**
 * Multi-job training trace (OcsToeWorkload: jobs of 2, 3 and 4 EGs, all-to-all plus ring
 * demand, half the jobs replaced per step). demands[s] holds every job present at step s;
 * sending[s] only the jobs still there at step s + 1 (a job that departs has finished its
 * work), so every flow running through a reconfiguration belongs to a job the new topology
 * serves.
 * \throws std::invalid_argument as OcsToeWorkload, or \p steps 0
 */
OcsPhasedWorkload OcsJobTraceWorkload(uint32_t egs,
                                      uint32_t hostsPerEg,
                                      uint32_t steps,
                                      uint64_t seed);

/**
 * The flows of one demand: host i of EG a to host i of EG b for every a != b with
 * D_ab > 0, max(1000, D_ab * bytesPerUnit / hostsPerEg) bytes each; ids from \p firstId.
 * Hosts are numbered EG-major (host h under EG h / hostsPerEg), as OcsClusterHelper does.
 * \throws std::invalid_argument on a demand that is not egs x egs, hostsPerEg 0 or a
 *         non-positive bytesPerUnit
 */
std::vector<FlowSpec> OcsDemandFlows(const std::vector<double>& demand,
                                     uint32_t egs,
                                     uint32_t hostsPerEg,
                                     double bytesPerUnit,
                                     uint32_t firstId);

/// Whether EG \p b can be reached from EG \p a over the links of logical topology \p l.
bool OcsEgReachable(const OcsMatrix& l, uint32_t a, uint32_t b);

} // namespace ns3

#endif // OCS_PHASED_WORKLOAD_H
