// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAST_P2P_NET_DEVICE_H
#define FAST_P2P_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class FastP2pChannel;

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
 * until instead: when a frame starts and nothing waits behind it, no event is scheduled; a
 * Send that finds the transmitter busy queues the frame and makes sure one event pulls from
 * the queue when the transmitter frees. A frame crossing an uncongested port therefore costs
 * one event (its reception at the peer) instead of two. The event is still scheduled for
 * every frame when an observer needs it: PhyTxEnd has a sink, or the queue is not a plain
 * ns3::DropTailQueue<Packet> (a queue whose Dequeue has side effects, such as a PfcQueue that
 * records that the device went idle).
 *
 * Same-time order: PointToPointNetDevice's transmit-complete event runs after the events of
 * its time that were scheduled before the frame started and before those scheduled after.
 * A Send at exactly the instant the transmitter frees (with no pull event pending) is treated
 * as arriving before that event: the frame is queued and pulled by an event scheduled now.
 * That matches PointToPointNetDevice whenever every event that can reach a device at that
 * instant was scheduled before the frame on the wire started, which holds for frames arriving
 * over links whose propagation delay is at least the serialization time of a frame (1 us
 * against tens to hundreds of ns in a datacenter); see doc/fabric.md, "Devices".
 *
 * Connected to a FastP2pChannel (Attach). Selected for a fabric with the attribute
 * ns3::FabricNetwork::LinkDevice=fast; FabricLinkDevice reads and sets what the fabric's code
 * needs (queue, rate, error model) on either device.
 */
class FastP2pNetDevice : public NetDevice
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
    /// A frame (with its PPP header) has fully arrived from the channel.
    void Receive(Ptr<Packet> p);
    /// Whether a transmission is in progress at the current simulation time.
    bool IsTransmitting() const;
    /// Pull events scheduled so far (transmit-complete events, for the event count per hop).
    uint64_t GetPullEvents() const { return m_pullEvents; }

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
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override { m_rxCallback = cb; }
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override { m_promiscCallback = cb; }
    bool SupportsSendFrom() const override { return false; }

  protected:
    void DoDispose() override;

  private:
    /// Put \p p on the wire now (the transmitter is free).
    bool TransmitStart(Ptr<Packet> p);
    /// The transmitter freed with frames waiting (or an observer wants the event).
    void TransmitComplete();
    /// The transmitter is busy: make sure an event pulls from the queue when it frees.
    void EnsurePull();
    Address GetRemote() const;

    DataRate m_bps;
    Time m_tInterframeGap;
    Ptr<FastP2pChannel> m_channel;
    Ptr<Queue<Packet>> m_queue;
    bool m_plainQueue{false}; //!< a DropTailQueue<Packet>: Dequeue has no side effect
    Ptr<ErrorModel> m_receiveErrorModel;
    /// m_busyUntil of a free transmitter (before any frame, after a pull event): before 0.
    static Time NeverBusy() { return TimeStep(-1); }
    Time m_busyUntil{NeverBusy()}; //!< the transmitter is busy until then (incl. interframe gap)
    EventId m_pull;           //!< pending transmit-complete event, if any
    Ptr<Packet> m_currentPkt; //!< the frame on the wire (for PhyTxEnd)
    uint64_t m_pullEvents{0};

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

    Ptr<Node> m_node;
    Mac48Address m_address;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    uint32_t m_ifIndex{0};
    bool m_linkUp{false};
    TracedCallback<> m_linkChangeCallbacks;
    uint16_t m_mtu{1500};
};

} // namespace ns3

#endif // FAST_P2P_NET_DEVICE_H
