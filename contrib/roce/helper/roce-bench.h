// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_BENCH_H
#define ROCE_BENCH_H

#include "ns3/fabric-udp-run.h"
#include "ns3/nstime.h"
#include "ns3/roce-traffic-helper.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * Refuse (std::invalid_argument naming the flags) a bench-packet-rate run this machine cannot
 * hold or finish: ZCube AllReduce on \p n GPUs, \p udpRuns UDP runs of it, the RoCE rows if
 * \p roce, and a ZCube of \p buildN GPUs built alone. Measured (Release): a network takes
 * about 45 kB per GPU and an AllReduce UDP flow about 3.6 kB (n=256: 0.25 GB, n=512: 0.94 GB);
 * setting up and running a flow for a few us takes about 90 us of wall time.
 */
void CheckPacketRateBenchSize(uint32_t n, uint32_t buildN, size_t udpRuns, bool roce);

/**
 * \ingroup roce
 * One row of bench-packet-rate's RoCE table: the same fabric and flows run five ways in one
 * process, so that the ratios are measured side by side on the same machine state.
 */
struct RoceBenchRow
{
    FabricUdpRunResult global;    //!< stock ns-3 (global routing, IPv4 everywhere), UDP
    FabricUdpRunResult udp;       //!< our routing and switch fast path, UDP at constant rate
    FabricRoceRunResult roce;     //!< RoCE + DCQCN, NIC fast host path (RoceNic::HostPath fast)
    FabricRoceRunResult roceIpv4; //!< the same RoCE run through the hosts' UDP/IPv4 stacks
    FabricRoceRunResult roceFastDevice; //!< roce on FastP2pNetDevice links (LinkDevice=fast)
};

/**
 * Run a row: \p build gives a fresh network with our routing, \p buildGlobal one with stock
 * global routing; UDP flows at \p rates (bit/s, per flow) with 4096-byte payloads; RoCE at
 * line rate; each run stops at \p simTime. The RoCE runs set the defaults of
 * ns3::RoceNic::HostPath and ns3::FabricNetwork::LinkDevice for their duration and restore
 * them after (the UDP runs use the LinkDevice default as it is). The five runs go in the
 * order global, udp, roce, roce on IPv4, roce on the fast device, rotated to start at the
 * \p rotation-th (modulo 5): rounds that rotate it give every run each position once in five
 * rounds, so no run always follows the same one or always comes first after a slow spell.
 */
RoceBenchRow RunRoceBenchRow(const std::function<Ptr<FabricNetwork>()>& build,
                             const std::function<Ptr<FabricNetwork>()>& buildGlobal,
                             const std::vector<FlowSpec>& flows,
                             const std::vector<double>& rates,
                             Time simTime,
                             uint32_t rotation = 0);

/// The number of runs in a RoceBenchRow (the period of RunRoceBenchRow's rotation).
constexpr uint32_t ROCE_BENCH_ROW_RUNS = 5;

/// The table's header line.
void PrintRoceBenchHeader(std::ostream& os, Time simTime);

/**
 * Print \p row as a table line (fabric, pattern, hop packets per wall-second of each run and
 * the ratios) and return its summary.json object: the hop packets, wall seconds and rates of
 * each run, roce_vs_udp, roce_vs_global, roce_vs_roce_ipv4 (fast over IPv4 host path), and
 * the packet accounting of each run.
 */
nlohmann::json RoceBenchRowJson(const RoceBenchRow& row,
                                const std::string& fabric,
                                const std::string& pattern,
                                std::ostream& os);

} // namespace ns3

#endif // ROCE_BENCH_H
