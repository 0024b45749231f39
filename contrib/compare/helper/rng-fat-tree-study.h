// SPDX-License-Identifier: GPL-2.0-only
#ifndef RNG_FAT_TREE_STUDY_H
#define RNG_FAT_TREE_STUDY_H

#include "ns3/fabric-rng.h"
#include "ns3/fabric-table.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/rng-models.h"
#include "ns3/rng-topology.h"
#include "ns3/roce-routing-study.h"
#include "ns3/spraypoint-tables.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

struct RngFatTreeBlastSetup;
struct RngFatTreeRunSettings;

/// \ingroup compare The sizes and seeds of an RNG vs fat-tree comparison.
struct RngFatTreeParams
{
    uint32_t n{64};         //!< RNG routers (= fat-tree leaves)
    uint32_t d{8};          //!< RNG router degree (uplink lanes)
    uint32_t s{2};          //!< servers per router / leaf
    uint32_t p{2};          //!< Spraypoint p
    uint32_t h{2};          //!< Spraypoint h
    uint32_t k{8};          //!< k of k-shortest-paths
    uint64_t seed{1};       //!< graph, key and flow-hash seed
    bool shuffleBox{false}; //!< RNG router graph built with ShuffleBoxes, not random regular
    uint32_t rooms{4};      //!< with shuffleBox: rooms the routers are spread over (evenly)
};

/**
 * \ingroup compare
 * An RNG (router graph, Spraypoint tables) and a two-tier leaf-spine fat tree with the same
 * servers and the same end-to-end oversubscription as the RNG paper's §7.3 model gives the
 * RNG: spines = min(s, ceil(s / max(1, s x model mesh oversubscription / d))).
 */
class RngFatTreeStudy
{
  public:
    /// \throws std::invalid_argument for a graph, p or h the builders refuse
    explicit RngFatTreeStudy(const RngFatTreeParams& params);

    const RngFabric& GetRng() const { return *m_rng; }
    const LeafSpineLayout& GetFatTree() const { return *m_fatTree; }
    std::shared_ptr<const FabricGraph> GetRngGraph() const { return m_rngGraph; }
    std::shared_ptr<const FabricGraph> GetFatTreeGraph() const { return m_fatTreeGraph; }
    uint32_t GetSpines() const { return m_spines; }
    const OversubModel& GetModel() const { return m_model; }
    double GetRngEndToEndOversub() const { return m_rngE2E; }

    /**
     * "n", "d", "s", "p", "h", "k", "seed", "servers", "fat_tree_spines",
     * "model_mesh_oversub", "rng_end_to_end_oversub", "fat_tree_oversub", "rng_switch_ports",
     * "fat_tree_switch_ports".
     */
    nlohmann::json ParamsJson() const;

    /// An RNG routing by name (spraypoint|ecmp|ksp), by TypeId with the study's attributes.
    Ptr<FabricRouting> MakeRngRouting(const std::string& scheme) const;
    /// ECMP over the fat tree with the study's seed.
    Ptr<FabricRouting> MakeFatTreeRouting() const;

    /**
     * The summary's "params": ParamsJson with the run settings (transport, rate_control,
     * perm_bytes, a2a_bytes, a2a_steps, stop_ms, blackhole_us, link_rate_gbps); at flow level or
     * on a ShuffleBox graph also "level" and "graph" (and "rooms"), at flow level the transport
     * "fluid-max-min" and no rate control.
     */
    nlohmann::json SummaryParams(const RngFatTreeRunSettings& run) const;

    /// Prints the two fabrics (routers, servers, spines, oversubscription, switch ports).
    void Describe(std::ostream& os) const;

    /// The blast-radius setup of the two fabrics with these run settings.
    RngFatTreeBlastSetup BlastSetup(double lineBps,
                                    TypeId rateControl,
                                    Time blackhole,
                                    Time stopAt) const;

  private:
    RngFatTreeParams m_params;
    SpraypointParams m_spray;
    std::unique_ptr<RngFabric> m_rng;
    std::shared_ptr<const SpraypointTables> m_tables;
    OversubModel m_model;
    double m_rngE2E{1};
    uint32_t m_spines{1};
    std::unique_ptr<LeafSpineLayout> m_fatTree;
    std::shared_ptr<const FabricGraph> m_rngGraph;
    std::shared_ptr<const FabricGraph> m_fatTreeGraph;
};

