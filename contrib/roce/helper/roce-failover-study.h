// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_FAILOVER_STUDY_H
#define ROCE_FAILOVER_STUDY_H

#include "ns3/fabric-failure-detector.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-routing.h"
#include "ns3/object-factory.h"
#include "ns3/roce-traffic-helper.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * One failure of a failover experiment (issue #9), with its repair.
 */
struct FailoverEvent
{
    std::string kind; //!< core-link | access-link | switch | router | nic-port
    FabricFailureEvent fail;
    FabricFailureEvent repair;
};

/**
 * \ingroup roce
 * The failure sequence: event i fails at \p start + i (\p hold + \p gap) and is repaired
 * \p hold later. \p elements: (kind, failure) with the time left unset.
 */
std::vector<FailoverEvent> SequenceFailoverEvents(
    const std::vector<std::pair<std::string, FabricFailureEvent>>& elements,
    Time start,
    Time hold,
    Time gap);

/**
 * \ingroup roce
 * The detector's delays (FabricFailureDetector attributes, doc/failures.md).
 */
struct FailoverDelays
{
    Time detect{MicroSeconds(5)};            //!< LocalDetectionDelay
    Time controllerLatency{MilliSeconds(1)}; //!< ControllerLatency
    Time propagation{MicroSeconds(50)};      //!< PropagationDelayPerHop
    Time bfdInterval{MicroSeconds(3300)};    //!< BfdInterval
    uint32_t bfdMultiplier{3};               //!< BfdMultiplier
    Time compute{0};                         //!< ComputeDelay
    bool routingUpdates{true};               //!< RoutingUpdates (false: ZCube)

    /**
     * How long until every node and the controller have reacted to a change: detection, then
     * the slower of the controller latency and 4 routing-update hops plus the computation,
     * then 300 us for the traffic to settle (the default hold of a failure and gap after it).
     */
    Time SettleTime() const;

    /// Keys detect_us, controller_latency_us, propagation_us, compute_us, bfd_interval_us,
    /// bfd_multiplier.
    nlohmann::json ToJson() const;
};

/// A FabricFailureDetector with \p d's delays.
Ptr<FabricFailureDetector> MakeFailoverDetector(const FailoverDelays& d);

/**
 * \ingroup roce
 * Packet-level observations per event window [t_e, t_{e+1}): which data packet belongs to
 * which flow and when it was sent, the first arrival of a packet sent in the window, and
 * data-packet drops (every reason: at switches, link guards, IPv4, and in device and host
 * transmit queues) and retransmissions per flow and window.
 */
class RoceFailoverProbe
{
  public:
    /// Windows start at these times (in order).
    explicit RoceFailoverProbe(std::vector<Time> windows);

    /// Connect to \p net: arrivals at every host NIC, drops at switches, guards and IPv4.
    void Watch(Ptr<FabricNetwork> net);
    /// For FabricRoceRunOptions::senderCreated: the senders' Tx traces.
    RoceTrafficHelper::SenderCreatedCallback OnSender();

    /// First arrival of a packet of \p flow sent in window \p w, or a negative time.
    Time FirstArrival(uint32_t w, uint32_t flow) const;
    /// Data packets of \p flow dropped in window \p w.
    uint64_t Lost(uint32_t w, uint32_t flow) const;
    /// Of Lost: those dropped in a device or host transmit queue (queue-overflow,
    /// host-queue-full), the rest by the failure (link-down, no-route, ttl-expired, ...).
    uint64_t LostInQueue(uint32_t w, uint32_t flow) const;
    /// Retransmitted data packets of \p flow in window \p w.
    uint64_t Retransmitted(uint32_t w, uint32_t flow) const;
    /**
     * Data packets of \p flow that arrived in window \p w although their PSN had been
     * delivered in order before (resent for nothing): the receiver's go-back-N duplicates,
     * counted at the destination host's NIC.
     */
    uint64_t DuplicatesReceived(uint32_t w, uint32_t flow) const;
    /// DuplicatesReceived of \p flow over the whole run (before the first window too): equal
    /// to the receiver's RoceFlowRecord::duplicatesReceived if the probe mirrors it exactly.
    uint64_t DuplicatesReceivedTotal(uint32_t flow) const;
    /// ACK/NACK/CNP packets of \p flow (its receiver's, to the sender) dropped in window \p w.
    uint64_t ControlLost(uint32_t w, uint32_t flow) const;

