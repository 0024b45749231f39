// SPDX-License-Identifier: GPL-2.0-only
#ifndef DSCP_PRIORITY_QUEUE_H
#define DSCP_PRIORITY_QUEUE_H

#include "ns3/queue.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * A lossy device queue with two strict-priority classes: packets whose IPv4 DSCP is at least
 * ControlDscpMin (RoCE ACK/NACK/CNP carry DSCP 48, CS6) are the control class and leave
 * before every queued packet of the data class (the rest); each class is FIFO. It is what a
 * RoCE switch's strict-priority traffic class for CNPs (and often ACK/NACK) does, without PFC:
 * a full queue drops whatever arrives, of either class, as a DropTailQueue does.
 *
 * One byte (or packet) limit, MaxSize, for both classes together. Everything else is the base
 * class's, as for a DropTailQueue<Packet>: the Enqueue/Dequeue/Drop traces and counters,
 * PacketsInQueue and BytesInQueue (the total of both classes, which FabricLinkMonitor samples
 * and the switches' EcnMarker compares with Kmin/Kmax: a data packet arriving now waits
 * behind all of it), drops on a full queue reported by the device as MacTxDrop
 * (FabricLinkMonitor counts them as queue-overflow), Remove() (FabricLinkGuard's flush,
 * control packets first) and Peek (the head Dequeue would return).
 *
 * Both classes share the base class's one list: a control packet is inserted in front of the
 * first queued data packet, so Dequeue, Remove and Peek all take the head; the order is that
 * of a strict-priority scheduler over two FIFOs. The class is read from the frame's PPP and
 * IPv4 headers (the device queues frames with their PPP header); anything that is not IPv4
 * is data.
 *
 * Selected for every device of a fabric with ns3::FabricNetwork::ControlPriority=true, or
 * FabricNetworkHelper::SetQueueType("ns3::DscpPriorityQueue<Packet>").
 */
class DscpPriorityQueue : public Queue<Packet>
{
  public:
    static TypeId GetTypeId();
    DscpPriorityQueue();
    ~DscpPriorityQueue() override;

    static constexpr uint8_t DATA = 0;    //!< the data class (served when no control waits)
    static constexpr uint8_t CONTROL = 1; //!< the strict-priority class (ACK/NACK/CNP)

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

    /// The class of a frame (PPP + IPv4) under DSCP threshold \p controlDscpMin.
    static uint8_t ClassOfFrame(Ptr<const Packet> frame, uint8_t controlDscpMin);

    /// Control-class packets queued now.
    uint32_t GetNControlPackets() const { return m_nControl; }
    /// Control-class packets accepted since the start (not dropped on a full queue).
    uint64_t GetControlEnqueued() const { return m_controlEnqueued; }
    /// Control-class packets queued in front of at least one data packet (that overtook it).
    uint64_t GetControlOvertakes() const { return m_controlOvertakes; }

  private:
    /// The first queued data packet (end() if none): control packets go in front of it.
    ConstIterator m_firstData;
    uint32_t m_nControl{0};
    uint64_t m_controlEnqueued{0};
    uint64_t m_controlOvertakes{0};
    uint8_t m_controlDscpMin{48};
    /// The head is leaving (dequeued or removed): keep m_firstData and the counts right.
    void BeforeHeadLeaves();

    NS_LOG_TEMPLATE_DECLARE; //!< redefinition of the log component
};

} // namespace ns3

#endif // DSCP_PRIORITY_QUEUE_H
