// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_HEAP_SCHEDULER_H
#define FABRIC_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace ns3
{

class EventImpl;

/**
 * \ingroup fabric
 * The pending events of a simulation as a 4-ary implicit min-heap in one contiguous vector of
 * 24-byte entries (timestamp, uid, context, EventImpl*). The order is the one of
 * Scheduler::EventKey::operator< (timestamp, then uid); uids are unique, so the order is total
 * and the events leave the heap in exactly the order ns-3's MapScheduler gives them.
 *
 * Events pushed for the time of the last event taken out (zero delays: about a quarter of
 * the events of the RoCE benchmark) go to a sorted run beside the heap instead (one vector,
 * appended in uid order); the earliest pending event is the earlier of the run's first and the
 * heap's root, so the order is the same.
 *
 * Events scheduled with one delay (their timestamps never decrease and their uids increase,
 * so they are sorted as they come) go to one of six FIFO lanes, one per delay at a time (a
 * frame's transmission time and its arrival: most of a packet run's pending events); the
 * earliest pending event is the earliest of the heap's root, the run's first and the lanes'
 * first entries. Lanes are written and read in order; the heap keeps the rest.
 *
 * No allocation per event: the vectors grow by doubling and never shrink until Clear().
 * Push and PopMin cost O(log4 n) compares on contiguous memory (O(1) for the run and the
 * lanes, plus one compare per lane); Remove(uid) is a linear search over the pending events (O(n),
 * a scan of 24-byte entries) followed by one sift: it serves Simulator::Remove, which the fabric's
 * models do not call per packet (they Cancel).
 *
 * A plain class so FabricSimulatorImpl can hold it inline (no virtual call per event);
 * FabricHeapScheduler wraps it as an ns3::Scheduler for DefaultSimulatorImpl and the other
 * simulator implementations.
 */
class FabricEventHeap
{
  public:
    /// One pending event.
    struct Entry
    {
        uint64_t ts;      //!< Timestamp in time steps.
        uint32_t uid;     //!< Unique event id (second key).
        uint32_t context; //!< Context (node id) of the event.
        EventImpl* impl;  //!< The event; the heap holds one reference.
    };

    /// \return \p e as a Scheduler::Event (for a Scheduler object or from one).
    static Scheduler::Event ToEvent(const Entry& e)
    {
        Scheduler::Event ev;
        ev.impl = e.impl;
        ev.key.m_ts = e.ts;
        ev.key.m_uid = e.uid;
        ev.key.m_context = e.context;
        return ev;
    }

    /// \return \p ev as an Entry.
    static Entry FromEvent(const Scheduler::Event& ev)
    {
        return {ev.key.m_ts, ev.key.m_uid, ev.key.m_context, ev.impl};
    }

    /// \return true if no event is pending.
    bool IsEmpty() const { return m_size == 0; }

    /// \return the number of pending events.
    std::size_t Size() const { return m_size; }

    /// \return the largest Size() since construction or the last ResetPeak().
    std::size_t GetPeak() const { return m_peak; }

    /// Restart the peak at the current size.
    void ResetPeak() { m_peak = Size(); }

    /// Reserve room for \p n events in the heap (the run and the lanes grow as they fill).
    void Reserve(std::size_t n) { m_heap.reserve(n); }

    /// \return the earliest event (there must be one).
    const Entry& Top() const
    {
        std::size_t lane = 0;
        switch (Earliest(lane))
        {
        case Source::RUN:
            return m_run[m_runHead];
        case Source::LANE:
            return m_lanes[lane].Front();
        default:
            return m_heap.front();
        }
    }

    /// Add an event.
    void Push(const Entry& e)
    {
        if (e.ts == m_lastTs
            && (RunEmpty() || (m_run.back().ts == e.ts && m_run.back().uid < e.uid)))
        {
            // An event for the time of the last one taken out (a zero delay), after every
            // event of the run, which all have that time: the run stays sorted by itself.
            m_run.push_back(e);
        }
        else if (PushToLane(e))
        {
            ++m_lanePushes;
        }
        else
        {
            const std::size_t hole = m_heap.size();
            m_heap.emplace_back(); // grows geometrically; its value is overwritten below
            SiftUp(hole, e);
        }
        if (++m_size > m_peak)
        {
            m_peak = m_size;
        }
    }

    /// Remove and return the earliest event (the heap must not be empty).
    Entry PopMin()
    {
        --m_size;
        std::size_t lane = 0;
        const Source source = Earliest(lane);
        if (source == Source::LANE)
        {
            const Entry first = m_lanes[lane].PopFront();
            m_lastTs = first.ts;
            return first;
        }
        if (source == Source::RUN)
        {
            const Entry first = m_run[m_runHead++];
            if (m_runHead == m_run.size())
            {
                m_run.clear(); // keeps its capacity
                m_runHead = 0;
            }
            else if (m_runHead >= kRunCompactAt && 2 * m_runHead >= m_run.size())
            {
                // A run that never empties (events scheduled with zero delay, without end, at
                // one time) drops what it has handed out, so memory stays bounded.
                m_run.erase(m_run.begin(), m_run.begin() + m_runHead);
                m_runHead = 0;
            }
            m_lastTs = first.ts;
            return first;
        }
        const Entry top = m_heap.front();
        m_lastTs = top.ts;
        const Entry last = m_heap.back();
        m_heap.pop_back();
        if (!m_heap.empty())
        {
            // Bottom-up: the hole left by the root goes down along the earliest children to a
            // leaf without comparing with `last`, which then rises from there. `last` came
            // from the bottom and usually belongs near it, so this saves one compare per
            // level of an ordinary sift-down.
            SiftUp(HoleToLeaf(), last);
        }
        return top;
    }

    /**
     * Remove the event with \p uid and \p impl (linear search, O(n)). Both must match: uids
     * start again in every simulation, so an EventId kept from an earlier simulation in the
     * same process may carry the uid of an unrelated pending event, never its EventImpl.
     * \param uid the event's uid
     * \param impl the event's EventImpl
     * \param [out] removed the removed entry
     * \return false if no pending event has that uid and EventImpl
     */
    bool Remove(uint32_t uid, const EventImpl* impl, Entry& removed);

    /// Drop every entry (the caller releases the events' references first).
    void Clear()
    {
        m_heap.Release();
        m_run.clear();
        m_run.shrink_to_fit();
        m_runHead = 0;
        for (Lane& lane : m_lanes)
        {
            lane = Lane();
        }
        m_size = 0;
        m_peak = 0;
    }

    /**
     * Set the time of the last event taken out (the reference of the lanes' delays and of the
     * zero-delay run) for a heap that takes over the events of a simulation already running.
     * The order does not depend on it; only where the events wait does.
     * \param ts the current time in time steps (no pending event may be earlier)
     */
    void SetLastTimestamp(uint64_t ts) { m_lastTs = ts; }

    /// \return the number of Push calls whose entry went to a lane (for tests)
    uint64_t GetLanePushes() const { return m_lanePushes; }

  private:
    /**
     * A FIFO of pending events that were all scheduled with one delay: their timestamps
     * (the time of the push plus that delay) never decrease and their uids increase, so the
     * FIFO is sorted by itself. Most of a packet simulation's events have one of a few delays
     * (a frame's transmission time, plus the propagation delay for its arrival), so most
     * pending events wait in lanes, written and read in order, and the heap, whose removals
     * read one node's children per level, holds the rest (timers, paced sends).
     */
    struct Lane
    {
        std::vector<Entry> ring; //!< Power-of-two capacity (or empty).
        std::size_t head{0};     //!< Index of the first entry.
        std::size_t count{0};    //!< Entries in the lane.
        uint64_t delay{0};       //!< The delay of its events (when count > 0).

        const Entry& At(std::size_t i) const { return ring[(head + i) & (ring.size() - 1)]; }

        Entry& At(std::size_t i) { return ring[(head + i) & (ring.size() - 1)]; }

        const Entry& Front() const { return ring[head]; }

        const Entry& Back() const { return At(count - 1); }

        void PushBack(const Entry& e)
        {
            if (count == ring.size())
            {
                std::vector<Entry> grown(ring.empty() ? 64 : 2 * ring.size());
                for (std::size_t i = 0; i < count; ++i)
                {
                    grown[i] = At(i);
                }
                ring.swap(grown);
                head = 0;
            }
            ring[(head + count) & (ring.size() - 1)] = e;
            ++count;
        }

        Entry PopFront()
        {
            const Entry first = ring[head];
            head = (head + 1) & (ring.size() - 1);
            --count;
            return first;
        }

        /// Remove entry \p i (the lane stays sorted).
        void Erase(std::size_t i)
        {
            for (; i + 1 < count; ++i)
            {
                At(i) = At(i + 1);
            }
            --count;
        }
    };

    /// Where the earliest pending event is.
    enum class Source
    {
        HEAP,
        RUN,
        LANE,
    };

    /// \return where the earliest pending event is (there must be one); \p lane: which lane
    Source Earliest(std::size_t& lane) const
    {
        const Entry* best = m_heap.empty() ? nullptr : &m_heap.front();
        Source source = Source::HEAP;
        if (!RunEmpty() && (best == nullptr || Before(m_run[m_runHead], *best)))
        {
            best = &m_run[m_runHead];
            source = Source::RUN;
        }
        for (std::size_t i = 0; i < kLanes; ++i)
        {
            if (m_lanes[i].count != 0 && (best == nullptr || Before(m_lanes[i].Front(), *best)))
            {
                best = &m_lanes[i].Front();
                source = Source::LANE;
                lane = i;
            }
        }
        return source;
    }

    /**
     * Append \p e to the lane of its delay (taking an empty lane for a new delay).
     * \return false if no lane can take it (all hold other delays, or it would not be last)
     */
    bool PushToLane(const Entry& e)
    {
        if (e.ts < m_lastTs)
        {
            return false;
        }
        const uint64_t delay = e.ts - m_lastTs;
        Lane* free = nullptr;
        for (Lane& lane : m_lanes)
        {
            if (lane.count == 0)
            {
                free = free == nullptr ? &lane : free;
            }
            else if (lane.delay == delay)
            {
                if (!Before(lane.Back(), e))
                {
                    return false;
                }
                lane.PushBack(e);
                return true;
            }
        }
        if (free == nullptr)
        {
            return false;
        }
        free->delay = delay;
        free->PushBack(e);
        return true;
    }

    static constexpr std::size_t kLanes = 6; //!< Delays with a lane at a time.
    static constexpr std::size_t kArity = 4; //!< Children per node.
    /// Taken-out entries at the run's front before it is compacted.
    static constexpr std::size_t kRunCompactAt = 4096;

    /// \return true if the run holds no event.
    bool RunEmpty() const { return m_runHead == m_run.size(); }

    /// \return true if \p a is to run before \p b (EventKey order: timestamp, then uid).
    static bool Before(const Entry& a, const Entry& b)
    {
        return a.ts < b.ts || (a.ts == b.ts && a.uid < b.uid);
    }

    /// Move \p e up from the free slot \p hole to its place.
    void SiftUp(std::size_t hole, const Entry& e)
    {
        while (hole > 0)
        {
            const std::size_t parent = (hole - 1) / kArity;
            if (!Before(e, m_heap[parent]))
            {
                break;
            }
            m_heap[hole] = m_heap[parent];
            hole = parent;
        }
        m_heap[hole] = e;
    }

    /**
     * Move the hole at the root down to a leaf, each step filling it with the earliest child.
     * \return the leaf slot left free
     */
    std::size_t HoleToLeaf()
    {
        const std::size_t n = m_heap.size();
        Entry* h = m_heap.data();
        std::size_t hole = 0;
        for (;;)
        {
            const std::size_t first = hole * kArity + 1;
            std::size_t best = first;
            if (first + kArity <= n)
            {
                // All four children exist (the common case): a fixed, unrolled scan.
                const std::size_t b01 = Before(h[first + 1], h[first]) ? first + 1 : first;
                const std::size_t b23 = Before(h[first + 3], h[first + 2]) ? first + 3 : first + 2;
                best = Before(h[b23], h[b01]) ? b23 : b01;
            }
            else if (first < n)
            {
                for (std::size_t c = first + 1; c < n; ++c)
                {
                    if (Before(h[c], h[best]))
                    {
                        best = c;
                    }
                }
            }
            else
            {
                return hole;
            }
            h[hole] = h[best];
            hole = best;
        }
    }

    /// Move \p e down from the free slot \p hole to its place.
    void SiftDown(std::size_t hole, const Entry& e)
    {
        const std::size_t n = m_heap.size();
        for (;;)
        {
            const std::size_t first = hole * kArity + 1;
            if (first >= n)
            {
                break;
            }
            std::size_t best = first;
            const std::size_t end = first + kArity < n ? first + kArity : n;
            for (std::size_t c = first + 1; c < end; ++c)
            {
                if (Before(m_heap[c], m_heap[best]))
                {
                    best = c;
                }
            }
            if (!Before(m_heap[best], e))
            {
                break;
            }
            m_heap[hole] = m_heap[best];
            hole = best;
        }
        m_heap[hole] = e;
    }

    /**
     * The heap's storage: the part of std::vector's interface the heap uses, over memory
     * placed so that the four children of every node (entries 4i+1 to 4i+4, 96 bytes) lie in
     * exactly two 64-byte cache lines (anywhere, a third of the groups would straddle three).
     * A removal reads one such group per level on its way to a leaf; with 50k pending events
     * (1024 GPUs) the lower levels are not in a core's L2.
     */
    class EntryArray
    {
      public:
        EntryArray() = default;
        EntryArray(const EntryArray&) = delete;
        EntryArray& operator=(const EntryArray&) = delete;

        EntryArray(EntryArray&& other) noexcept { Take(other); }

        EntryArray& operator=(EntryArray&& other) noexcept
        {
            if (this != &other)
            {
                Release();
                Take(other);
            }
            return *this;
        }

        ~EntryArray() { Release(); }

        std::size_t size() const { return m_size; }

        bool empty() const { return m_size == 0; }

        Entry* data() { return m_data; }

        Entry& operator[](std::size_t i) { return m_data[i]; }

        const Entry& operator[](std::size_t i) const { return m_data[i]; }

        const Entry& front() const { return m_data[0]; }

        const Entry& back() const { return m_data[m_size - 1]; }

        const Entry* begin() const { return m_data; }

        const Entry* end() const { return m_data + m_size; }

        void pop_back() { --m_size; }

        /// Append an entry whose value the caller writes next.
        void emplace_back()
        {
            if (m_size == m_capacity)
            {
                Grow(m_size + 1);
            }
            ++m_size;
        }

        void reserve(std::size_t n)
        {
            if (n > m_capacity)
            {
                Grow(n);
            }
        }

        void clear() { m_size = 0; }

        /// Drop every entry and the memory.
        void Release()
        {
            ::operator delete(m_raw);
            m_raw = nullptr;
            m_data = nullptr;
            m_size = 0;
            m_capacity = 0;
        }

      private:
        static constexpr std::size_t kLine = 64; //!< Cache line size in bytes.
        static_assert(sizeof(Entry) == 24 && kArity == 4,
                      "the placement below is for four 24-byte children per node");

        void Take(EntryArray& other)
        {
            m_raw = other.m_raw;
            m_data = other.m_data;
            m_size = other.m_size;
            m_capacity = other.m_capacity;
            other.m_raw = nullptr;
            other.m_data = nullptr;
            other.m_size = 0;
            other.m_capacity = 0;
        }

        /// Room for at least \p n entries (at least double the capacity), entries kept.
        void Grow(std::size_t n)
        {
            std::size_t capacity = m_capacity < 16 ? 16 : 2 * m_capacity;
            capacity = capacity < n ? n : capacity;
            void* raw = ::operator new(capacity * sizeof(Entry) + kLine);
            // Entry 1 (the root's first child) at a line boundary: the group of node i
            // starts at 24 + 96 i bytes, a multiple of 32, so it spans two lines.
            const auto address = reinterpret_cast<std::uintptr_t>(raw);
            const std::size_t shift = (2 * kLine - sizeof(Entry) - address % kLine) % kLine;
            // Entries live in raw storage without placement new: Entry is an implicit-lifetime
            // type (a trivially copyable aggregate), for which ::operator new implicitly creates
            // the objects (P0593, adopted in C++20 as a defect report against earlier standards;
            // GCC and Clang rely on it in C++17 too). Every entry is written before it is read.
            Entry* data = reinterpret_cast<Entry*>(static_cast<char*>(raw) + shift);
            if (m_size != 0)
            {
                std::memcpy(static_cast<void*>(data), m_data, m_size * sizeof(Entry));
            }
            ::operator delete(m_raw);
            m_raw = raw;
            m_data = data;
            m_capacity = capacity;
        }

        void* m_raw{nullptr};      //!< The allocation.
        Entry* m_data{nullptr};    //!< Entry 0, inside m_raw.
        std::size_t m_size{0};     //!< Entries in use.
        std::size_t m_capacity{0}; //!< Entries m_raw holds from m_data on.
    };

    static_assert(std::is_trivially_copyable_v<Entry>);

    EntryArray m_heap; //!< The implicit heap; the root (earliest event) at index 0.
    /// A sorted run of events at m_lastTs in uid order, from m_runHead on: zero-delay events
    /// (about a quarter of all in the RoCE benchmark) skip the heap's sifts.
    std::vector<Entry> m_run;
    std::size_t m_runHead{0}; //!< First pending entry of m_run.
    Lane m_lanes[kLanes];     //!< Events by delay (see Lane).
    uint64_t m_lastTs{0};     //!< Time of the last event taken out (0 before any).
    std::size_t m_size{0};    //!< Pending events (heap and run).
    std::size_t m_peak{0};    //!< Largest size since construction or ResetPeak().
    uint64_t m_lanePushes{0}; //!< Entries pushed to a lane (GetLanePushes).
};

/**
 * \ingroup fabric
 * An ns3::Scheduler over FabricEventHeap: a 4-ary heap in one vector, with the event order of
 * MapScheduler (timestamp, then uid) and no allocation per event. Select it with
 * `--SchedulerType=ns3::FabricHeapScheduler`; FabricSimulatorImpl given this type keeps the
 * heap inline instead of calling this object. Remove() is O(n) (see FabricEventHeap).
 */
class FabricHeapScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    FabricHeapScheduler();
    ~FabricHeapScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// \return the largest number of pending events this scheduler held.
    uint64_t GetPeakPending() const;

    /// \return the number of events inserted into one of the heap's delay lanes (for tests).
    uint64_t GetLanePushes() const;

  private:
    /// Attribute setter: reserve room for this many events.
    void SetInitialCapacity(uint32_t n);
    /// \return the attribute value.
    uint32_t GetInitialCapacity() const;

    FabricEventHeap m_heap;        //!< The pending events.
    uint32_t m_initialCapacity{0}; //!< Events reserved up front.
};

} // namespace ns3

#endif // FABRIC_HEAP_SCHEDULER_H