  private:
    uint32_t WindowOf(Time t) const;
    void OnTx(uint32_t flow, Ptr<const Packet> p, uint32_t psn, bool isRetx);
    void OnArrival(Ptr<const Packet> p);
    void OnDrop(Ptr<const Packet> p, bool queue);

    struct Sent
    {
        uint32_t flow;
        uint32_t window; //!< UINT32_MAX: sent before the first window
        uint32_t psn;
    };
    std::vector<Time> m_windows;
    std::unordered_map<uint64_t, Sent> m_sent;
    std::map<std::pair<uint32_t, uint32_t>, Time> m_firstArrival;    //!< (window, flow)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lost;        //!< (window, flow)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_lostInQueue; //!< (window, flow)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_retx;        //!< (window, flow)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_dup;         //!< (window, flow)
    std::unordered_map<uint32_t, uint32_t> m_expected; //!< per flow: next in-order PSN
    std::unordered_map<uint32_t, uint64_t> m_dupTotal; //!< per flow: duplicates, whole run
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_controlLost; //!< (window, flow)
};

/**
 * \ingroup roce
 * A failover run: the flows over a network of (\p routing, \p graph) at \p lineBps with a
 * detector of \p delays, and \p events scheduled.
 */
struct FailoverRun
{
    FabricRoceRunResult result;
    std::shared_ptr<RoceFailoverProbe> probe;
    std::vector<FabricFailureDetector::Learning> learnings;
    /// Per event: the directed links of each flow's path when the element failed.
    std::vector<std::vector<std::vector<uint32_t>>> pathsAtFailure;
    /// Spraypoint TableChange: (when, router node) of every router whose rows changed.
    std::vector<std::pair<Time, uint32_t>> tableChanges;
    /// Egress queue samples per directed link (RunFailover's queueSample > 0; every link).
    std::map<uint32_t, std::vector<FabricLinkMonitor::QueueSample>> queueSamples;
};

/**
 * Run \p flows until \p stopAt with the events failing and being repaired, or, with \p fail
 * false, the same run with nothing failing (the counterfactual the unaffected flows'
 * throughput is compared with; the windows are the same). \p queueSample > 0 samples every
 * directed link's egress queue (FabricLinkMonitor::EnableQueueSampling) into queueSamples.
 */
FailoverRun RunFailover(const ObjectFactory& routing,
                        std::shared_ptr<const FabricGraph> graph,
                        double lineBps,
                        const FailoverDelays& delays,
                        const std::vector<FailoverEvent>& events,
                        const std::vector<FlowSpec>& flows,
                        Time stopAt,
                        Time bin,
                        bool fail = true,
                        Time queueSample = Time(0));

/**
 * \ingroup roce
 * A routing of (\p routing, \p graph) with views of its own, where every node and the
 * controller believe \p state and have recomputed their tables: the path a flow takes once
 * everybody has reacted.
 */
Ptr<FabricRouting> ConvergedRouting(const ObjectFactory& routing,
                                    std::shared_ptr<const FabricGraph> graph,
                                    const FabricState& state);

/**
 * \ingroup roce
 * How AnalyzeFailoverEvents reads a failover run: the run's fabric, its time grid and what to
 * report beyond the common keys.
 */
struct FailoverAnalysisSettings
{
    std::string fabric;                       //!< the fabric's name in the report
    ObjectFactory routing;                    //!< the run's routing (for converged paths)
    std::shared_ptr<const FabricGraph> graph; //!< the run's graph
    Time horizon;                             //!< end of the last event's window (run's stop)
    Time bin{MicroSeconds(20)};               //!< the run's throughput bin
    /// The reaction instant is the controller's learning (ZCube), else the last node's.
    bool reactionIsController{false};
    /// Report the Spraypoint blast radius (routers whose tables changed) and convergence.
    bool blastRadius{false};
    /// Goodput dip: time an affected flow's delivered rate (per bin) stays below this fraction
    /// of its rate in the PreFailureWindow before the failure, in (0, 1]; 0: not reported.
    double goodputDipFraction{0};
    /// The 'before' window of throughputs (unaffected flows, goodput dip).
    Time preFailureWindow{MicroSeconds(60)};
    /// The same run without failures (RunFailover with fail = false), or null: adds the
    /// unaffected flows' counterfactual throughput and loss.
    const FailoverRun* noFailure{nullptr};
};

