// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAST_P2P_NET_DEVICE_H
#define FAST_P2P_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-impl.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"
#include "ns3/tx-time-cache.h"

#include <memory>
#include <vector>

namespace ns3
{

class FastP2pChannel;
class FastP2pNetDevice;

/**
 * \ingroup fabric
 * What a FastP2pNetDevice can hand received frames to with a plain C++ call (SetDirectReceiver)
 * instead of its receive callback: no Callback layers copying the packet and device pointers,
 * no Node::ReceiveFromDevice walking the node's handler list. Used by FabricSwitchForwarder
 * (switch ports) and FabricHostPath (host ports).
 */
class FastP2pReceiver
{
  public:
    virtual ~FastP2pReceiver() = default;
    /**
     * A frame arrived on \p device (PPP header removed, after the device's traces and its
     * promiscuous callback, where its receive callback would be called).
     * \param packet the frame; the receiver may keep and rewrite it (no copy was made for
     *        anyone else: the device's trace sinks saw this same object before)
     * \param protocol its ethertype
     * \return true if taken; false: the device calls its receive callback as without a receiver
     */
    virtual bool ReceiveFromFastDevice(FastP2pNetDevice* device,
                                       const Ptr<Packet>& packet,
                                       uint16_t protocol)
        = 0;
};

/**
 * \ingroup fabric
 * A point-to-point device with ns-3's PointToPointNetDevice semantics that schedules fewer
 * events: serialization at DataRate (plus InterframeGap), a drop-tail device queue (TxQueue),
 * the PPP header on the wire, a receive error model, and the same attributes and trace sources
 * under the same names and signatures (MacTx, MacTxDrop, MacRx, MacPromiscRx, PhyTxBegin,
 * PhyTxEnd, PhyTxDrop, PhyRxEnd, PhyRxDrop, Sniffer, PromiscSniffer).
 *
 * PointToPointNetDevice schedules a transmit-complete event after every frame, which then
 * pulls the next frame from the queue. This device keeps the time its transmitter is busy
 * until and skips that event when nothing can observe its absence: the queue is empty, the
 * queue is a plain ns3::DropTailQueue<Packet>, a FabricDropTailQueue or a DscpPriorityQueue (a
 * PfcQueue's Dequeue has side effects), PhyTxEnd has no sink, and no Send can reach the device
 * before the transmitter frees. The last holds on a switch port (ArrivalDriven: every Send comes
 * from a frame received at the node) when no frame is due at the node by then (the channels report
 * the arrival time of every frame they carry, StartArrival) and no channel of the node is shorter
 * than the transmission. A Send that later finds the transmitter free by the clock starts at once,
 * as it would have after the event, so the order of events, and every result, is that of
 * PointToPointNetDevice (doc/fabric.md, "Devices"); an uncongested hop costs one event (the
 * reception at the peer) instead of two.
 *
 * Connected to a FastP2pChannel (Attach). Selected for a fabric with the attribute
 * ns3::FabricNetwork::LinkDevice=fast; FabricLinkDevice reads and sets what the fabric's code
 * needs (queue, rate, error model) on either device.
 *
 * The object is 64-byte aligned (its per-frame state fills whole cache lines, see the
 * members), which operator new honours since C++17: create it with CreateObject.
 */
class alignas(64) FastP2pNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId();
    FastP2pNetDevice();
    ~FastP2pNetDevice() override;

    FastP2pNetDevice(const FastP2pNetDevice&) = delete;
    FastP2pNetDevice& operator=(const FastP2pNetDevice&) = delete;

