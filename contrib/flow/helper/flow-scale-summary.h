// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_SCALE_SUMMARY_H
#define FLOW_SCALE_SUMMARY_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-table.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/flow-simulator.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/object-factory.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * A table printed as text (fixed-width columns) and written as Markdown at once, from the
 * same cells: flow-scale's tables on the terminal and in tables.md.
 */
class FlowScaleTable
{
  public:
    /// One column: its Markdown heading, and its short heading and width on the terminal.
    struct Column
    {
        std::string markdown;
        std::string text;
        int width;
        bool left{false}; //!< left-aligned on the terminal (default right)
    };

    /// Prints both headers. \p md receives the Markdown, \p text the terminal rows.
    FlowScaleTable(std::vector<Column> columns, std::ostream& md, std::ostream& text = std::cout);

    /**
     * One row: "| c1 | c2 | ... |" to the Markdown, the cells in columns then \p textTail to
     * the terminal.
     * \throws std::invalid_argument if the number of cells differs from the columns'
     */
    void Row(const std::vector<std::string>& cells, const std::string& textTail = "") const;

  private:
    FabricTextTable TextTable() const;
    void MarkdownRow(const std::vector<std::string>& cells) const;

    std::vector<Column> m_columns;
    std::ostream& m_md;
    std::ostream& m_text;
};

/**
 * \ingroup flow
 * What a flow-level run of one pattern gives, in one row: completion of the whole pattern,
 * path lengths, and how evenly the fabric (switch-to-switch) links were loaded. The same
 * definitions as SummarizeFlowRun (both read ComputeFlowRunStats).
 */
struct FlowScaleSummary
{
    double completionMs{0};    //!< last finish of a completed flow (FlowRunStats::completionS)
    uint64_t complete{0};      //!< flows that completed
    uint64_t flows{0};         //!< flows in the run
    double meanRouterLinks{0}; //!< switch-switch links per completed flow, by wire bytes
    double maxUtil{0};         //!< busiest fabric link (FlowRunStats::busiestRouterLinkUtil, <= 1)
    double imbalance{0};       //!< max / mean bytes over the loaded fabric links
    double slowdownMedian{0};  //!< median FCT / ideal FCT of the completed flows (0: none)
    double wallS{0};           //!< wall time of the run, set by the caller

    /// Keys completion_ms, complete, flows, mean_router_links, max_fabric_util,
    /// loaded_imbalance, slowdown_median, wall_s.
    nlohmann::json ToJson() const;

    /**
     * Table columns: \p keys, then completion (ms), median slowdown, router links per flow
     * (with \p hops), busiest fabric link util, loaded imbalance, flows (with \p flows),
     * wall (s).
     */
    static std::vector<FlowScaleTable::Column> Columns(std::vector<FlowScaleTable::Column> keys,
                                                       bool hops,
                                                       bool flows);
    /// The cells of Columns(keys, withHops, withFlows): \p keys, then the numbers (4
    /// significant digits for completion and slowdown, 3 for the others).
    std::vector<std::string> Cells(std::vector<std::string> keys,
                                   bool withHops,
                                   bool withFlows) const;
    /// The terminal's tail of a row: "  (complete/flows complete)".
    std::string CompleteTail() const;
};

/**
 * \ingroup flow
 * Summarize a finished run over \p graph (the graph its routing was bound to) from
 * ComputeFlowRunStats; wallS is 0.
 */
FlowScaleSummary SummarizeFlowScaleRun(const FlowSimulator& sim, const FabricGraph& graph);

/**
 * \ingroup flow
 * Run \p flows with \p helper over \p routing (bound to its graph) and summarize the run,
 * with wallS the wall time of the run itself (not of the summary).
 */
FlowScaleSummary RunFlowScale(const FlowSimHelper& helper,
                              Ptr<FabricRouting> routing,
                              const std::vector<FlowSpec>& flows);

/**
 * \ingroup flow
 * The same with a routing created from \p routing (a FabricRouting TypeId and its attributes)
 * and bound to \p graph.
 */
