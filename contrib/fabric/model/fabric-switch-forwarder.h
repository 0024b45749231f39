// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_SWITCH_FORWARDER_H
#define FABRIC_SWITCH_FORWARDER_H

#include "ns3/ecn-marker.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-state.h"
#include "ns3/fast-p2p-net-device.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Switch fast path: forwards IPv4 packets at the device level, without an IPv4 stack on the
 * switch. A protocol handler reads the 5-tuple straight from the packet bytes, asks the
 * FabricRouting function for the egress port and sends the packet out of that device.
 * Hosts keep the full stack (sockets, FlowMonitor). The TTL is decremented as a router
 * does, and a packet that arrives with TTL <= 1 is dropped with reason ttl-expired, so a loop
 * ends (attribute Ttl). Rewriting the TTL costs a header rewrite (a buffer copy) per hop, so by
 * default (while-down) it is done only while some element of the physical state is down or
 * some node's routing view still differs from the truth (FabricRouting::GetViewDisagreements,
 * counted by a FabricFailureDetector; views converging after a repair can loop): the only
 * times routing views can disagree and loop (the routing functions are loop-free with
 * everything up, which is tested); "always" also ends the loops of a broken routing function.
 * A packet is forwarded without a per-hop copy (the device's received packet is the
 * forwarder's own).
 * If an EcnMarker is aggregated to the node, ECN-capable packets are marked CE according to
 * the egress queue they join; a mark counts (EcnMark) only when the packet was queued.
 *
 * Reception (attribute DirectReceive, read by Install; off by default, on in the project's
 * programs, which FabricCli sets up): the ports hand their frames to the forwarder directly,
 * not through Node::ReceiveFromDevice: a FastP2pNetDevice its IPv4 frames through
 * FastP2pReceiver (other frames still go to the node), any other device every frame through
 * its receive callback, which Install sets (ns-3 has no public way to hand a frame back to the
 * node). The node's handler list is not walked and no Callback layers copy the packet per hop.
 * The results are those of the node's dispatch whenever the forwarder is the only handler of
 * the switch, which it is unless a program registers its own: a non-promiscuous protocol
 * handler or packet socket on a switch node then does not see those frames (with
 * DirectReceive=false it does, as in ns-3). Promiscuous handlers and the devices' trace
 * sources work either way; a receive callback a program sets on a port after Install replaces
 * the forwarder's (not tested).
 *
 * The switch obeys the physical truth (FabricLinkGuard on the node): a packet the routing
 * function sends to a port whose link is down (the routing view may not know yet) is dropped
 * with reason link-down. Drops carry a FabricDropReason: no-route, link-down, ttl-expired,
 * not-ipv4. Config path of the traces: /NodeList/<i>/$ns3::FabricSwitchForwarder/<name>.
 */
class FabricSwitchForwarder : public Object, public FastP2pReceiver
{
  public:
    static TypeId GetTypeId();
    FabricSwitchForwarder();
    ~FabricSwitchForwarder() override;

    /**
     * Take over IPv4 reception on every device of \p node.
     * Device i of the node must be the device of fabric port i.
     */
    void Install(Ptr<Node> node, uint32_t fabricNode, Ptr<FabricRouting> routing);

    uint64_t GetForwarded() const { return m_forwarded; }

    /**
     * Where a forwarded packet goes instead of the egress device's Send: called with the
     * packet (IPv4, CE mark and TTL already written), the ingress port and the egress port;
     * returns whether the packet was queued. Used by lossless (PFC) switches, which account
     * the packet to its ingress port and may hold it on a paused port. A null callback (the
     * default) restores the plain device Send.
     */
    using EgressCallback = Callback<bool, Ptr<Packet>, uint32_t, uint32_t>;
    void SetEgressCallback(EgressCallback cb) { m_egressCb = cb; }

    /**
     * Forward \p ipv4 (an IPv4 packet, no link header) as if it had just arrived on
     * \p inPort: routing, TTL, ECN and egress as for any received packet. For a component of
     * this switch that held packets and lets them go again (an OCS port that went dark with
     * the pause policy, contrib/ocs-net).
     * \throws std::out_of_range if \p inPort is not a port of this switch
     */
    void Forward(Ptr<const Packet> ipv4, uint32_t inPort);

    /// Report a drop decided by a component of this switch (e.g. PFC headroom-overflow)
    /// through this forwarder's Drop trace, so that monitors count it like the others.
    void ReportDrop(Ptr<const Packet> p, const std::string& reason) { Drop(p, reason); }

    typedef void (*ForwardTracedCallback)(Ptr<const Packet> packet,
                                          uint32_t inPort,
                                          uint32_t outPort);
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, const std::string& reason);
    typedef void (*EcnMarkTracedCallback)(Ptr<const Packet> packet, uint32_t outPort);

    // FastP2pReceiver: the direct reception (DirectReceive) from a FastP2pNetDevice port
    bool ReceiveFromFastDevice(FastP2pNetDevice* device,
                               const Ptr<Packet>& packet,
                               uint16_t protocol) override;

  protected:
    void DoDispose() override;

  private:
    /// Fast ports stop handing frames to this forwarder directly (dispose, re-Install).
    void ReleaseFastPorts();
    static constexpr uint32_t NOT_A_PORT = UINT32_MAX; //!< PortOfIpv4Frame: not ours
    /// \return the port \p device is when \p protocol is IPv4 and the device one of the
    /// ports (by its index), else NOT_A_PORT.
    uint32_t PortOfIpv4Frame(const NetDevice* device, uint16_t protocol) const;
    /// The direct reception from port \p inPort when it is not a FastP2pNetDevice (its
    /// receive callback, which binds the port).
    bool ReceiveFromPort(uint32_t inPort, const Ptr<const Packet>& packet, uint16_t protocol);
    /// Forward \p packet (IPv4, ours to rewrite) that arrived on port \p inPort.
    void Route(uint32_t inPort, const Ptr<Packet>& packet);
    /// The node's protocol handler (DirectReceive=false, and devices that are not ports).
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType packetType);
    void Drop(Ptr<const Packet> p, const std::string& reason);

    uint32_t m_fabricNode{0};
    /// When the TTL is decremented (the Ttl attribute).
    enum TtlMode
    {
        TTL_ALWAYS,
        TTL_WHILE_DOWN,
        TTL_NEVER
    };

    TtlMode m_ttlMode{TTL_WHILE_DOWN};
    bool m_directReceive{true}; //!< the DirectReceive attribute
    Ptr<FabricRouting> m_routing;
    std::shared_ptr<const FabricState> m_truth; //!< physical state (null: never fails)
    std::vector<uint32_t> m_egress;             //!< directed link leaving each port
    std::vector<Ptr<NetDevice>> m_ports;
    std::vector<Address>
        m_broadcast; //!< each port's broadcast address (asked once: ~600 instructions)
    std::vector<Ptr<Queue<Packet>>> m_queues; //!< egress queue per port (for ECN)
    std::vector<uint64_t> m_rates;            //!< line rate per port in bit/s
    Ptr<EcnMarker> m_ecn;
    EgressCallback m_egressCb; //!< null: egress device Send
    uint64_t m_forwarded{0};
    Node* m_registeredOn{nullptr}; //!< node whose IPv4 handler (all devices) is this one
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_forwardTrace;
    TracedCallback<Ptr<const Packet>, const std::string&> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_ecnTrace;
};

} // namespace ns3

#endif // FABRIC_SWITCH_FORWARDER_H
