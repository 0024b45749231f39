// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLUID_END_QUEUE_H
#define FLUID_END_QUEUE_H

#include "ns3/assert.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * The pending fluid ends of a FlowSimulator run, at most one per flow, taken in (time,
 * sequence) order: plain C++, no simulator inside.
 *
 * An end set after every end pending in the sorted run is appended to it (a collective step's
 * flows share their rates and end in the order their rates were set: a heap pop for each
 * sifted through the whole heap); any other end goes to a heap indexed by flow. Top() is the
 * earlier of the two heads. A new end for a flow in the run replaces its entry in place if it
 * stays between its neighbours (a departure speeds every flow of a bottleneck up alike and
 * keeps their order), else the entry is marked dead and the end inserted anew; a flow on the
 * heap is moved in place there. Dead entries are passed when they reach the head; the run's
 * live entries are moved down over the dead ones when those outnumber them, and over the
 * entries already taken when those are most of the run, so its size stays within about twice
 * the pending ends (plus a constant).
 */
class FluidEndQueue
{
  public:
    /// A pending end: its key (t, seq) travels with it (no look-ups while sifting). Set writes
    /// a new one member by member where it is stored: a braced temporary was built on the
    /// stack and copied with 16-byte loads, which stall on the narrower stores just made.
    struct Entry
    {
        Entry() = default;

        Entry(double time, uint64_t order, uint32_t flow)
            : t(time),
              seq(order),
              f(flow)
        {
        }

        double t{0};     //!< seconds, +0 or positive
        uint64_t seq{0}; //!< the caller's insertion number (unique, growing)
        uint32_t f{0};   //!< flow index
    };

    /// Flow indices must be below this (m_pos keeps a flag bit beside an index).
    static constexpr uint32_t MAX_FLOWS = 0x7FFFFFFFU;

    /// Empty, for flows 0 .. \p flows - 1 (storage for one end per flow reserved).
    void Reset(uint32_t flows)
    {
        if (flows > MAX_FLOWS)
        {
            throw std::invalid_argument("FluidEndQueue: more than 2^31 - 1 flows");
        }
        m_pos.assign(flows, NONE);
        m_heap.clear();
        m_heap.reserve(flows);
        m_run.clear();
        m_run.reserve(flows);
        m_head = 0;
        m_dead = 0;
    }

    /// (t, seq) order as one 128-bit comparison without branches: an end's time is never
    /// negative, -0 or NaN (a FlowSimulator's is an instant >= -0 plus bytes / rate >= +0, so
    /// >= +0; Set asserts it), and the bits of such doubles order as their values (+inf after
    /// every finite time).
    static bool Before(const Entry& a, const Entry& b) { return Key(a) < Key(b); }

    /// Flow \p f ends at \p t, key (t, \p seq) (replaces its pending end, if any).
    void Set(uint32_t f, double t, uint64_t seq)
    {
        NS_ASSERT_MSG(!std::signbit(t) && !std::isnan(t),
                      "a fluid end's time must be +0 or positive for the key's order");
        const Entry e{t, seq, f};
        const uint32_t pos = m_pos[f];
        if (pos != NONE && !(pos & IN_RUN))
        {
            Fix(pos, e); // moved in place
            return;
        }
        if (pos != NONE)
        {
            const size_t i = RunIndex(f);
            if ((i == m_head || Before(m_run[i - 1], e))
                && (i + 1 == m_run.size() || Before(e, m_run[i + 1])))
            {
                Write(m_run[i], e);
                return;
            }
            Kill(i);
        }
        // (A dead last entry still bounds the run's order: its key stays.)
        if ((m_head == m_run.size() || BackBefore(t, seq)) && m_run.size() < MAX_FLOWS)
        {
            m_pos[f] = IN_RUN | static_cast<uint32_t>(m_run.size());
            m_run.emplace_back(t, seq, f);
            return;
        }
        m_heap.emplace_back(t, seq, f);
        ++m_toHeap;
        SiftUp(m_heap.size() - 1, e);
    }

    /// Flow \p f has no pending end (any more).
    void Clear(uint32_t f)
    {
        const uint32_t i = m_pos[f];
        if (i == NONE)
        {
            return;
        }
        if (i & IN_RUN)
        {
            Kill(RunIndex(f));
            return;
        }
        m_pos[f] = NONE;
        const Entry last = m_heap.back();
        m_heap.pop_back();
        if (last.f != f)
        {
            Fix(i, last);
        }
    }