FlowScaleSummary RunFlowScale(const FlowSimHelper& helper,
                              const ObjectFactory& routing,
                              std::shared_ptr<const FabricGraph> graph,
                              const std::vector<FlowSpec>& flows);

/**
 * \ingroup flow
 * Flow-hash ECMP over many hash seeds (ZCube §4's baseline): the runs and the spread of their
 * completion times and imbalances (population standard deviation).
 */
struct FlowScaleSeedSweep
{
    std::vector<uint64_t> seeds;        //!< EcmpRouting Seed of each run
    std::vector<FlowScaleSummary> runs; //!< one per seed, in order
    double completionMsMean{0};         //!< mean completion over the seeds
    double completionMsStd{0};          //!< its population standard deviation
    double completionMsMax{0};          //!< the slowest seed's completion
    double imbalanceMean{0};            //!< mean loaded imbalance

    /// Keys ecmp_completion_ms_mean, ecmp_completion_ms_std, ecmp_completion_ms_max,
    /// ecmp_imbalance_mean.
    nlohmann::json ToJson() const;

    /// One CSV row per seed: \p pattern, seed, completion_ms, loaded_imbalance (6 digits).
    std::vector<std::vector<std::string>> CsvRows(const std::string& pattern) const;
};

/**
 * \ingroup flow
 * Run \p flows over ns3::EcmpRouting on \p graph with Seed \p firstSeed, firstSeed + 1, ...
 * (\p seeds runs).
 * \throws std::invalid_argument if \p seeds is 0
 */
FlowScaleSeedSweep RunEcmpSeedSweep(const FlowSimHelper& helper,
                                    std::shared_ptr<const FabricGraph> graph,
                                    const std::vector<FlowSpec>& flows,
                                    uint64_t firstSeed,
                                    uint32_t seeds);

/**
 * \ingroup flow
 * Congestion-aware greedy path choice on the leaf-spine \p layout built as \p graph
 * (GreedyPinnedRouting::PinLeastLoaded in flow order over ECMP with \p seed), then run.
 */
FlowScaleSummary RunGreedyPinned(const FlowSimHelper& helper,
                                 const LeafSpineLayout& layout,
                                 std::shared_ptr<const FabricGraph> graph,
                                 const std::vector<FlowSpec>& flows,
                                 uint64_t seed);

/**
 * \ingroup flow
 * ZCube §4 on one pattern: flow-hash ECMP over hash seeds (RunEcmpSeedSweep) and
 * congestion-aware greedy pinning (RunGreedyPinned) on a leaf-spine, and a fabric whose paths
 * are fixed (ZCube).
 */
struct FlowScaleStrategies
{
    FlowScaleSeedSweep ecmp; //!< ECMP over the hash seeds
    FlowScaleSummary greedy; //!< greedy pinning in flow order
    FlowScaleSummary fixed;  //!< the fixed-path fabric
    uint64_t flows{0};       //!< flows of the pattern

    /// FlowScaleSeedSweep::ToJson's keys, "greedy", \p fixedName and "flows".
    nlohmann::json ToJson(const std::string& fixedName) const;
    /// \p pattern, ECMP completion (ms, "mean ± std"), ECMP mean imbalance, greedy
    /// completion and imbalance, the fixed fabric's completion and imbalance.
    std::vector<std::string> Cells(const std::string& pattern) const;
};

/**
 * \ingroup flow
 * Run \p flows by the three strategies of FlowScaleStrategies, in that order: ECMP with Seed
 * \p seed, \p seed + 1, ... (\p seeds runs) and greedy pinning (over ECMP with \p seed) on the
 * leaf-spine \p layout built as \p leafSpine, then \p fixedRouting bound to \p fixedGraph.
 */
FlowScaleStrategies RunFlowScaleStrategies(const FlowSimHelper& helper,
                                           const LeafSpineLayout& layout,
                                           std::shared_ptr<const FabricGraph> leafSpine,
                                           const ObjectFactory& fixedRouting,
                                           std::shared_ptr<const FabricGraph> fixedGraph,
                                           const std::vector<FlowSpec>& flows,
                                           uint64_t seed,
                                           uint32_t seeds);

} // namespace ns3

#endif // FLOW_SCALE_SUMMARY_H
