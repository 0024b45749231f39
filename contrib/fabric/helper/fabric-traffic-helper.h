// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TRAFFIC_HELPER_H
#define FABRIC_TRAFFIC_HELPER_H

#include "ns3/fabric-network-helper.h"
#include "ns3/nstime.h"
#include "ns3/traffic-pattern.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * What happened to one flow in a packet-level run.
 */
struct FlowRecord
{
    uint64_t txBytes{0};
    uint64_t txPackets{0};
    uint64_t rxBytes{0};
    uint64_t rxPackets{0};
    Time firstTx{Seconds(-1)};
    Time lastRx{Seconds(-1)};

    /// Goodput from the first send to the last arrival, in bit/s (0 if nothing arrived).
    double ThroughputBps() const;
};

/**
 * \ingroup fabric
 * Installs a list of FlowSpecs on a FabricNetwork as constant-rate UDP flows (UdpFlowSender
 * from the flow's source port to RoCEv2 port 4791, one PacketSink per host) and records
 * per-flow bytes and timing.
 */
class FabricTrafficHelper
{
  public:
    explicit FabricTrafficHelper(Ptr<FabricNetwork> net);

    /// UDP payload bytes per packet (default 4096).
    void SetPacketSize(uint32_t bytes) { m_packetSize = bytes; }

    /**
     * Install the flows; flow f sends at on-wire rate \p rateBps[f] from FlowSpec::startS.
     * \throws std::invalid_argument on a size mismatch or a non-positive rate
     */
    void Install(const std::vector<FlowSpec>& flows, const std::vector<double>& rateBps);

    /// Per-flow records, in the order of the flows given to Install.
    const std::vector<FlowRecord>& GetRecords() const;
    uint64_t GetTxPackets() const;
    uint64_t GetRxPackets() const;
    /// Packets the sending socket refused (no route at the source): counted as drops.
    uint64_t GetRefusedPackets() const;

  private:
    struct State;
    Ptr<FabricNetwork> m_net;
    uint32_t m_packetSize{4096};
    std::shared_ptr<State> m_state;
};

} // namespace ns3

#endif // FABRIC_TRAFFIC_HELPER_H
