// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_TRAFFIC_HELPER_H
#define ROCE_TRAFFIC_HELPER_H

#include "ns3/application-container.h"
#include "ns3/fabric-link-monitor.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-traffic-helper.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/traffic-pattern.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

class RoceSender;

/**
 * \ingroup roce
 * What one RoCE flow did.
 */
struct RoceFlowRecord
{
    FlowSpec spec;
    bool started{false};
    bool complete{false};    //!< every packet acknowledged at the sender
    bool delivered{false};   //!< the last byte arrived in order at the receiver
    Time start;              //!< when the queue pair started
    Time finish;             //!< when the sender had every ACK (the flow completion time's end)
    Time rxComplete;         //!< when the receiver had every byte
    uint64_t rxBytes{0};     //!< payload delivered in order
    uint64_t txPackets{0};   //!< data packets sent, retransmissions included
    uint64_t retxPackets{0}; //!< of which retransmissions
    uint32_t cnps{0};        //!< CNPs received by the sender
    uint32_t nacks{0};
    uint32_t repeatedNacks{0}; //!< NACKs ignored: their rewind was already under way
    uint32_t timeouts{0};
    uint64_t duplicatesReceived{0}; //!< data packets that arrived twice (resent for nothing)
    uint32_t stalls{0};             //!< watchdog reports
    std::vector<uint32_t> path;     //!< node ids from the routing function, at install
    /// Path changes after the flow started, in time order: when, and the new path (node ids)
    /// as TracePath over the routing's views gives it. The routing's RoutesChanged trace
    /// makes the helper trace every running flow again; empty while routes never change.
    std::vector<std::pair<Time, std::vector<uint32_t>>> pathChanges;
    /// Ideal FCT: wire bytes / line rate + base RTT of the path, counting the first packet's
    /// serialization once (it is in both terms): what an otherwise empty network achieves.
    double idealSeconds{0};
    double baseRttSeconds{0};
    double lineBps{0};            //!< slowest link rate on the path (bit/s)
    std::vector<uint64_t> rxBins; //!< bytes delivered per throughput-series bin (if enabled)

    double FctSeconds() const { return complete ? (finish - start).GetSeconds() : -1; }
    double Slowdown() const { return complete ? FctSeconds() / idealSeconds : -1; }
    /// Message bits over FCT.
    double ThroughputBps() const;
};

/**
 * \ingroup roce
 * Installs RoCE-like flows (RoceSender per flow, one RoceReceiver per host on UDP 4791) on a
 * FabricNetwork, starts them at their time, after another flow, or in phases, and records
 * each flow's RoceFlowRecord.
 */
class RoceTrafficHelper
{
  public:
    explicit RoceTrafficHelper(Ptr<FabricNetwork> net);

    void SetSenderAttribute(const std::string& name, const AttributeValue& value);
    void SetReceiverAttribute(const std::string& name, const AttributeValue& value);
    /// Record each flow's delivered bytes in bins of \p bin (RoceFlowRecord::rxBins).
    void EnableThroughputSeries(Time bin);

    /// Called with (flow index, its sender) whenever a flow's RoceSender is created: at
    /// Install for flows that start on their own, when their condition is met for flows
    /// waiting on 'after' or a phase. Set before Install.
    using SenderCreatedCallback = std::function<void(uint32_t flow, Ptr<RoceSender> sender)>;
    void SetSenderCreatedCallback(SenderCreatedCallback cb) { m_senderCreated = std::move(cb); }

    /**
     * Called when every flow of phase p - 1 completed (p > 0) with \p open, which starts the
     * flows of phase p (each startS later); without a gate they start at once. For workloads
     * whose next step also waits for something else, e.g. an OCS reconfiguration: the gate
     * calls open when it is done (once; later calls do nothing). Set before Install.
     */
    using PhaseGateCallback = std::function<void(uint32_t phase, std::function<void()> open)>;
    void SetPhaseGate(PhaseGateCallback cb) { m_phaseGate = std::move(cb); }

    /**
     * Phases that do not wait for each other (default false: phase p waits for phase p - 1).
     * With true, every phase p > 0 is handed to the gate when the simulation starts (time 0)
     * and its flows start when the gate opens it, whether or not earlier phases completed:
     * for workloads whose steps arrive on their own clock, e.g. jobs arriving while others
     * run. A phase may then have no flow (its gate is still called). Set before Install.
     */
    void SetIndependentPhases(bool independent) { m_independentPhases = independent; }

    /**
     * Each flow's sender uses UDP source port FlowSpec::SourcePort(). Flows the routing cannot
     * deliver are reported with FabricWarn.
     * \throws std::invalid_argument on a flow that fails FlowSpec::Validate, a duplicate id,
     *         a dependency on an unknown flow id or a dependency cycle, or (unless phases
     *         are independent) phases with a gap
     *         (messages name the flow), or a host with several flows on a lossless (PFC)
     *         port whose NIC has DeviceQueuePackets > 1 (RoceNic::CheckLosslessDepth)
     */
    void Install(const std::vector<FlowSpec>& flows);

    /// Applications created so far: a RoceReceiver per host (host order), then the RoceSender
    /// of each flow started at Install (flow order); later senders are appended when created.
    ApplicationContainer GetApplications() const;

