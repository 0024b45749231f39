// SPDX-License-Identifier: GPL-2.0-only
#include "dscp-priority-queue.h"

#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DscpPriorityQueue");
NS_OBJECT_ENSURE_REGISTERED(DscpPriorityQueue);

namespace
{
constexpr uint16_t PPP_IPV4 = 0x0021;
} // namespace

TypeId
DscpPriorityQueue::GetTypeId()
{
    // "<Packet>" in the name: PointToPointHelper::SetQueue appends it to a bare queue name.
    static TypeId tid
        = TypeId("ns3::DscpPriorityQueue<Packet>")
              .SetParent<Queue<Packet>>()
              .SetGroupName("Fabric")
              .AddConstructor<DscpPriorityQueue>()
              .AddAttribute("MaxSize",
                            "The queue's capacity, both classes together; a packet that does "
                            "not fit is dropped, whatever its class (queue-overflow). In a "
                            "fabric the ns3::DropTailQueue<Packet>::MaxSize setting applies "
                            "(FabricNetworkHelper: 2MB by default).",
                            QueueSizeValue(QueueSize("100p")),
                            MakeQueueSizeAccessor(&QueueBase::SetMaxSize, &QueueBase::GetMaxSize),
                            MakeQueueSizeChecker())
              .AddAttribute("ControlDscpMin",
                            "Packets whose IPv4 DSCP is at least this value are the control "
                            "class, served before every queued data packet; RoCE ACK/NACK/CNP "
                            "carry DSCP 48 (CS6), data DSCP 0.",
                            UintegerValue(48),
                            MakeUintegerAccessor(&DscpPriorityQueue::m_controlDscpMin),
                            MakeUintegerChecker<uint8_t>(1, 63));
    return tid;
}

DscpPriorityQueue::DscpPriorityQueue()
    : m_firstData(GetContainer().end()),
      NS_LOG_TEMPLATE_DEFINE("DscpPriorityQueue")
{
    NS_LOG_FUNCTION(this);
}

DscpPriorityQueue::~DscpPriorityQueue()
{
    NS_LOG_FUNCTION(this);
}

uint8_t
DscpPriorityQueue::ClassOfFrame(Ptr<const Packet> frame, uint8_t controlDscpMin)
{
    // PPP protocol (2 bytes), then IPv4 version/IHL and TOS (DSCP in its upper 6 bits).
    uint8_t buf[4];
    if (frame->GetSize() < 4 || frame->CopyData(buf, 4) != 4 || ((buf[0] << 8) | buf[1]) != PPP_IPV4
        || (buf[2] >> 4) != 4)
    {
        return DATA;
    }
    return (buf[3] >> 2) >= controlDscpMin ? CONTROL : DATA;
}

bool
DscpPriorityQueue::Enqueue(Ptr<Packet> item)
{
    // Per packet: no NS_LOG_FUNCTION here or in Dequeue (a log check each, as in ns-3's
    // DropTailQueue, costs on every hop; the base class logs drops).
    Iterator it;
    if (ClassOfFrame(item, m_controlDscpMin) == CONTROL)
    {
        // In front of the first queued data packet: behind every control packet queued.
        const bool overtakes = m_firstData != GetContainer().end();
        if (!DoEnqueue(m_firstData, item, it))
        {
            return false;
        }
        ++m_nControl;
        ++m_controlEnqueued;
        m_controlOvertakes += overtakes ? 1 : 0;
        return true;
    }
    if (!DoEnqueue(GetContainer().end(), item, it))
    {
        return false;
    }
    if (m_firstData == GetContainer().end())
    {
        m_firstData = it;
    }
    return true;
}

void
DscpPriorityQueue::BeforeHeadLeaves()
{
    const ConstIterator head = GetContainer().begin();
    if (head == m_firstData)
    {
        // No control packet waits: the head is the first data packet.
        m_firstData = std::next(head);
    }
    else
    {
        --m_nControl;
    }
}

Ptr<Packet>
DscpPriorityQueue::Dequeue()
{
    if (IsEmpty())
    {
        return nullptr;
    }
    BeforeHeadLeaves();
    return DoDequeue(GetContainer().begin());
}

Ptr<Packet>
DscpPriorityQueue::Remove()
{
    NS_LOG_FUNCTION(this);
    if (IsEmpty())
    {
        return nullptr;
    }
    BeforeHeadLeaves();
    Ptr<Packet> p = DoRemove(GetContainer().begin());
    NS_LOG_LOGIC("Removed " << p);
    return p;
}

Ptr<const Packet>
DscpPriorityQueue::Peek() const
{
    return DoPeek(GetContainer().begin());
}

} // namespace ns3
