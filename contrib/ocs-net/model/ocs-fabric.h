// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_FABRIC_H
#define OCS_FABRIC_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fabric-network.h"
#include "ns3/fabric-state.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ocs-configuration.h"
#include "ns3/ocs-fibre-channel.h"
#include "ns3/ocs-matrix.h"
#include "ns3/ocs-switch.h"
#include "ns3/ocs-wiring.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <optional>
#include <vector>

namespace ns3
{

class FabricSwitchForwarder;

/**
 * \ingroup ocs-net
 * A logical EG-EG link that circuits can realize: EG port end[0] and EG port end[1] are joined
 * when circuit dir[0] (TX of end[0] -> RX of end[1]) and circuit dir[1] (TX of end[1] -> RX of
 * end[0]) are both ready. It is a FabricGraph link with a stable id (end 0 of the graph link is
 * the EG of end[0]).
 */
struct OcsLogicalLink
{
    uint32_t link;     //!< FabricGraph link id
    OcsEgPort end[2];  //!< the two EG ports
    OcsCircuit dir[2]; //!< dir[i]: circuit from TX of end[i] to RX of end[1-i]
};

/// \ingroup ocs-net What a reconfiguration of the whole cluster did.
struct OcsReconfigRecord
{
    Time requested;   //!< Reconfigure called
    Time switchStart; //!< circuits torn down (after draining, with the drain policy)
    Time end;         //!< every OCS restored
    uint32_t changedCircuits{0};
    uint32_t linksDown{0};   //!< logical links the change took away
    uint32_t heldPackets{0}; //!< pause policy: frames the EGs held over the dark window
    /// Stall: from the request to the last new circuit ready.
    Time Stall() const { return end - requested; }
};

/**
 * \ingroup ocs-net
 * The packet-level side of an OCS cluster (built by OcsClusterHelper): EGs joined by every
 * logical link the wiring allows (OcsLogicalLink, one FabricGraph link each, so link ids are
 * stable and routing works on the FabricGraph), an OcsSwitch per OCS, and an OcsFibreChannel
 * per logical link.
 *
 * Link-up rule: a logical link is up exactly while both its circuits are ready (duplex, as
 * Ethernet needs); a one-way circuit brings nothing up. Up/down goes to the physical truth
 * (FabricNetwork::GetState: the devices obey it) and to the routing view (the controller's
 * knowledge: it withdraws a link from the view when it decides to change its circuits, and
 * adds it when it comes up), so EcmpRouting rehashes over what is left (shortest paths through
 * other EGs where no direct link remains). Links that change in one instant reach the routing
 * as one update (FabricRouting::BeginViewBatch/EndViewBatch; attribute BatchRoutingUpdates).
 *
 * Model note: an EG port has one ns-3 device per logical link it can take part in; at most one
 * of them is up at any time (an N and an S half-port carry one circuit each), so they share
 * the port's line rate in time, never at once.
 *
 * Reconfigure(circuits), policy (attribute Policy):
 * - drop: the changed circuits go dark at once; frames queued on or travelling over the links
 *   they carried are lost (ocs-dark);
 * - drain: the links that will change are withdrawn from routing first; the OCSes switch once
 *   their devices' queues are empty and the last frame has arrived (or after DrainTimeout).
 * - pause: the links that will change are withdrawn from routing and their EG ports stop
 *   sending into them at once (PFC-style): the frames queued on them are held by the EG for
 *   the dark window instead of being sent or lost; the OCSes switch as soon as the last
 *   frame on the fibre has arrived (at most one frame time and the fibre delay), and when
 *   every OCS is restored the EGs forward the held frames again over the new topology
 *   (FabricSwitchForwarder::Forward). On a lossless EG (PfcSwitch) the held frames stay in
 *   its buffer, charged to the ports they came in on, over the whole dark window, and are
 *   forwarded as frames arriving on those ports (PfcSwitch::HoldQueued, ForwardHeld), so the
 *   pauses they cause go to the real upstreams. Nothing is sent into a dark circuit and nothing is
 *   lost to it (ocs-dark), and the stall is the drop policy's; a lossy cluster can still
 *   overflow queues when the held frames and the rerouted traffic meet (doc/ocs-net.md).
 * Then every OCS switches (SwitchingDelay) and the new links restore (RestorationDelay).
 */
class OcsFabric : public Object
{
  public:
    /// What happens to traffic on circuits that change.
    enum Policy
    {
        DROP,
        DRAIN,
        PAUSE
    };

    static TypeId GetTypeId();
    OcsFabric();
    ~OcsFabric() override;

    /**
     * Bind (called by OcsClusterHelper): the wiring, the built network, its logical links,
     * the OCSes (one per wiring OCS, radix set) and the routing view to maintain.
     */
    void Setup(const OcsWiring& wiring,
               Ptr<FabricNetwork> net,
               std::vector<OcsLogicalLink> links,
               std::vector<Ptr<OcsSwitch>> switches,
               std::shared_ptr<FabricState> view);

