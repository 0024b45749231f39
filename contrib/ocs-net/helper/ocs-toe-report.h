// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_TOE_REPORT_H
#define OCS_TOE_REPORT_H

#include "ns3/fabric-stats.h"
#include "ns3/gnuplot.h"
#include "ns3/ocs-toe-benchmark.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ocs-net
 * The quantile rule of the OCS ToE micro-benchmark's tables and summary (its published tables
 * use it): sorted[round(q (n - 1))].
 */
constexpr QuantileMethod OCS_TOE_QUANTILE = QuantileMethod::ROUNDED_INDEX;

/// \ingroup ocs-net One series of RunOcsToeBenchmark with its cluster size in GPUs.
using OcsToeSizedSeries = std::pair<uint32_t, OcsToeSeries>;

/**
 * \ingroup ocs-net
 * A series as summary.json's results[] entry: gpus, egs (gpus / \p gpusPerEg), wiring,
 * algorithm, steps, LTCR mean/min/p10/median/max, steps with LTCR 1, solve time
 * median/p90/max, decomposition median, timeouts, proved optimal; with \p withMlu also the
 * routed MLU over the logical bound (mean, max) and the unrouted demand fraction (mean).
 */
nlohmann::json OcsToeSeriesToJson(const OcsToeSizedSeries& series,
                                  uint32_t gpusPerEg,
                                  bool withMlu);

/// \ingroup ocs-net The LTCR and solve-time table, one row per series (header included).
void PrintOcsToeTable(const std::vector<OcsToeSizedSeries>& series, std::ostream& os);

/// \ingroup ocs-net The routed-MLU table (Fig. 7a), one row per series (header included).
void PrintOcsToeMluTable(const std::vector<OcsToeSizedSeries>& series, std::ostream& os);

/// \ingroup ocs-net Columns of the per-step CSV (one row per step, wiring and algorithm).
std::vector<std::string> OcsToeStepCsvColumns();
/// \ingroup ocs-net One row of the per-step CSV at \p gpus GPUs in \p egs EGs.
std::vector<std::string> OcsToeStepCsvRow(uint32_t gpus, uint32_t egs, const OcsToeStepRecord& x);

/// \ingroup ocs-net Columns of the per-step logical-topology CSV.
std::vector<std::string> OcsToeLogicalCsvColumns();
/// \ingroup ocs-net One row of the logical-topology CSV at \p gpus GPUs.
std::vector<std::string> OcsToeLogicalCsvRow(uint32_t gpus, const OcsToeLogicalRecord& x);

/**
 * \ingroup ocs-net
 * LTCR per algorithm (x axis, in the order of \p algorithms) and wiring (one colour each, in
 * the order of \p wirings) at \p gpus GPUs (Fig. 8): mean as a point, min..max as a bar.
 * Series of other sizes, wirings or algorithms are left out.
 */
Gnuplot OcsToeLtcrPlot(uint32_t gpus,
                       const std::vector<std::string>& wirings,
                       const std::vector<std::string>& algorithms,
                       const std::vector<OcsToeSizedSeries>& series,
                       const std::string& title);

/// \ingroup ocs-net Median solve time per step against cluster size, one line per series name.
Gnuplot OcsToeSolveTimePlot(const std::vector<OcsToeSizedSeries>& series);

} // namespace ns3

#endif // OCS_TOE_REPORT_H
