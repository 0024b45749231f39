// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_SENDER_H
#define ROCE_SENDER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/fabric-routing.h"
#include "ns3/ipv4-address.h"
#include "ns3/object-factory.h"
#include "ns3/roce-rate-control.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"
#include "ns3/tx-time-cache.h"

namespace ns3
{

class RoceNic;
class RoceHeader;
class UdpL4Protocol;
class Ipv4Route;

/**
 * \ingroup roce
 * The sending side of a RoCE-like queue pair: one message of MessageBytes, segmented into
 * packets of at most PacketSize payload bytes with consecutive PSNs, sent over UDP from a
 * fixed source port (the ECMP entropy, as RoCEv2 does) to port 4791, with ECT(0) set.
 * Packets leave through the host's RoceNic (RoceNic::HostPath: the host's UDP and IPv4 layers,
 * which FlowMonitor sees, or the fast path, where the NIC writes the same headers itself),
 * never through a socket: like a NIC, a queue pair writes its own UDP source port. ACKs, NACKs and
 * CNPs come back to UDP 4791 of the host, where its RoceReceiver hands them to the queue pair
 * by number (FlowId).
 *
 * - Pacing: the host's RoceNic pulls a packet when the queue pair's rate control (DCQCN by
 *   default, RateControl attribute) allows it; flows start at line rate.
 * - Go-back-N: a NACK(psn) rewinds the next PSN to psn and starts a new retransmission round
 *   (RoceHeader round, carried by every data packet). A NACK that echoes an earlier round
 *   for a PSN the current round has already resent (from the PSN of the latest rewind up to
 *   the next PSN) is ignored (counted in GetRepeatedNacks): it was triggered by a packet sent
 *   before the rewind, still in flight, queued, or overtaken after a path change. A NACK that
 *   echoes the current round for a PSN at or after the latest rewind's means a packet sent
 *   after the rewind overtook that resent PSN, which was lost: rewind again
 *   (counted in GetLostResendNacks) instead of waiting for the timeout. Cumulative ACKs advance
 *   the oldest unacknowledged PSN. A retransmission timeout (RtoHigh, or RtoLow when fewer
 *   than RtoLowThreshold packets are outstanding; IRN's 320 us / 100 us / 3) rewinds to it
 *   when nothing was acknowledged, nor rewound, for that long, covering lost NACKs,
 *   lost retransmissions and tail loss. Consecutive timeouts without an acknowledgement double
 *   the timeout up to RtoBackoffMax times (a queue deeper than the timeout would otherwise
 *   cause a resend every timeout); an acknowledgement resets it.
 * - Watchdog: a flow without progress for WatchdogTimeout fires the Stall trace with its state
 *   (and again every WatchdogTimeout while stalled); nothing hangs silently.
 *
 * The flow completes when every PSN is acknowledged (Complete trace).
 */
class RoceSender : public Application
{
  public:
    /// Bytes of a data packet on a point-to-point link beyond its payload.
    static constexpr uint32_t WIRE_OVERHEAD = 12 + 8 + 20 + 2;

    static TypeId GetTypeId();
    RoceSender();
    ~RoceSender() override;

    // Interface for the RoceNic arbiter.
    bool HasDataToSend() const { return !m_done && m_sndNxt < m_nPkts; }

    /**
     * When the pacing lets the next packet go: the last packet's send time plus its wire
     * size at the current rate (re-evaluated when the rate changes, OnRateChange). A time in
     * the past means now.
     */
    Time GetNextTxTime() const { return m_nextTx; }
    /// Send the packet with PSN next (called by the NIC when it is this queue pair's turn).
    void SendOne();
    /// An ACK, NACK or CNP for this queue pair arrived (called by the host's RoceReceiver).
    void ReceiveControl(const RoceHeader& header);

    uint32_t GetFlowId() const { return m_flowId; }
    bool IsComplete() const { return m_done; }
    uint64_t GetMessageBytes() const { return m_bytes; }
    uint32_t GetNPackets() const { return m_nPkts; }
    uint64_t GetTxPackets() const { return m_txPackets; }
    uint64_t GetRetxPackets() const { return m_retxPackets; }
    uint64_t GetRxControlPackets() const { return m_rxControl; }
    uint32_t GetCnps() const { return m_cnps; }
    uint32_t GetNacks() const { return m_nacks; }
    uint32_t GetTimeouts() const { return m_timeouts; }
    /// NACKs of an earlier round ignored because the current round already resent their PSN.
    uint32_t GetRepeatedNacks() const { return m_dupNacks; }
    /// NACKs that showed a resent PSN was lost (same round as the rewind) and rewound again.
    uint32_t GetLostResendNacks() const { return m_lostResendNacks; }
    /// Go-back-N rewinds by NACK (the lost-resend ones included; timeouts not).
    uint32_t GetNackRewinds() const { return m_nackRewinds; }
    Time GetStartTime() const { return m_startedAt; }
    Time GetCompleteTime() const { return m_completedAt; }
    double GetRateBps() const;
    double GetLineRateBps() const { return m_lineBps; }
    /**
     * The queue pair's rate control (the RateController attribute): created from the
     * RateControl TypeId on first use, so that its traces can be connected before the flow
     * starts, through the Config path
     * /NodeList/[node]/ApplicationList/[i]/$ns3::RoceSender/RateController/Rate.
     */
    Ptr<RoceRateControl> GetRateController() const;
    /// One-line description of the queue pair's state (for the watchdog and logs).
    std::string DescribeState() const;

