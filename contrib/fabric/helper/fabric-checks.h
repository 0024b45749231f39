// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CHECKS_H
#define FABRIC_CHECKS_H

#include "ns3/ptr.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ns3
{

/**
 * \ingroup fabric
 * Memory a program may plan to use, in bytes: 80% of the physical memory, lowered by an
 * address-space limit (ulimit -v) and by the environment variable AIFABRIC_MEMORY_LIMIT_MB
 * when set (tests use it to make refusals independent of the machine).
 */
uint64_t FabricMemoryBudgetBytes();

/**
 * \ingroup fabric
 * Refuse, before allocating, a run whose estimated memory exceeds FabricMemoryBudgetBytes.
 * \param bytes the program's estimate
 * \param params the flags that drive it, as the user gave them ("--n=65536 --k=256")
 * \throws std::invalid_argument naming \p params, the estimate and the budget
 */
void CheckFabricMemory(double bytes, const std::string& params);

/**
 * \ingroup fabric
 * Refuse a run whose estimated wall time exceeds AIFABRIC_TIME_LIMIT_S (default 3600 s):
 * such sizes are hopeless rather than slow.
 * \throws std::invalid_argument naming \p params and the estimate
 */
void CheckFabricRunTime(double seconds, const std::string& params);

/**
 * \ingroup fabric
 * Refuse a link rate at which the simulator's time resolution rounds a data packet's
 * serialization time by more than 0.25% (fewer than 200 time steps per packet): results
 * such as a slowdown below 1 could not be right.
 * \param rateBps link rate in bit/s
 * \param wireBytes bytes of a full data packet on the wire
 * \param rateFlag the flag that set the rate, for the message
 * \throws std::invalid_argument naming \p rateFlag and the largest valid rate
 */
void CheckSerializationResolution(double rateBps, uint64_t wireBytes, const std::string& rateFlag);

class FabricNetwork;

/**
 * \ingroup fabric
 * Set the simulator's time resolution to 1 ps, the project's programs' (RunFabricProgram
 * calls it), unless it already is: serialization times at 100 Gb/s and beyond are fractions
 * of a nanosecond. ns-3 allows one change per process, before the first network is built.
 */
void UseFabricTimeResolution();

/**
 * \ingroup fabric
 * CheckSerializationResolution for the fastest link device of \p net: the library's run
 * drivers (RunFabricRoce, RunFabricUdp) call it, so that a program that did not raise the
 * resolution to ps (as RunFabricProgram does) is refused instead of getting FCTs biased by
 * rounding (at the default 1 ns, a 4138-byte packet at 400 Gb/s is 82.76 steps).
 * \param net the network
 * \param wireBytes bytes of a full data packet on the wire
 * \param caller the driver, for the message
 * \throws std::invalid_argument naming the link, its rate, the largest valid rate and
 *         Time::SetResolution
 */
void CheckNetworkSerializationResolution(Ptr<FabricNetwork> net,
                                         uint64_t wireBytes,
                                         const std::string& caller);

/**
 * \ingroup fabric
 * Bytes on the wire of a full RoCE data packet: the ns3::RoceSender::PacketSize default plus
 * IPv4, UDP, RoCE and point-to-point headers (42 bytes); 4138 if RoceSender is not linked in.
 */
uint64_t RoceDataWireBytes();

/**
 * \ingroup fabric
 * The packet accounting every packet-level summary carries: sent_packets,
 * delivered_packets, dropped_packets, dropped_by_reason, in_flight_at_stop (sent, neither
 * delivered nor dropped when the run stopped) and stopped_at_horizon, so that
 * sent = delivered + dropped + in flight holds in the summary itself. With
 * \p measuredInFlight (FabricLinkMonitor::GetMeasuredInFlightPackets: the packets counted in
 * queues, on links and held by models) the summary also carries in_flight_measured, and
 * in_flight_at_stop must equal it (accounting_closed; a mismatch is also reported by
 * FabricWarn): a packet that vanished without a drop reason makes the two differ.
 * \throws std::logic_error if delivered + dropped exceeds sent (a counting bug)
 */
nlohmann::json PacketAccountingJson(uint64_t sent,
                                    uint64_t delivered,
                                    const std::map<std::string, uint64_t>& dropsByReason,
                                    bool stoppedAtHorizon,
                                    std::optional<int64_t> measuredInFlight = std::nullopt);

} // namespace ns3

#endif // FABRIC_CHECKS_H
