// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-plot.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPlot");

Gnuplot2dDataset
MakeCdfDataset(const std::string& title, std::vector<double> values, size_t maxPoints)
{
    std::sort(values.begin(), values.end());
    Gnuplot2dDataset ds(title);
    ds.SetStyle(Gnuplot2dDataset::LINES);
    const size_t step = std::max<size_t>(1, values.size() / std::max<size_t>(1, maxPoints));
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (i % step == 0 || i + 1 == values.size())
        {
            ds.Add(values[i], double(i + 1) / values.size());
        }
    }
    return ds;
}

} // namespace ns3