/**
 * \ingroup compare
 * How an RNG vs fat-tree comparison runs: level, traffic and transport settings.
 */
struct RngFatTreeRunSettings
{
    bool flowLevel{false};              //!< FlowSimulator instead of RoCE packets
    bool fluid{true};                   //!< at flow level: also the fluid split of each routing
    std::string rateControl{"dcqcn"};   //!< packet level: dcqcn | none | a RoceRateControl TypeId
    double lineBps{100e9};              //!< lane / link rate, bit/s
    Time stopAt{MilliSeconds(100)};     //!< safety horizon of a run
    Time blackhole{MicroSeconds(2000)}; //!< blast radius: failure in place before reconvergence
    uint64_t permBytes{524288};         //!< bytes per permutation flow
    uint64_t a2aBytes{8192};            //!< bytes per all-to-all flow
    uint32_t a2aSteps{0};               //!< all-to-all steps (0: all servers - 1)
    std::vector<std::string> routings{"spraypoint", "ecmp", "ksp"}; //!< RNG routings
    std::vector<std::string> patterns{"permutation", "all-to-all"}; //!< traffic patterns
};

/**
 * \ingroup compare
 * Flows of one pattern of the study over \p servers: a permutation has one per server, the
 * shifted all-to-all one per server and step (\p a2aSteps, 0: servers - 1).
 */
uint64_t RngFatTreePatternFlows(const std::string& pattern, uint64_t servers, uint32_t a2aSteps);

/**
 * \ingroup compare
 * Estimated peak memory (bytes) of a comparison. Packet level: about 45 kB per ns-3 node
 * (servers and routers) and, for the routing tables, 11 bytes per router pair and 16 per
 * lane. Flow level: building the study (about 2 bytes x n^2 d^2, measured) and one run's
 * flows (the largest pattern), with the fluid split each flow's candidate DAG (doc/compare.md).
 */
double RngFatTreeMemoryBytes(const RngFatTreeParams& params, const RngFatTreeRunSettings& run);

/**
 * \ingroup compare
 * Estimated wall seconds: building the study (about 4.5e-8 s x n^2 d^2, measured), KSP's
 * paths per pattern when listed (about 4e-8 s x k n^3 d, measured) and, at flow
 * level, every run of every pattern: hashed runs about 4e-5 s per flow, the fluid split of
 * Spraypoint about 4.5e-8 s per flow and router link (n d), of ECMP 6e-9 s (doc/compare.md).
 * The packet-level runs themselves are not estimated.
 */
double RngFatTreeRunSeconds(const RngFatTreeParams& params, const RngFatTreeRunSettings& run);

/**
 * \ingroup compare
 * Refuses, before anything is built, a size whose RngFatTreeMemoryBytes exceeds the memory
 * budget (CheckFabricMemory) or whose RngFatTreeRunSeconds exceeds the time limit
 * (CheckFabricRunTime); the message names --n, --d, --s and, when they drive the estimate,
 * --patterns, --a2a-steps and --fluid.
 * \throws std::invalid_argument
 */
void CheckRngFatTreeSize(const RngFatTreeParams& params, const RngFatTreeRunSettings& run);

/**
 * \ingroup compare
 * The study's traffic: "permutation" (always, the blast-radius cases use it) and the shifted
 * "all-to-all" when listed in run.patterns (all N-1 steps at 16000 servers are 256 M flows).
 */
std::map<std::string, std::vector<FlowSpec>> RngFatTreeTraffic(uint32_t servers,
                                                               uint64_t seed,
                                                               const RngFatTreeRunSettings& run);

/// \ingroup compare One run of the study: a fabric's routing, hashed or as a fluid split.
struct RngFatTreeRun
{
    std::string fabric;         //!< "rng" or "fat-tree"
    Ptr<FabricRouting> routing; //!< shared by the hashed and the fluid run of a routing
    bool fluid{false};          //!< fluid split over the routing's candidates
};

