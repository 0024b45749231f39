// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_HOST_PATH_H
#define FABRIC_HOST_PATH_H

#include "ns3/callback.h"
#include "ns3/fabric-udp-ipv4-header.h"
#include "ns3/fast-p2p-net-device.h"
#include "ns3/header.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricIpv4Routing;
class TrafficControlLayer;

/**
 * \ingroup fabric
 * A host's fast path for UDP/IPv4 datagrams, beside its IPv4 stack (one per node, aggregated:
 * Get). Used by UdpFlowSender / FabricTrafficHelper (UDP flows) and by RoceNic (RoCE), so a
 * host has one receive demultiplexer and one IPv4 identification counter whatever it runs.
 *
 * Send (SendUdp): writes the UDP header and the IPv4 header Ipv4L3Protocol would write for
 * UdpL4Protocol::Send with a route (addresses, ports, protocol 17, length, TTL =
 * Ipv4L3Protocol::DefaultTtl, the given TOS, may-fragment, an identification counted per
 * source/destination pair, checksums only when Node::ChecksumEnabled, read at the first packet)
 * and hands the packet to the route's device, as Ipv4Interface and the traffic-control layer
 * (no queue disc) would; the TTL and the ports (their queue discs, interfaces and transmit
 * queues) are learnt at the host's first packet, so a run hook may still change them. Without a
 * route it asks the host's routing protocol, as Ipv4L3Protocol::Send does. Whenever IPv4 would
 * do more than a plain send (no route, a route without gateway, the interface down, a queue
 * disc on the port, a stopped device queue, a datagram over the MTU, a destination on this host)
 * SendUdp returns false and the caller hands the packet to UdpL4Protocol: drops are counted where
 * they always were. The identification counter takes a number exactly when IPv4 keeps one (every
 * routed datagram, sent or not; none for a datagram without a route, which IPv4 gives back), so
 * the fast packets carry the numbers a run through IPv4 gives. Not identical to such a run: the
 * fragments of a datagram over the MTU carry IPv4's own counter, and when the caller passes no
 * route but the routing protocol finds one and the datagram is then declined, the routing
 * protocol is asked twice (FabricIpv4Routing's Forward trace fires twice).
 *
 * Receive (BindUdp): on the first bind, the traffic-control layer's IPv4 protocol handler of
 * the host's fabric devices is replaced by a demultiplexer: a UDP datagram for this host (its
 * interface up, not a fragment, checksums off) to a bound port is offered to that port's
 * handler (BindUdp: a copy with the headers removed; BindUdpInPlace: the received packet itself
 * with the payload's offset and length); every other packet (and one the handler declines)
 * goes to TrafficControlLayer::Receive unchanged (ARP, IPv6 and loopback handlers are left as
 * they were).
 *
 * On FastP2pNetDevice ports the demultiplexer is called by the device itself (attribute
 * DirectReceive, default true), not through Node::ReceiveFromDevice: the same frames and
 * results whenever it is the host's only IPv4 handler of the port, which it is unless a
 * program registers its own non-promiscuous IPv4 handler on the host (that handler then sees
 * the port's IPv4 frames only with DirectReceive=false). Other protocols, promiscuous
 * handlers, the device's traces and a receive callback a program sets later work either way.
 *
 * Only on hosts routed by FabricIpv4Routing with ns-3's Ipv4L3Protocol, UdpL4Protocol and
 * traffic-control layer (IsAvailable); elsewhere SendUdp always returns false and BindUdp
 * installs nothing. What it gives up: FlowMonitor and the IPv4/UDP trace sources (Tx, Rx,
 * SendOutgoing, LocalDeliver, ...) and raw sockets do not see these packets; its own Tx and Rx
 * trace sources (the signature of Ipv4L3Protocol's) fire for each of them.
 */
class FabricHostPath : public Object, public FastP2pReceiver
{
  public:
    /**
     * A bound port's handler: the UDP payload, the IPv4 header, the UDP source port. Returns
     * false to leave the datagram to IPv4 (e.g. the port's application is not running): the
     * payload must then be left untouched.
     */
    using UdpHandler = Callback<bool, Ptr<Packet>, const Ipv4Header&, uint16_t>;

    /**
     * A bound port's handler that reads the datagram where it is (BindUdpInPlace: no copy of
     * the packet, no header removed): the received packet (IPv4 header first), the offset of
     * the UDP payload in it, the payload's length (frame padding excluded), the IPv4 header,
     * the UDP source port. Returns false to leave the datagram to IPv4.
     */
    using UdpInPlaceHandler
        = Callback<bool, Ptr<const Packet>, uint32_t, uint32_t, const Ipv4Header&, uint16_t>;

    static TypeId GetTypeId();
    FabricHostPath();

