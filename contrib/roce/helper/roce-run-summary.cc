// SPDX-License-Identifier: GPL-2.0-only
#include "roce-run-summary.h"

#include "ns3/fabric-checks.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/log.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRunSummary");

nlohmann::json
SummarizeRoceRun(const FabricRoceRunResult& r, Time horizon)
{
    using json = nlohmann::json;
    std::vector<double> slow;
    std::vector<double> fct;
    std::vector<double> tput;
    uint32_t incomplete = 0;
    uint32_t withRetx = 0;
    uint64_t retx = 0;
    uint64_t cnps = 0;
    uint64_t timeouts = 0;
    double first = 1e300;
    double last = 0;
    std::map<uint32_t, uint64_t> flowHist; // switch-switch links of each flow's routed path
    for (const auto& rec : r.flows)
    {
        retx += rec.retxPackets;
        cnps += rec.cnps;
        timeouts += rec.timeouts;
        withRetx += rec.retxPackets > 0 ? 1 : 0;
        if (rec.path.size() >= 3)
        {
            flowHist[static_cast<uint32_t>(rec.path.size() - 3)]++;
        }
        if (!rec.complete)
        {
            ++incomplete;
            continue;
        }
        slow.push_back(rec.Slowdown());
        fct.push_back(rec.FctSeconds() * 1e6);
        tput.push_back(rec.ThroughputBps() / 1e9);
        first = std::min(first, rec.start.GetSeconds());
        last = std::max(last, rec.finish.GetSeconds());
    }
    std::sort(tput.begin(), tput.end());
    double tputMean = 0;
    for (double x : tput)
    {
        tputMean += x / tput.size(); // in sorted order: the reported figure depends on it
    }
    json hFlows = json::object();
    for (const auto& [k, c] : flowHist)
    {
        hFlows[std::to_string(k)] = double(c) / r.flows.size();
    }
    json drops = json::object();
    for (const auto& [reason, c] : r.drops)
    {
        drops[reason] = c;
    }
    const double slowMax = slow.empty() ? 0 : *std::max_element(slow.begin(), slow.end());
    json j{{"flows", r.flows.size()},
           {"flows_complete", r.flows.size() - incomplete},
           {"flows_incomplete", incomplete},
           {"flows_with_retransmissions", withRetx},
           {"throughput_gbps",
            {{"mean", tputMean},
             {"p1", Quantile(tput, 0.01)},
             {"min", tput.empty() ? 0 : tput.front()},
             {"p50", Quantile(tput, 0.5)},
             {"max", tput.empty() ? 0 : tput.back()}}},
           {"fct_slowdown",
            {{"p50", Quantile(slow, 0.5)},
             {"p90", Quantile(slow, 0.9)},
             {"p99", Quantile(slow, 0.99)},
             {"max", slowMax}}},
           {"fct_us", {{"p50", Quantile(fct, 0.5)}, {"p99", Quantile(fct, 0.99)}}},
           {"makespan_us", last > 0 ? (last - first) * 1e6 : 0.0},
           {"routed_path_length_hist_per_flow", hFlows},
           {"retransmitted_packets", retx},
           {"timeouts", timeouts},
           {"cnps", cnps},
           {"drops", drops},
           {"horizon_us", horizon.ToDouble(Time::US)},
           {"events", r.events},
           {"wall_s", r.wallSeconds}};
    // Flows still incomplete at the horizon mean the run was cut there, packets may be in
    // flight.
    j.update(PacketAccountingJson(
        r.sentPackets, r.deliveredPackets, r.drops, incomplete > 0, r.measuredInFlightPackets));
    return j;
}

namespace
{

/// Whether \p routing delivers both the data path and the ACK path of \p f.
bool
RoceFlowRouted(const FabricRouting& routing, const FlowSpec& f)
{
    FlowSpec ack;
    ack.src = f.dst;
    ack.dst = f.src;
    ack.srcPort = f.srcPort;
    ack.dstPort = ROCEV2_UDP_PORT;
    return TracePath(routing, f.src, f.dst, f.Key()).delivered
        && TracePath(routing, ack.src, ack.dst, ack.Key()).delivered;
}

} // namespace

