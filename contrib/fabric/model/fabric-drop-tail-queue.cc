// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-drop-tail-queue.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/queue-size.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricDropTailQueue");
NS_OBJECT_ENSURE_REGISTERED(FabricDropTailQueue);

namespace
{

// Queue<Packet> keeps its five trace sources private and fires them only from DoEnqueue,
// DoDequeue, DoRemove and the Drop* helpers, which also do the QueueSize arithmetic and keep
// the packets in its own list. To fire the very same sources (a sink a user connected through
// TxQueue/Enqueue must see every call it saw with DropTailQueue<Packet>), the queue takes
// their member pointers the one way C++ allows naming a private member outside its class: an
// explicit template instantiation, for which access is not checked ([temp.spec] of the
// standard). Nothing else of the base class is reached this way.
using PacketTrace = TracedCallback<Ptr<const Packet>>;
using PacketTraceMember = PacketTrace Queue<Packet>::*;

/// The trace sources of Queue<Packet>, by name.
enum class QueueTrace
{
    ENQUEUE,
    DEQUEUE,
    DROP,
    DROP_BEFORE_ENQUEUE,
    DROP_AFTER_DEQUEUE,
};

template<QueueTrace Which>
struct QueueTraceTag
{
};

PacketTraceMember TraceMember(QueueTraceTag<QueueTrace::ENQUEUE>);
PacketTraceMember TraceMember(QueueTraceTag<QueueTrace::DEQUEUE>);
PacketTraceMember TraceMember(QueueTraceTag<QueueTrace::DROP>);
PacketTraceMember TraceMember(QueueTraceTag<QueueTrace::DROP_BEFORE_ENQUEUE>);
PacketTraceMember TraceMember(QueueTraceTag<QueueTrace::DROP_AFTER_DEQUEUE>);

/// Defines TraceMember(QueueTraceTag<Which>) to return \p Member.
template<QueueTrace Which, PacketTraceMember Member>
struct QueueTraceAccess
{
    friend PacketTraceMember TraceMember(QueueTraceTag<Which>) { return Member; }
};

template struct QueueTraceAccess<QueueTrace::ENQUEUE, &Queue<Packet>::m_traceEnqueue>;
template struct QueueTraceAccess<QueueTrace::DEQUEUE, &Queue<Packet>::m_traceDequeue>;
template struct QueueTraceAccess<QueueTrace::DROP, &Queue<Packet>::m_traceDrop>;
template struct QueueTraceAccess<QueueTrace::DROP_BEFORE_ENQUEUE,
                                 &Queue<Packet>::m_traceDropBeforeEnqueue>;
template struct QueueTraceAccess<QueueTrace::DROP_AFTER_DEQUEUE,
                                 &Queue<Packet>::m_traceDropAfterDequeue>;

const PacketTraceMember g_enqueue = TraceMember(QueueTraceTag<QueueTrace::ENQUEUE>{});
const PacketTraceMember g_dequeue = TraceMember(QueueTraceTag<QueueTrace::DEQUEUE>{});
const PacketTraceMember g_drop = TraceMember(QueueTraceTag<QueueTrace::DROP>{});
const PacketTraceMember g_dropBeforeEnqueue
    = TraceMember(QueueTraceTag<QueueTrace::DROP_BEFORE_ENQUEUE>{});
const PacketTraceMember g_dropAfterDequeue
    = TraceMember(QueueTraceTag<QueueTrace::DROP_AFTER_DEQUEUE>{});

/// Fire \p trace as Queue<Packet> does, without building the argument for an empty list.
inline void
Fire(const PacketTrace& trace, const Ptr<Packet>& item)
{
    if (!trace.IsEmpty())
    {
        trace(item);
    }
}

} // namespace

TypeId
FabricDropTailQueue::GetTypeId()
{
    // "<Packet>" in the name: PointToPointHelper::SetQueue appends it to a bare queue name.
    // MaxSize is DropTailQueue<Packet>'s attribute (and default).
    static TypeId tid = TypeId("ns3::FabricDropTailQueue<Packet>")
                            .SetParent<DropTailQueue<Packet>>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricDropTailQueue>();
    return tid;
}

FabricDropTailQueue::FabricDropTailQueue()
    : NS_LOG_TEMPLATE_DEFINE("FabricDropTailQueue")
{
    NS_LOG_FUNCTION(this);
}

FabricDropTailQueue::~FabricDropTailQueue()
{
    NS_LOG_FUNCTION(this);
}

void
FabricDropTailQueue::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_items.clear();
    m_txQueue = nullptr;
    m_device = nullptr;
    DropTailQueue<Packet>::DoDispose();
}

void
FabricDropTailQueue::SetFlowControl(Ptr<NetDeviceQueue> txQueue, Ptr<NetDevice> device)
{
    NS_LOG_FUNCTION(this << txQueue << device);
    NS_ABORT_MSG_UNLESS(txQueue && device, "FabricDropTailQueue::SetFlowControl: null argument");
    // The decisions run where the interface's sinks, connected first, ran: a sink connected
    // earlier would see them late, and a second call would count the bytes twice for BQL.
    NS_ABORT_MSG_UNLESS(!m_txQueue && (this->*g_enqueue).IsEmpty()
                            && (this->*g_dequeue).IsEmpty()
                            && (this->*g_dropBeforeEnqueue).IsEmpty(),
                        "FabricDropTailQueue::SetFlowControl: call it once, before any sink is "
                        "connected to the queue's Enqueue, Dequeue or DropBeforeEnqueue");
    m_txQueue = txQueue;
    m_device = device;
}