/**
 * \ingroup compare
 * The runs of one pattern, in order: each RNG routing of run.routings, then ECMP on the fat
 * tree; each with hashed paths and, at flow level with run.fluid, as a fluid split. KspRouting
 * has no fluid form (its candidates at a router are the next hops of every source's paths:
 * split hop by hop they loop).
 */
std::vector<RngFatTreeRun> RngFatTreeRuns(const RngFatTreeStudy& study,
                                          const RngFatTreeRunSettings& run);

/**
 * \ingroup compare
 * One run of a routing study: its JSON summary, the flows as CSV cells and the FCT slowdowns
 * of the completed flows.
 */
struct RoutingStudyRun
{
    nlohmann::json summary;
    std::vector<std::vector<std::string>> flowCells;
    std::vector<double> slowdowns;
};

/**
 * \ingroup compare
 * Packet level: RunRoceCountingHops; cells RoceFlowCsvCells.
 */
RoutingStudyRun RunPacketLevelStudy(Ptr<FabricRouting> routing,
                                    const std::vector<FlowSpec>& flows,
                                    double lineBps,
                                    TypeId rateControl,
                                    Time stopAt);

/**
 * \ingroup compare
 * Flow level (FlowSimulator, links at \p lineBps, until \p stopAt): SummarizeFlowRun with
 * "routing" (the routing's name, "-fluid" appended for a fluid split over the candidates);
 * cells FlowSimCsvCells.
 */
RoutingStudyRun RunFlowLevelStudy(Ptr<FabricRouting> routing,
                                  const std::vector<FlowSpec>& flows,
                                  double lineBps,
                                  Time stopAt,
                                  bool fluid);

/**
 * \ingroup compare
 * The text table of routing-study runs: pattern, fabric, routing, flows, incomplete flows,
 * per-flow throughput (mean, p1, min, Gb/s), FCT slowdown (p50, p99), then at packet level
 * retransmitted packets, CNPs and mean router links, at flow level the completion time (after
 * the incomplete flows), mean router links, busiest router-link utilization and wall seconds.
 */
FabricTextTable RoutingStudyTable(bool flowLevel);

/**
 * \ingroup compare
 * One row of RoutingStudyTable from a RoutingStudyRun summary (a flow-level summary is
 * recognized by its "busiest_router_link_util"); at packet level the data packets' path-length
 * histogram follows as "links:fraction" pairs.
 */
void PrintRoutingStudyRow(const FabricTextTable& table,
                          const std::string& pattern,
                          const std::string& fabric,
                          const nlohmann::json& summary);

/**
 * \ingroup compare
 * An RNG under Spraypoint and a leaf-spine fat tree under ECMP with the same servers, and how
 * their RoCE runs are set up: what the blast-radius comparison fails and measures.
 */
struct RngFatTreeBlastSetup
{
    const RngFabric& rng;
    std::shared_ptr<const FabricGraph> rngGraph; //!< the graph rng built
    std::shared_ptr<const SpraypointTables> tables;
    SpraypointParams params; //!< of tables (reconvergence recomputes them with these)
    const LeafSpineLayout& fatTree;
    std::shared_ptr<const FabricGraph> fatTreeGraph; //!< the graph fatTree built
    uint64_t seed;                                   //!< flow-hash seed of both routings
    double lineBps;
    TypeId rateControl; //!< RoceRateControl TypeId of the senders
    Time blackhole;     //!< how long the failure stays in place before reconvergence
    Time stopAt;        //!< horizon of the run after reconvergence
};

/// \ingroup compare One fabric's failure and what it did.
struct RngFatTreeBlastCase
{
    std::string fabric;                 //!< "rng" or "fat-tree"
    std::string elements;               //!< what failed, e.g. "router R3", "spine S1", "2 links"
    uint32_t failedElement{UINT32_MAX}; //!< the failed router or spine (UINT32_MAX: links)
    uint32_t failedLinks{0};            //!< router-graph edges or leaf-spine links failed
    std::string preRouting;             //!< routing names, before and after reconvergence
    std::string postRouting;
    RoceFailureImpact impact;