    void SetDataRate(DataRate bps) { m_bps = bps; }
    DataRate GetDataRate() const { return m_bps; }
    void SetInterframeGap(Time t) { m_tInterframeGap = t; }
    /// Connect to \p ch (the device is up from then on).
    bool Attach(Ptr<FastP2pChannel> ch);
    void SetQueue(Ptr<Queue<Packet>> queue);
    Ptr<Queue<Packet>> GetQueue() const { return m_queue; }
    void SetReceiveErrorModel(Ptr<ErrorModel> em) { m_receiveErrorModel = em; }
    Ptr<ErrorModel> GetReceiveErrorModel() const { return m_receiveErrorModel; }
    /**
     * A frame (with its PPP header) has fully arrived. A FastP2pChannel delivers through
     * StartArrival instead; this is the entry for a channel that schedules the reception
     * itself (e.g. a remote channel's MpiReceiver).
     */
    void Receive(Ptr<Packet> p);
    /// Whether a transmission is in progress at the current simulation time.
    bool IsTransmitting() const;
    /// Pull events scheduled so far (transmit-complete events, for the event count per hop).
    uint64_t GetPullEvents() const { return m_pullEvents; }
    /// Devices of this type created in this process (tests check a run really used them).
    static uint64_t GetInstancesCreated() { return s_instances; }
    /**
     * Sends, in this process, that found a switch port busy after its transmit-complete event
     * had been skipped: the assumption behind the skip (every Send on such a port comes from a
     * frame already on the wire toward the node, see NeedsPull) did not hold, and same-instant
     * event order may then differ from PointToPointNetDevice's. 0 in every tested
     * configuration; a mixed node, a timer-driven queue disc or a remote channel could break it.
     */
    static uint64_t GetUnforeseenSends() { return s_unforeseenSends; }
    /**
     * Frame counts kept by the device itself (EnableFrameCounters), for a reader that would
     * otherwise count the same events with trace sinks (FabricLinkMonitor): a sink costs a
     * few Ptr copies through Callback layers per frame, a counter a few additions.
     */
    struct FrameCounters
    {
        uint64_t txFrames{0};      //!< frames that began transmission (as PhyTxBegin fires)
        uint64_t txBytes{0};       //!< their bytes, PPP header included
        uint64_t txSmallFrames{0}; //!< of which at most the small-frame size
        uint64_t rxFrames{0};      //!< frames received (as PhyRxEnd fires)
        Time lastRx;               //!< when the last of them was received (if asked)
        uint64_t macTxFrames{0};   //!< packets taken for sending (as MacTx fires)
    };

    /**
     * Start counting (FrameCounters; off by default, then nothing is counted).
     * \param smallFrameBytes frames of at most this size (PPP header included) count as small
     * \param rxTime whether to keep the time of the last reception
     */
    void EnableFrameCounters(uint32_t smallFrameBytes, bool rxTime);
    /// Whether EnableFrameCounters was called.
    bool HasFrameCounters() const { return m_counting; }
    const FrameCounters& GetFrameCounters() const { return m_counters; }

    /// The peer's address: the source address this device gives received frames.
    const Address& GetRemoteAddress() { return GetRemote(); }
    /**
     * The channel started frame \p p toward this device: it arrives (Receive) \p after from
     * now, in the context of node \p context. The frame waits in this device (frames on a
     * wire arrive in the order they started), so the reception event carries no arguments and
     * is one object reused for every frame: no event allocated per hop. Aborts if \p p would
     * arrive before a frame already on the wire (a channel must not shorten its delay while
     * frames are on it).
     */
    void StartArrival(Ptr<Packet> p, Time after, uint32_t context);
    /**
     * What a frame sent by this device needs of its FastP2pChannel, kept here so that a
     * transmission does not read the channel object (set by the channel when both ends are
     * attached, and again when its Delay or its trace sinks change).
     * \param peer the device at the other end (null: none)
     * \param delay the channel's propagation delay
     * \param peerContext the node id of the peer (the context of its reception events)
     * \param direct whether a frame may go to the peer without FastP2pChannel::TransmitStart
     *        (the channel is a plain FastP2pChannel and nothing is connected to its trace)
     */
    void SetWire(FastP2pNetDevice* peer, Time delay, uint32_t peerContext, bool direct);

    // NetDevice
    void SetIfIndex(const uint32_t index) override { m_ifIndex = index; }
    uint32_t GetIfIndex() const override { return m_ifIndex; }
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override { return m_address; }
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override { return m_mtu; }
    bool IsLinkUp() const override { return m_linkUp; }
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override { return true; }
    Address GetBroadcast() const override;
    bool IsMulticast() const override { return true; }
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override { return true; }
    bool IsBridge() const override { return false; }
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override { return m_node; }
    void SetNode(Ptr<Node> node) override { m_node = node; }
    bool NeedsArp() const override { return false; }
    /// Also removes a direct receiver (SetDirectReceiver): the callback set last gets the frames.
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override
    {
        m_rxCallback = cb;
        m_directRx = nullptr;
    }