bool
FabricDropTailQueue::EnableCounters(uint32_t smallFrameBytes)
{
    NS_LOG_FUNCTION(this << smallFrameBytes);
    if (m_counting)
    {
        return false;
    }
    m_counting = true;
    m_smallFrame = smallFrameBytes;
    return true;
}

inline bool
FabricDropTailQueue::WouldOverflowFast(uint32_t packets, uint32_t bytes)
{
    // QueueBase::WouldOverflow without its two out-of-line QueueSize calls per packet. MaxSize
    // may change at any time (QueueBase::SetMaxSize is not virtual): its value is compared
    // with the one the limit was read from, as bytes (a unit and an integer, no padding).
    static_assert(std::is_trivially_copyable_v<QueueSize>);
    static_assert(sizeof(QueueSize) == sizeof(QueueSizeUnit) + sizeof(uint32_t));
    if (!m_limitKnown || std::memcmp(&m_knownMaxSize, &m_maxSize, sizeof(QueueSize)) != 0)
    {
        m_limitKnown = true;
        m_knownMaxSize = m_maxSize;
        m_limit = m_maxSize.GetValue();
        m_limitInPackets = m_maxSize.GetUnit() == QueueSizeUnit::PACKETS;
    }
    return m_limitInPackets ? m_nPackets.Get() + packets > m_limit
                            : m_nBytes.Get() + bytes > m_limit;
}

inline bool
FabricDropTailQueue::MtuWouldOverflow()
{
    // QueueBase::WouldOverflow(1, mtu), as NetDeviceQueue asks it.
    return WouldOverflowFast(1, m_device->GetMtu());
}

inline void
FabricDropTailQueue::NotePeak()
{
    m_counters.peakBytes = std::max(m_counters.peakBytes, m_nBytes.Get());
}

void
FabricDropTailQueue::DropOnFull(const Ptr<Packet>& item)
{
    // Queue<Packet>::DropBeforeEnqueue, with NetDeviceQueue::PacketDiscarded (a sink of
    // DropBeforeEnqueue connected before any other) in its place.
    NS_LOG_LOGIC("Queue full -- dropping pkt " << item);
    const uint32_t size = item->GetSize();
    m_nTotalDroppedPackets++;
    m_nTotalDroppedPacketsBeforeEnqueue++;
    m_nTotalDroppedBytes += size;
    m_nTotalDroppedBytesBeforeEnqueue += size;
    Fire(this->*g_drop, item);
    if (m_txQueue)
    {
        m_txQueue->Stop();
    }
    Fire(this->*g_dropBeforeEnqueue, item);
}

bool
FabricDropTailQueue::Enqueue(Ptr<Packet> item)
{
    // Per packet: no NS_LOG_FUNCTION (a log check costs on every hop).
    const uint32_t size = item->GetSize();
    if (m_counting)
    {
        ++m_counters.enqueueCalls;
    }
    // Queue<Packet>::DoEnqueue's GetCurrentSize() + item > GetMaxSize().
    if (WouldOverflowFast(1, size))
    {
        DropOnFull(item);
        return false;
    }
    m_items.push_back(item);
    m_nBytes += size;
    m_nTotalReceivedBytes += size;
    m_nPackets++;
    m_nTotalReceivedPackets++;
    if (m_counting)
    {
        NotePeak();
    }
    if (m_txQueue)
    {
        // NetDeviceQueue::PacketEnqueued.
        m_txQueue->NotifyQueuedBytes(size);
        if (MtuWouldOverflow())
        {
            m_txQueue->Stop();
        }
    }
    Fire(this->*g_enqueue, item);
    return true;
}

inline Ptr<Packet>
FabricDropTailQueue::TakeHead()
{
    Ptr<Packet> item = std::move(m_items.front());
    m_items.pop_front();
    const uint32_t size = item->GetSize();
    m_nBytes -= size;
    m_nPackets--;
    if (m_counting)
    {
        NotePeak();
    }
    if (m_txQueue)
    {
        // NetDeviceQueue::PacketDequeued.
        m_txQueue->NotifyTransmittedBytes(size);
        if (!MtuWouldOverflow())
        {
            m_txQueue->Wake();
        }
    }
    Fire(this->*g_dequeue, item);
    return item;
}

Ptr<Packet>
FabricDropTailQueue::Dequeue()
{
    if (m_items.empty())
    {
        return nullptr;
    }
    if (m_counting)
    {
        const uint32_t size = m_items.front()->GetSize();
        ++m_counters.dequeuedFrames;
        m_counters.dequeuedBytes += size;
        m_counters.dequeuedSmallFrames += size <= m_smallFrame ? 1 : 0;
    }
    return TakeHead();
}

Ptr<Packet>
FabricDropTailQueue::Remove()
{
    NS_LOG_FUNCTION(this);
    if (m_items.empty())
    {
        return nullptr;
    }
    Ptr<Packet> item = TakeHead();
    // Queue<Packet>::DropAfterDequeue (NetDeviceQueue connects no sink to it).
    const uint32_t size = item->GetSize();
    m_nTotalDroppedPackets++;
    m_nTotalDroppedPacketsAfterDequeue++;
    m_nTotalDroppedBytes += size;
    m_nTotalDroppedBytesAfterDequeue += size;
    Fire(this->*g_drop, item);
    Fire(this->*g_dropAfterDequeue, item);
    return item;
}

Ptr<const Packet>
FabricDropTailQueue::Peek() const
{
    return m_items.empty() ? nullptr : m_items.front();
}

} // namespace ns3