    /// The earliest pending end, or null if there is none.
    const Entry* Top() const
    {
        const Entry* top = m_heap.empty() ? nullptr : m_heap.data();
        if (m_head != m_run.size())
        {
            const Entry* head = m_run.data() + m_head; // live
            if (!top || Before(*head, *top))
            {
                top = head;
            }
        }
        return top;
    }

    /// Take the earliest pending end (there must be one).
    void Pop()
    {
        if (m_head != m_run.size() && (m_heap.empty() || Before(m_run[m_head], m_heap.front())))
        {
            m_pos[m_run[m_head].f] = NONE;
            Advance();
            return;
        }
        PopHeap();
    }

    /// Ends put on the heap because they came before the run's last entry.
    uint64_t ToHeap() const { return m_toHeap; }

    /// Times the run's live entries were moved down (over dead or taken entries).
    uint64_t Compactions() const { return m_compactions; }

    /// Entries the run holds (live, dead and taken ones not yet dropped).
    size_t RunSize() const { return m_run.size(); }

    /// Every invariant checked, for tests (linear time): "" if all hold, else what fails.
    std::string Check() const
    {
        size_t live = 0;
        for (uint32_t f = 0; f < m_pos.size(); ++f)
        {
            const uint32_t p = m_pos[f];
            if (p == NONE)
            {
                continue;
            }
            ++live;
            const size_t i = p & ~IN_RUN;
            const bool ok = (p & IN_RUN) ? i >= m_head && i < m_run.size() && m_run[i].f == f
                                         : i < m_heap.size() && m_heap[i].f == f;
            if (!ok)
            {
                return "flow " + std::to_string(f) + "'s position is stale";
            }
        }
        size_t dead = 0;
        size_t inRun = 0;
        for (size_t i = m_head; i < m_run.size(); ++i)
        {
            if (i > m_head && !Before(m_run[i - 1], m_run[i]))
            {
                return "the run is not sorted at " + std::to_string(i);
            }
            (m_run[i].f == DEAD ? dead : inRun)++;
        }
        if (dead != m_dead)
        {
            return "dead entries miscounted";
        }
        if (m_head != m_run.size() && m_run[m_head].f == DEAD)
        {
            return "the run's head is dead";
        }
        if (m_head == m_run.size() && m_head != 0)
        {
            return "an empty run was not reset";
        }
        for (size_t i = 1; i < m_heap.size(); ++i)
        {
            if (Before(m_heap[i], m_heap[(i - 1) / 2]))
            {
                return "the heap is out of order at " + std::to_string(i);
            }
        }
        if (live != inRun + m_heap.size())
        {
            return "entries without a flow";
        }
        return "";
    }

  private:
    static constexpr uint32_t NONE = UINT32_MAX;
    static constexpr uint32_t DEAD = UINT32_MAX;    //!< Entry::f of a run entry no longer pending
    static constexpr uint32_t IN_RUN = 0x80000000U; //!< m_pos flag: the index is the run's
    /// Dead entries below this are passed at the head rather than compacted (moving the live
    /// ones down costs more than stepping over a few).
    static constexpr size_t MIN_DEAD_TO_COMPACT = 64;
    /// Taken entries kept at the front of a run that does not empty (as the completions' run).
    static constexpr size_t MIN_TAKEN_TO_COMPACT = 1024;

    static unsigned __int128 Key(const Entry& e)
    {
        uint64_t bits;
        std::memcpy(&bits, &e.t, sizeof(bits));
        return (static_cast<unsigned __int128>(bits) << 64) | e.seq;
    }

    /// Flow \p f's index in the run, checked: a stale index would silently drop another
    /// flow's end.
    size_t RunIndex(uint32_t f) const
    {
        const size_t i = m_pos[f] & ~IN_RUN;
        if (i < m_head || i >= m_run.size() || m_run[i].f != f)
        {
            throw std::logic_error("FluidEndQueue: the run lost flow " + std::to_string(f)
                                   + "'s entry");
        }
        return i;
    }

    /// The run's entry \p i is no flow's end any more: marked dead (its key keeps the run's
    /// order) and passed over if it is the head.
    void Kill(size_t i)
    {
        m_pos[m_run[i].f] = NONE;
        m_run[i].f = DEAD;
        ++m_dead;
        if (i == m_head)
        {
            Advance();
        }
        else if (m_dead > MIN_DEAD_TO_COMPACT && 2 * m_dead > m_run.size() - m_head)
        {
            Compact();
        }
    }

