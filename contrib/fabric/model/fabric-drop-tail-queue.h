// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_DROP_TAIL_QUEUE_H
#define FABRIC_DROP_TAIL_QUEUE_H

#include "ns3/drop-tail-queue.h"

#include <cstdint>

namespace ns3
{

class NetDevice;
class NetDeviceQueue;

/**
 * \ingroup fabric
 * ns-3's DropTailQueue<Packet> with less work per packet: the same FIFO, the same MaxSize
 * attribute (it is DropTailQueue<Packet>'s, so --ns3::DropTailQueue<Packet>::MaxSize sets it,
 * in packets or in bytes), the same drops (a packet that does not fit is dropped before it is
 * enqueued), the same counters (QueueBase's totals, PacketsInQueue and BytesInQueue) and the
 * same trace sources (Queue<Packet>'s Enqueue, Dequeue, Drop, DropBeforeEnqueue,
 * DropAfterDequeue), fired at the same moments, in the same order and with the same packets
 * as DropTailQueue<Packet> fires them. It is a DropTailQueue<Packet>: Config paths through
 * $ns3::DropTailQueue<Packet> and DynamicCast to it keep working.
 *
 * What it saves per packet (callgrind, 128-GPU RoCE permutation on ns-3's point-to-point
 * device: about 1,600 instructions per hop with DropTailQueue<Packet>): the QueueSize objects
 * Queue<Packet>::DoEnqueue builds to compare sizes (the limit is compared as two integers), a
 * list node allocated per packet (the first packet is kept in the queue's own per-packet
 * cache line, the others behind it in a ring), the trace sources fired into empty sink
 * lists, and the log checks. ns-3 gives a subclass no access to the base class's packet list
 * and trace sources other than through DoEnqueue/DoDequeue, so this queue keeps its own list
 * (the base class's stays empty) and reaches the base class's trace sources by their member
 * pointers (see the .cc).
 *
 * Two more things it does for the fabric, both optional:
 * - SetFlowControl: the decisions of the NetDeviceQueue that ns-3's
 *   NetDeviceQueue::ConnectQueueTraces would connect to its Enqueue, Dequeue and
 *   DropBeforeEnqueue sources (stop the device's transmit queue when another MTU would not
 *   fit, wake it when it would, stop it on a drop), made directly, at the place in each trace
 *   call where that sink, connected first, ran: before the sinks connected later.
 * - EnableCounters: what FabricLinkMonitor counted with sinks on the queue (BytesInQueue, for
 *   the peak occupancy) and on ns-3's PointToPointNetDevice (PhyTxBegin, which that device
 *   fires for exactly the frames it dequeues; MacTx, which it fires for exactly the frames it
 *   offers to Enqueue), kept as counters the monitor reads.
 *
 * Installed on every link by FabricNetworkHelper when ns3::FabricNetwork::FastQueue is true
 * (the project's programs set it through FabricCli) and the queue type is the default
 * ns3::DropTailQueue<Packet>.
 */
class FabricDropTailQueue : public DropTailQueue<Packet>
{
  public:
    static TypeId GetTypeId();
    FabricDropTailQueue();
    ~FabricDropTailQueue() override;

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

    /**
     * Make the flow-control decisions of \p txQueue (the transmit queue of \p device's
     * NetDeviceQueueInterface) directly, instead of NetDeviceQueue::ConnectQueueTraces
     * connecting them as sinks. Call it where ConnectQueueTraces would be called, before any
     * other sink is connected to this queue.
     */
    void SetFlowControl(Ptr<NetDeviceQueue> txQueue, Ptr<NetDevice> device);

    /// What the queue counts for FabricLinkMonitor once EnableCounters was called.
    struct Counters
    {
        uint64_t enqueueCalls{0};        //!< packets offered to Enqueue (accepted or dropped)
        uint64_t dequeuedFrames{0};      //!< packets dequeued (not removed)
        uint64_t dequeuedBytes{0};       //!< their bytes
        uint64_t dequeuedSmallFrames{0}; //!< of them, at most the small-frame size
        uint32_t peakBytes{0}; //!< the largest BytesInQueue value set since EnableCounters
    };

