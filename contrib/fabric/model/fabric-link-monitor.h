// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_LINK_MONITOR_H
#define FABRIC_LINK_MONITOR_H

#include "ns3/fabric-drop-tail-queue.h"
#include "ns3/fast-p2p-net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/queue.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

class FabricNetwork;

/**
 * \ingroup fabric
 * Per-directed-link counters of a FabricNetwork, fed by the devices' trace sources (not
 * recomputed): bytes and packets that started transmission (PhyTxBegin), the egress queue's
 * peak occupancy, ECN marks, and drops by FabricDropReason: queue-overflow (MacTxDrop),
 * phy-rx-error (PhyRxDrop of a user's error model), link-down (FabricLinkGuard: queues
 * flushed and packets arriving over a failed link; the switches' and IPv4's drops into a dead
 * port), host-queue-full (the traffic-control layer of a node with IPv4 found its device
 * queue stopped; not attributed to a link), plus the routing layer's drops (no-route,
 * host-not-forwarding, not-ipv4, ttl-expired), and the drops a link's channel reports through
 * a "Drop" trace source of its own, if it has one (ocs-dark of an OcsFibreChannel).
 * Byte counts are IPv4 packet bytes (the PPP header is not counted).
 *
 * On a FastP2pNetDevice the transmissions, receptions and (on hosts) MacTx packets are counted
 * by the device itself (FastP2pNetDevice::EnableFrameCounters) and read when a result is asked
 * for, instead of by trace sinks per frame: the same numbers at every moment between events.
 */
class FabricLinkMonitor : public Object
{
  public:
    static TypeId GetTypeId();
    FabricLinkMonitor();

    /// Connect to every device and routing element of \p net.
    void Install(Ptr<FabricNetwork> net);

    struct LinkCounters
    {
        uint64_t txBytes{0};
        uint64_t txPackets{0};
        uint64_t txSmallPackets{0}; //!< of which at most SMALL_PACKET IPv4 bytes (ACK/NACK/CNP)
        uint64_t maxQueueBytes{0};
        uint64_t queueDrops{0};
        uint64_t rxErrorDrops{0};
        uint64_t ecnMarks{0}; //!< packets marked CE on their way onto this link
    };

    /// A queue occupancy sample: time (s) and bytes.
    struct QueueSample
    {
        double t;
        uint32_t bytes;
    };

    /**
     * Record the egress queue of \p dirLinks over time: a sample whenever the occupancy
     * changes and at least \p interval has passed since the link's previous sample (no
     * periodic events, so the simulation still ends on its own). Call before Install.
     */
    void EnableQueueSampling(Time interval, const std::vector<uint32_t>& dirLinks);
    /// Samples of a directed link (empty if not sampled).
    const std::vector<QueueSample>& GetQueueSamples(uint32_t dirLink) const;

    /// Counters indexed by directed link id, as of this call: on FastP2pNetDevice links the
    /// transmit counters are brought up to date from the devices' frame counters here, so a
    /// reference kept across simulated time holds the values of its last GetLinks() (call it
    /// again to read newer ones).
    const std::vector<LinkCounters>& GetLinks() const;
    /// Drops by reason, over the whole network.
    const std::map<std::string, uint64_t>& GetDrops() const { return m_drops; }
    uint64_t GetTotalDrops() const;
    /// Hop-level packets: transmissions onto any link.
    uint64_t GetTotalTxPackets() const;
    /// Hop-level packets of at most SMALL_PACKET bytes (transport control packets).
    uint64_t GetTotalTxSmallPackets() const;

    /**
     * Packets inside the network now: sent by a host's device (MacTx) and neither received
     * by a host's device (MacRx) nor dropped inside the network (at a device or a switch).
     * After a run that drained it is 0; at a stop before that, the packets still queued, on
     * the wire or being forwarded. Drops in a host's own stack are not network drops.
     */
    int64_t GetInFlightPackets() const;
    /**
     * Packets inside the network now, counted where they are rather than as a remainder:
     * packets in every device queue, plus packets that started transmission on a link and
     * have not arrived at its other end (nor been lost by its channel: a channel's
     * "WireLoss" trace source, if it has one, as OcsFibreChannel), plus what models
     * hold outside queues and channels (FabricNetwork::AddPacketHolder, e.g. OCS EGs over a
     * reconfiguration). Equal to GetInFlightPackets() unless a packet vanished without a
     * drop trace (or appeared from nowhere): the check that makes sent = delivered + dropped
     * + in flight a measurement, not a definition.
     */
    int64_t GetMeasuredInFlightPackets() const;
    /// When the last packet left the network (arrived at a host or was dropped): the end of
    /// the traffic, which a run's stop time may be long after.
    Time GetLastPacketTime() const;

    /// IPv4 size up to which a packet counts as a control packet.
    static constexpr uint32_t SMALL_PACKET = 64;

  protected:
    void DoDispose() override;

  private:
    /// \param inNetwork the packet was between hosts (see GetInFlightPackets)
    void CountDrop(const std::string& reason, bool inNetwork);

    /// Bring the transmission counters of the counting devices' and queues' links up to date.
    void CollectLinks() const;
    /// Sums over the counting devices (minus what they had counted at Install).
    struct DeviceTotals
    {
        uint64_t wireTx{0};
        uint64_t wireArrivals{0};
        uint64_t hostTx{0};
        uint64_t hostRx{0};
    };

    DeviceTotals SumDevices() const;

    /// A FastP2pNetDevice that counts its frames for this monitor (no sinks).
    struct CountingDevice
    {
        Ptr<FastP2pNetDevice> device;
        uint32_t out;                         //!< the directed link it transmits onto
        bool host;                            //!< a host's device (MacTx, receptions end in a host)
        FastP2pNetDevice::FrameCounters base; //!< its counts at Install
    };

    std::vector<CountingDevice> m_counting;

    /// A FabricDropTailQueue that counts for this monitor (its counters start at Install).
    struct CountingQueue
    {
        Ptr<FabricDropTailQueue> queue;
        uint32_t out; //!< the directed link its device transmits onto
        bool tx;      //!< its dequeues are the link's transmissions (PhyTxBegin, ns-3's device)
        bool peak;    //!< its peak is the link's maxQueueBytes (the link is not sampled)
        bool host;    //!< a host's queue: with tx, its enqueue calls are the MacTx count
    };

    std::vector<CountingQueue> m_countingQueues;
    mutable std::vector<LinkCounters> m_links; //!< a counting device's tx fields: CollectLinks
    std::map<std::string, uint64_t> m_drops;
    uint64_t m_hostTx{0};       //!< packets hosts' devices took for sending (MacTx)
    uint64_t m_hostRx{0};       //!< packets hosts' devices received (MacRx = PhyRxEnd there)
    uint64_t m_networkDrops{0}; //!< drops between the hosts' devices
    uint64_t m_wireTx{0};       //!< transmissions started on any link (PhyTxBegin)
    uint64_t m_wireArrivals{0}; //!< arrivals at a link's far end (PhyRxEnd or PhyRxDrop)
    uint64_t m_channelDrops{0}; //!< packets a channel lost after they started transmission
    std::vector<Ptr<const QueueBase>> m_queues; //!< every device's queue
    Ptr<FabricNetwork> m_net;                   //!< for the packet holders
    Time m_lastPacketEvent;
    Time m_sampleInterval;
    std::map<uint32_t, std::vector<QueueSample>> m_samples;
};

} // namespace ns3

#endif // FABRIC_LINK_MONITOR_H