    /**
     * Hand received frames to \p receiver first (null: none), until the next
     * SetReceiveCallback. The receiver must outlive the device's use of it or call
     * SetDirectReceiver(nullptr) first.
     */
    void SetDirectReceiver(FastP2pReceiver* receiver) { m_directRx = receiver; }

    FastP2pReceiver* GetDirectReceiver() const { return m_directRx; }

    /// Stop handing frames to \p receiver if it is the direct receiver (a receiver leaving).
    void ClearDirectReceiver(const FastP2pReceiver* receiver)
    {
        if (m_directRx == receiver)
        {
            m_directRx = nullptr;
        }
    }
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override { return false; }

  protected:
    void DoDispose() override;

  private:
    class TraceAccessor;

    /// One bit per packet trace source in m_traceSinks: set while the source has a sink.
    enum TraceBit : uint16_t
    {
        MAC_TX = 1 << 0,
        MAC_TX_DROP = 1 << 1,
        MAC_PROMISC_RX = 1 << 2,
        MAC_RX = 1 << 3,
        PHY_TX_BEGIN = 1 << 4,
        PHY_TX_END = 1 << 5,
        PHY_TX_DROP = 1 << 6,
        PHY_RX_END = 1 << 7,
        PHY_RX_DROP = 1 << 8,
        SNIFFER = 1 << 9,
        PROMISC_SNIFFER = 1 << 10,
        PROMISC_CALLBACK = 1 << 11, //!< not a trace: a promiscuous receive callback is set
    };

    /// Invoke \p trace with \p p if source \p bit has a sink (the TracedCallback, a cold
    /// member, is not read otherwise).
    template<typename P>
    void Fire(TraceBit bit, const TracedCallback<Ptr<const Packet>>& trace, const P& p) const
    {
        if (m_traceSinks & bit)
        {
            trace(p);
        }
    }

    /// The sniffer traces, fired together for every frame sent and received.
    template<typename P>
    void FireSniffers(const P& p) const
    {
        if (m_traceSinks & (SNIFFER | PROMISC_SNIFFER))
        {
            Fire(SNIFFER, m_snifferTrace, p);
            Fire(PROMISC_SNIFFER, m_promiscSnifferTrace, p);
        }
    }

    /// Put \p p on the wire now (the transmitter is free; \p now is Simulator::Now()).
    bool TransmitStart(const Ptr<Packet>& p, Time now);
    /// The transmitter freed with frames waiting (or an observer wants the event).
    void TransmitComplete();
    /// The oldest frame on the wire toward this device has arrived.
    void ArriveNext();
    /// The transmitter is busy: schedule the event that pulls from the queue when it frees,
    /// \p delay from now.
    void EnsurePull(Time delay);
    /// Whether the frame starting now (busy until m_busyUntil) needs its transmit-complete
    /// event, i.e. whether anything may reach this device's Send before it ends.
    bool NeedsPull(Time busyFor);
    /// The FastP2pNetDevices of this node and the shortest delay of their channels.
    void FindSiblings();
    /// The peer's address (looked up once both ends are attached).
    const Address& GetRemote();

    /// A frame on the wire toward this device.
    struct InFlight
    {
        Time arrival;  //!< when its last bit arrives
        Packet* frame; //!< the frame, holding one reference of it
    };

    /// The FastP2pNetDevices of a node (incl. this) and the shortest delay of their channels,
    /// one object for all of them (FindSiblings).
    struct Siblings
    {
        std::vector<FastP2pNetDevice*> devices;
        Time minInboundDelay{Time::Max()};
    };

    /// Put \p p, arriving at \p arrival, behind the frames on the wire toward here.
    void PushInbound(Time arrival, Ptr<Packet> p);
    /// Take the oldest frame on the wire toward here.
    Ptr<Packet> PopInbound();
    /// Make room for twice as many frames on the wire (or \p capacity, if more).
    void GrowInbound(uint32_t capacity);

    /// m_busyUntil of a free transmitter (before any frame, after a pull event): before 0.
    static Time NeverBusy() { return TimeStep(-1); }

    // Members in the order a frame touches them: the first four 64-byte lines (the object is
    // 64-byte aligned, Object's own fields first) hold all the per-frame state of an
    // uncongested hop; then the frame counters (read when counting), then what frames never
    // read. Offsets are checked in the constructor. (doc/fabric.md, "Devices".)

