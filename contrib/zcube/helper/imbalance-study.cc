// SPDX-License-Identifier: GPL-2.0-only
#include "imbalance-study.h"

#include "ns3/fabric-checks.h"
#include "ns3/fabric-udp-summary.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/udp-flow-sender.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ImbalanceStudy");

void
SeedImbalance::Add(const ImbalanceStats& st)
{
    imbalance.push_back(st.imbalance);
    loaded.push_back(st.loadedImbalance);
    links = st.links;
    loadedLinks = st.loadedLinks;
}

nlohmann::json
SeedImbalance::ToJson() const
{
    const MeanStd a = ComputeMeanStd(imbalance);
    const MeanStd b = ComputeMeanStd(loaded);
    return nlohmann::json{{"imbalance_mean", a.mean},
                          {"imbalance_std", a.std},
                          {"imbalance_min", *std::min_element(imbalance.begin(), imbalance.end())},
                          {"imbalance_max", *std::max_element(imbalance.begin(), imbalance.end())},
                          {"loaded_imbalance_mean", b.mean},
                          {"loaded_imbalance_std", b.std},
                          {"links", links},
                          {"loaded_links", loadedLinks},
                          {"seeds", imbalance.size()}};
}

AnalyticImbalance
RunAnalyticImbalance(const std::vector<FabricChoice>& fabrics,
                     const std::vector<FlowSpec>& flows,
                     uint32_t seeds,
                     uint64_t seed0,
                     const std::string& patternKey,
                     CsvWriter* seedCsv)
{
    NS_LOG_FUNCTION(flows.size() << seeds << seed0 << patternKey);
    AnalyticImbalance r;
    r.perFabric.resize(fabrics.size());
    const std::vector<double> w(flows.size(), 1.0); // equal volume per flow
    for (uint32_t s = 0; s < seeds; ++s)
    {
        const uint64_t seed = seed0 + s;
        uint32_t undelivered = 0;
        std::vector<std::vector<double>> loads;
        for (const auto& fab : fabrics)
        {
            loads.push_back(ComputeDirLinkLoads(*fab.CreateRouting(seed), flows, w, &undelivered));
        }
        if (undelivered)
        {
            throw std::logic_error("a flow's route did not reach its destination");
        }
        for (size_t fi = 0; fi < fabrics.size(); ++fi)
        {
            if (s == 0 && fabrics[fi].modelCheck && !fabrics[fi].modelCheck(flows, w, loads[fi]))
            {
                throw std::logic_error("Eq. 3 disagrees with the routing walk");
            }
            const ImbalanceStats st = ComputeImbalance(loads[fi], fabrics[fi].metricDirLinks);
            r.perFabric[fi].Add(st);
            if (seedCsv)
            {
                seedCsv->Row({patternKey,
                              fabrics[fi].name,
                              std::to_string(seed),
                              FormatNumber(st.imbalance),
                              FormatNumber(st.loadedImbalance),
                              FormatNumber(st.max),
                              FormatNumber(st.mean)});
            }
        }
        if (s == 0)
        {
            r.firstSeedLoads = loads;
        }
    }
    return r;
}

namespace
{
/// One UDP run of \p flows at \p rates over \p routing, compared with \p analytic.
nlohmann::json
UdpRun(const FabricChoice& fabric,
       Ptr<FabricRouting> routing,
       const std::vector<FlowSpec>& flows,
       const std::vector<double>& rates,
       const std::vector<double>& analytic,
       const PacketImbalanceOptions& o,
       FabricUdpRunResult& keep)
{
    FabricNetworkHelper links;
    links.SetNetworkAttribute("SwitchMode", StringValue(o.switchMode));
    links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(o.lineBps))));
    keep = RunFabricUdp(links.Install(fabric.graph, routing), flows, rates, o.packetSize);
    return CompareUdpRunWithAnalytic(keep, flows, analytic, fabric.metricDirLinks);
}
} // namespace

bool
PacketImbalance::Ok() const
{
    return unsaturated["max_rel_err_vs_analytic"].get<double>() < 0.01
        && unsaturated["in_flight_at_stop"].get<int64_t>() == 0
        && fullLoad["in_flight_at_stop"].get<int64_t>() == 0;
}

PacketImbalance
RunPacketImbalance(const FabricChoice& fabric,
                   uint64_t seed,
                   const std::vector<FlowSpec>& flows,
                   const PacketImbalanceOptions& o)
{
    NS_LOG_FUNCTION(fabric.name << seed << flows.size());
    PacketImbalance r;
    Ptr<FabricRouting> routing = fabric.CreateRouting(seed);
    std::vector<double> wire;
    for (const auto& f : flows)
    {
        wire.push_back(double(UdpFlowSender::Ipv4BytesOf(f.bytes, o.packetSize)));
    }
    r.analyticBytes = ComputeDirLinkLoads(*routing, flows, wire);
    // Offered load that keeps the hottest link (access links included) at 90%.
    const auto rate1 = HostShareRates(flows, o.hosts, o.lineBps);
    const auto util = ComputeDirLinkLoads(*routing, flows, rate1);
    const double hottest = *std::max_element(util.begin(), util.end()) / o.lineBps;
    r.safeLoad = std::min(1.0, 0.9 / hottest);
    r.unsaturated = UdpRun(fabric,
                           routing,
                           flows,
                           HostShareRates(flows, o.hosts, r.safeLoad * o.lineBps),
                           r.analyticBytes,
                           o,
                           r.low);
    r.unsaturated["seed"] = seed;
    r.unsaturated["offered_load"] = r.safeLoad;
    r.fullLoad = UdpRun(fabric, routing, flows, rate1, r.analyticBytes, o, r.full);
    r.fullLoad["seed"] = seed;
    r.fullLoad["offered_load"] = 1.0;
    return r;
}

