// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-study.h"

#include "ns3/log.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcStudy");

std::vector<FlowSpec>
MakeIncastWithVictims(uint32_t n,
                      uint32_t k,
                      uint32_t senders,
                      uint32_t victims,
                      uint64_t bytes,
                      uint64_t victimBytes)
{
    if (k == 0 || n % k != 0 || n / k < 3)
    {
        throw std::invalid_argument("MakeIncastWithVictims: k=" + std::to_string(k)
                                    + " must divide n=" + std::to_string(n)
                                    + " into at least 3 leaves");
    }
    const uint32_t leaves = n / k;
    if (victims > std::min(k, leaves - 2))
    {
        throw std::invalid_argument("MakeIncastWithVictims: victims=" + std::to_string(victims)
                                    + " must be in [0, " + std::to_string(std::min(k, leaves - 2))
                                    + "]");
    }
    const uint32_t available = (leaves - 2) * k - victims;
    if (senders < 1 || senders > available)
    {
        throw std::invalid_argument("MakeIncastWithVictims: senders=" + std::to_string(senders)
                                    + " must be in [1, " + std::to_string(available) + "]");
    }
    auto flowOf = [](uint32_t id, uint32_t src, uint32_t dst, uint64_t b)
    {
        FlowSpec f;
        f.id = id;
        f.src = src;
        f.dst = dst;
        f.bytes = b;
        f.srcPort = static_cast<uint16_t>(49152 + id);
        return f;
    };
    std::vector<FlowSpec> flows;
    for (uint32_t h = k; h < (leaves - 1) * k && flows.size() < senders; ++h)
    {
        if (h / k <= victims && h % k == k - 1)
        {
            continue; // a victim's source
        }
        flows.push_back(flowOf(flows.size(), h, 0, bytes));
    }
    for (uint32_t v = 0; v < victims; ++v)
    {
        flows.push_back(
            flowOf(flows.size(), (v + 1) * k + k - 1, (leaves - 1) * k + v, victimBytes));
    }
    return flows;
}

IncastFlowStats
SummarizeIncastFlows(const std::vector<RoceFlowRecord>& flows,
                     const std::function<bool(const RoceFlowRecord&)>& isVictim)
{
    IncastFlowStats s;
    double victimSum = 0;
    for (const auto& f : flows)
    {
        s.cnps += f.cnps;
        if (!f.complete)
        {
            continue;
        }
        if (isVictim(f))
        {
            victimSum += f.Slowdown();
            s.victimSlowdownMax = std::max(s.victimSlowdownMax, f.Slowdown());
            ++s.victimsComplete;
        }
        else
        {
            s.incastFctMaxUs = std::max(s.incastFctMaxUs, f.FctSeconds() * 1e6);
        }
    }
    s.victimSlowdownMean = s.victimsComplete ? victimSum / s.victimsComplete : 0.0;
    return s;
}

PfcRunFigures
CollectPfcFigures(const PfcNetwork& pfc, const FabricGraph& g)
{
    PfcRunFigures fig;
    fig.pauseFrames = pfc.GetPauseFrames();
    fig.pauseEpisodes = pfc.GetPauseEpisodes();
    fig.headroomDrops = pfc.GetHeadroomDrops();
    fig.lostPauseFrames = pfc.GetLostPauseFrames();
    fig.events = pfc.GetPauseEvents();
    fig.deadlocks = pfc.GetDeadlocks();
    fig.storms = pfc.GetStorms().size();
    for (uint32_t d = 0; d < pfc.GetNDirLinks(); ++d)
    {
        const double paused = pfc.GetPausedSeconds(d);
        fig.pausedLinks += pfc.GetQueue(d)->GetPauseCount(PfcQueue::DATA) > 0;
        if (paused > fig.maxPausedSeconds)
        {
            fig.maxPausedSeconds = paused;
            fig.maxPausedLink = g.GetDirLinkLabel(d);
        }
    }
    return fig;
}