    const OcsWiring& GetWiring() const { return *m_wiring; }
    Ptr<FabricNetwork> GetNetwork() const { return m_net; }
    std::shared_ptr<FabricState> GetView() const { return m_view; }
    uint32_t GetNumOcs() const { return static_cast<uint32_t>(m_switches.size()); }
    Ptr<OcsSwitch> GetSwitch(uint32_t ocs) const { return m_switches.at(ocs); }
    const std::vector<OcsLogicalLink>& GetLogicalLinks() const { return m_links; }
    /// Channel of logical link \p index (index into GetLogicalLinks()).
    Ptr<OcsFibreChannel> GetChannel(uint32_t index) const { return m_channels.at(index); }
    /// Fabric node of EG \p eg.
    uint32_t GetEgNode(uint32_t eg) const { return m_egNode.at(eg); }
    /// Whether logical link \p index is up (both circuits ready).
    bool IsLinkUp(uint32_t index) const { return m_up.at(index) != 0; }
    Policy GetPolicy() const { return m_policy; }

    /**
     * Set the circuits at once, ready, with no delay (the configuration at time 0).
     * \throws std::invalid_argument on circuits that break the physical constraint
     *         (ValidateCircuits); std::logic_error during a reconfiguration
     */
    void SetCircuits(const std::vector<OcsCircuit>& circuits);

    /**
     * Start a reconfiguration to \p circuits now (see the class description).
     * \throws as SetCircuits; std::invalid_argument with the pause policy on EGs without the
     *         device-level switch mode
     */
    void Reconfigure(const std::vector<OcsCircuit>& circuits);
    bool IsReconfiguring() const { return m_reconfiguring; }
    /// Called when a reconfiguration ends (every OCS restored), with its record.
    void SetReconfigurationDoneCallback(Callback<void, const OcsReconfigRecord&> cb)
    {
        m_done = cb;
    }
    const std::vector<OcsReconfigRecord>& GetReconfigurations() const { return m_records; }

    /// The ready circuits now, sorted.
    std::vector<OcsCircuit> GetReadyCircuits() const;

    /**
     * The logical topology measured from the devices: links per EG pair whose two directions
     * the physical truth says are usable; the diagonal counts the ready duplex circuit pairs
     * between two ports of the same EG (no device carries those).
     */
    OcsMatrix MeasureLogicalTopology() const;

    typedef void (*LinkStateTracedCallback)(uint32_t link, bool up);

  protected:
    void DoDispose() override;

  private:
    void JoinChanged(uint32_t ocs, uint32_t n);
    void Evaluate(uint32_t index);
    bool CircuitReady(const OcsCircuit& c) const;
    std::vector<std::vector<uint32_t>> JoinsOf(const std::vector<OcsCircuit>& circuits) const;
    void PollDrain();
    /// \throws std::invalid_argument if an EG has no FabricSwitchForwarder (pause policy)
    void CheckCanHold() const;
    /// Pause policy: take what waits on the changed links' devices into m_held.
    void HoldChanged();
    /// Pause policy: hand the held frames back to their EGs' forwarders.
    void ReleaseHeld();
    /// A frame an EG holds over the dark window (pause policy).
    struct HeldFrame
    {
        uint32_t node;      //!< fabric node of the EG
        uint32_t port;      //!< the withdrawn port it was queued on
        uint32_t inPort;    //!< ingress port it stays charged to (PFC), or PfcQueue::NO_INGRESS
        Ptr<Packet> packet; //!< the IPv4 packet
    };

    /// Hand one released frame to its EG: as arriving on its ingress port (PFC, through
    /// PfcSwitch::ForwardHeld) or, where that is unknown, on the port it was held at.
    void ForwardHeld(const HeldFrame& h);
    bool Drained(uint32_t index) const;
    void StartSwitching();
    void SwitchEnded(uint32_t ocs);
    /// Open (true) or close (false) a batch of routing-view changes (FabricRouting).
    void ViewBatch(bool begin);

    std::optional<OcsWiring> m_wiring;
    Ptr<FabricNetwork> m_net;
    uint32_t m_holderId{UINT32_MAX}; //!< FabricNetwork::AddPacketHolder id
    uint64_t m_releasing{0};         //!< held frames scheduled for release, not yet forwarded
    std::shared_ptr<FabricState> m_truth;
    std::shared_ptr<FabricState> m_view;
    std::vector<OcsLogicalLink> m_links;
    std::vector<Ptr<OcsFibreChannel>> m_channels;
    std::vector<Ptr<OcsSwitch>> m_switches;
    std::vector<uint32_t> m_egNode;
    std::vector<std::vector<uint32_t>> m_byTx; //!< ocs * radix + n -> logical links using it
    std::vector<uint8_t> m_up;                 //!< per logical link: both circuits ready
    std::vector<uint8_t> m_viewUp;             //!< per logical link: up in the routing view
    Policy m_policy{DROP};
    bool m_batchViews{true}; //!< BatchRoutingUpdates
    Time m_drainPoll;
    Time m_drainTimeout;
    bool m_reconfiguring{false};
    std::vector<std::vector<uint32_t>> m_target; //!< joins per OCS being installed
    std::vector<uint32_t> m_draining;            //!< logical links waited for
    uint32_t m_pendingSwitches{0};
    OcsReconfigRecord m_current;
    std::vector<OcsReconfigRecord> m_records;
    EventId m_pollEvent;
    std::vector<HeldFrame> m_held;
    Callback<void, const OcsReconfigRecord&> m_done;
    TracedCallback<uint32_t, bool> m_linkStateTrace;
};

} // namespace ns3

#endif // OCS_FABRIC_H