uint32_t
CountRoceFlowsNotRouted(const FabricRouting& routing, const std::vector<FlowSpec>& flows)
{
    uint32_t count = 0;
    for (const auto& f : flows)
    {
        count += RoceFlowRouted(routing, f) ? 0 : 1;
    }
    return count;
}

std::vector<FlowSpec>
SelectRoutedRoceFlows(const FabricRouting& routing, const std::vector<FlowSpec>& flows)
{
    std::vector<FlowSpec> out;
    for (const auto& f : flows)
    {
        if (RoceFlowRouted(routing, f))
        {
            out.push_back(f);
            out.back().id = static_cast<uint32_t>(out.size() - 1);
        }
    }
    return out;
}

std::vector<std::string>
RoceFlowCsvHeader()
{
    return {"flow",
            "src",
            "dst",
            "bytes",
            "complete",
            "fct_us",
            "ideal_us",
            "slowdown",
            "throughput_gbps",
            "retx",
            "cnps",
            "routed_router_links"};
}

std::vector<std::string>
RoceFlowCsvCells(const RoceFlowRecord& r)
{
    return {std::to_string(r.spec.id),
            std::to_string(r.spec.src),
            std::to_string(r.spec.dst),
            std::to_string(r.spec.bytes),
            r.complete ? "1" : "0",
            FormatNumber(r.complete ? r.FctSeconds() * 1e6 : -1),
            FormatNumber(r.idealSeconds * 1e6),
            FormatNumber(r.Slowdown()),
            FormatNumber(r.ThroughputBps() / 1e9),
            std::to_string(r.retxPackets),
            std::to_string(r.cnps),
            std::to_string(r.path.size() >= 3 ? r.path.size() - 3 : 0)};
}

double
RoceBinGbps(uint64_t bytes, double binUs)
{
    return 8.0 * bytes / (binUs * 1e-6) / 1e9;
}

void
WriteRoceThroughputRows(CsvWriter& csv,
                        const std::vector<std::string>& prefix,
                        const std::vector<RoceFlowRecord>& flows,
                        double binUs)
{
    for (size_t f = 0; f < flows.size(); ++f)
    {
        for (size_t b = 0; b < flows[f].rxBins.size(); ++b)
        {
            std::vector<std::string> row = prefix;
            row.push_back(std::to_string(f));
            row.push_back(FormatNumber((b + 0.5) * binUs));
            row.push_back(FormatNumber(RoceBinGbps(flows[f].rxBins[b], binUs)));
            csv.Row(row);
        }
    }
}

Gnuplot
RoceThroughputPlot(const std::vector<RoceFlowRecord>& flows,
                   double binUs,
                   const std::string& title,
                   double lineGbps,
                   const std::function<std::string(size_t)>& name)
{
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 900,500");
    plot.SetTitle(title);
    plot.SetLegend("time (us)", "throughput (Gb/s)");
    plot.AppendExtra("set key outside right");
    plot.AppendExtra("set yrange [0:" + FormatNumber(lineGbps * 1.05) + "]");
    for (size_t f = 0; f < flows.size(); ++f)
    {
        Gnuplot2dDataset ds(name(f));
        ds.SetStyle(Gnuplot2dDataset::LINES);
        for (size_t b = 0; b < flows[f].rxBins.size(); ++b)
        {
            ds.Add((b + 0.5) * binUs, RoceBinGbps(flows[f].rxBins[b], binUs));
        }
        plot.AddDataset(ds);
    }
    return plot;
}

std::vector<std::string>
SharedLinkReport::FlowCsvHeader(std::vector<std::string> prefix)
{
    for (const char* c : {"flow",
                          "src",
                          "dst",
                          "bytes",
                          "fct_us",
                          "throughput_gbps",
                          "slowdown",
                          "collided",
                          "retx",
                          "cnps",
                          "path"})
    {
        prefix.emplace_back(c);
    }
    return prefix;
}