    typedef void (*TxTracedCallback)(Ptr<const Packet> packet, uint32_t psn, bool retransmit);
    typedef void (*StallTracedCallback)(uint32_t flowId, const std::string& state);
    /// (flow id)
    typedef void (*FlowTracedCallback)(uint32_t flowId);
    /// Signature of the Reroute trace: (flow id, old NIC port, new NIC port).
    typedef void (*RerouteTracedCallback)(uint32_t flowId, uint32_t oldPort, uint32_t newPort);
    /// Number of NIC port changes (failovers and back) during the flow.
    uint32_t GetReroutes() const { return m_reroutes; }

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void OnAck(uint32_t psn);
    void OnNack(uint32_t psn, uint16_t round);
    /// Go-back-N to \p psn (NACK or timeout): a new retransmission round.
    void Rewind(uint32_t psn);
    void Progress();
    void CheckTimeout();
    void ArmTimeout();
    void CheckWatchdog();
    void Finish();
    Time CurrentRto() const;
    /// Ask the host's routing for the NIC port again (after the host's view changed): a
    /// NIC port failover moves the queue pair to the other port's arbiter.
    void Reroute();
    void OnNodeViewChange(uint32_t node, bool isNode, uint32_t id, bool up);
    /**
     * The rate control's Rate trace: re-evaluate the pending pacing gap at the new rate
     * (the last packet's wire time at \p newBps from its send time), and tell the NIC if
     * that moved the next send time earlier than a wake-up it may hold.
     */
    void OnRateChange(double oldBps, double newBps);

    // What every data packet reads or writes (SendOne, ArmTimeout, the NIC's HasDataToSend and
    // GetNextTxTime) in two cache lines, the first of them 64-byte aligned: with a thousand
    // queue pairs these objects do not stay in cache, and each further line a packet touches
    // is a miss (doc/scaling.md). Line 1: the NIC's arbiter reads it, SendOne writes it.
    alignas(64) uint32_t m_sndNxt{0};
    uint32_t m_sndUna{0};
    uint32_t m_highSent{0}; //!< one past the highest PSN ever sent
    uint32_t m_nPkts{0};
    uint32_t m_payload{4096};    //!< attribute
    uint32_t m_flowId{0};        //!< attribute
    uint16_t m_round{0};         //!< retransmission round: rewinds so far, modulo 2^16
    uint16_t m_localPort{49152}; //!< attribute
    bool m_done{false};
    bool m_started{false};
    bool m_stopped{false};
    bool m_rtoArmed{false}; //!< m_rtoEvent is pending (IsRunning costs ~270 instructions)
    Time m_nextTx; //!< the last send time + m_txTime's last gap (OnRateChange reads it back)
    uint64_t m_txPackets{0};
    Ipv4Address m_srcAddr;
    Ipv4Address m_dstAddr;
    // Line 2: what SendOne reads.
    Ptr<RoceNic> m_nic;
    Ptr<Ipv4Route> m_route;
    /// The rate control's rate and whether its OnSent has work (RoceRateControl::SendState)
    RoceRateControl::SendState m_ccState;
    /// The last packet's wire size and pacing gap at the current rate (DataRate's rounding)
    TxTimeCache<1> m_txTime;
    TracedCallback<Ptr<const Packet>, uint32_t, bool> m_txTrace; //!< IsEmpty reads 8 bytes
    // Line 3: what an ACK writes, and the rarer per-packet ones.
    Time m_lastProgress;    //!< RTO reference: last ACK progress, send from idle, or rewind
    Time m_lastAckProgress; //!< watchdog reference: last time the oldest unacked PSN advanced
    uint64_t m_backoff{1};  //!< timeout multiplier (doubles per timeout)
    uint64_t m_rxControl{0};
    uint64_t m_retxPackets{0};
    uint64_t m_bytes{0};               //!< attribute
    uint32_t m_lastSize{0};            //!< payload bytes of the last PSN (read for that PSN only)
    mutable Ptr<RoceRateControl> m_cc; //!< created on first use (GetRateController)

    // Attributes
    Address m_remote;
    TypeId m_rateControlType;
    Time m_rtoHigh;
    Time m_rtoLow;
    uint32_t m_rtoLowThreshold{3};
    uint32_t m_rtoBackoffMax{64};
    Time m_watchdog;

    // State
    Ptr<UdpL4Protocol> m_udp;
    uint32_t m_port{0};
    Ptr<FabricRouting> m_fabricRouting; //!< the host's routing function (view changes)
    uint32_t m_fabricNode{UINT32_MAX};
    uint64_t m_viewListener{0}; //!< AddNodeViewListener id (valid while m_fabricRouting is set)
    bool m_reroutePending{false};
    uint32_t m_reroutes{0};
    bool m_stallReported{false}; //!< the first stall went to FabricWarn
    double m_lineBps{0};
    Time m_startedAt;
    Time m_completedAt;
    EventId m_rtoEvent;
    EventId m_watchdogEvent;
    uint32_t m_cnps{0};
    uint32_t m_nacks{0};
    uint32_t m_timeouts{0};
    uint32_t m_dupNacks{0};           //!< NACKs for a rewind already under way
    uint32_t m_rewoundTo{UINT32_MAX}; //!< PSN of the latest rewind (NACK or timeout)
    uint32_t m_lostResendNacks{0};    //!< current-round NACKs at or after m_rewoundTo
    uint32_t m_nackRewinds{0};        //!< rewinds by NACK

    TracedCallback<uint32_t, uint32_t, uint32_t> m_rerouteTrace;
    TracedCallback<uint32_t> m_cnpTrace;
    TracedCallback<uint32_t> m_timeoutTrace;
    TracedCallback<uint32_t> m_completeTrace;
    TracedCallback<uint32_t, const std::string&> m_stallTrace;
};

} // namespace ns3

#endif // ROCE_SENDER_H
