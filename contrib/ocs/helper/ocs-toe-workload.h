// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_TOE_WORKLOAD_H
#define OCS_TOE_WORKLOAD_H

#include "ns3/fabric-rng.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// \ingroup ocs One training job of the §7 micro-benchmark.
struct OcsToeJob
{
    uint32_t gpus;             //!< job size in GPUs
    std::vector<uint32_t> egs; //!< the EGs it occupies, in its ring order
    uint64_t seed;             //!< seeds its per-pair demand factors
};

/**
 * \ingroup ocs
 * The job churn of the OCS paper §7: a cluster of EGs (gpusPerEg GPUs and P OCS-facing ports
 * each) filled exactly with jobs whose sizes are drawn from a list (default 192, 256, 512,
 * 640, 768, 1024 GPUs, equally likely: the paper mixes them "in proportion to their trace
 * frequency" without giving the frequencies). A size is only drawn if the rest can still be
 * filled exactly. Each Step() a fraction of the jobs (default 25%) departs and new jobs fill
 * exactly the freed EGs, which are shuffled (so jobs become scattered over the cluster).
 *
 * Communication pattern of a job of g EGs e_0..e_{g-1} (its ring order):
 * - all-to-all (expert / tensor parallel exchange): D[e_i][e_j] = f_ij for every i != j, with
 *   a per-ordered-pair factor f_ij uniform in [0.5, 1.5) from the job's seed;
 * - ring AllReduce (data parallel): D[e_i][e_{i+1 mod g}] and D[e_{i+1 mod g}][e_i] get
 *   \c ringWeight more (default 4).
 * Randomness: FabricRng (splitmix-style, platform independent) from the seed.
 */
class OcsToeWorkload
{
  public:
    /**
     * \param egs cluster EGs, >= 1
     * \param gpusPerEg GPUs per EG, >= 1; every job size must be a multiple of it
     * \param seed random seed
     * \param churn fraction of jobs replaced each step, in (0, 1]
     * \param jobSizes job sizes in GPUs
     * \param ringWeight extra demand on ring neighbours, >= 0
     * \throws std::invalid_argument if the cluster cannot be filled exactly or a parameter is
     *         out of range (named)
     */
    OcsToeWorkload(uint32_t egs,
                   uint32_t gpusPerEg,
                   uint64_t seed,
                   double churn = 0.25,
                   std::vector<uint32_t> jobSizes = {192, 256, 512, 640, 768, 1024},
                   double ringWeight = 4.0);

    /// Replace round(churn * jobs) jobs (at least one).
    void Step();
    const std::vector<OcsToeJob>& GetJobs() const { return m_jobs; }
    /// The egs x egs demand matrix (row-major) of the current jobs.
    std::vector<double> Demand() const;

  private:
    /// Fill the given EGs (shuffled first) with new jobs.
    void Fill(std::vector<uint32_t> egs);

    uint32_t m_egs;
    uint32_t m_gpusPerEg;
    double m_churn;
    double m_ringWeight;
    std::vector<uint32_t> m_sizesEg; //!< job sizes in EGs
    std::vector<uint8_t> m_fillable; //!< m_fillable[r]: r EGs can be filled exactly
    FabricRng m_rng;
    std::vector<OcsToeJob> m_jobs;
};

} // namespace ns3

#endif // OCS_TOE_WORKLOAD_H
