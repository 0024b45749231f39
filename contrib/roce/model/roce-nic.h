// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_NIC_H
#define ROCE_NIC_H

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricHostPath;
class PfcQueue;
class RoceHeader;
class RoceReceiver;
class RoceSender;
class UdpL4Protocol;

/**
 * \ingroup roce
 * The transmit arbiter of a host's RDMA NIC: queue pairs do not push packets; the NIC pulls
 * one packet at a time, round-robin among the queue pairs of a port whose pacing
 * (rate-control) allows them to send now, and only while the port's device queue holds fewer
 * than DeviceQueuePackets packets. So a host with many queue pairs never overflows its own
 * NIC, and each queue pair gets at most its DCQCN rate and at least a fair share of the port.
 * ACK/NACK/CNP packets are sent directly and bypass the arbitration.
 *
 * In a lossless fabric (the port's device queue is a PfcQueue) the NIC honours PFC: while
 * the switch has paused the data class of a port, no queue pair of that port sends; control
 * packets (their own class) go on. A data packet already in the device queue still leaves,
 * which the switches' headroom accounts for: one frame, so a lossless port with several queue
 * pairs needs DeviceQueuePackets = 1 (CheckLosslessDepth refuses more).
 *
 * Host path (HostPath attribute). RoCE packets are UDP/IPv4 to port 4791 either way; the
 * bytes on the wire are the same.
 * - ipv4: queue pairs and the receiver go through the host's UdpL4Protocol and
 *   Ipv4L3Protocol (and a UDP socket on 4791), so FlowMonitor and IPv4 traces see them.
 * - fast (default): the host's FabricHostPath (shared with UDP flows on the same host) writes
 *   the UDP and IPv4 headers (the fields IPv4 writes: addresses, ports, protocol, length,
 *   TTL = Ipv4L3Protocol::DefaultTtl, TOS, may-fragment, an identification counted per
 *   source/destination pair, checksums only when Node::ChecksumEnabled, read once at the
 *   first packet) and hands the packet to the port's device; on receive, its protocol handler
 *   on the host's fabric devices offers UDP 4791 packets for this host to the NIC, which
 *   hands them to its RoceReceiver, and everything else goes to the traffic-control layer as
 *   before. Whenever the IPv4 path would do something else than a plain send or local
 *   delivery (no route, an interface down, a stopped device queue, a receiver not running, a
 *   packet not for this host), the packet takes the IPv4 path, so drops are counted where
 *   they were. Only on hosts routed by FabricIpv4Routing; other hosts use the ipv4 path.
 */
class alignas(64) RoceNic : public Object
{
  public:
    /// Which host stack RoCE packets go through (HostPath attribute).
    enum HostPath
    {
        HOST_PATH_IPV4, //!< UdpL4Protocol, Ipv4L3Protocol and a UDP socket
        HOST_PATH_FAST  //!< headers written by the NIC, device send and protocol handler
    };

    static TypeId GetTypeId();
    RoceNic();

    /// The NIC of \p node, created and aggregated on first use.
    static Ptr<RoceNic> Get(Ptr<Node> node);

    /// Add a queue pair on NIC port \p port (the node's device index).
    void Register(Ptr<RoceSender> qp, uint32_t port);

    /**
     * Refuse a lossless (PFC) NIC port whose queue pairs could queue more data frames than
     * the switches' headroom budgets. PfcSwitch::RequiredHeadroom counts one frame already
     * queued in a host NIC when the pause arrives; with DeviceQueuePackets > 1 and several
     * queue pairs on the port, up to DeviceQueuePackets frames are queued and still leave, so
     * the headroom overflows (a lossless run drops). One queue pair never has more than one
     * frame waiting (its pacing), so any depth is fine then.
     * \param depth the NIC's DeviceQueuePackets
     * \param queuePairs queue pairs that send on the port
     * \param where the host, for the message
     * \throw std::invalid_argument naming DeviceQueuePackets and PfcSwitch::HeadroomBytes
     */
    static void CheckLosslessDepth(uint32_t depth, uint32_t queuePairs, const std::string& where);

    /// DeviceQueuePackets of \p node's NIC, or the attribute's default if it has none yet.
    static uint32_t DepthOf(Ptr<Node> node);
    void Unregister(Ptr<RoceSender> qp, uint32_t port);
    /// A queue pair of \p port may have become able to send.
    void Kick(uint32_t port);
    /**
     * A queue pair of \p port moved its next send time (RoceSender::GetNextTxTime) earlier,
     * to \p at (a rate change rescaled its pacing gap): arbitrate again now if \p at is due or
     * earlier than the port's pending pacing wake-up, which is then moved to the earliest
     * queue pair's time. Otherwise the pending wake-up, or the event the port waits for (end
     * of a transmission, a resume, a refill), arbitrates in time.
     */
    void PacingEarlier(uint32_t port, Time at);
    /// Line rate of \p port in bit/s.
    uint64_t GetPortRate(uint32_t port);

    /**
     * Make \p qp reachable for ACK/NACK/CNP packets carrying queue-pair number \p qpn
     * (they arrive at the host's RoceReceiver on UDP 4791, as in RoCEv2).
     * \return false if another queue pair of this host already has that number
     */
    bool BindQp(uint32_t qpn, Ptr<RoceSender> qp);
    /// The queue pair bound to \p qpn, or null.
    Ptr<RoceSender> FindQp(uint32_t qpn) const;

