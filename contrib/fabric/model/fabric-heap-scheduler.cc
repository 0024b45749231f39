// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-heap-scheduler.h"

#include "ns3/event-impl.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHeapScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricHeapScheduler);

bool
FabricEventHeap::Remove(uint32_t uid, const EventImpl* impl, Entry& removed)
{
    for (std::size_t r = m_runHead; r < m_run.size(); ++r)
    {
        if (m_run[r].uid == uid && m_run[r].impl == impl)
        {
            removed = m_run[r];
            --m_size;
            m_run.erase(m_run.begin() + r); // the run stays sorted
            if (m_runHead == m_run.size())
            {
                m_run.clear();
                m_runHead = 0;
            }
            return true;
        }
    }
    for (Lane& lane : m_lanes)
    {
        for (std::size_t j = 0; j < lane.count; ++j)
        {
            if (lane.At(j).uid == uid && lane.At(j).impl == impl)
            {
                removed = lane.At(j);
                --m_size;
                lane.Erase(j);
                return true;
            }
        }
    }
    const std::size_t n = m_heap.size();
    std::size_t i = 0;
    while (i < n && (m_heap[i].uid != uid || m_heap[i].impl != impl))
    {
        ++i;
    }
    if (i == n)
    {
        return false;
    }
    removed = m_heap[i];
    --m_size;
    const Entry last = m_heap.back();
    m_heap.pop_back();
    if (i < m_heap.size())
    {
        // The last entry fills slot i: it may belong above (earlier than i's parent) or below.
        if (i > 0 && Before(last, m_heap[(i - 1) / kArity]))
        {
            SiftUp(i, last);
        }
        else
        {
            SiftDown(i, last);
        }
    }
    return true;
}

TypeId
FabricHeapScheduler::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricHeapScheduler")
              .SetParent<Scheduler>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricHeapScheduler>()
              .AddAttribute("InitialCapacity",
                            "Pending events (24 bytes each) reserved up front in the heap, at "
                            "most 2^26 (1.5 GiB); the heap grows by doubling beyond it. Only "
                            "the heap is reserved: the zero-delay run and the delay lanes "
                            "grow as they fill.",
                            UintegerValue(0),
                            MakeUintegerAccessor(&FabricHeapScheduler::SetInitialCapacity,
                                                 &FabricHeapScheduler::GetInitialCapacity),
                            MakeUintegerChecker<uint32_t>(0, 1u << 26));
    return tid;
}

FabricHeapScheduler::FabricHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

FabricHeapScheduler::~FabricHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
FabricHeapScheduler::SetInitialCapacity(uint32_t n)
{
    m_initialCapacity = n;
    m_heap.Reserve(n);
}

uint32_t
FabricHeapScheduler::GetInitialCapacity() const
{
    return m_initialCapacity;
}

void
FabricHeapScheduler::Insert(const Event& ev)
{
    m_heap.Push(FabricEventHeap::FromEvent(ev));
}

bool
FabricHeapScheduler::IsEmpty() const
{
    return m_heap.IsEmpty();
}

Scheduler::Event
FabricHeapScheduler::PeekNext() const
{
    return FabricEventHeap::ToEvent(m_heap.Top());
}

Scheduler::Event
FabricHeapScheduler::RemoveNext()
{
    return FabricEventHeap::ToEvent(m_heap.PopMin());
}

void
FabricHeapScheduler::Remove(const Event& ev)
{
    FabricEventHeap::Entry removed;
    if (!m_heap.Remove(ev.key.m_uid, ev.impl, removed))
    {
        NS_FATAL_ERROR("FabricHeapScheduler::Remove: no pending event with uid " << ev.key.m_uid);
    }
}

uint64_t
FabricHeapScheduler::GetPeakPending() const
{
    return m_heap.GetPeak();
}

uint64_t
FabricHeapScheduler::GetLanePushes() const
{
    return m_heap.GetLanePushes();
}

} // namespace ns3
