// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-toe-report.h"

#include "ns3/fabric-results.h"
#include "ns3/fabric-table.h"
#include "ns3/log.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsToeReport");

namespace
{

double
Q(const std::vector<double>& v, double q)
{
    return Quantile(v, q, OCS_TOE_QUANTILE);
}

uint32_t
StepsAtOne(const std::vector<double>& ltcr)
{
    return uint32_t(std::count_if(ltcr.begin(), ltcr.end(), [](double x) { return x >= 1.0; }));
}

} // namespace

nlohmann::json
OcsToeSeriesToJson(const OcsToeSizedSeries& sized, uint32_t gpusPerEg, bool withMlu)
{
    const auto& [gpus, s] = sized;
    nlohmann::json j = {{"gpus", gpus},
                        {"egs", gpus / gpusPerEg},
                        {"wiring", s.wiring},
                        {"algorithm", s.algorithm},
                        {"steps", s.ltcr.size()},
                        {"ltcr_mean", Mean(s.ltcr)},
                        {"ltcr_min", Q(s.ltcr, 0)},
                        {"ltcr_p10", Q(s.ltcr, 0.1)},
                        {"ltcr_median", Q(s.ltcr, 0.5)},
                        {"ltcr_max", Q(s.ltcr, 1)},
                        {"steps_ltcr_1", StepsAtOne(s.ltcr)},
                        {"solve_us_median", Q(s.solveUs, 0.5)},
                        {"solve_us_p90", Q(s.solveUs, 0.9)},
                        {"solve_us_max", Q(s.solveUs, 1)},
                        {"decomposition_us_median", Q(s.decompUs, 0.5)},
                        {"timeouts", s.timeouts},
                        {"proved_optimal", s.provedOptimal}};
    if (withMlu)
    {
        j["mlu_over_logical_mean"] = Mean(s.mluRatio);
        j["mlu_over_logical_max"] = Q(s.mluRatio, 1);
        j["unrouted_demand_fraction_mean"] = Mean(s.unrouted);
    }
    return j;
}

void
PrintOcsToeTable(const std::vector<OcsToeSizedSeries>& series, std::ostream& os)
{
    const FabricTextTable t({{"GPUs", 7, true},
                             {"wiring", 9, true},
                             {"algo", 8, true},
                             {"steps", 6},
                             {"LTCR-mean", 10},
                             {"min", 9},
                             {"p10", 9},
                             {"median", 9},
                             {"=1", 8},
                             {"solve-p50us", 13},
                             {"solve-maxus", 13},
                             {"timeouts", 10}},
                            os);
    t.PrintHeader();
    for (const auto& [gpus, s] : series)
    {
        auto f4 = [](double x)
        {
            return FabricTextTable::Fixed(x, 4);
        };
        t.PrintRow({std::to_string(gpus),
                    s.wiring,
                    s.algorithm,
                    std::to_string(s.ltcr.size()),
                    f4(Mean(s.ltcr)),
                    f4(Q(s.ltcr, 0)),
                    f4(Q(s.ltcr, 0.1)),
                    f4(Q(s.ltcr, 0.5)),
                    std::to_string(StepsAtOne(s.ltcr)),
                    FabricTextTable::Fixed(Q(s.solveUs, 0.5), 1),
                    FabricTextTable::Fixed(Q(s.solveUs, 1), 1),
                    std::to_string(s.timeouts)});
    }
}

void
PrintOcsToeMluTable(const std::vector<OcsToeSizedSeries>& series, std::ostream& os)
{
    const FabricTextTable t({{"GPUs", 7, true},
                             {"wiring", 9, true},
                             {"algo", 8, true},
                             {"MLU/bound", 12},
                             {"above-%", 10},
                             {"max", 10},
                             {"unrouted-%", 12}},
                            os);
    t.PrintHeader();
    for (const auto& [gpus, s] : series)
    {
        t.PrintRow({std::to_string(gpus),
                    s.wiring,
                    s.algorithm,
                    FabricTextTable::Fixed(Mean(s.mluRatio), 3),
                    FabricTextTable::Fixed((Mean(s.mluRatio) - 1) * 100, 1),
                    FabricTextTable::Fixed(Q(s.mluRatio, 1), 3),
                    FabricTextTable::Fixed(Mean(s.unrouted) * 100, 2)});
    }
}

std::vector<std::string>
OcsToeStepCsvColumns()
{
    return {"gpus",
            "egs",
            "step",
            "wiring",
            "algorithm",
            "ltcr",
            "solve_us",
            "decomposition_us",
            "timed_out",
            "target_links",
            "realized_links"};
}

