// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-drop-tail-queue.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/queue-size.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
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
    FreeBehind();
}

namespace
{

constexpr std::align_val_t LINE{64};

} // namespace

void
FabricDropTailQueue::FreeBehind()
{
    Behind* r = m_hot.behind;
    if (!r)
    {
        return;
    }
    const uint32_t count = m_hot.head ? m_nPackets.Get() - 1 : 0;
    for (uint32_t i = 0; i < count && i < r->capacity; ++i)
    {
        const uint32_t slot = r->first + i;
        r->Slots()[slot < r->capacity ? slot : slot - r->capacity]->Unref();
    }
    ::operator delete(r, LINE);
    m_hot.behind = nullptr;
}

FabricDropTailQueue::Behind*
FabricDropTailQueue::GrowBehind(uint32_t count)
{
    Behind* old = m_hot.behind;
    NS_ABORT_MSG_IF(!old && count != 0, "FabricDropTailQueue: Enqueue after Dispose");
    NS_ABORT_MSG_IF(old && old->capacity > (UINT32_MAX - 1) / 2,
                    "FabricDropTailQueue: too many packets queued");
    const uint32_t capacity = old ? 2 * old->capacity + 1 : 7;
    // Objects are created in the raw storage (the header, then the slots), as C++17 asks.
    void* mem = ::operator new(sizeof(Behind) + sizeof(Packet*) * size_t(capacity), LINE);
    auto* r = ::new (mem) Behind{0, capacity};
    std::uninitialized_value_construct_n(r->Slots(), capacity);
    if (old)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            const uint32_t slot = old->first + i;
            r->Slots()[i] = old->Slots()[slot < old->capacity ? slot : slot - old->capacity];
        }
        ::operator delete(old, LINE);
    }
    m_hot.behind = r;
    return r;
}

void
FabricDropTailQueue::DoDispose()
{
    NS_LOG_FUNCTION(this);
    FreeBehind();
    m_hot.head = nullptr;
    m_hot.txQueue = nullptr;
    m_hot.device = nullptr;
    DropTailQueue<Packet>::DoDispose();
}

void
FabricDropTailQueue::SetFlowControl(Ptr<NetDeviceQueue> txQueue, Ptr<NetDevice> device)
{
    NS_LOG_FUNCTION(this << txQueue << device);
    NS_ABORT_MSG_UNLESS(txQueue && device, "FabricDropTailQueue::SetFlowControl: null argument");
    // The decisions run where the interface's sinks, connected first, ran: a sink connected
    // earlier would see them late, and a second call would count the bytes twice for BQL.
    NS_ABORT_MSG_UNLESS(!m_hot.txQueue && (this->*g_enqueue).IsEmpty()
                            && (this->*g_dequeue).IsEmpty()
                            && (this->*g_dropBeforeEnqueue).IsEmpty(),
                        "FabricDropTailQueue::SetFlowControl: call it once, before any sink is "
                        "connected to the queue's Enqueue, Dequeue or DropBeforeEnqueue");
    m_hot.txQueue = txQueue;
    m_hot.device = device;
}

bool
FabricDropTailQueue::EnableCounters(uint32_t smallFrameBytes)
{
    NS_LOG_FUNCTION(this << smallFrameBytes);
    if (Counting())
    {
        return false;
    }
    m_hot.smallLimit = smallFrameBytes == UINT32_MAX ? UINT32_MAX : smallFrameBytes + 1;
    m_packetsAtCounting = m_nPackets.Get();
    return true;
}

FabricDropTailQueue::Counters
FabricDropTailQueue::GetCounters() const
{
    Counters c;
    if (!Counting())
    {
        return c;
    }
    // Accepted since EnableCounters = left since (dequeued or removed) + the change in the
    // number queued.
    c.enqueueCalls = m_droppedSinceCounting + m_hot.dequeuedFrames + m_removedSinceCounting
                   + m_nPackets.Get() - m_packetsAtCounting;
    c.dequeuedFrames = m_hot.dequeuedFrames;
    c.dequeuedBytes = m_hot.dequeuedBytes;
    c.dequeuedSmallFrames = m_hot.dequeuedSmallFrames;
    c.peakBytes = m_hot.peakBytes;
    return c;
}

namespace
{

/// QueueSize's two members, in their order (checked once at run time, see MaxSizeOf).
struct QueueSizeBits
{
    QueueSizeUnit unit;
    uint32_t value;
};

static_assert(std::is_trivially_copyable_v<QueueSize>);
static_assert(sizeof(QueueSize) == sizeof(QueueSizeBits));

/// Whether QueueSize's bytes are a QueueSizeBits (its members are private; ns-3.37 declares
/// the unit, then the value).
bool
QueueSizeIsUnitThenValue()
{
    const QueueSize probe(QueueSizeUnit::BYTES, 0x5a5a1234);
    QueueSizeBits bits;
    std::memcpy(&bits, &probe, sizeof(bits));
    return bits.unit == QueueSizeUnit::BYTES && bits.value == 0x5a5a1234;
}

const bool g_queueSizeBits = QueueSizeIsUnitThenValue();

/// \p size's unit and value, without QueueSize's two out-of-line getters where the layout
/// allows.
inline QueueSizeBits
MaxSizeOf(const QueueSize& size)
{
    if (g_queueSizeBits)
    {
        QueueSizeBits bits;
        std::memcpy(&bits, &size, sizeof(bits));
        return bits;
    }
    return {size.GetUnit(), size.GetValue()};
}

} // namespace