    /// The run's head is taken or dead: the head moves to the next live entry (a run read to
    /// its end is emptied; a long taken prefix dropped), so that the head is always live.
    void Advance()
    {
        do
        {
            if (m_run[m_head].f == DEAD)
            {
                --m_dead;
            }
            ++m_head;
        } while (m_head < m_run.size() && m_run[m_head].f == DEAD);
        if (m_head == m_run.size())
        {
            m_run.clear();
            m_head = 0;
        }
        else if (m_head >= MIN_TAKEN_TO_COMPACT && 2 * m_head >= m_run.size())
        {
            Compact();
        }
    }

    /// The live entries from the head on moved to the front, in order; positions updated.
    void Compact()
    {
        size_t w = 0;
        for (size_t r = m_head; r < m_run.size(); ++r)
        {
            if (m_run[r].f != DEAD)
            {
                m_pos[m_run[r].f] = IN_RUN | static_cast<uint32_t>(w);
                m_run[w++] = m_run[r];
            }
        }
        m_run.resize(w);
        m_head = 0;
        m_dead = 0;
        ++m_compactions;
    }

    /// The run's last entry comes before (\p t, \p seq). Its members are read one by one:
    /// the entry is often the one the previous Set just wrote, and a 16-byte load of it (as
    /// Key's copy compiled to) stalls on those narrower stores. The same order as Key's for
    /// times that are +0 or positive and not NaN, as Set's are (asserted there; a
    /// FlowSimulator sets an end only for a positive rate and bytes left, at an instant
    /// >= +0).
    bool BackBefore(double t, uint64_t seq) const
    {
        const Entry& b = m_run.back();
        return b.t < t || (b.t == t && b.seq < seq);
    }

    /// \p to = \p e, member by member (see Entry).
    static void Write(Entry& to, const Entry& e)
    {
        to.t = e.t;
        to.seq = e.seq;
        to.f = e.f;
    }

    /// Entry \p e in the heap's slot \p i (written member by member: see Entry).
    void Place(size_t i, const Entry& e)
    {
        Write(m_heap[i], e);
        m_pos[e.f] = static_cast<uint32_t>(i);
    }

    /// Entry \p e put in the heap's slot \p i, or above it (the slot's content is ignored).
    void SiftUp(size_t i, const Entry& e)
    {
        while (i > 0 && Before(e, m_heap[(i - 1) / 2]))
        {
            Place(i, m_heap[(i - 1) / 2]);
            i = (i - 1) / 2;
        }
        Place(i, e);
    }

    /// The earlier of entry \p i's children in a heap of \p size entries; \p size if none.
    size_t EarlierChild(size_t i, size_t size) const
    {
        const size_t c = 2 * i + 1;
        if (c >= size)
        {
            return size;
        }
        return c + 1 < size && Before(m_heap[c + 1], m_heap[c]) ? c + 1 : c;
    }

    /// Entry \p e put in the heap's slot \p i, or below it (the slot's content is ignored).
    void SiftDown(size_t i, const Entry& e)
    {
        const size_t size = m_heap.size();
        for (size_t c = EarlierChild(i, size); c < size && Before(m_heap[c], e);
             c = EarlierChild(i, size))
        {
            Place(i, m_heap[c]);
            i = c;
        }
        Place(i, e);
    }

    /// Entry \p e put in the heap's slot \p i, then moved up or down to its place. The
    /// entry travels by value, not read back from the slot (see Entry).
    void Fix(size_t i, const Entry& e)
    {
        if (i > 0 && Before(e, m_heap[(i - 1) / 2]))
        {
            SiftUp(i, e);
        }
        else
        {
            SiftDown(i, e);
        }
    }

    /// Remove the heap's top: the hole at the root goes down to a leaf along the earlier
    /// children, then the last entry fills it and rises (fewer comparisons than sifting the
    /// last entry down from the root; the order taken is the same).
    void PopHeap()
    {
        m_pos[m_heap.front().f] = NONE;
        const Entry last = m_heap.back();
        m_heap.pop_back();
        const size_t size = m_heap.size();
        if (size == 0)
        {
            return;
        }
        size_t i = 0;
        for (size_t c = EarlierChild(i, size); c < size; c = EarlierChild(i, size))
        {
            Place(i, m_heap[c]);
            i = c;
        }
        SiftUp(i, last);
    }

    std::vector<Entry> m_heap;
    std::vector<Entry> m_run;
    size_t m_head{0}; //!< the run's first pending entry
    size_t m_dead{0}; //!< dead entries from m_head on
    /// Per flow: index in m_heap, or IN_RUN | index in m_run; NONE if no end is pending.
    std::vector<uint32_t> m_pos;
    uint64_t m_toHeap{0};
    uint64_t m_compactions{0};
};

} // namespace ns3

#endif // FLUID_END_QUEUE_H