    /**
     * The host path of \p node, created and aggregated on first use. (One aggregated by hand,
     * node->AggregateObject(CreateObject<FabricHostPath>()), learns its node too.)
     */
    static Ptr<FabricHostPath> Get(Ptr<Node> node);

    /// Whether this host can use the fast path (learnt once, at the first call).
    bool IsAvailable();
    /// Node::ChecksumEnabled, read at the first packet and then kept.
    bool ChecksumOn();

    /**
     * Send \p p (the UDP payload) as UdpL4Protocol::Send(p, src, dst, sport, dport, route)
     * with IPv4 TOS \p tos would, if that is a plain send.
     * \param prefix null, or (only with a \p route and when TakesPrefix()) the first
     *        \p prefixSize bytes (at most FabricUdpIpv4Header::MAX_PREFIX) of the UDP payload,
     *        not in \p p: written with the UDP/IPv4 headers in one header
     * \return true if sent; false if the caller must give \p p (unchanged; with the prefix
     *         added first, if one was given) to UdpL4Protocol
     */
    bool SendUdp(Ptr<Packet> p,
                 Ipv4Address src,
                 Ipv4Address dst,
                 uint16_t sport,
                 uint16_t dport,
                 uint8_t tos,
                 const Ptr<Ipv4Route>& route,
                 const uint8_t* prefix = nullptr,
                 uint32_t prefixSize = 0);

    /**
     * Offer UDP datagrams for this host to \p port to \p handler, if their payload has at
     * least \p minPayload bytes (shorter ones go to IPv4).
     * \return false if the host path is not available here or \p port is already bound
     *         (nothing is installed; those datagrams take IPv4 or the first binding)
     */
    bool BindUdp(uint16_t port, UdpHandler handler, uint32_t minPayload = 0);

    /// BindUdp with a handler that reads the datagram in place (UdpInPlaceHandler).
    bool BindUdpInPlace(uint16_t port, UdpInPlaceHandler handler, uint32_t minPayload = 0);

    /**
     * Whether SendUdp takes a payload prefix: the host can use the fast path and writes one
     * FabricUdpIpv4Header (checksums off, packet metadata off). Learns the host's ports (as the
     * first packet does); meant for senders with a packet in hand: it probes packet metadata
     * the way a first packet's header does, so Packet::EnablePrinting is refused after it, as
     * after any packet.
     */
    bool TakesPrefix();

    /// Datagrams sent and received through the fast path (not through IPv4).
    uint64_t GetFastTxPackets() const { return m_fastTx; }
    uint64_t GetFastRxPackets() const { return m_fastRx; }

    /**
     * TracedCallback signature of Tx and Rx: the datagram with its IPv4 header, the IPv4 of
     * the host and the IPv4 interface index (as Ipv4L3Protocol's Tx and Rx).
     */
    typedef void (*TxRxTracedCallback)(Ptr<const Packet> packet,
                                       Ptr<Ipv4> ipv4,
                                       uint32_t interface);

    // FastP2pReceiver: the demultiplexer called by a FastP2pNetDevice port (DirectReceive)
    bool ReceiveFromFastDevice(FastP2pNetDevice* device,
                               const Ptr<Packet>& packet,
                               uint16_t protocol) override;

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    /**
     * What the fast path needs of a host port, per datagram sent or received, in one cache
     * line (with 1024 GPUs a host's objects are out of L2 between its packets). The interface
     * state is kept here from IPv4's notifications (FabricIpv4Routing's
     * SetInterfaceStateCallback, which Ipv4::SetUp and SetDown reach), not asked of the
     * Ipv4Interface per packet.
     */
    struct alignas(64) HostPort
    {
        Ptr<NetDevice> device;
        Ptr<NetDeviceQueue> txq; //!< the device's transmit queue (flow control)
        int32_t ipv4If{-1};      //!< IPv4 interface of the device; -1: not a fast port
        bool up{false};          //!< that interface is up (as IPv4 last notified)
        Address broadcast;       //!< the device's broadcast address (asked once)
    };

    static_assert(sizeof(HostPort) == 64, "a host port's per-packet record is one cache line");

    struct Binding
    {
        uint16_t port;
        uint32_t minPayload;
        UdpHandler handler;        //!< null for an in-place binding
        UdpInPlaceHandler inPlace; //!< null for a BindUdp binding
    };

    /// Add a binding (BindUdp, BindUdpInPlace); false if the port is bound already.
    bool AddBinding(Binding binding);