    /// RoceFailureImpact::Json with "elements", "failed_links" and "failed_router" (rng) or
    /// "failed_spine" (fat tree; null when links failed).
    nlohmann::json Json() const;

    /// The columns of CsvCells: failure, fabric, elements, flows, blackholed_predicted,
    /// hit_fraction_pre, incomplete_post, throughput_mean_gbps_post, throughput_p1_gbps_post,
    /// slowdown_p99_post.
    static std::vector<std::string> CsvHeader();
    /// One CSV row (numbers by FormatNumber); \p kind: the failure kind.
    std::vector<std::string> CsvCells(const std::string& kind) const;
    /// The same row for RngFatTreeBlastTable (fractions 3, throughput 1, slowdown 2 decimals).
    std::vector<std::string> TableCells(const std::string& kind) const;
};

/**
 * \ingroup compare
 * The fat-tree run an RNG run of \p runs (keys "rng/<routing>" and "fat_tree/<routing>",
 * flow-level summaries) is judged against: "fat_tree/ecmp-fluid" for a fluid split
 * ("-fluid" routing) when present, else "fat_tree/ecmp".
 */
std::string FatTreeBaselineKey(const std::map<std::string, nlohmann::json>& runs,
                               const std::string& rngKey);

/**
 * \ingroup compare
 * "Matches or exceeds fat trees": CompareFlowRuns(run, baseline, \p tolerance, "fat_tree") for
 * every "rng/<routing>" run of \p runs against its FatTreeBaselineKey, keyed by <routing>.
 * \throws std::out_of_range if \p runs has no "fat_tree/ecmp"
 */
nlohmann::json JudgeRngAgainstFatTree(const std::map<std::string, nlohmann::json>& runs,
                                      double tolerance);

/**
 * \ingroup compare
 * Prints one line per RNG routing of \p verdict (JudgeRngAgainstFatTree of \p runs): the
 * fat-tree run it is judged against, completion and mean throughput ratios and the outcome,
 * or "no verdict" when flows were incomplete.
 */
void PrintRngFatTreeVerdict(std::ostream& os,
                            const std::string& pattern,
                            const nlohmann::json& verdict,
                            const std::map<std::string, nlohmann::json>& runs,
                            double tolerance);

/// \ingroup compare The text table of RngFatTreeBlastCase::TableCells.
FabricTextTable RngFatTreeBlastTable();

/// \ingroup compare RoCE flow records as CSV rows (RoceFlowCsvCells).
std::vector<std::vector<std::string>> RoceFlowCsvRows(const std::vector<RoceFlowRecord>& flows);

/**
 * \ingroup compare
 * The blast radius of one failure kind on both fabrics, permutation traffic. "router": a random
 * RNG router with all its links, and a random fat-tree spine; \p flows from or to the failed
 * router's servers are left out on both fabrics. "links-1pct": 1% of the RNG router links
 * (at least one) and 1% of the leaf-spine links (at least one). Before reconvergence each
 * routing is masked by the failed state (FailureMaskRouting); after it, Spraypoint's tables
 * are recomputed on the degraded mesh and ECMP's view is the failed state.
 * \param rng draws, in this order: the RNG failure, then the fat tree's
 * \throws std::invalid_argument for another \p kind, or when a failure disconnects every flow
 * \return the RNG case, then the fat tree's
 */
std::vector<RngFatTreeBlastCase> MeasureRngFatTreeBlast(const RngFatTreeBlastSetup& setup,
                                                        const std::string& kind,
                                                        const std::vector<FlowSpec>& flows,
                                                        FabricRng& rng);

/**
 * \ingroup compare
 * Both blast-radius failure kinds, "router" then "links-1pct" (MeasureRngFatTreeBlast), drawn
 * from one FabricRng seeded from \p seed; progress on \p progress.
 * \return per kind, the RNG case then the fat tree's
 */
std::vector<std::pair<std::string, std::vector<RngFatTreeBlastCase>>> MeasureRngFatTreeBlasts(
    const RngFatTreeBlastSetup& setup,
    const std::vector<FlowSpec>& flows,
    uint64_t seed,
    std::ostream& progress);

} // namespace ns3

#endif // RNG_FAT_TREE_STUDY_H