std::vector<std::string>
OcsToeStepCsvRow(uint32_t gpus, uint32_t egs, const OcsToeStepRecord& x)
{
    return {std::to_string(gpus),
            std::to_string(egs),
            std::to_string(x.step),
            x.wiring,
            x.algorithm,
            FormatNumber(x.ltcr, 9),
            FormatNumber(x.solveUs),
            FormatNumber(x.decompUs),
            x.timedOut ? "1" : "0",
            std::to_string(x.targetLinks),
            std::to_string(x.realizedLinks)};
}

std::vector<std::string>
OcsToeLogicalCsvColumns()
{
    return {"gpus", "step", "jobs", "mlu", "links", "spare_links", "solve_us"};
}

std::vector<std::string>
OcsToeLogicalCsvRow(uint32_t gpus, const OcsToeLogicalRecord& x)
{
    return {std::to_string(gpus),
            std::to_string(x.step),
            std::to_string(x.jobs),
            FormatNumber(x.mlu),
            std::to_string(x.links),
            std::to_string(x.spareLinks),
            FormatNumber(x.solveUs)};
}

Gnuplot
OcsToeLtcrPlot(uint32_t gpus,
               const std::vector<std::string>& wirings,
               const std::vector<std::string>& algorithms,
               const std::vector<OcsToeSizedSeries>& series,
               const std::string& title)
{
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 900,500");
    plot.SetTitle(title);
    plot.SetLegend("OCS configuration algorithm", "LTCR (Eq. 1)");
    std::string xtics;
    for (size_t ai = 0; ai < algorithms.size(); ++ai)
    {
        xtics += (ai ? ", \"" : "\"") + algorithms[ai] + "\" " + std::to_string(ai);
    }
    plot.AppendExtra("set xtics (" + xtics + ")");
    plot.AppendExtra("set xrange [-0.5:" + std::to_string(algorithms.size() - 0.5) + "]");
    plot.AppendExtra("set yrange [0:1.05]");
    plot.AppendExtra("set grid ytics");
    plot.AppendExtra("set key bottom left");
    for (size_t wi = 0; wi < wirings.size(); ++wi)
    {
        Gnuplot2dDataset range(wirings[wi] + " min..max");
        Gnuplot2dDataset mean(wirings[wi] + " mean");
        range.SetStyle(Gnuplot2dDataset::POINTS);
        range.SetErrorBars(Gnuplot2dDataset::Y);
        range.SetExtra("pt -1 lw 2 lc " + std::to_string(wi + 1));
        mean.SetStyle(Gnuplot2dDataset::POINTS);
        mean.SetExtra("pt 7 ps 1.3 lc " + std::to_string(wi + 1));
        // Wirings side by side around each algorithm's tick.
        const double dx = (double(wi) - 0.5 * (wirings.size() - 1)) * 0.2;
        for (size_t ai = 0; ai < algorithms.size(); ++ai)
        {
            const auto it = std::find_if(series.begin(),
                                         series.end(),
                                         [&](const OcsToeSizedSeries& x)
                                         {
                                             return x.first == gpus
                                                 && x.second.wiring == wirings[wi]
                                                 && x.second.algorithm == algorithms[ai];
                                         });
            if (it == series.end())
            {
                continue;
            }
            const auto& v = it->second.ltcr;
            const double lo = Q(v, 0);
            const double hi = Q(v, 1);
            range.Add(ai + dx, 0.5 * (lo + hi), 0.5 * (hi - lo));
            mean.Add(ai + dx, Mean(v));
        }
        plot.AddDataset(range);
        plot.AddDataset(mean);
    }
    return plot;
}

Gnuplot
OcsToeSolveTimePlot(const std::vector<OcsToeSizedSeries>& series)
{
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 900,500");
    plot.SetTitle("Median solve time per step (configuration only)");
    plot.SetLegend("GPUs", "median solve time (us)");
    plot.AppendExtra("set logscale xy");
    if (!series.empty())
    {
        const auto [lo, hi]
            = std::minmax_element(series.begin(),
                                  series.end(),
                                  [](const OcsToeSizedSeries& a, const OcsToeSizedSeries& b)
                                  { return a.first < b.first; });
        plot.AppendExtra("set xrange [" + std::to_string(lo->first / 1.4) + ":"
                         + std::to_string(hi->first * 1.4) + "]");
    }
    plot.AppendExtra("set key outside right");
    plot.AppendExtra("set grid");
    std::map<std::string, Gnuplot2dDataset> byName;
    for (const auto& [gpus, s] : series)
    {
        const std::string name = s.wiring + " " + s.algorithm;
        auto it = byName.find(name);
        if (it == byName.end())
        {
            it = byName.emplace(name, Gnuplot2dDataset(name)).first;
            it->second.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        }
        it->second.Add(gpus, Q(s.solveUs, 0.5));
    }
    for (auto& [name, ds] : byName)
    {
        plot.AddDataset(ds);
    }
    return plot;
}

} // namespace ns3