/**
 * \ingroup roce
 * The per-event report of a failover run (summary.json events[], doc/failures.md): affected
 * pairs, stall, lost and retransmitted packets, unaffected loss and throughput, switch hops
 * before/during/after, and for Spraypoint the blast radius. A flow is affected if it was
 * running when the element failed (started, not complete) and its all-up path or its path
 * then crosses the element; the stall of an affected flow runs from the failure to the first
 * arrival of a packet sent after it, capped at the repair (recovered_before_repair counts the
 * pairs that did not need the repair). With \p s.noFailure, unaffected_gbps also holds the
 * same flows' throughput without failures, and both split into the unaffected flows that
 * share a directed link with an affected flow (sharing_links) and those that do not
 * (disjoint).
 * \throws std::invalid_argument for a missing graph or routing, a bin that is not positive, or
 *         a goodput dip fraction outside [0, 1]
 */
nlohmann::json AnalyzeFailoverEvents(const FailoverAnalysisSettings& s,
                                     const std::vector<FailoverEvent>& events,
                                     const std::vector<FlowSpec>& flows,
                                     const FailoverRun& run);

/// The event table printed by the failover program (from AnalyzeFailoverEvents' output).
std::string FailoverEventTable(const nlohmann::json& events);

/// throughput.csv and throughput.png: aggregate delivered throughput with the failure,
/// detection, reaction and repair instants of \p events marked.
void WriteFailoverThroughput(const FabricResults& out,
                             const FabricRoceRunResult& run,
                             const nlohmann::json& events,
                             Time bin,
                             const std::string& title);

/**
 * \ingroup roce
 * One point of the controller-latency sweep: \p failure (never repaired) with only its
 * affected pairs running (one message of \p bytes each), stall {median, max} of them, with
 * "flows", "not_recovered" and "unaccounted_packets".
 */
nlohmann::json FailoverStallRun(const ObjectFactory& routing,
                                std::shared_ptr<const FabricGraph> graph,
                                const FabricFailureEvent& failure,
                                double lineBps,
                                const FailoverDelays& delays,
                                uint64_t bytes);

/**
 * \ingroup roce
 * Steady traffic: every flow of \p flows (on \p hosts hosts) gets the same size, whole 4096 B
 * packets, so that the busiest source sends about twice what its line rate \p lineBps carries
 * until \p horizon: the flows outlast the horizon at their fair share.
 * \return the bytes per flow
 */
uint64_t SizeSteadyFailoverFlows(std::vector<FlowSpec>& flows,
                                 uint32_t hosts,
                                 double lineBps,
                                 Time horizon);

/// The legend of FailoverEventTable's columns.
std::string FailoverEventLegend();

/**
 * \ingroup roce
 * Controller latencies of a sweep from microsecond values ("10", "2.5"), each in [0, 1e6] us,
 * to the nanosecond.
 * \param what the parameter's name for messages (e.g. "--sweep-latency-us")
 * \throws std::invalid_argument naming \p what and the bad entry
 */
std::vector<Time> ParseFailoverLatencies(const std::vector<std::string>& items,
                                         const std::string& what);

/**
 * \ingroup roce
 * A fabric of the controller-latency sweep: its routing, graph and the core link that fails.
 */
struct FailoverSweepFabric
{
    ObjectFactory routing;
    std::shared_ptr<const FabricGraph> graph;
    FabricFailureEvent coreLink; //!< the failure (its time is set by the sweep)
};

/**
 * \ingroup roce
 * The controller-latency sweep (ZCube §6.3): for each latency of \p latencies a
 * FailoverStallRun of \p zcube's core-link failure with that controller latency, next to one
 * run of \p roft's (its local rehash does not wait for a controller; latency 0, routing
 * updates on). Failures at 20 us; \p delays otherwise as given.
 * \return points {controller_latency_us, zcube, roft} for WriteFailoverLatencySweep
 */
nlohmann::json RunFailoverLatencySweep(const FailoverSweepFabric& zcube,
                                       const FailoverSweepFabric& roft,
                                       const FailoverDelays& delays,
                                       const std::vector<Time>& latencies,
                                       double lineBps,
                                       uint64_t bytes);

/// latency-sweep.csv/.png and the table, from sweep points {controller_latency_us, zcube,
/// roft} (FailoverStallRun outputs).
std::string WriteFailoverLatencySweep(const FabricResults& out, const nlohmann::json& sweep);

} // namespace ns3

#endif // ROCE_FAILOVER_STUDY_H
