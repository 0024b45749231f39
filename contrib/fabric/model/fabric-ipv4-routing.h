// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_IPV4_ROUTING_H
#define FABRIC_IPV4_ROUTING_H

#include "ns3/abort.h"
#include "ns3/ecn-marker.h"
#include "ns3/fabric-routing.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Ipv4RoutingProtocol adapter of a FabricRouting function. On a host it picks the NIC for
 * outgoing packets and delivers packets addressed to any of its addresses (hosts never
 * forward); on a switch that runs IPv4 it forwards by calling the routing function with the
 * packet's 5-tuple. It keeps no table of its own: the FabricRouting is the table.
 *
 * Interface i of the node's Ipv4 must be the device of fabric port i-1 (interface 0 is the
 * loopback); FabricNetworkHelper sets this up, and aggregates the protocol to the node, so
 * its traces are at /NodeList/<i>/$ns3::FabricIpv4Routing/<name>.
 *
 * Failures: the FabricLinkGuard sets the interface of a dead port down (and up on repair);
 * NotifyInterfaceDown/Up keep a per-port up flag. Decisions still come only from the routing
 * view: a switch that picks a down port drops the packet (link-down, counted once, here); a
 * host's RouteOutput still returns the chosen port's route, and IPv4 drops the packet on the
 * down interface (DROP_INTERFACE_DOWN, counted as link-down by FabricLinkMonitor).
 */
class FabricIpv4Routing : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();
    FabricIpv4Routing();
    ~FabricIpv4Routing() override;

    /**
     * Bind to a fabric node.
     * \param fabricNode the node's id in the FabricGraph
     * \param routing the routing function shared by every node of the fabric
     * \param primary the address flows of this host are sent from (hosts only)
     */
    void SetFabric(uint32_t fabricNode, Ptr<FabricRouting> routing, Ipv4Address primary);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

    /**
     * TracedCallback signature for forwarding decisions.
     * \param packet the packet (payload after the IPv4 header for RouteInput)
     * \param header its IPv4 header
     * \param inPort fabric port it arrived on (FabricRouting::NO_PORT if originated here)
     * \param outPort fabric port chosen
     */
    typedef void (*ForwardTracedCallback)(Ptr<const Packet> packet,
                                          const Ipv4Header& header,
                                          uint32_t inPort,
                                          uint32_t outPort);
    /**
     * TracedCallback signature for drops (the same as FabricSwitchForwarder's).
     * \param packet the packet without its IPv4 header
     * \param reason a FabricDropReason: no-route, link-down or host-not-forwarding
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, const std::string& reason);

    /// The routing function this node asks (null before SetFabric).
    Ptr<FabricRouting> GetFabricRouting() const { return m_routing; }
    /// The node's id in the FabricGraph.
    uint32_t GetFabricNode() const { return m_fabricNode; }

    /// Whether the interface of fabric port \p port is up (as last notified).
    bool IsPortUp(uint32_t port) const { return m_portUp[port] != 0; }

    /**
     * Called with the IPv4 interface and its new state (true: up) at every NotifyInterfaceUp
     * and NotifyInterfaceDown, that is, whenever Ipv4::SetUp or Ipv4::SetDown changes an
     * interface of the node. One listener (FabricHostPath keeps its ports' state this way
     * instead of asking IPv4 per packet); a null callback removes it.
     */
    using InterfaceStateCallback = Callback<void, uint32_t, bool>;
    void SetInterfaceStateCallback(InterfaceStateCallback cb)
    {
        // A second listener would silently disconnect the first (a host path sending on a
        // down interface): refuse it.
        NS_ABORT_MSG_IF(!cb.IsNull() && !m_interfaceStateCb.IsNull()
                            && !cb.IsEqual(m_interfaceStateCb),
                        "FabricIpv4Routing::SetInterfaceStateCallback: one listener only; "
                        "clear the current one (a null callback) first");
        m_interfaceStateCb = cb;
    }

  protected:
    void DoDispose() override;

  private:
    /// Whether a forwarded ECN-capable packet joining \p port's queue should be marked CE.
    bool ShouldMark(const Ipv4Header& h, uint32_t port);
    void Drop(Ptr<const Packet> p, const Ipv4Header& h, const std::string& reason);

    Ptr<Ipv4> m_ipv4;
    uint32_t m_fabricNode{0};
    bool m_isHost{false};
    Ipv4Address m_primary;
    Ptr<FabricRouting> m_routing;
    std::vector<Ptr<Ipv4Route>> m_routeByPort; //!< one immutable route per egress port
    std::vector<uint8_t> m_portUp;             //!< interface state per port (Notify*)
    InterfaceStateCallback m_interfaceStateCb; //!< SetInterfaceStateCallback
    Ptr<EcnMarker> m_ecn;
    std::vector<std::pair<Ptr<Queue<Packet>>, uint64_t>> m_portQueue; //!< queue, rate (bit/s)
    TracedCallback<Ptr<const Packet>, const Ipv4Header&, uint32_t, uint32_t> m_forwardTrace;
    TracedCallback<Ptr<const Packet>, const std::string&> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_ecnTrace;
};

} // namespace ns3

#endif // FABRIC_IPV4_ROUTING_H