    const std::vector<RoceFlowRecord>& GetRecords() const;
    Time GetThroughputBin() const { return m_bin; }
    /// Packets the transport put on the wire (data and control) and took off it.
    uint64_t GetSentPackets() const;
    uint64_t GetReceivedPackets() const;

  private:
    struct State;
    Ptr<FabricNetwork> m_net;
    ObjectFactory m_sender;
    ObjectFactory m_receiver;
    Time m_bin;
    SenderCreatedCallback m_senderCreated;
    PhaseGateCallback m_phaseGate;
    bool m_independentPhases{false};
    std::shared_ptr<State> m_state;
};

/**
 * \ingroup roce
 * Everything a RoCE run reports, with its packet accounting.
 */
struct FabricRoceRunResult
{
    std::vector<RoceFlowRecord> flows;
    std::vector<FabricLinkMonitor::LinkCounters> links;
    std::map<uint32_t, std::vector<FabricLinkMonitor::QueueSample>> queueSamples;
    std::map<std::string, uint64_t> drops;
    uint64_t sentPackets{0};      //!< data + control packets sent by the transport
    uint64_t deliveredPackets{0}; //!< data + control packets received by the transport
    uint64_t droppedPackets{0};
    uint64_t hopPackets{0};
    uint64_t hopControlPackets{0}; //!< hop-level ACK/NACK/CNP transmissions
    uint64_t events{0};
    /// Packets (data and control) inside the network at the end: 0 when it drained.
    int64_t inFlightPackets{0};
    /// The same, counted where the packets are (FabricLinkMonitor::
    /// GetMeasuredInFlightPackets): differs from inFlightPackets only if a packet vanished.
    int64_t measuredInFlightPackets{0};
    uint32_t incompleteFlows{0}; //!< flows not complete at the end
    /// Simulated time at the end: the run stops at FabricRoceRunOptions::stopAt even when
    /// every flow completed earlier (only PfcNetwork's StopOnDeadlock ends it sooner); when the
    /// traffic ended is lastCompletionSeconds / lastPacketSeconds.
    double simSeconds{0};
    double lastCompletionSeconds{0}; //!< when the last flow completed
    double lastPacketSeconds{0};     //!< when the last packet arrived or was dropped
    double wallSeconds{0};
    Time throughputBin;

    /**
     * sent - delivered - dropped - in flight (counted where the packets are): packets lost
     * without a reason (0 unless something is broken). Losses are droppedPackets (reasons in
     * drops); in-flight packets were neither lost nor delivered when the run stopped.
     */
    int64_t Unaccounted() const
    {
        return int64_t(sentPackets) - int64_t(deliveredPackets) - int64_t(droppedPackets)
             - measuredInFlightPackets;
    }
};

/// Options of RunFabricRoce.
struct FabricRoceRunOptions
{
    Time stopAt{Seconds(1)};     //!< safety horizon: the run ends here even if flows did not
    Time throughputBin{0};       //!< > 0: per-flow throughput series
    Time queueSampleInterval{0}; //!< > 0: sample the queues of queueSampleLinks
    std::vector<uint32_t> queueSampleLinks;
    std::map<std::string, std::shared_ptr<AttributeValue>> senderAttributes;
    std::map<std::string, std::shared_ptr<AttributeValue>> receiverAttributes;
    /// Called after install, before Simulator::Run, with the network and
    /// RoceTrafficHelper::GetApplications (receivers, then the senders started at once).
    FabricRunHook beforeRun;
    /// Called after Simulator::Run, before Simulator::Destroy, with the same arguments: the
    /// moment to read state that the simulator's end disposes (e.g. PfcNetwork pause times).
    FabricRunHook afterRun;
    /// Called for every flow's sender when it is created (RoceTrafficHelper::
    /// SetSenderCreatedCallback): the way to reach flows that start after others.
    RoceTrafficHelper::SenderCreatedCallback senderCreated;
    /// RoceTrafficHelper::SetPhaseGate: when a phase's flows may start.
    RoceTrafficHelper::PhaseGateCallback phaseGate;
    /// RoceTrafficHelper::SetIndependentPhases: phases that do not wait for each other.
    bool independentPhases{false};
};

/**
 * Run \p flows over \p net with the RoCE transport until all complete (or stopAt), then
 * destroy the simulator.
 * \throws std::invalid_argument if the time resolution is too coarse for the fastest link
 *         (CheckNetworkSerializationResolution with the senders' PacketSize; call
 *         Time::SetResolution(Time::PS) before building the network), or as
 *         RoceTrafficHelper::Install does
 */
FabricRoceRunResult RunFabricRoce(Ptr<FabricNetwork> net,
                                  const std::vector<FlowSpec>& flows,
                                  const FabricRoceRunOptions& options = {});

/// Per-flow results as JSON objects (src, dst, bytes, start_us, fct_us, slowdown,
/// throughput_gbps, retx, cnps, ..., path).
nlohmann::json RoceFlowsToJson(const std::vector<RoceFlowRecord>& flows);

} // namespace ns3

#endif // ROCE_TRAFFIC_HELPER_H