    // Line 0 (after Object's 32 bytes): Send.
    Ptr<Queue<Packet>> m_queue;
    Time m_busyUntil{NeverBusy()}; //!< the transmitter is busy until then (incl. interframe gap)
    Ptr<Packet> m_currentPkt;      //!< the frame on the wire (for PhyTxEnd)
    /// TraceBits of the sources with sinks, kept by TraceAccessor (connect, disconnect), and
    /// PROMISC_CALLBACK, so that a frame reads one word here instead of eleven TracedCallbacks.
    uint16_t m_traceSinks{0};
    bool m_linkUp{false};
    /// Whether m_pullEvent is scheduled (asking the simulator about an EventId costs ~270
    /// instructions, and Send asks on every frame).
    bool m_pullPending{false};
    bool m_plainQueue{false};    //!< a DropTailQueue<Packet>: Dequeue has no side effect
    bool m_arrivalDriven{false}; //!< every Send comes from a frame received on this node
    bool m_wireDirect{false};    //!< frames go to m_peer directly (SetWire)
    bool m_counting{false};      //!< EnableFrameCounters was called

    // Line 1: the serialization time.
    DataRate m_bps;
    TxTimeCache<> m_txTime; //!< serialization time per frame size at m_bps
    Time m_tInterframeGap;

    // Line 2: the frame onto the wire and off it.
    /// PPP headers reused for every frame (a Header is an ObjectBase: building and destroying
    /// one per frame cost ~70 instructions each way).
    PppHeader m_pppTx;
    PppHeader m_pppRx;
    FastP2pNetDevice* m_peer{nullptr}; //!< the other end of m_channel (SetWire)
    Time m_wireDelay;                  //!< m_channel's delay (SetWire)
    /// The transmit-complete event (TransmitComplete) and the reception event (ArriveNext),
    /// each one EventImpl scheduled again and again (the simulator takes a reference per
    /// schedule and drops it after running it), instead of an EventImpl allocated per frame.
    Ptr<EventImpl> m_pullEvent;
    Ptr<EventImpl> m_arrivalEvent;

    // Line 3: the frames on the wire toward here, the node's ports, the receiver.
    /// The frames on the wire toward here, oldest first: a ring of m_ringMask + 1 entries (a
    /// power of 2) from m_ringHead, sized by the bandwidth-delay of the link (SetWire) and
    /// grown when full, instead of a std::deque whose blocks and map spread over the heap.
    std::unique_ptr<InFlight[]> m_ring;
    uint32_t m_ringMask{0};    //!< ring capacity - 1
    uint32_t m_ringHead{0};    //!< index of the oldest frame
    uint32_t m_ringCount{0};   //!< frames on the wire toward here
    uint32_t m_peerContext{0}; //!< the peer's node id (SetWire)
    /// When the oldest frame on the wire toward here arrives (Time::Max() if none), read by the
    /// node's other devices (NeedsPull) without touching the ring.
    Time m_nextArrival{Time::Max()};
    const Siblings* m_siblings{nullptr};  //!< the node's devices (null until needed)
    FastP2pReceiver* m_directRx{nullptr}; //!< gets frames before m_rxCallback (may be null)
    Ptr<ErrorModel> m_receiveErrorModel;
    uint64_t m_pullEvents{0};

    // Line 4: read and written per frame only when counting.
    FrameCounters m_counters;
    uint32_t m_smallFrame{0};  //!< small-frame size of the counters
    bool m_countRxTime{false}; //!< FrameCounters::lastRx is kept

    // Not read by a frame of an uncongested hop.
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    Ptr<FastP2pChannel> m_channel;
    std::shared_ptr<const Siblings> m_siblingsOwner; //!< keeps m_siblings (shared by the ports)
    Address m_remote;                                //!< the peer's address, once known
    Ptr<Node> m_node;
    Mac48Address m_address;
    uint32_t m_ifIndex{0};
    uint16_t m_mtu{1500};
    TracedCallback<> m_linkChangeCallbacks;
    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_macPromiscRxTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;

    static uint64_t s_instances;       //!< see GetInstancesCreated
    static uint64_t s_unforeseenSends; //!< see GetUnforeseenSends
};

} // namespace ns3

#endif // FAST_P2P_NET_DEVICE_H
