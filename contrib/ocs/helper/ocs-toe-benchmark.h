// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_TOE_BENCHMARK_H
#define OCS_TOE_BENCHMARK_H

#include "ns3/ocs-configurator.h"
#include "ns3/ocs-wiring.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// \ingroup ocs Parameters of the OCS paper §7 micro-benchmark (ocs-toe).
struct OcsToeBenchmarkParams
{
    uint32_t gpusPerEg{32};
    uint32_t ports{32}; //!< OCS-facing ports per EG
    double churn{0.25};
    std::vector<uint32_t> jobSizes{192, 256, 512, 640, 768, 1024};
    double ringWeight{4};
    bool fillIdle{true}; //!< the logical solver pairs up idle ports
    std::vector<OcsWiringType> wirings{OcsWiringType::UNIFORM, OcsWiringType::CROSS};
    std::vector<OcsAlgorithm> algorithms{OcsAlgorithm::EXACT, OcsAlgorithm::GREEDY};
    double dfsMs{5};      //!< DFS time bound per step
    double ilpMs{1000};   //!< ILP time limit per step
    uint32_t ilpSteps{3}; //!< the ILP runs on the first ilpSteps steps only (0: all)
    uint32_t steps{100};
    uint64_t seed{1};
    bool mlu{false};      //!< route each demand over each realization (RouteDemandEcmp)
    bool crossRaw{false}; //!< also greedy on the raw Cross Wiring problem ("greedy-raw")
};

/**
 * \ingroup ocs
 * Estimated wall time (s) of RunOcsToeBenchmark at \p gpus GPUs (measured, Release: 0.1 us
 * per EG pair per step, algorithm and wiring, plus the DFS and ILP time limits).
 */
double OcsToeEstimateSeconds(uint32_t gpus, const OcsToeBenchmarkParams& params);
/// Estimated memory (bytes): about 24 bytes per EG pair (E=4096: 0.42 GB, E=8192: 1.6 GB).
double OcsToeEstimateBytes(uint32_t gpus, const OcsToeBenchmarkParams& params);

/// \ingroup ocs Per (wiring, algorithm): one value per step it ran.
struct OcsToeSeries
{
    std::string wiring;
    std::string algorithm;
    std::vector<double> ltcr;
    std::vector<double> solveUs;
    std::vector<double> decompUs;
    std::vector<double> mluRatio; //!< routed MLU of the realized topology / logical's (mlu)
    std::vector<double> unrouted; //!< fraction of the demand the realization disconnects (mlu)
    uint32_t timeouts{0};
    uint32_t provedOptimal{0};
};

/// \ingroup ocs One configuration of one step.
struct OcsToeStepRecord
{
    uint32_t step;
    std::string wiring;
    std::string algorithm;
    double ltcr;
    double solveUs;
    double decompUs;
    bool timedOut;
    uint32_t targetLinks;
    uint32_t realizedLinks;
};

/// \ingroup ocs The logical topology of one step.
struct OcsToeLogicalRecord
{
    uint32_t step;
    uint32_t jobs;
    double mlu;
    uint32_t links;
    uint32_t spareLinks;
    double solveUs;
};

/// \ingroup ocs What one cluster size gave.
struct OcsToeSizeResult
{
    uint32_t egs{0};
    std::vector<OcsToeSeries> series; //!< in the order they first ran
    std::vector<double> logicalUs;    //!< logical solve time per step
    std::vector<double> mlus;         //!< logical topology's MLU per step
    bool exactComplete{true};         //!< the exact algorithm reached LTCR 1 on every step
};

/**
 * \ingroup ocs
 * The §7 micro-benchmark at \p gpus GPUs: OcsToeWorkload job churn for params.steps steps;
 * each step the MLU-optimal logical topology (SolveLogicalTopologyMlu) is configured by every
 * algorithm on every wiring (exact never on Uniform; the ILP on the first ilpSteps steps),
 * optionally routed (RouteDemandEcmp) and with the raw Cross Wiring greedy. Plain C++.
 * \param onStep called for every configuration (may be empty)
 * \param onLogical called for every step's logical topology (may be empty)
 * \param progress called after every step with its index (may be empty)
 * \throws std::invalid_argument if gpus is not a multiple of gpusPerEg, or as OcsToeWorkload,
 *         OcsWiring and OcsConfigurator
 */
OcsToeSizeResult RunOcsToeBenchmark(
    uint32_t gpus,
    const OcsToeBenchmarkParams& params,
    const std::function<void(const OcsToeStepRecord&)>& onStep,
    const std::function<void(const OcsToeLogicalRecord&)>& onLogical,
    const std::function<void(uint32_t)>& progress);

} // namespace ns3

#endif // OCS_TOE_BENCHMARK_H
