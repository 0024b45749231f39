// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_STUDY_H
#define PFC_STUDY_H

#include "ns3/fabric-results.h"
#include "ns3/gnuplot.h"
#include "ns3/pfc-network.h"
#include "ns3/roce-traffic-helper.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * An incast with victims on a leaf-spine fabric of \p n hosts, \p k per leaf (leaves =
 * n / k): up to \p senders hosts of leaves 1 .. leaves-2 send \p bytes each to host 0, and
 * \p victims flows of \p victimBytes go from the last host of leaves 1 .. victims (which
 * send no incast flow) to hosts 0, 1, ... of the last leaf, an idle one. The victims share
 * the incast senders' leaf uplinks only. Flows are numbered in that order (incast first);
 * source ports 49152 + id.
 * \throws std::invalid_argument unless k divides n into at least 3 leaves, victims <=
 *         min(k, leaves - 2), and senders is in [1, (leaves - 2) k - victims]
 */
std::vector<FlowSpec> MakeIncastWithVictims(uint32_t n,
                                            uint32_t k,
                                            uint32_t senders,
                                            uint32_t victims,
                                            uint64_t bytes,
                                            uint64_t victimBytes);

/// \ingroup roce Figures of the incast and victim flows of a run (completed flows only).
struct IncastFlowStats
{
    uint64_t cnps{0};         //!< CNPs received by every sender
    double incastFctMaxUs{0}; //!< slowest completed incast flow
    double victimSlowdownMean{0};
    double victimSlowdownMax{0};
    uint32_t victimsComplete{0};
};

/// \ingroup roce IncastFlowStats of \p flows, \p isVictim telling the victims apart.
IncastFlowStats SummarizeIncastFlows(const std::vector<RoceFlowRecord>& flows,
                                     const std::function<bool(const RoceFlowRecord&)>& isVictim);

/// \ingroup roce What a lossless run's PfcNetwork reports, read before the simulator ends.
struct PfcRunFigures
{
    uint64_t pauseFrames{0};
    uint64_t pauseEpisodes{0};
    uint64_t headroomDrops{0};
    uint64_t lostPauseFrames{0};
    double maxPausedSeconds{0}; //!< the longest a directed link was paused in all
    std::string maxPausedLink;
    uint32_t pausedLinks{0}; //!< directed links paused at least once
    std::vector<PfcNetwork::PauseEvent> events;
    std::vector<PfcNetwork::DeadlockReport> deadlocks;
    size_t storms{0};
};

/// \ingroup roce Read \p pfc's figures (call from FabricRoceRunOptions::afterRun).
PfcRunFigures CollectPfcFigures(const PfcNetwork& pfc, const FabricGraph& g);

/**
 * \ingroup roce
 * The PFC keys of a lossless scenario's run: pause_frames, pause_episodes,
 * pause_episodes_first_half / _second_half (pause events before / after \p endSeconds / 2),
 * headroom_drops, paused_links, max_paused_fraction (of \p endSeconds), max_paused_link,
 * pause_storms, deadlocks [{t_us, links}]. All zero or empty for a lossy run (default
 * figures).
 */
nlohmann::json PfcFiguresJson(const PfcRunFigures& fig, double endSeconds);

/// \ingroup roce One CSV row per pause event: \p prefix, t_us, link, tail_tier, paused.
void WritePfcPauseEventRows(CsvWriter& csv,
                            const std::vector<std::string>& prefix,
                            const std::vector<PfcNetwork::PauseEvent>& events,
                            const FabricGraph& g);

/**
 * \ingroup roce
 * Pause state per directed link over time: one row per link ever paused, a line while it is
 * paused (to \p endSeconds if it never resumed), links grouped by the tier of the paused
 * sender (spine -> leaf, leaf -> spine, host -> leaf), so a pause propagating hop by hop
 * shows from the bottom rows up.
 */
Gnuplot PfcPauseStatePlot(const std::vector<PfcNetwork::PauseEvent>& events,
                          const FabricGraph& g,
                          double endSeconds,
                          const std::string& title);

} // namespace ns3

#endif // PFC_STUDY_H
