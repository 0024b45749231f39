// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_PLOT_H
#define FABRIC_PLOT_H

#include "ns3/gnuplot.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * An empirical CDF of \p values (any order) as a gnuplot line: point i of the sorted values
 * at (value, (i+1)/n), thinned to about \p maxPoints points (the last one always kept) so the
 * .plt script stays small.
 */
Gnuplot2dDataset MakeCdfDataset(const std::string& title,
                                std::vector<double> values,
                                size_t maxPoints = 400);

} // namespace ns3

#endif // FABRIC_PLOT_H