    /**
     * Count dequeued frames (and those of at most \p smallFrameBytes) and the peak bytes.
     * \return false if the counters were already enabled (by another reader): the peak is
     *         one reader's (it starts at 0 when enabled), so a second reader keeps its sinks.
     */
    bool EnableCounters(uint32_t smallFrameBytes);

    /// The counts (all zero until EnableCounters).
    Counters GetCounters() const;

  protected:
    void DoDispose() override;

  private:
    /// Whether \p packets and \p bytes more would exceed MaxSize (QueueBase::WouldOverflow).
    bool WouldOverflowFast(uint32_t packets, uint32_t bytes) const;
    /// NetDeviceQueue::PacketEnqueued / PacketDequeued: would another MTU fit?
    bool MtuWouldOverflow() const;
    /// The head leaves (Dequeue or Remove): counters, traces as DoDequeue fires them.
    Ptr<Packet> TakeHead();
    /// A packet that does not fit: DropBeforeEnqueue, with the flow control's stop.
    void DropOnFull(const Ptr<Packet>& item);
    /// BytesInQueue changed: the peak.
    void NotePeak();

    /**
     * The packets behind the FIFO's head: a ring of \p capacity slots (each holding a
     * reference) right after this header, the first \p first, in one allocation on cache-line
     * boundaries (7 slots and the header: one line). Its state is in its own memory, read only
     * when packets are behind the head; how many there are is PacketsInQueue - 1.
     */
    struct Behind
    {
        uint32_t first;    //!< the slot of the oldest packet behind the head
        uint32_t capacity; //!< slots

        Packet** Slots() { return reinterpret_cast<Packet**>(this + 1); }
    };

    static_assert(sizeof(Behind) == 8, "the ring's header is 8 bytes");

    /**
     * What Enqueue and Dequeue read and write per packet, in one cache line. The base classes
     * (QueueBase's counters, Queue<Packet>'s trace sources) take the object's first lines;
     * this line is the only other one a packet that finds the queue empty touches. With
     * 1024 GPUs the fabric's objects do not fit in a core's L2, so each distinct line a hop
     * touches is a likely miss (doc/scaling.md, "Session 12: cache lines per hop"). The
     * FIFO's head is kept here; the packets behind it, when there are any, in the ring (a
     * std::deque's start and finish iterators took two more lines of the object).
     */
    struct alignas(64) Hot
    {
        Ptr<Packet> head;                //!< the FIFO's first packet; null: the queue is empty
        Behind* behind{nullptr};         //!< the packets after head (null before the first)
        Ptr<NetDeviceQueue> txQueue;     //!< flow control (SetFlowControl), or null
        Ptr<NetDevice> device;           //!< its device (for the MTU)
        uint64_t dequeuedFrames{0};      //!< Counters::dequeuedFrames
        uint64_t dequeuedBytes{0};       //!< Counters::dequeuedBytes
        uint64_t dequeuedSmallFrames{0}; //!< Counters::dequeuedSmallFrames
        uint32_t peakBytes{0};           //!< Counters::peakBytes
        /// While counting (EnableCounters), the small-frame size + 1 (at most UINT32_MAX: no
        /// frame is that large); 0: not counting.
        uint32_t smallLimit{0};
    };

    static_assert(sizeof(Hot) == 64, "the per-packet state is one cache line");

    /// EnableCounters was called.
    bool Counting() const { return m_hot.smallLimit != 0; }
    /// A ring of 7, or twice as many + 1, slots, the \p count packets behind the head kept.
    Behind* GrowBehind(uint32_t count);
    /// Drop the references of the packets behind the head, and the ring.
    void FreeBehind();

    Hot m_hot;
    /// Counters::enqueueCalls is not counted per packet: every call since EnableCounters
    /// was accepted or dropped, and every accepted packet is still queued, dequeued or
    /// removed, so it is derived from these and the dequeued frames.
    uint64_t m_droppedSinceCounting{0}; //!< Enqueue calls dropped since EnableCounters
    uint64_t m_removedSinceCounting{0}; //!< Remove calls that took a packet since then
    uint32_t m_packetsAtCounting{0};    //!< PacketsInQueue when EnableCounters was called

    NS_LOG_TEMPLATE_DECLARE; //!< redefinition of the log component
};

} // namespace ns3

#endif // FABRIC_DROP_TAIL_QUEUE_H
