// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_RECEIVER_H
#define ROCE_RECEIVER_H

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/fabric-routing.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-route.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <unordered_map>

namespace ns3
{

class RoceHeader;

class RoceNic;
class UdpL4Protocol;

/**
 * \ingroup roce
 * The receiving side of RoCE-like queue pairs on a host: one UDP socket on port 4791 serves
 * every flow that arrives (flows are told apart by source address and port). ACK, NACK and
 * CNP packets also arrive here (RoCEv2 sends everything to 4791) and are handed to the host's
 * queue pair with that number (RoceNic::FindQp).
 *
 * - Go-back-N receiver: in-order packets are delivered; a packet beyond the expected PSN is
 *   discarded and answered by a NACK carrying the expected PSN and echoing the packet's
 *   retransmission round (RoceHeader): once per expected PSN, again after NackRetryInterval,
 *   or at once when a packet of a later round than the last NACK's arrives (the sender rewound
 *   since and the expected PSN is still missing: its resend was lost); duplicates are
 *   discarded.
 * - ACKs are coalesced: one after AckEveryPackets in-order or duplicate packets, or when
 *   AckMaxDelay has passed since the last ACK, and always for the last packet; packets left
 *   unacknowledged are acknowledged by a timer AckMaxDelay after the first of them (so the
 *   sender's timeout never resends data that arrived). Duplicates (data delivered before)
 *   are counted per flow.
 * - DCQCN notification point: a CE-marked packet triggers a CNP, at most one per
 *   CnpInterval per flow (DCQCN paper: 50 us).
 */
class RoceReceiver : public Application
{
  public:
    /// IPv4 TOS of ACK/NACK/CNP packets: DSCP 48 (CS6), not ECN-capable.
    static constexpr uint8_t CONTROL_TOS = 48 << 2;

    static constexpr uint16_t PORT = 4791;

    static TypeId GetTypeId();
    RoceReceiver();
    ~RoceReceiver() override;

    /// A flow's state; what every data packet touches first (72 bytes: behind the map node's
    /// 16-byte header, in a 16-byte aligned node, two lines at most).
    struct FlowState
    {
        uint32_t qp{0};
        uint32_t expected{0};
        uint32_t sinceAck{0};
        uint16_t peerPort{0}; //!< the flow's UDP source port
        bool complete{false};
        bool ackArmed{false}; //!< ackTimer is pending (IsRunning costs ~270 instructions)
        Ipv4Address peer;     //!< the sender's address
        Time lastAck{Seconds(-1)};
        uint64_t deliveredBytes{0};
        Ptr<Ipv4Route> route; //!< back to the sender, for ACK/NACK/CNP
        EventId ackTimer;     //!< delayed ACK for packets not yet acknowledged
        // The rarer ones: ECN marks, out-of-order and duplicate packets.
        uint32_t lastNackPsn{UINT32_MAX};
        uint16_t lastNackRound{0}; //!< round echoed by the last NACK
        Time lastNack{Seconds(-1)};
        Time lastCnp{Seconds(-1)};
        uint64_t discarded{0};  //!< out-of-order packets (beyond the expected PSN)
        uint64_t duplicates{0}; //!< packets of data already delivered (resent for nothing)
        uint32_t cnpsSent{0};
        uint32_t marked{0};
    };

    uint64_t GetRxDataPackets() const { return m_rxData; }
    uint64_t GetTxControlPackets() const { return m_txControl; }
    /// ACK/NACK/CNP packets that arrived for this host's queue pairs.
    uint64_t GetRxControlPackets() const { return m_rxControl; }
    const std::unordered_map<uint64_t, FlowState>& GetFlows() const { return m_flows; }

    /**
     * A RoCE packet (starting with its RoceHeader) arrived from \p peer, UDP source port
     * \p peerPort, with IPv4 TOS \p tos: from the UDP socket (ipv4 host path) or straight
     * from the NIC (RoceNic fast host path).
     */
    void ReceivePacket(Ptr<Packet> p, Ipv4Address peer, uint16_t peerPort, uint8_t tos);

    /**
     * ReceivePacket for a packet read in place (RoceNic fast host path): the RoCE packet is
     * the \p size bytes at \p offset of \p packet.
     */
    void ReceiveInPlace(Ptr<const Packet> packet,
                        uint32_t offset,
                        uint32_t size,
                        Ipv4Address peer,
                        uint16_t peerPort,
                        uint8_t tos);

    /// (flow id, message bytes delivered in order)
    typedef void (*CompleteTracedCallback)(uint32_t flowId, uint64_t bytes);
    /// (flow id, payload bytes delivered in order by this packet)
    typedef void (*DeliverTracedCallback)(uint32_t flowId, uint32_t bytes);
    /// (flow id, expected PSN)
    typedef void (*NackTracedCallback)(uint32_t flowId, uint32_t psn);

  protected:
    void DoDispose() override;

  private:
    /// A RoCE packet with header \p rh and \p payload bytes after it arrived (both paths).
    void Process(const RoceHeader& rh,
                 uint32_t payload,
                 Ipv4Address peer,
                 uint16_t peerPort,
                 uint8_t tosByte);
    /// The host's view changed: forget the cached routes back (NIC port failover).
    void OnNodeViewChange(uint32_t node, bool isNode, uint32_t id, bool up);
    void StartApplication() override;
    void StopApplication() override;
    void Receive(Ptr<Socket> socket);
    void SendControl(FlowState& f, uint8_t type, uint32_t psn, uint16_t round = 0);
    void SendAck(FlowState& f);
    void AckTimer(uint64_t key);

    // What every packet reads or writes in two 64-byte lines, the first aligned: with a
    // thousand hosts the receivers do not stay in cache (doc/scaling.md).
    alignas(64) std::unordered_map<uint64_t, FlowState> m_flows;
    uint64_t m_rxData{0};
    Ptr<RoceNic> m_nic;
    Time m_ackMaxDelay;
    uint32_t m_ackEvery{4};
    uint64_t m_txControl{0};
    uint64_t m_rxControl{0};
    TracedCallback<uint32_t, uint32_t> m_deliverTrace;
    // Cold.
    Time m_cnpInterval;
    Time m_nackRetry;
    Ptr<Socket> m_socket;
    Ptr<UdpL4Protocol> m_udp;
    Ptr<FabricRouting> m_fabricRouting; //!< the host's routing function (view changes)
    uint32_t m_fabricNode{UINT32_MAX};
    uint64_t m_viewListener{0}; //!< AddNodeViewListener id (valid while m_fabricRouting is set)
    Ipv4Address m_primary;      //!< source of control packets sent without a route
    TracedCallback<uint32_t, uint64_t> m_completeTrace;
    TracedCallback<uint32_t> m_cnpTrace;
    TracedCallback<uint32_t, uint32_t> m_nackTrace;
};

} // namespace ns3

#endif // ROCE_RECEIVER_H
