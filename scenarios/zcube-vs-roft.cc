// SPDX-License-Identifier: GPL-2.0-only
//
// ZCube vs rail-optimized fat tree: link-load imbalance (ZCube paper §7.2, Fig. 2) and what it
// costs at packet level.
//
// Experiment. n GPUs, k per switch, m = n/k. ZCube routes every pair over its one Eq. 1 path;
// ROFT (leaf-spine, GPU i on leaf floor(i/k)) hashes each flow's 5-tuple onto a spine (seeded
// flow-hash ECMP), repeated over many hash seeds. Imbalance = max/mean link load over ZCube's
// m^2 directed core links O->E and over all directed leaf<->spine links of ROFT; "loaded"
// restricts the mean to links that carry the pattern's traffic.
//
// Levels. analytic: loads from the routing functions (and, for ZCube, Eq. 3 as a cross-check).
// packet: the same flows as UDP in ns-3 for the first --packet-seeds seeds, loads read from
// the devices' PhyTxBegin traces; once at an offered load that keeps the hottest link at 90%
// of capacity (bytes must match the analytic ones), once at full line rate (what the
// imbalance costs: drops, queues, per-flow throughput).
//
//   ./build/bin/zcube-vs-roft --out=results/zcube-vs-roft
//   ./build/bin/zcube-vs-roft --pattern=prefill --prefill-fraction=0.5 --level=analytic
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-choice.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/imbalance-study.h"

