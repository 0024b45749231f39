// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_STATS_H
#define FABRIC_STATS_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Which sample a quantile picks (no interpolation: the result is always one of the samples).
 */
enum class QuantileMethod
{
    NEAREST_RANK, //!< the ceil(q n)-th smallest (1-based; q = 0 gives the minimum)
    ROUNDED_INDEX //!< sorted[round(q (n - 1))] (q = 0.5 gives the upper median)
};

/**
 * \ingroup fabric
 * The q-quantile of \p values (any order; 0 if empty).
 * \param q in [0, 1]
 * \throws std::invalid_argument if q is outside [0, 1]
 */
double Quantile(std::vector<double> values,
                double q,
                QuantileMethod method = QuantileMethod::NEAREST_RANK);

/// Arithmetic mean (0 if empty).
double Mean(const std::vector<double>& values);

/**
 * Largest relative error |measured - expected| / expected over the entries \p set of two
 * per-link vectors (an entry with expected 0 counts 1 if measured is not 0): how far a
 * packet-level run is from the analytic loads.
 */
double MaxRelativeError(const std::vector<double>& measured,
                        const std::vector<double>& expected,
                        const std::vector<uint32_t>& set);

/// Peak resident set size of this process in MiB (getrusage ru_maxrss; 0 if unavailable).
double PeakRssMiB();

} // namespace ns3

#endif // FABRIC_STATS_H