inline bool
FabricDropTailQueue::WouldOverflowFast(uint32_t packets, uint32_t bytes) const
{
    // QueueBase::WouldOverflow without its QueueSize arithmetic. MaxSize may change at any
    // time (QueueBase::SetMaxSize is not virtual), so it is read each time: it shares a cache
    // line with the Enqueue trace source, which is read anyway.
    const QueueSizeBits max = MaxSizeOf(m_maxSize);
    return max.unit == QueueSizeUnit::PACKETS ? m_nPackets.Get() + packets > max.value
                                              : m_nBytes.Get() + bytes > max.value;
}

inline bool
FabricDropTailQueue::MtuWouldOverflow() const
{
    // QueueBase::WouldOverflow(1, mtu), as NetDeviceQueue asks it.
    return WouldOverflowFast(1, m_hot.device->GetMtu());
}

inline void
FabricDropTailQueue::NotePeak()
{
    m_hot.peakBytes = std::max(m_hot.peakBytes, m_nBytes.Get());
}

void
FabricDropTailQueue::DropOnFull(const Ptr<Packet>& item)
{
    // Queue<Packet>::DropBeforeEnqueue, with NetDeviceQueue::PacketDiscarded (a sink of
    // DropBeforeEnqueue connected before any other) in its place.
    NS_LOG_LOGIC("Queue full -- dropping pkt " << item);
    const uint32_t size = item->GetSize();
    if (Counting())
    {
        ++m_droppedSinceCounting;
    }
    m_nTotalDroppedPackets++;
    m_nTotalDroppedPacketsBeforeEnqueue++;
    m_nTotalDroppedBytes += size;
    m_nTotalDroppedBytesBeforeEnqueue += size;
    Fire(this->*g_drop, item);
    if (m_hot.txQueue)
    {
        m_hot.txQueue->Stop();
    }
    Fire(this->*g_dropBeforeEnqueue, item);
}

bool
FabricDropTailQueue::Enqueue(Ptr<Packet> item)
{
    // Per packet: no NS_LOG_FUNCTION (a log check costs on every hop).
    const uint32_t size = item->GetSize();
    // Queue<Packet>::DoEnqueue's GetCurrentSize() + item > GetMaxSize().
    if (WouldOverflowFast(1, size))
    {
        DropOnFull(item);
        return false;
    }
    if (!m_hot.head)
    {
        m_hot.head = item;
    }
    else
    {
        const uint32_t count = m_nPackets.Get() - 1; // behind the head
        Behind* r = m_hot.behind;
        if (!r || count == r->capacity)
        {
            r = GrowBehind(count);
        }
        const uint32_t slot = r->first + count;
        Packet* raw = PeekPointer(item);
        raw->Ref(); // the ring's reference (TakeHead gives it to the head)
        r->Slots()[slot < r->capacity ? slot : slot - r->capacity] = raw;
    }
    m_nBytes += size;
    m_nTotalReceivedBytes += size;
    m_nPackets++;
    m_nTotalReceivedPackets++;
    if (Counting())
    {
        NotePeak();
    }
    if (m_hot.txQueue)
    {
        // NetDeviceQueue::PacketEnqueued.
        m_hot.txQueue->NotifyQueuedBytes(size);
        if (MtuWouldOverflow())
        {
            m_hot.txQueue->Stop();
        }
    }
    Fire(this->*g_enqueue, item);
    return true;
}

inline Ptr<Packet>
FabricDropTailQueue::TakeHead()
{
    // (ns-3.37's Ptr has no move constructor: std::move would copy.)
    Ptr<Packet> item = m_hot.head;
    if (m_nPackets.Get() > 1)
    {
        Behind* r = m_hot.behind;
        m_hot.head = Ptr<Packet>(r->Slots()[r->first], false); // the ring's reference
        r->first = r->first + 1 == r->capacity ? 0 : r->first + 1;
    }
    else
    {
        m_hot.head = nullptr;
    }
    const uint32_t size = item->GetSize();
    m_nBytes -= size;
    m_nPackets--;
    if (Counting())
    {
        NotePeak();
    }
    if (m_hot.txQueue)
    {
        // NetDeviceQueue::PacketDequeued.
        m_hot.txQueue->NotifyTransmittedBytes(size);
        if (!MtuWouldOverflow())
        {
            m_hot.txQueue->Wake();
        }
    }
    Fire(this->*g_dequeue, item);
    return item;
}

Ptr<Packet>
FabricDropTailQueue::Dequeue()
{
    if (!m_hot.head)
    {
        return nullptr;
    }
    if (Counting())
    {
        const uint32_t size = m_hot.head->GetSize();
        ++m_hot.dequeuedFrames;
        m_hot.dequeuedBytes += size;
        m_hot.dequeuedSmallFrames += size < m_hot.smallLimit ? 1 : 0;
    }
    return TakeHead();
}

Ptr<Packet>
FabricDropTailQueue::Remove()
{
    NS_LOG_FUNCTION(this);
    if (!m_hot.head)
    {
        return nullptr;
    }
    Ptr<Packet> item = TakeHead();
    if (Counting())
    {
        ++m_removedSinceCounting;
    }
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
    return m_hot.head;
}

} // namespace ns3
