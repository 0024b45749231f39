// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TRAFFIC_HELPER_H
#define FABRIC_TRAFFIC_HELPER_H

#include "ns3/application-container.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/nstime.h"
#include "ns3/traffic-pattern.h"

#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * A run driver's hook (RunFabricUdp, RunFabricRoce): called once everything is installed,
 * just before Simulator::Run, with the network and every application the driver created
 * (in the order the helper documents). Connect traces here (Config::Connect, or
 * TraceConnect on the applications), enable pcap, schedule events.
 */
using FabricRunHook = std::function<void(Ptr<FabricNetwork> net, const ApplicationContainer& apps)>;

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
     * Install the flows; flow f sends at on-wire rate \p rateBps[f] from FlowSpec::startS,
     * from port FlowSpec::SourcePort(). Flows the routing cannot deliver are reported with
     * FabricWarn (they are still installed; their packets are counted as drops).
     * \throws std::invalid_argument on a size mismatch, a non-positive rate, a flow that
     *         fails FlowSpec::Validate, or two flows of one source host with the same source
     *         port (their packets could not be told apart; the message names the flows)
     */
    void Install(const std::vector<FlowSpec>& flows, const std::vector<double>& rateBps);

    /// Every application installed: the PacketSink of each host, then a UdpFlowSender per flow.
    const ApplicationContainer& GetApplications() const { return m_apps; }

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
    ApplicationContainer m_apps;
    std::shared_ptr<State> m_state;
};

/**
 * \ingroup fabric
 * Report with FabricWarn the flows that \p net's routing cannot deliver (TracePath over the
 * routing's view ends before the destination); nothing for a network on global routing.
 */
void WarnUnreachable(Ptr<FabricNetwork> net,
                     const std::vector<FlowSpec>& flows,
                     const std::string& component);

} // namespace ns3

#endif // FABRIC_TRAFFIC_HELPER_H