void
PrintImbalanceHeader(std::ostream& os, bool packet)
{
    os << "\n"
       << std::left << std::setw(16) << "pattern" << std::setw(7) << "fabric" << std::right
       << std::setw(15) << "imbalance" << std::setw(9) << "loaded";
    if (packet)
    {
        os << " |" << std::setw(8) << "pkt-imb" << std::setw(10) << "max-err" << std::setw(7)
           << "load"
           << " |" << std::setw(10) << "drops@1.0" << std::setw(11) << "tput-mean" << std::setw(10)
           << "tput-min" << std::setw(11) << "maxQ(KB)";
    }
    os << "\n";
}

void
PrintImbalanceRow(std::ostream& os,
                  const std::string& pattern,
                  const std::string& fabric,
                  const nlohmann::json& fj,
                  bool packet)
{
    std::ostringstream imb;
    imb << std::fixed << std::setprecision(2) << fj["imbalance_mean"].get<double>() << "+-"
        << fj["imbalance_std"].get<double>();
    os << std::left << std::setw(16) << pattern << std::setw(7) << fabric << std::right
       << std::setw(15) << imb.str() << std::setw(9) << std::fixed << std::setprecision(2)
       << fj["loaded_imbalance_mean"].get<double>();
    if (packet)
    {
        const nlohmann::json& lo = fj["packet"][0]["unsaturated"];
        const nlohmann::json& hi = fj["packet"][0]["full_load"];
        os << " |" << std::setw(8) << lo["imbalance"].get<double>() << std::setw(9)
           << std::setprecision(4) << 100 * lo["max_rel_err_vs_analytic"].get<double>() << "%"
           << std::setw(7) << std::setprecision(2) << lo["offered_load"].get<double>() << " |"
           << std::setw(10) << hi["dropped_packets"].get<uint64_t>() << std::setw(11)
           << std::setprecision(1) << hi["throughput_gbps_mean"].get<double>() << std::setw(10)
           << hi["throughput_gbps_min"].get<double>() << std::setw(11)
           << hi["max_queue_bytes"].get<uint64_t>() / 1000;
    }
    os << "\n";
}

void
PrintImbalanceLegend(std::ostream& os, bool packet)
{
    os << "\nimbalance: mean+-std over seeds; loaded: mean over links carrying traffic";
    if (packet)
    {
        os << "\npkt-imb, max-err: packet run at the offered load 'load' (hottest link at "
              "90%); max-err = max |packet - analytic| / analytic bytes over the metric's "
              "links\ndrops@1.0, tput (Gb/s per flow), maxQ: packet run at full line rate";
    }
}

void
CheckImbalanceStudySize(uint32_t hosts,
                        const std::vector<PatternCase>& patterns,
                        uint32_t elephants,
                        double seedsRun,
                        bool packet,
                        const std::string& sizes,
                        const std::string& seedsFlag)
{
    double maxFlows = 0;
    double sumFlows = 0;
    for (const auto& pc : patterns)
    {
        TrafficPatternParams tp;
        tp.hosts = hosts;
        tp.prefillFraction = pc.prefillFraction;
        tp.elephants = elephants;
        const auto f = double(TrafficFlowCount(pc.pattern, tp));
        maxFlows = std::max(maxFlows, f);
        sumFlows += f;
    }
    const double n = hosts;
    CheckFabricMemory(30e6 + 8.0 * n * n + 70 * maxFlows + (packet ? 45e3 * n : 0), sizes);
    CheckFabricRunTime(1e-6 * seedsRun * sumFlows, sizes + " and " + seedsFlag);
}

ImbalancePlot::ImbalancePlot(const std::vector<FabricChoice>& fabrics)
{
    const std::map<std::string, std::string> titles{{"zcube", "ZCube"}, {"roft", "ROFT + ECMP"}};
    for (const auto& fab : fabrics)
    {
        m_series.emplace_back(titles.count(fab.name) ? titles.at(fab.name) : fab.name);
        m_series.back().SetStyle(Gnuplot2dDataset::POINTS);
        m_series.back().SetErrorBars(Gnuplot2dDataset::Y);
    }
}

void
ImbalancePlot::Add(const std::string& patternKey, const std::vector<SeedImbalance>& stats)
{
    if (stats.size() != m_series.size())
    {
        throw std::invalid_argument("ImbalancePlot::Add: " + std::to_string(stats.size())
                                    + " fabrics' statistics for " + std::to_string(m_series.size())
                                    + " fabrics");
    }
    const size_t pi = m_patterns++;
    for (size_t fi = 0; fi < stats.size(); ++fi)
    {
        const MeanStd ms = ComputeMeanStd(stats[fi].imbalance);
        m_series[fi].Add(pi + 0.12 * (stats.size() - 1) - 0.24 * fi, ms.mean, ms.std);
    }
    m_xtics += (m_xtics.empty() ? "" : ", ") + std::string("\"") + patternKey + "\" "
             + std::to_string(pi);
}

Gnuplot
ImbalancePlot::Build(const std::string& title) const
{
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 900,500");
    plot.SetTitle(title);
    plot.SetLegend("traffic pattern", "imbalance (max / mean link load)");
    plot.AppendExtra("set xtics (" + m_xtics + ")");
    plot.AppendExtra("set xrange [-0.5:" + std::to_string(m_patterns - 0.5) + "]");
    plot.AppendExtra("set yrange [0:*]");
    plot.AppendExtra("set grid ytics");
    plot.AppendExtra("set key top left");
    for (size_t fi = m_series.size(); fi-- > 0;)
    {
        plot.AddDataset(m_series[fi]);
    }
    return plot;
}

} // namespace ns3
