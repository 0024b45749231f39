// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_SWITCH_H
#define PFC_SWITCH_H

#include "ns3/event-id.h"
#include "ns3/fabric-network.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/pfc-dependency.h"
#include "ns3/pfc-queue.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * Priority flow control (IEEE 802.1Qbb) of one switch of a FabricNetwork with a shared buffer.
 *
 * Ingress accounting: every data-class packet is charged to its (ingress port, class) from
 * the moment the switch queues it on an egress port until it leaves that egress queue. The
 * bytes go into the shared pool (BufferSize less the headroom reserved for every port) while
 * the port's shared bytes stay below the XOFF threshold, alpha x (free shared buffer) with
 * the dynamic threshold of merchant silicon (or XoffBytes with Alpha 0). Above it the switch
 * sends a pause frame (XOFF) to the upstream device of that port, and what still arrives
 * (on the wire and sent before the pause took effect) goes into the port's headroom; a packet
 * that does not fit in the headroom is dropped with reason headroom-overflow. When the port's
 * headroom is empty and its shared bytes are XonOffsetBytes below the threshold (or zero),
 * the switch sends a resume (XON).
 *
 * Pause frames travel the reverse link: they take effect on the upstream egress queue after
 * the link delay plus a 64-byte frame time. PauseMode on-off pauses until the resume; quanta
 * pauses for PauseQuanta x 512 bit times and the switch refreshes the pause every half of it
 * while XOFF lasts (a resume is a frame with quanta 0), as 802.1Qbb does.
 *
 * The control class (ACK/NACK/CNP) is served first, never paused and not charged. ECN
 * marking keeps working: the forwarder marks against the egress PfcQueue's bytes.
 */
class PfcSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    PfcSwitch();

    /// How pause frames express their duration (PauseMode attribute).
    enum PauseMode
    {
        ON_OFF,
        QUANTA
    };

    /**
     * Take over the egress of switch \p fabricNode of \p net: its forwarder hands packets to
     * this object. Every device of the switch and of its neighbours must use a PfcQueue.
     * Warns (FabricWarn) when a configured HeadroomBytes is below what a port needs.
     * \throws std::invalid_argument if the headroom of all ports exceeds BufferSize or a
     *         device has no PfcQueue
     */
    void Install(Ptr<FabricNetwork> net, uint32_t fabricNode);

    /// Headroom a port needs so that it never drops, in bytes: rate x 2 x link delay + 3
    /// frames of MTU (the one that crossed the threshold, the one the upstream is sending
    /// when the pause arrives, the one a host NIC has already queued; every port gets all
    /// three, switch-facing ones too) + a pause frame.
    static uint64_t RequiredHeadroom(uint64_t rateBps, Time delay, uint32_t mtu);

    /// Headroom (bytes) of \p port in force.
    uint64_t GetHeadroom(uint32_t port) const { return m_ports[port].headroomSize; }
    /// Bytes charged to \p port's data class now (shared + headroom).
    uint64_t GetIngressBytes(uint32_t port) const;
    /// Largest headroom occupancy of \p port seen.
    uint64_t GetMaxHeadroomUsed(uint32_t port) const { return m_ports[port].maxHeadroom; }
    /// Whether \p port has sent XOFF and not yet XON.
    bool IsPausingUpstream(uint32_t port) const { return m_ports[port].xoff; }
    /// Pause frames sent on \p port (XOFF, refresh and XON); one found its port down is lost, not
    /// sent.
    uint64_t GetPauseFrames(uint32_t port) const { return m_ports[port].frames; }
    uint64_t GetHeadroomDrops() const { return m_headroomDrops; }
    /// Pause frames (XOFF, refresh, XON) not delivered: their link was down when they were
    /// sent or when they would have arrived (the physical truth, FabricNetwork::GetState).
    uint64_t GetLostPauseFrames() const { return m_lostPauseFrames; }
    uint64_t GetSharedBytes() const { return m_sharedUsed; }
    uint32_t GetFabricNode() const { return m_fabricNode; }
    /// The data-class accounting of every port now (for the deadlock analysis).
    PfcSwitchBuffer GetBufferState() const;

    /// A frame taken out of an egress queue by HoldQueued: it is still in this switch's buffer.
    struct HeldFrame
    {
        Ptr<Packet> ipv4; //!< the IPv4 packet (no PPP header)
        uint32_t inPort;  //!< ingress port it is charged to (PfcQueue::NO_INGRESS: not charged)
    };

    /**
     * Take every frame queued on \p outPort out of its egress queue, in the order the queue
     * would have sent them, for a component of this switch that keeps them for a while (an
     * OCS port that went dark under the pause policy, contrib/ocs-net). The frames stay in
     * the buffer: their data-class bytes remain charged to their ingress ports (which keep
     * pausing their upstreams as the bytes demand) until ForwardHeld lets them go.
     */
    std::vector<HeldFrame> HoldQueued(uint32_t outPort);

    /**
     * Let a frame from HoldQueued go: its charge is released and the forwarder routes it as a
     * frame that has just arrived on \p inPort, its ingress port, so it is charged there again
     * and any XOFF/XON goes to that port's upstream. \p inPort must be the frame's HeldFrame
     * inPort and not PfcQueue::NO_INGRESS (FabricSwitchForwarder::Forward takes those).
     */
    void ForwardHeld(Ptr<Packet> ipv4, uint32_t inPort);

    /// Data-class bytes (with the PPP header) of the frames taken by HoldQueued and not yet
    /// handed to ForwardHeld; they are part of GetIngressBytes and GetSharedBytes.
    uint64_t GetHeldBytes() const { return m_heldBytes; }

    /// A pause frame left: fabric node, port, class, XOFF (true) or XON (false).
    typedef void (*PauseTracedCallback)(uint32_t node, uint32_t port, uint8_t cls, bool xoff);

  protected:
    void DoDispose() override;

  private:
    struct Port
    {
        Ptr<NetDevice> device;
        Ptr<PfcQueue> queue;    //!< this port's egress queue
        Ptr<PfcQueue> upstream; //!< the peer's egress queue that this port pauses
        uint32_t inDirLink{0};  //!< the directed link into this port
        uint32_t outDirLink{0}; //!< the directed link out of it (pause frames travel on it)
        bool linkUp{true};      //!< both directions usable (as last seen)
        Time delay;
        uint64_t rateBps{0};
        uint64_t headroomSize{0};
        uint64_t shared{0};
        uint64_t headroom{0};
        uint64_t maxHeadroom{0};
        uint64_t frames{0};
        bool xoff{false};
        EventId refresh;
    };

    bool Egress(Ptr<Packet> p, uint32_t inPort, uint32_t outPort);
    void Leave(uint32_t inPort, uint8_t cls, uint32_t bytes);
    /// \p bytes of \p inPort leave the buffer (Discharge, then the resume checks).
    void Release(uint32_t inPort, uint64_t bytes);
    /**
     * Take \p bytes off \p inPort's charge (headroom first), no pause decision.
     * \return the bytes taken off the shared pool (they raise every port's threshold)
     */
    uint64_t Discharge(uint32_t inPort, uint64_t bytes);
    /// Send XON on \p inPort if it pauses its upstream and may resume now.
    void MaybeResume(uint32_t inPort);
    /**
     * The shared pool's usage fell, so the dynamic threshold (alpha x free pool) rose: send
     * XON on every port that pauses its upstream and may resume now, whether or not its own
     * bytes moved. Loops over the ports in XOFF only (m_xoffPorts).
     */
    void ResumeAfterPoolFell();
    uint64_t Threshold() const;
    void SendPause(uint32_t port, bool xoff);
    void Refresh(uint32_t port);
    void DeliverPause(uint32_t port, Time duration);
    void LinkStateChanged();
    bool PortUsable(const Port& port) const;
    Time PauseDuration(const Port& port) const;

    uint32_t m_fabricNode{0};
    std::vector<Port> m_ports;
    Ptr<FabricSwitchForwarder> m_forwarder;
    uint64_t m_bufferSize{0};
    uint64_t m_pool{0}; //!< shared part of the buffer (BufferSize less reserved headroom)
    uint64_t m_sharedUsed{0};
    double m_alpha{0};
    uint64_t m_xoffStatic{0};
    uint64_t m_xonOffset{0};
    uint64_t m_headroomAttr{0};
    uint32_t m_pauseFrameBytes{64};
    PauseMode m_mode{QUANTA};
    uint16_t m_quanta{0xffff};
    uint64_t m_headroomDrops{0};
    uint64_t m_lostPauseFrames{0};
    uint64_t m_heldBytes{0};              //!< HoldQueued frames still charged (GetHeldBytes)
    std::vector<uint32_t> m_xoffPorts;    //!< ports whose xoff is set (pausing upstream)
    std::shared_ptr<FabricState> m_truth; //!< the physical state (link failures)
    uint32_t m_listener{UINT32_MAX};
    TracedCallback<uint32_t, uint32_t, uint8_t, bool> m_pauseTrace;
};

} // namespace ns3

#endif // PFC_SWITCH_H
