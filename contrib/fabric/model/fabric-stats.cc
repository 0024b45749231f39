// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-stats.h"

#include "ns3/log.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricStats");

double
Quantile(std::vector<double> values, double q, QuantileMethod method)
{
    if (!(q >= 0 && q <= 1))
    {
        throw std::invalid_argument("Quantile: q=" + std::to_string(q) + " must be in [0, 1]");
    }
    if (values.empty())
    {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    size_t i = 0;
    if (method == QuantileMethod::NEAREST_RANK)
    {
        const auto rank = static_cast<size_t>(std::ceil(q * n));
        i = std::min(n - 1, rank > 0 ? rank - 1 : 0);
    }
    else
    {
        i = std::min(n - 1, static_cast<size_t>(q * (n - 1) + 0.5));
    }
    return values[i];
}

double
Mean(const std::vector<double>& values)
{
    double s = 0;
    for (double x : values)
    {
        s += x;
    }
    return values.empty() ? 0 : s / values.size();
}

double
MaxRelativeError(const std::vector<double>& measured,
                 const std::vector<double>& expected,
                 const std::vector<uint32_t>& set)
{
    double maxErr = 0;
    for (uint32_t d : set)
    {
        if (d >= measured.size() || d >= expected.size())
        {
            throw std::invalid_argument("MaxRelativeError: index " + std::to_string(d)
                                        + " outside the vectors");
        }
        const double a = expected[d];
        const double err = (a > 0) ? std::fabs(measured[d] - a) / a : (measured[d] > 0 ? 1 : 0);
        maxErr = std::max(maxErr, err);
    }
    return maxErr;
}

double
PeakRssMiB()
{
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0)
    {
        return 0;
    }
    return u.ru_maxrss / 1024.0; // Linux reports KiB
}

} // namespace ns3