nlohmann::json
PfcFiguresJson(const PfcRunFigures& fig, double endSeconds)
{
    uint64_t firstHalf = 0;
    uint64_t secondHalf = 0;
    for (const auto& e : fig.events)
    {
        (e.t < endSeconds / 2 ? firstHalf : secondHalf) += e.paused ? 1 : 0;
    }
    nlohmann::json deadlocks = nlohmann::json::array();
    for (const auto& d : fig.deadlocks)
    {
        deadlocks.push_back({{"t_us", d.t * 1e6}, {"links", d.labels}});
    }
    return {{"pause_frames", fig.pauseFrames},
            {"pause_episodes", fig.pauseEpisodes},
            {"pause_episodes_first_half", firstHalf},
            {"pause_episodes_second_half", secondHalf},
            {"headroom_drops", fig.headroomDrops},
            {"paused_links", fig.pausedLinks},
            {"max_paused_fraction", endSeconds > 0 ? fig.maxPausedSeconds / endSeconds : 0.0},
            {"max_paused_link", fig.maxPausedLink},
            {"pause_storms", fig.storms},
            {"deadlocks", deadlocks}};
}

void
WritePfcPauseEventRows(CsvWriter& csv,
                       const std::vector<std::string>& prefix,
                       const std::vector<PfcNetwork::PauseEvent>& events,
                       const FabricGraph& g)
{
    for (const auto& e : events)
    {
        std::vector<std::string> row = prefix;
        row.insert(row.end(),
                   {FormatNumber(e.t * 1e6),
                    g.GetDirLinkLabel(e.dirLink),
                    std::to_string(g.GetTier(g.GetDirLinkTail(e.dirLink))),
                    e.paused ? "1" : "0"});
        csv.Row(row);
    }
}

Gnuplot
PfcPauseStatePlot(const std::vector<PfcNetwork::PauseEvent>& events,
                  const FabricGraph& g,
                  double endSeconds,
                  const std::string& title)
{
    std::map<uint32_t, std::vector<std::pair<double, bool>>> byLink;
    for (const auto& e : events)
    {
        byLink[e.dirLink].emplace_back(e.t * 1e6, e.paused);
    }
    std::vector<uint32_t> order;
    for (const auto& [d, ev] : byLink)
    {
        order.push_back(d);
    }
    std::stable_sort(order.begin(),
                     order.end(),
                     [&g](uint32_t a, uint32_t b)
                     { return g.GetTier(g.GetDirLinkTail(a)) > g.GetTier(g.GetDirLinkTail(b)); });
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 1000,700");
    plot.SetTitle(title);
    plot.SetLegend("time (us)", "paused link (by tier of its sender)");
    std::map<uint32_t, Gnuplot2dDataset> tiers;
    const char* names[] = {"host -> leaf", "leaf -> spine", "spine -> leaf"};
    for (size_t row = 0; row < order.size(); ++row)
    {
        const uint32_t d = order[row];
        const uint32_t tier = std::min<uint32_t>(g.GetTier(g.GetDirLinkTail(d)), 2);
        auto it = tiers.find(tier);
        if (it == tiers.end())
        {
            it = tiers.emplace(tier, Gnuplot2dDataset(names[tier])).first;
            it->second.SetStyle(Gnuplot2dDataset::LINES);
        }
        double since = -1;
        for (const auto& [t, paused] : byLink[d])
        {
            if (paused)
            {
                since = t;
            }
            else if (since >= 0)
            {
                it->second.Add(since, row);
                it->second.Add(t, row);
                it->second.AddEmptyLine();
                since = -1;
            }
        }
        if (since >= 0)
        {
            it->second.Add(since, row);
            it->second.Add(endSeconds * 1e6, row);
            it->second.AddEmptyLine();
        }
    }
    for (auto& [tier, ds] : tiers)
    {
        plot.AddDataset(ds);
    }
    plot.AppendExtra("set key outside right");
    return plot;
}

} // namespace ns3
