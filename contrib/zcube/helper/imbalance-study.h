// SPDX-License-Identifier: GPL-2.0-only
#ifndef IMBALANCE_STUDY_H
#define IMBALANCE_STUDY_H

#include "ns3/fabric-choice.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/link-load.h"

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
