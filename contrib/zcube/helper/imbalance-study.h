// SPDX-License-Identifier: GPL-2.0-only
#ifndef IMBALANCE_STUDY_H
#define IMBALANCE_STUDY_H

#include "ns3/fabric-choice.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/gnuplot.h"
#include "ns3/link-load.h"
#include "ns3/traffic-pattern.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup zcube
 * Link-load imbalance of one fabric under one pattern, over hash seeds (ZCube paper §7.2).
 */
struct SeedImbalance
{
    std::vector<double> imbalance; //!< max / mean over the metric's links, per seed
    std::vector<double> loaded;    //!< the same over the links that carry load
    uint32_t links{0};
    uint32_t loadedLinks{0};

    void Add(const ImbalanceStats& st);
    /// Mean, std, min and max over the seeds, and the link counts.
    nlohmann::json ToJson() const;
};

/**
 * \ingroup zcube
 * The analytic half of the comparison: every flow (equal weight) walked over each fabric's
 * routing (FabricChoice::CreateRouting(seed)) for \p seeds hash seeds from \p seed0. Each
 * fabric's Eq. 3-style model check (if any) runs on the first seed.
 */
struct AnalyticImbalance
{
    std::vector<SeedImbalance> perFabric;            //!< in the order of the fabrics
    std::vector<std::vector<double>> firstSeedLoads; //!< per fabric, per directed link
};

/**
 * \param seedCsv if not null, one row per (fabric, seed): pattern, fabric, seed, imbalance,
 *        loaded_imbalance, max_bytes, mean_bytes
 * \throws std::logic_error if a flow's route does not arrive or a model check disagrees
 */
AnalyticImbalance RunAnalyticImbalance(const std::vector<FabricChoice>& fabrics,
                                       const std::vector<FlowSpec>& flows,
                                       uint32_t seeds,
                                       uint64_t seed0,
                                       const std::string& patternKey,
                                       CsvWriter* seedCsv);

/// Settings of the packet-level half.
struct PacketImbalanceOptions
{
    uint32_t hosts{0};
    uint32_t packetSize{4096};
    std::string switchMode{"fast"};
    double lineBps{400e9};
};

/**
 * \ingroup zcube
 * The packet-level half for one fabric and hash seed: the flows as UDP over the routing the
 * analytic loads are walked with, twice: at the offered load that keeps the hottest link at
 * 90% (loads must equal the analytic ones) and at full line rate (what the imbalance costs).
 */
struct PacketImbalance
{
    nlohmann::json unsaturated; //!< CompareUdpRunWithAnalytic + seed, offered_load
    nlohmann::json fullLoad;
    FabricUdpRunResult low;
    FabricUdpRunResult full;
    std::vector<double> analyticBytes; //!< per directed link, wire bytes
    double safeLoad{1};

    /// Loads within 1% of the analytic ones and nothing left in flight.
    bool Ok() const;
};

PacketImbalance RunPacketImbalance(const FabricChoice& fabric,
                                   uint64_t seed,
                                   const std::vector<FlowSpec>& flows,
                                   const PacketImbalanceOptions& options);

/**
 * \ingroup zcube
 * Refuse hopeless sizes of the comparison before anything is allocated (CheckFabricMemory,
 * CheckFabricRunTime). Measured (Release, 2 seeds): about 30 MB + 8 n^2 bytes of routing
 * state + 70 bytes per flow of the largest pattern (n=1024: 0.10 GB, n=2048 AllReduce:
 * 0.37 GB, n=4096: 1.36 GB), and about 1.5 us per flow and hash seed; packet-level networks
 * about 45 kB per GPU.
 * \param hosts GPUs (n)
 * \param patterns the patterns compared (flow counts from TrafficFlowCount)
 * \param elephants elephant flows of the ELEPHANTS pattern
 * \param seedsRun hash seeds walked (analytic) or simulated (packet level only)
 * \param packet whether packet-level networks are built
 * \param sizes the flags that set the sizes, for the error (e.g. "--n=... with --pattern=...")
 * \param seedsFlag the flag that sets the seed count, for the run-time error
 * \throws std::invalid_argument naming \p sizes when a limit would be exceeded
 */
void CheckImbalanceStudySize(uint32_t hosts,
                             const std::vector<PatternCase>& patterns,
                             uint32_t elephants,
                             double seedsRun,
                             bool packet,
                             const std::string& sizes,
                             const std::string& seedsFlag);

/**
 * \ingroup zcube
 * The comparison's plot: one series per fabric (legend "ZCube", "ROFT + ECMP" or the fabric's
 * name), the analytic imbalance's mean +- std over the hash seeds at each pattern's tick, the
 * fabrics side by side.
 */
class ImbalancePlot
{
  public:
    /// \param fabrics the fabrics compared, in the order Add receives their statistics
    explicit ImbalancePlot(const std::vector<FabricChoice>& fabrics);

    /// The next pattern's tick: \p stats per fabric (RunAnalyticImbalance's perFabric).
    void Add(const std::string& patternKey, const std::vector<SeedImbalance>& stats);

    /// The plot (PNG terminal, 900 x 500) with \p title.
    Gnuplot Build(const std::string& title) const;

  private:
    std::vector<Gnuplot2dDataset> m_series;
    std::string m_xtics;
    size_t m_patterns{0};
};

/**
 * \ingroup zcube
 * The comparison's table: header, one row per (pattern, fabric) with the analytic imbalance
 * (mean+-std over seeds, loaded mean) and, with \p packet, the first packet seed's runs
 * (packet imbalance, max error vs analytic, offered load; drops, throughput and queue at
 * full load), and the legend explaining the columns.
 */
void PrintImbalanceHeader(std::ostream& os, bool packet);
/// \param fj the fabric's entry of a pattern in summary.json (SeedImbalance::ToJson plus
///        "packet": [{"unsaturated", "full_load"}, ...] with \p packet)
void PrintImbalanceRow(std::ostream& os,
                       const std::string& pattern,
                       const std::string& fabric,
                       const nlohmann::json& fj,
                       bool packet);
void PrintImbalanceLegend(std::ostream& os, bool packet);

} // namespace ns3

#endif // IMBALANCE_STUDY_H
