// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-toe-benchmark.h"

#include "ns3/log.h"
#include "ns3/ocs-cross-raw.h"
#include "ns3/ocs-logical-solver.h"
#include "ns3/ocs-routed-mlu.h"
#include "ns3/ocs-toe-workload.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsToeBenchmark");

namespace
{

/// The series of (wiring, algorithm), created in first-run order.
OcsToeSeries&
SeriesOf(OcsToeSizeResult& r, const std::string& wiring, const std::string& algorithm)
{
    for (OcsToeSeries& s : r.series)
    {
        if (s.wiring == wiring && s.algorithm == algorithm)
        {
            return s;
        }
    }
    r.series.push_back(OcsToeSeries{});
    r.series.back().wiring = wiring;
    r.series.back().algorithm = algorithm;
    return r.series.back();
}

/// Route \p demand over what \p c realizes, relative to the logical topology's MLU.
void
AddRouted(OcsToeSeries& s,
          const OcsConfigResult& c,
          const std::vector<double>& demand,
          double logicalMlu)
{
    const OcsRoutedLoad load = RouteDemandEcmp(c.realized, demand);
    double total = 0;
    for (double x : demand)
    {
        total += x;
    }
    s.mluRatio.push_back(logicalMlu > 0 ? load.mlu / logicalMlu : 1.0);
    s.unrouted.push_back(total > 0 ? load.unroutedDemand / total : 0.0);
}

} // namespace

double
OcsToeEstimateSeconds(uint32_t gpus, const OcsToeBenchmarkParams& p)
{
    const double e = double(gpus) / p.gpusPerEg;
    const auto& a = p.algorithms;
    const bool dfs = std::count(a.begin(), a.end(), OcsAlgorithm::DFS) > 0;
    const bool ilp = std::count(a.begin(), a.end(), OcsAlgorithm::ILP) > 0;
    const double w = double(p.wirings.size());
    return 1e-7 * e * e * p.steps * a.size() * w + (dfs ? p.steps * w * p.dfsMs / 1e3 : 0)
         + (ilp ? (p.ilpSteps ? std::min(p.ilpSteps, p.steps) : p.steps) * w * p.ilpMs / 1e3 : 0);
}

double
OcsToeEstimateBytes(uint32_t gpus, const OcsToeBenchmarkParams& p)
{
    const double e = double(gpus) / p.gpusPerEg;
    return 30e6 + 24 * e * e;
}

OcsToeSizeResult
RunOcsToeBenchmark(uint32_t gpus,
                   const OcsToeBenchmarkParams& p,
                   const std::function<void(const OcsToeStepRecord&)>& onStep,
                   const std::function<void(const OcsToeLogicalRecord&)>& onLogical,
                   const std::function<void(uint32_t)>& progress)
{
    if (p.gpusPerEg == 0 || gpus % p.gpusPerEg != 0)
    {
        throw std::invalid_argument("RunOcsToeBenchmark: " + std::to_string(gpus)
                                    + " GPUs is not a multiple of gpusPerEg="
                                    + std::to_string(p.gpusPerEg));
    }
    OcsToeSizeResult out;
    const uint32_t egs = gpus / p.gpusPerEg;
    out.egs = egs;
    OcsToeWorkload workload(egs, p.gpusPerEg, p.seed, p.churn, p.jobSizes, p.ringWeight);
    std::vector<OcsConfigurator> confs;
    for (OcsWiringType t : p.wirings)
    {
        confs.emplace_back(OcsWiring(t, egs, p.ports));
    }
    for (uint32_t step = 0; step < p.steps; ++step)
    {
        if (step > 0)
        {
            workload.Step();
        }
        const auto demand = workload.Demand();
        const auto t0 = std::chrono::steady_clock::now();
        const OcsLogicalSolution sol
            = SolveLogicalTopologyMlu(demand, egs, p.ports, 1.0, p.fillIdle);
        const double lus
            = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                  .count();
        out.logicalUs.push_back(lus);
        out.mlus.push_back(sol.mlu);
        if (onLogical)
        {
            onLogical({step,
                       uint32_t(workload.GetJobs().size()),
                       sol.mlu,
                       uint32_t(sol.logical.Total() / 2),
                       uint32_t(sol.spareLinks),
                       lus});
        }
        for (const OcsConfigurator& conf : confs)
        {
            const OcsWiringType t = conf.GetWiring().GetType();
            for (OcsAlgorithm a : p.algorithms)
            {
                if (a == OcsAlgorithm::EXACT && t == OcsWiringType::UNIFORM)
                {
                    continue; // no exact polynomial algorithm on Uniform
                }
                if (a == OcsAlgorithm::ILP && p.ilpSteps > 0 && step >= p.ilpSteps)
                {
                    continue;
                }
                const double limit = a == OcsAlgorithm::ILP ? p.ilpMs : p.dfsMs;
                const OcsConfigResult r = conf.Configure(sol.logical, a, limit);
                OcsToeSeries& s = SeriesOf(out, OcsWiringTypeName(t), OcsAlgorithmName(a));
                s.ltcr.push_back(r.ltcr);
                s.solveUs.push_back(r.solveUs);
                s.decompUs.push_back(r.decompositionUs);
                s.timeouts += r.timedOut ? 1 : 0;
                s.provedOptimal += r.provedOptimal ? 1 : 0;
                if (p.mlu)
                {
                    AddRouted(s, r, demand, sol.mlu);
                }
                if (a == OcsAlgorithm::EXACT && r.ltcr < 1.0)
                {
                    out.exactComplete = false; // would be a bug: exact is complete
                }
                if (onStep)
                {
                    onStep({step,
                            s.wiring,
                            s.algorithm,
                            r.ltcr,
                            r.solveUs,
                            r.decompositionUs,
                            r.timedOut,
                            uint32_t(sol.logical.Total() / 2),
                            uint32_t(r.realized.Total() / 2)});
                }
            }
        }
        if (p.crossRaw)
        {
            // The raw Cross Wiring reading of greedy (orientation chosen with the colour).
            const OcsWiring cw(OcsWiringType::CROSS, egs, p.ports);
            const OcsConfigResult r = ConfigureCrossRawGreedy(cw, sol.logical);
            OcsToeSeries& s = SeriesOf(out, "cross", "greedy-raw");
            s.ltcr.push_back(r.ltcr);
            s.solveUs.push_back(r.solveUs);
            s.decompUs.push_back(0);
            if (p.mlu)
            {
                AddRouted(s, r, demand, sol.mlu);
            }
        }
        if (progress)
        {
            progress(step);
        }
    }
    return out;
}

} // namespace ns3