    /**
     * Send a RoCE packet as UDP/IPv4 from \p src:\p sport to \p dst:\p dport with IPv4 TOS
     * \p tos over \p route (null: no route, IPv4 drops it), by the HostPath the NIC uses.
     * \p p starts with its RoceHeader, or \p rh is that header, not yet in \p p: the fast path
     * then writes it with the UDP/IPv4 headers in one (FabricHostPath::TakesPrefix), the
     * same bytes; any other path adds it first.
     */
    void SendIp(Ptr<Packet> p,
                Ipv4Address src,
                Ipv4Address dst,
                uint16_t sport,
                uint16_t dport,
                uint8_t tos,
                const Ptr<Ipv4Route>& route,
                const RoceHeader* rh = nullptr);

    /**
     * The host's RoCE receiver: with the fast host path, UDP 4791 packets for this host go
     * to \p rx (RoceReceiver::ReceiveInPlace) while \p active, without the IPv4 stack.
     */
    void SetReceiver(Ptr<RoceReceiver> rx, bool active);

    /// Whether this host uses the fast host path (HostPath fast on a FabricIpv4Routing host).
    bool IsFastPath();
    /// Packets sent and received through the fast host path (not through IPv4).
    uint64_t GetFastTxPackets() const { return m_fastTx; }
    uint64_t GetFastRxPackets() const { return m_fastRx; }

  protected:
    void DoDispose() override;

  private:
    /**
     * A NIC port's arbiter, allocated once per port (its address does not change: the port's
     * events and device trace sinks hold it). What Kick and TrySend touch per packet is its
     * first 64-byte line, so that a packet does not read the NIC object for them.
     */
    struct alignas(64) Port
    {
        Ptr<Queue<Packet>> queue; //!< the device's transmit queue
        Ptr<PfcQueue> pfc;        //!< the device queue in a lossless fabric, else null
        /// TrySend of this port, scheduled again and again (the simulator takes a reference
        /// per schedule and drops it after running it) instead of an EventImpl per refill;
        /// null once the NIC is disposed.
        Ptr<EventImpl> refill;
        /// The pacing wake-up (Wake of this port), reused likewise while it is not cancelled
        /// (a cancelled EventImpl stays cancelled: moving the wake-up earlier takes a new one).
        Ptr<EventImpl> wake;
        Time wakeAt;
        /// qps[0], so that a port with one queue pair does not read qps' array per packet
        RoceSender* qp0{nullptr};
        uint32_t nQps{0};      //!< qps.size()
        uint32_t next{0};      //!< the queue pair whose turn is next
        uint32_t depth{1};     //!< the NIC's DeviceQueuePackets
        bool pending{false};   //!< refill is scheduled
        bool wakeArmed{false}; //!< wake is pending (wake.IsRunning() costs ~270 instructions)
        // Second line: touched on set-up, (un)registration, and with several queue pairs.
        std::vector<Ptr<RoceSender>> qps;
        Ptr<NetDevice> device; //!< a link device (FabricLinkDevice); null: port not set up
    };

    template<bool WAKE>
    class PortEvent;

    /// Update p.qp0 and p.nQps after a change of p.qps.
    static void SyncQps(Port& p);
    void SetDepth(uint32_t depth);
    uint32_t GetDepth() const { return m_depth; }
    /// Kick of a port that is set up (or of a disposed NIC: nothing).
    void KickPort(Port& p);

    Port& GetPort(uint32_t port);
    void TrySend(Port& p);
    /// The pacing wake-up of \p p: Kick, after noting that no wake-up is pending.
    void Wake(Port& p);
    /// Learn the host's stack (once): whether the fast path applies.
    void InitHost();
    /// FabricHostPath's handler for UDP 4791: to the receiver while it runs.
    bool ReceiveFast(Ptr<const Packet> packet,
                     uint32_t offset,
                     uint32_t size,
                     const Ipv4Header& ip,
                     uint16_t sport);

    // The NIC's object is 64-byte aligned (alignas on the class): after Object's 32 bytes,
    // the rest of the first line is what SendIp reads per packet, and ReceiveFast most of it.
    Ptr<FabricHostPath> m_host; //!< the host's fast path (when m_fast)
    uint64_t m_fastTx{0};
    Ptr<RoceReceiver> m_receiver;
    bool m_hostInit{false};
    bool m_fast{false}; //!< HostPath fast and the host is routed by FabricIpv4Routing
    bool m_receiverActive{false};
    // Second line on.
    uint64_t m_fastRx{0};
    Ptr<Node> m_node;
    std::vector<std::unique_ptr<Port>> m_ports;
    uint32_t m_depth{1};
    std::unordered_map<uint32_t, Ptr<RoceSender>> m_qps;
    HostPath m_hostPath{HOST_PATH_FAST};
    bool m_bound{false}; //!< UDP 4791 bound on m_host
    Ptr<UdpL4Protocol> m_udp;
};

} // namespace ns3

#endif // ROCE_NIC_H
