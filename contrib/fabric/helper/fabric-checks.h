// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CHECKS_H
#define FABRIC_CHECKS_H

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