#include <algorithm>
#include <iostream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__,
                  "ZCube vs rail-optimized fat tree: link-load imbalance (ZCube paper §7.2, "
                  "Fig. 2) analytically over many ECMP hash seeds and at packet level.");
    cli.Add("n", "number of GPUs", "128");
    cli.Add("k", "GPUs per switch (must divide n); m = n/k", "16");
    cli.Add("spines", "ROFT spine count, or 'm' for m = n/k as in §7.2", "m");
    cli.Add("attachment", "ROFT host attachment: contiguous (§7.2) | rail", "contiguous");
    cli.Add("pattern",
            "comma list of allreduce|prefill|elephants|all-to-one|permutation; prefill:x sets "
            "its own Prefill fraction",
            "allreduce,prefill,prefill:0.5,elephants");
    cli.Add("prefill-fraction", "fraction of GPUs (first, contiguous) that are Prefill", "0.25");
    cli.Add("elephants", "number of elephant flows", "8");
    cli.Add("pattern-seed", "seed of the random patterns (elephants, permutation)", "1");
    cli.Add("seeds", "number of ECMP hash seeds (analytic)", "500");
    cli.Add("seed", "first ECMP hash seed", "1");
    cli.Add("mix-switch-id", "ECMP mixes each switch's id into the hash", "true");
    cli.Add("level",
            "analytic | packet | both (analytic over all seeds, packet for the first "
            "--packet-seeds)",
            "both");
    cli.Add("packet-seeds", "hash seeds simulated at packet level", "1");
    cli.Add("packet-bytes",
            "bytes per flow at packet level; 0 = --packet-host-bytes split over a GPU's flows",
            "0");
    cli.Add("packet-host-bytes",
            "packet level: bytes each sending GPU sends in all (whole packets per flow)",
            "4000000");
    cli.Add("packet-size", "UDP payload bytes per packet", "4096");
    cli.Add("link-rate-gbps", "link rate in Gb/s", "400");
    cli.Add("switch-mode", "packet-level switches: fast (device-level) | ipv4", "fast");
    cli.Add("out", "results folder", "results/zcube-vs-roft");
    cli.Parse(argc, argv);
    for (const char* seedAttribute : {"ns3::EcmpRouting::Seed", "ns3::ZCubeRouting::Seed"})
    {
        cli.ReserveAttribute(seedAttribute, "--seed and --seeds");
    }
    cli.ReserveAttribute("ns3::EcmpRouting::MixSwitchId", "--mix-switch-id");

    const auto n = static_cast<uint32_t>(cli.GetUint("n", 2, 65536));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, n));
    if (n % k != 0)
    {
        throw std::invalid_argument("--k=" + std::to_string(k)
                                    + " must divide --n=" + std::to_string(n));
    }
    const uint32_t m = n / k;
    const uint32_t spines = cli.GetString("spines") == "m"
                              ? m
                              : static_cast<uint32_t>(cli.GetUint("spines", 1, 1024));
    FabricChoiceParams fp;
    fp.n = n;
    fp.k = k;
    fp.spines = spines;
    fp.attachment = ParseLeafAttachment(cli.GetString("attachment"));
    const double prefillFraction = cli.GetDouble("prefill-fraction", 0, 1, FabricCli::OPEN);
    const auto patterns = ParsePatternCases(cli.GetList("pattern"), prefillFraction);
    bool usesElephants = false;
    for (const auto& pc : patterns)
    {
        usesElephants = usesElephants || pc.pattern == TrafficPattern::ELEPHANTS;
    }
    // Checked only when used: an error must not blame a flag that plays no part.
    const auto elephants = usesElephants || cli.IsSet("elephants")
                             ? static_cast<uint32_t>(cli.GetUint("elephants", 1, n))
                             : 0u;
    const uint64_t patternSeed = cli.GetUint("pattern-seed", 0, UINT64_MAX);
    const auto seeds = static_cast<uint32_t>(cli.GetUint("seeds", 1, 1000000));
    const uint64_t seed0 = cli.GetUint("seed", 0, UINT64_MAX - 1000000);
    const bool mix = cli.GetBool("mix-switch-id");
    const std::string level = cli.GetChoice("level", {"analytic", "packet", "both"});
    const auto packetSeeds = static_cast<uint32_t>(cli.GetUint("packet-seeds", 1, 1000));
    if (packetSeeds > seeds && level != "analytic")
    {
        throw std::invalid_argument("--packet-seeds=" + std::to_string(packetSeeds)
                                    + " exceeds --seeds=" + std::to_string(seeds)
                                    + " (packet runs use the first --seeds hash seeds)");
    }
    const uint64_t packetBytesFlag = cli.GetUint("packet-bytes", 0, uint64_t(1) << 40);
    const uint64_t hostBytes = cli.GetUint("packet-host-bytes", 1, uint64_t(1) << 40);
    // At most the default MTU (4200) less IPv4 and UDP headers: packets are never fragmented.
    const auto packetSize = static_cast<uint32_t>(cli.GetUint("packet-size", 64, 4172));
    const double lineBps = cli.GetDouble("link-rate-gbps", 0.001, 100000) * 1e9;
    const std::string switchMode = cli.GetChoice("switch-mode", {"fast", "ipv4"});
    CheckImbalanceStudySize(n,
                            patterns,
                            elephants,
                            level == "packet" ? packetSeeds : seeds,
                            level != "analytic",
                            "--n=" + std::to_string(n) + " --k=" + std::to_string(k)
                                + " with --pattern=" + cli.GetString("pattern"),
                            "--seeds=" + std::to_string(seeds));
    if (level != "analytic")
    {
        // UDP payload + UDP 8 + IPv4 20 + point-to-point 2 bytes on the wire.
        CheckSerializationResolution(lineBps, packetSize + 30, "--link-rate-gbps");
    }
    FabricResults out(cli.GetString("out"));

    fp.mixSwitchId = mix;
    // The fabrics compared, in table order: graph, metric links and routing TypeId, built once.
    std::vector<FabricChoice> fabrics;
    for (const auto& name : FabricChoiceNames())
    {
        fabrics.push_back(MakeFabricChoice(name, fp));
    }
    const bool doAnalytic = level != "packet";
    const bool doPacket = level != "analytic";
    const uint32_t analyticSeeds = doAnalytic ? seeds : std::min(seeds, packetSeeds);

    std::cout << "ZCube vs ROFT: n=" << n << " k=" << k << " m=" << m << " spines=" << spines
              << " attachment=" << cli.GetString("attachment") << ", " << analyticSeeds
              << " hash seeds from " << seed0 << "\n";
    json notes = json::array();
    if (k % m != 0) // ZCubeLayout::CellsUniform
    {
        const std::string note = "m=" + std::to_string(m)
                               + " does not divide k=" + std::to_string(k)
                               + ": ZCube cells S_ab differ in size by one, so AllReduce core "
                                 "loads are not exactly uniform";
        std::cout << "note: " << note << "\n";
        notes.push_back(note);
    }

    json summary;
    summary["params"] = {{"n", n},
                         {"k", k},
                         {"m", m},
                         {"spines", spines},
                         {"attachment", cli.GetString("attachment")},
                         {"patterns", cli.GetString("pattern")},
                         {"prefill_fraction", prefillFraction},
                         {"elephants", elephants},
                         {"pattern_seed", patternSeed},
                         {"seeds", analyticSeeds},
                         {"seed", seed0},
                         {"mix_switch_id", mix},
                         {"level", level},
                         {"packet_seeds", doPacket ? packetSeeds : 0},
                         {"packet_size", packetSize},
                         {"link_rate_gbps", lineBps / 1e9},
                         {"switch_mode", cli.GetString("switch-mode")},
                         {"zcube_core_links", fabrics[0].metricDirLinks.size()},
                         {"roft_fabric_links", fabrics[1].metricDirLinks.size()}};
    summary["notes"] = notes;

    CsvWriter seedCsv(
        out.Path("imbalance-seeds.csv"),
        {"pattern", "fabric", "seed", "imbalance", "loaded_imbalance", "max_bytes", "mean_bytes"});
    CsvWriter linkCsv(out.Path("link-loads.csv"),
                      {"pattern",
                       "fabric",
                       "seed",
                       "dir_link",
                       "link",
                       "analytic_bytes",
                       "packet_bytes_unsaturated",
                       "packet_bytes_full_load"});

    PrintImbalanceHeader(std::cout, doPacket);

    ImbalancePlot plot(fabrics);
    bool packetOk = true;

    for (const PatternCase& pc : patterns)
    {
        TrafficPatternParams tp;
        tp.hosts = n;
        tp.bytes = 1000000;
        tp.prefillFraction = pc.prefillFraction;
        tp.elephants = elephants;
        tp.seed = patternSeed;
        const std::vector<FlowSpec> flows = MakeTraffic(pc.pattern, tp);

        // Analytic level: link loads walked over each fabric's routing, per hash seed.
        std::cerr << "[" << pc.key << "] analytic over " << analyticSeeds << " seeds..."
                  << std::flush;
        const AnalyticImbalance an
            = RunAnalyticImbalance(fabrics, flows, analyticSeeds, seed0, pc.key, &seedCsv);
        const std::vector<SeedImbalance>& stats = an.perFabric;
        std::cerr << " done\n";
        json pj;
        pj["flows"] = flows.size();
        pj["prefill_fraction"]
            = pc.pattern == TrafficPattern::PREFILL ? json(pc.prefillFraction) : json(nullptr);
        for (size_t fi = 0; fi < fabrics.size(); ++fi)
        {
            pj[fabrics[fi].name] = stats[fi].ToJson();
        }

        // Packet level: the same flows (smaller) as UDP, per fabric and packet seed, over the
        // routing instance the analytic loads are walked with.
        if (doPacket)
        {
            const uint64_t bytes = packetBytesFlag > 0
                                     ? packetBytesFlag
                                     : HostBudgetFlowBytes(flows, n, hostBytes, packetSize);
            std::vector<FlowSpec> pflows = flows;
            for (auto& f : pflows)
            {
                f.bytes = bytes;
            }
            PacketImbalanceOptions po;
            po.hosts = n;
            po.packetSize = packetSize;
            po.switchMode = switchMode;
            po.lineBps = lineBps;
            for (uint32_t s = 0; s < std::min(packetSeeds, analyticSeeds); ++s)
            {
                const uint64_t seed = seed0 + s;
                for (const auto& fab : fabrics)
                {
                    std::cerr << "[" << pc.key << "] packet " << fab.name << " seed " << seed
                              << "..." << std::flush;
                    const PacketImbalance pr = RunPacketImbalance(fab, seed, pflows, po);
                    std::cerr << " load " << FormatNumber(pr.safeLoad, 3) << " and 1.0 done ("
                              << FormatNumber(pr.low.wallSeconds + pr.full.wallSeconds, 3)
                              << " s)\n";
                    packetOk = packetOk && pr.Ok();
                    pj[fab.name]["packet"].push_back(json{{"seed", seed},
                                                          {"flow_bytes", bytes},
                                                          {"unsaturated", pr.unsaturated},
                                                          {"full_load", pr.fullLoad}});
                    for (uint32_t d : s == 0 ? fab.metricDirLinks : std::vector<uint32_t>{})
                    {
                        linkCsv.Row({pc.key,
                                     fab.name,
                                     std::to_string(seed),
                                     std::to_string(d),
                                     fab.graph->GetDirLinkLabel(d),
                                     FormatNumber(pr.analyticBytes[d], 12),
                                     std::to_string(pr.low.links[d].txBytes),
                                     std::to_string(pr.full.links[d].txBytes)});
                    }
                }
            }
        }
        else
        {
            for (size_t fi = 0; fi < fabrics.size(); ++fi)
            {
                for (uint32_t d : fabrics[fi].metricDirLinks)
                {
                    linkCsv.Row({pc.key,
                                 fabrics[fi].name,
                                 std::to_string(seed0),
                                 std::to_string(d),
                                 fabrics[fi].graph->GetDirLinkLabel(d),
                                 FormatNumber(an.firstSeedLoads[fi][d] * tp.bytes, 12),
                                 "",
                                 ""});
                }
            }
        }
        summary["patterns"][pc.key] = pj;

        for (const auto& fab : fabrics)
        {
            PrintImbalanceRow(std::cout, pc.key, fab.name, pj[fab.name], doPacket);
        }
        plot.Add(pc.key, stats);
    }

    Gnuplot png
        = plot.Build("Link load imbalance (max/mean), n=" + std::to_string(n) + ", k="
                     + std::to_string(k) + ", " + std::to_string(analyticSeeds) + " ECMP seeds");
    out.WritePng("imbalance.png", png);
    out.WriteSummary(summary);

    PrintImbalanceLegend(std::cout, doPacket);
    std::cout << "\nwrote " << out.Path("summary.json") << ", imbalance-seeds.csv, "
              << "link-loads.csv, imbalance.png\n";
    if (doPacket && !packetOk)
    {
        std::cerr << "error: packet-level loads differ from the analytic ones by >= 1%, or "
                     "packets are in flight after the run (see summary.json)\n";
        return 1;
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
