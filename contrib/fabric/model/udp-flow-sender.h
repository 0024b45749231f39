// SPDX-License-Identifier: GPL-2.0-only
#ifndef UDP_FLOW_SENDER_H
#define UDP_FLOW_SENDER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class FabricHostPath;
class Ipv4;
class UdpL4Protocol;

/**
 * \ingroup fabric
 * Sends one flow of MaxBytes over UDP at a constant on-wire rate, from a fixed local port
 * (the port is the flow's ECMP entropy, so the packet-level key equals the analytic one).
 * The rate counts the bytes a packet occupies on a point-to-point link: payload + UDP 8 +
 * IPv4 20 + PPP 2.
 *
 * Like a NIC, the sender writes its own UDP source port and hands packets to the host's
 * UdpL4Protocol, with the route the host's IPv4 routing gives for each packet, exactly as a
 * connected UDP socket does; it holds no socket. A host with n-1 flows (an all-pairs
 * AllReduce) so has no n-1 bound endpoints, which IPv4's endpoint demultiplexer would scan
 * for every packet the host receives (and every bind) - that made the per-packet cost grow
 * with the cluster size. Packets, headers, routes and event order are those of the socket.
 *
 * Host path (HostPath attribute): ipv4 hands each packet to UdpL4Protocol as described; fast
 * (default) has the host's FabricHostPath write the same UDP and IPv4 headers and give the
 * packet to the route's device, falling back to UdpL4Protocol whenever IPv4 would do more
 * than a plain send (FabricHostPath::SendUdp). The bytes on every link and the event order
 * are the same; FlowMonitor and the IPv4/UDP trace sources see only ipv4-path packets.
 */
class UdpFlowSender : public Application
{
  public:
    /// Which host stack the packets go through (HostPath attribute).
    enum HostPath
    {
        HOST_PATH_IPV4, //!< UdpL4Protocol and Ipv4L3Protocol
        HOST_PATH_FAST  //!< headers written by FabricHostPath, sent to the device
    };

    /// Bytes a packet carries on the wire beyond its payload.
    static constexpr uint32_t WIRE_OVERHEAD = 8 + 20 + 2;

    /// IPv4 bytes (payload + UDP and IPv4 headers) a flow of \p payloadBytes puts on each
    /// link when sent in packets of at most \p packetSize payload bytes.
    static uint64_t Ipv4BytesOf(uint64_t payloadBytes, uint32_t packetSize)
    {
        return payloadBytes + 28 * ((payloadBytes + packetSize - 1) / packetSize);
    }

    static TypeId GetTypeId();
    UdpFlowSender();
    ~UdpFlowSender() override;

    uint64_t GetSentBytes() const { return m_sentBytes; }
    uint64_t GetSentPackets() const { return m_sentPackets; }
    /// Packets that found no route at the source (also reported by the Refused trace).
    uint64_t GetRefusedPackets() const { return m_refusedPackets; }
    /// Packets sent through the fast host path (not through IPv4).
    uint64_t GetFastPackets() const { return m_fastPackets; }
    /// When the first packet was sent (negative before that).
    Time GetFirstTxTime() const { return m_firstTx; }

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void SendNext();

    Address m_remote;
    uint16_t m_localPort{0};
    DataRate m_rate;
    // Per-flow state is kept small: an all-pairs AllReduce has n(n-1) senders (4.2M at 2048
    // GPUs). The gap of a full packet is kept (other sizes, the last packet, are computed).
    uint64_t m_gapBps{0}; //!< the rate m_fullGap was computed at (0: not yet)
    Time m_fullGap;       //!< pacing gap of a full packet (m_payload bytes) at m_gapBps
    uint32_t m_payload{0};
    uint64_t m_maxBytes{0};
    Ptr<UdpL4Protocol> m_udp;
    Ptr<Ipv4> m_ipv4;
    HostPath m_hostPath{HOST_PATH_FAST};
    Ptr<FabricHostPath> m_fast; //!< the host's fast path, if HostPath fast and available
    Ipv4Address m_dstAddr;
    uint16_t m_dstPort{0};
    EventId m_sendEvent;
    uint64_t m_sentBytes{0};
    uint64_t m_sentPackets{0};
    uint64_t m_refusedPackets{0};
    uint64_t m_fastPackets{0};
    Time m_firstTx{Seconds(-1)};
    TracedCallback<Ptr<const Packet>> m_txTrace;
    TracedCallback<Ptr<const Packet>> m_refusedTrace;
    TracedCallback<> m_doneTrace;
};

} // namespace ns3

#endif // UDP_FLOW_SENDER_H