std::vector<std::string>
SharedLinkReport::FlowCsvCells(std::vector<std::string> prefix,
                               size_t index,
                               const RoceFlowRecord& rec) const
{
    std::string path;
    for (uint32_t v : rec.path)
    {
        path += (path.empty() ? "" : " ") + std::to_string(v);
    }
    for (std::string c : {std::to_string(index),
                          std::to_string(rec.spec.src),
                          std::to_string(rec.spec.dst),
                          std::to_string(rec.spec.bytes),
                          rec.complete ? FormatNumber(rec.FctSeconds() * 1e6) : "incomplete",
                          rec.complete ? FormatNumber(rec.ThroughputBps() / 1e9) : "incomplete",
                          rec.complete ? FormatNumber(rec.Slowdown()) : "incomplete",
                          std::string(flows.count(index) ? "1" : "0"),
                          std::to_string(rec.retxPackets),
                          std::to_string(rec.cnps),
                          path})
    {
        prefix.push_back(std::move(c));
    }
    return prefix;
}

nlohmann::json
SharedLinkReport::FlowsJson(const std::vector<RoceFlowRecord>& records) const
{
    nlohmann::json fj = RoceFlowsToJson(records);
    for (size_t f = 0; f < records.size(); ++f)
    {
        fj[f]["collided"] = flows.count(f) > 0;
    }
    return fj;
}

SharedLinkReport
ReportSharedLinks(const FabricGraph& g,
                  const std::vector<SharedLink>& shared,
                  const FabricRoceRunResult& run,
                  CsvWriter* queueCsv,
                  const std::vector<std::string>& prefix)
{
    SharedLinkReport rep;
    for (const SharedLink& c : shared)
    {
        rep.flows.insert(c.flows.begin(), c.flows.end());
        const auto& lc = run.links[c.dirLink];
        rep.maxQueueBytes = std::max(rep.maxQueueBytes, lc.maxQueueBytes);
        rep.ecnMarks += lc.ecnMarks;
        const std::string link = g.GetDirLinkLabel(c.dirLink);
        rep.links.push_back({{"link", link},
                             {"flows", c.flows},
                             {"max_queue_bytes", lc.maxQueueBytes},
                             {"ecn_marks", lc.ecnMarks},
                             {"drops", lc.queueDrops}});
        rep.label += (rep.label.empty() ? "" : " ") + link + ":";
        for (size_t i = 0; i < c.flows.size(); ++i)
        {
            rep.label += (i ? "," : "") + std::to_string(c.flows[i]);
        }
        const auto samples = run.queueSamples.find(c.dirLink);
        for (size_t i = 0;
             queueCsv && samples != run.queueSamples.end() && i < samples->second.size();
             ++i)
        {
            std::vector<std::string> row = prefix;
            row.push_back(link);
            row.push_back(FormatNumber(samples->second[i].t * 1e6));
            row.push_back(std::to_string(samples->second[i].bytes));
            queueCsv->Row(row);
        }
    }
    return rep;
}

RoceFlowExtremes
ComputeRoceFlowExtremes(const std::vector<RoceFlowRecord>& flows)
{
    RoceFlowExtremes x;
    double tmin = 1e300;
    for (const RoceFlowRecord& rec : flows)
    {
        x.allComplete = x.allComplete && rec.complete;
        if (rec.complete)
        {
            tmin = std::min(tmin, rec.ThroughputBps() / 1e9);
            x.maxGbps = std::max(x.maxGbps, rec.ThroughputBps() / 1e9);
            x.maxFctUs = std::max(x.maxFctUs, rec.FctSeconds() * 1e6);
        }
    }
    x.minGbps = x.maxGbps > 0 ? tmin : 0;
    return x;
}

} // namespace ns3