    /// The IPv4 identification counter of (\p src, \p dst), as Ipv4L3Protocol keeps it.
    uint16_t& IpId(Ipv4Address src, Ipv4Address dst)
    {
        const uint64_t key = (uint64_t(src.Get()) << 32) | dst.Get();
        if (!m_ipIdCached || key != m_ipIdKey)
        {
            if (m_ipIdCached)
            {
                *m_ipIdSlot = m_ipIdValue; // a map node does not move when the map rehashes
            }
            m_ipIdSlot = &m_ipId[key];
            m_ipIdKey = key;
            m_ipIdValue = *m_ipIdSlot;
            m_ipIdCached = true;
        }
        return m_ipIdValue;
    }
    /// IPv4 interface \p interface went up or down (FabricIpv4Routing's notification).
    void NotifyInterfaceState(uint32_t interface, bool up);
    /// Learn whether the host can use the fast path (once).
    void Init();
    /// Learn the host's ports, TTL and queue discs (once, at the first packet).
    void InitPorts();
    void InstallDemux();
    /// The IPv4 header Ipv4L3Protocol::BuildHeader writes for a UDP datagram from this host.
    Ipv4Header UdpIpv4Header(Ipv4Address src,
                             Ipv4Address dst,
                             uint8_t tos,
                             uint32_t payloadSize,
                             uint16_t id,
                             bool checksum) const;
    /// The UDP then the IPv4 header, as UdpL4Protocol and Ipv4L3Protocol add them.
    void AddUdpIpv4Headers(Ptr<Packet> p,
                           Ipv4Address src,
                           Ipv4Address dst,
                           uint16_t sport,
                           uint16_t dport,
                           uint8_t tos,
                           uint16_t id,
                           bool checksum) const;
    /// Hand an IPv4 packet that arrived on device \p idx to a bound port's handler, if it is a
    /// UDP datagram for this host that one takes; false: IPv4 gets it.
    bool TakeUdp(uint32_t idx, const Ptr<const Packet>& packet);
    /// The protocol handler replacing TrafficControlLayer::Receive for IPv4 on fast ports.
    void ReceiveFromDevice(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& from,
                           const Address& to,
                           NetDevice::PacketType packetType);

    // What every datagram sent (SendUdp) reads and writes, in one cache line: with 1024 GPUs
    // a host's objects are out of the core's L2 between its packets, so each distinct line
    // costs a miss (doc/scaling.md, "Session 12: cache lines per hop").
    alignas(64) bool m_init{false};
    bool m_available{false};
    bool m_portsKnown{false};
    /// Node::ChecksumEnabled as read at the first packet (CHECKSUM_UNKNOWN before).
    enum : uint8_t
    {
        CHECKSUM_UNKNOWN,
        CHECKSUM_OFF,
        CHECKSUM_ON
    } m_checksum{CHECKSUM_UNKNOWN};
    /// The port of the last datagram sent, if below 256: a datagram through the same port
    /// finds it without asking the device its index (a hint, checked against the device).
    uint8_t m_lastPort{0};
    /// Packet metadata off (seen at the first packet): one FabricUdpIpv4Header, not two.
    bool m_oneHeader{false};
    bool m_ipIdCached{false}; //!< m_ipIdKey, m_ipIdValue and m_ipIdSlot are set
    uint8_t m_ttl{64};
    uint32_t m_fabricNode{UINT32_MAX};
    uint16_t m_nPorts{0}; //!< m_hostPorts.size() (at most a node's 65535 devices: checked)
    /// The counter of (src, dst) m_ipIdKey, the live value while that pair is the last one
    /// asked for (written back to m_ipId when another is): a host sending to one peer
    /// reads no hash bucket or map node.
    uint16_t m_ipIdValue{0};
    HostPort* m_ports{nullptr}; //!< m_hostPorts.data()
    uint64_t m_ipIdKey{0};      //!< the (src, dst) of m_ipIdValue
    uint64_t m_fastTx{0};
    /// A datagram sent by the fast path, as handed to the device.
    TracedCallback<Ptr<const Packet>, Ptr<Ipv4>, uint32_t> m_txTrace;

    // What a datagram taken by a binding reads besides the line above.
    uint16_t* m_ipIdSlot{nullptr}; //!< m_ipIdKey's counter in m_ipId
    std::vector<Binding> m_bindings;
    uint64_t m_fastRx{0};
    /// A datagram received by the fast path (a handler took it), as it came from the device.
    TracedCallback<Ptr<const Packet>, Ptr<Ipv4>, uint32_t> m_rxTrace;

    // Set up once.
    Ptr<Node> m_node;
    bool m_demux{false};
    bool m_directReceive{true};                         //!< the DirectReceive attribute
    std::vector<Ptr<FastP2pNetDevice>> m_directDevices; //!< ports that call us directly
    Ptr<Ipv4> m_ipv4;
    Ptr<FabricIpv4Routing> m_routing; //!< tells the interfaces' state (NotifyInterfaceState)
    Ptr<TrafficControlLayer> m_tc;
    std::vector<HostPort> m_hostPorts;             //!< by device index
    std::unordered_map<uint64_t, uint16_t> m_ipId; //!< IPv4 identification per (src, dst)
};

} // namespace ns3

#endif // FABRIC_HOST_PATH_H
