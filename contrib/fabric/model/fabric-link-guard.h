// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_LINK_GUARD_H
#define FABRIC_LINK_GUARD_H

#include "ns3/error-model.h"
#include "ns3/fabric-state.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class FabricNetwork;
class FabricLinkGuard;

/**
 * \ingroup fabric
 * Receive error model of a fabric port: drops every packet that arrives over a directed link
 * the physical truth says is unusable, or that was on the wire when the link went down. It
 * wraps the model a user had set on the device before (Inner), which decides for the other
 * packets. FabricLinkGuard installs it; it is not meant to be created by users.
 */
class FabricLinkErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId();
    FabricLinkErrorModel();

    /// Guard port \p port of \p guard (the guard outlives the model's use).
    void Bind(FabricLinkGuard* guard, uint32_t port);
    /// The model consulted for packets that the link state lets through (may be null).
    void SetInner(Ptr<ErrorModel> inner) { m_inner = inner; }
    Ptr<ErrorModel> GetInner() const { return m_inner; }

  protected:
    void DoDispose() override;

  private:
    bool DoCorrupt(Ptr<Packet> p) override;
    void DoReset() override;

    FabricLinkGuard* m_guard{nullptr};
    uint32_t m_port{0};
    Ptr<ErrorModel> m_inner;
};

/**
 * \ingroup fabric
 * Makes one node's ports obey the physical truth (FabricNetwork::GetState): aggregated to
 * every node by FabricNetworkHelper (Install and InstallGlobalRouting).
 *
 * When the directed link leaving a port becomes unusable (link down, or either end node
 * down), the packets queued on the port's device are removed and dropped (reason
 * FabricDropReason::LINK_DOWN), and, on a node with IPv4, the port's interface is set down
 * (Ipv4::SetDown, so the routing protocol's NotifyInterfaceDown runs); repair sets it up
 * again. Packets arriving over a link that is unusable, or whose first bit left before its
 * last repair (on the wire when it went down, or sent into it while it was down, e.g. by a
 * host whose egress alone failed), are dropped at the receiving device by a FabricLinkErrorModel
 * (link-down as well), which the guard sets on the device when the link first becomes unusable (a
 * user's own receive error model, set on the device before that, becomes its inner model). The
 * switch fast path checks IsPortUsable before sending.
 *
 * Trace sources (Config paths /NodeList/<i>/$ns3::FabricLinkGuard/<name>):
 * - StateChange: a change of this node, or of a directed link leaving it (each change of the
 *   truth is reported exactly once, by one node); the time is Simulator::Now().
 * - PortState: a port of this node changed, seen from the node (port, whether its egress
 *   and its ingress directed links are usable): what a loss-of-signal detector at this node
 *   would see, including failures of the link's other end.
 * - Drop: packets this node's ports dropped because of a failure (queued on a port that went
 *   down, or arriving over a failed link), with the reason.
 */
class FabricLinkGuard : public Object
{
  public:
    /**
     * While a Drop trace fires: whether the packet was dropped by IPv4 before reaching a device
     * (sent into a port that is down), so a host's own sends are told from in-network drops.
     */
    bool IsDropBeforeDevice() const { return m_dropBeforeDevice; }

    static TypeId GetTypeId();
    FabricLinkGuard();
    ~FabricLinkGuard() override;

    /**
     * Put a guard on every node of \p net and make the devices obey net->GetState() from now
     * on. Called once per network by FabricNetworkHelper.
     * \return the id of the listener registered on the state
     */
    static uint32_t InstallAll(Ptr<FabricNetwork> net);

    uint32_t GetFabricNode() const { return m_fabricNode; }
    /// The physical truth this guard obeys.
    std::shared_ptr<const FabricState> GetTruth() const { return m_truth; }
    /// Whether a packet sent out of \p port now reaches the peer (one vector load).
    bool IsPortUsable(uint32_t port) const { return m_truth->IsDirLinkUsable(m_egress[port]); }
    /// Packets this node dropped because of failures (queue flushes and receptions).
    uint64_t GetLinkDownDrops() const { return m_linkDownDrops; }

    /**
     * Whether the latest packet port \p port's error model dropped was a link-down drop, and
     * forget it: lets a PhyRxDrop sink tell failures from a user's error model.
     */
    bool TakeRxClaim(uint32_t port);

    typedef void (*StateChangeTracedCallback)(const FabricStateChange& change);
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, const std::string& reason);
    typedef void (*PortStateTracedCallback)(uint32_t port, bool egressUsable, bool ingressUsable);

    /// Whether this guard counts the packets IPv4 discards without a trace on a down interface
    /// (from the first port it set down on; FabricLinkMonitor counts them otherwise).
    bool CountsIpv4Discards() const { return m_ipv4 != nullptr; }

  protected:
    void DoDispose() override;

  private:
    friend class FabricLinkErrorModel;

    void Bind(Ptr<Node> node,
              uint32_t fabricNode,
              std::shared_ptr<const FabricState> truth,
              const std::vector<Ptr<NetDevice>>& devices);
    /// The truth of the link leaving \p port may have changed: apply it.
    void EgressChanged(uint32_t port);
    /// The truth of the link arriving at \p port may have changed.
    void IngressChanged(uint32_t port);
    void ReportChange(const FabricStateChange& change);
    /// Decision of port \p port's receive error model for \p p.
    bool RxBlocked(uint32_t port, Ptr<const Packet> p);
    void EnsureErrorModel(uint32_t port);
    void SetInterface(uint32_t port, bool up);
    /// IPv4 sends or forwards a packet out of \p interface (SendOutgoing, UnicastForward).
    void Ipv4Out(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t interface);

    Ptr<Node> m_node;
    uint32_t m_fabricNode{0};
    std::shared_ptr<const FabricState> m_truth;
    std::vector<Ptr<NetDevice>> m_devices;
    std::vector<Ptr<FabricLinkErrorModel>> m_errorModels;
    std::vector<uint32_t> m_egress;      //!< directed link leaving each port
    std::vector<uint32_t> m_ingress;     //!< directed link arriving at each port
    std::vector<uint8_t> m_egressUp;     //!< last applied state of each port's egress
    std::vector<uint8_t> m_ingressUp;    //!< last seen state of each port's ingress
    std::vector<uint8_t> m_wentDown;     //!< the ingress link has failed at least once
    std::vector<Time> m_ingressDownAt;   //!< when the ingress link last became unusable
    std::vector<Time> m_ingressUpAt;     //!< when it last became usable again (repair)
    std::vector<Time> m_ingressDelay;    //!< propagation delay of the ingress link
    std::vector<DataRate> m_ingressRate; //!< line rate of the peer's transmitting device
    std::vector<uint8_t> m_rxClaim;
    uint64_t m_linkDownDrops{0};
    bool m_disposed{false};
    Ptr<Ipv4> m_ipv4; //!< the node's IPv4, once a port went down (null: not watching)
    TracedCallback<const FabricStateChange&> m_stateChangeTrace;
    TracedCallback<uint32_t, bool, bool> m_portStateTrace;
    TracedCallback<Ptr<const Packet>, const std::string&> m_dropTrace;
    bool m_dropBeforeDevice{false}; //!< the drop being traced is of IPv4, before any device
};

} // namespace ns3

#endif // FABRIC_LINK_GUARD_H
