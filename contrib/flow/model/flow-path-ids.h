// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_PATH_IDS_H
#define FLOW_PATH_IDS_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * A list of node or directed-link ids of one path (FlowSimRecord::path, ::dirLinks): a value
 * like a std::vector<uint32_t> (copied, compared, iterated), that holds up to \c INLINE ids in
 * place and only a longer list on the heap. The default comparison's paths have 4 to 7 nodes,
 * so a record's two lists need no allocation: two mallocs per flow were a tenth of a 240-flow
 * run's instructions. Compares equal to a std::vector<uint32_t> with the same ids (the packet
 * level's RoceFlowRecord::path), orders lexicographically as one does, converts to one
 * (ToVector, or implicitly: a copy). Unlike a std::vector it has no at(), no reverse
 * iterators, no mutable [] or iterators, no insert, erase, resize, reserve, pop_back or swap
 * (change a list with assign, push_back or clear) and, against a std::vector, only ==, != and
 * <.
 */
class FlowPathIds
{
  public:
    static constexpr uint32_t INLINE = 8; //!< ids held without allocation

    using value_type = uint32_t;
    using size_type = std::size_t;
    using const_iterator = const uint32_t*;
    using iterator = const uint32_t*; //!< read-only: change a list with assign
    using const_reference = const uint32_t&;
    using reference = const uint32_t&;

    FlowPathIds() = default;

    FlowPathIds(std::initializer_list<uint32_t> ids) { assign(ids.begin(), ids.end()); }

    /// The ids of \p ids, in order.
    explicit FlowPathIds(const std::vector<uint32_t>& ids)
    {
        assign(ids.data(), ids.data() + ids.size());
    }

    FlowPathIds(const FlowPathIds& o) { assign(o.begin(), o.end()); }

    FlowPathIds(FlowPathIds&& o) noexcept { Take(o); }

    FlowPathIds& operator=(const FlowPathIds& o)
    {
        if (this != &o)
        {
            assign(o.begin(), o.end());
        }
        return *this;
    }

    FlowPathIds& operator=(FlowPathIds&& o) noexcept
    {
        if (this != &o)
        {
            Release();
            Take(o);
        }
        return *this;
    }

    FlowPathIds& operator=(std::initializer_list<uint32_t> ids)
    {
        assign(ids.begin(), ids.end());
        return *this;
    }

    /// The ids of \p ids, in order.
    FlowPathIds& operator=(const std::vector<uint32_t>& ids)
    {
        assign(ids.data(), ids.data() + ids.size());
        return *this;
    }

    ~FlowPathIds() { Release(); }

    /// Append \p id (a list past INLINE ids moves to the heap, growing geometrically).
    void push_back(uint32_t id)
    {
        if (m_size == m_cap)
        {
            auto* grown = new uint32_t[2 * m_cap];
            std::memcpy(grown, Data(), m_size * sizeof(uint32_t));
            const uint32_t n = m_size;
            Release();
            m_heap = grown;
            m_cap = 2 * n;
            m_size = n;
        }
        Data()[m_size++] = id;
    }

    /// No ids (the storage is kept).
    void clear() { m_size = 0; }

    /// Replace the list by [\p first, \p last), which may be a part of this list (a range
    /// of it never needs more room than the list has, so its storage stays in place).
    void assign(const uint32_t* first, const uint32_t* last)
    {
        const auto n = static_cast<uint32_t>(last - first);
        if (n > m_cap)
        {
            Release();
            m_heap = new uint32_t[n];
            m_cap = n;
        }
        if (n > 0)
        {
            std::memmove(Data(), first, n * sizeof(uint32_t)); // the ranges may overlap
        }
        m_size = n;
    }

    size_type size() const { return m_size; }

    bool empty() const { return m_size == 0; }

    const uint32_t* data() const { return Data(); }

    const_iterator begin() const { return Data(); }

    const_iterator end() const { return Data() + m_size; }

    const uint32_t& operator[](size_type i) const { return Data()[i]; }

    const uint32_t& front() const { return Data()[0]; }

    const uint32_t& back() const { return Data()[m_size - 1]; }

    /// The ids as a std::vector.
    std::vector<uint32_t> ToVector() const { return std::vector<uint32_t>(begin(), end()); }

    /// The ids as a std::vector (for code written against the former std::vector member).
    operator std::vector<uint32_t>() const { return ToVector(); }

    friend bool operator==(const FlowPathIds& a, const FlowPathIds& b)
    {
        return a.m_size == b.m_size && std::equal(a.begin(), a.end(), b.begin());
    }

    friend bool operator!=(const FlowPathIds& a, const FlowPathIds& b) { return !(a == b); }

    friend bool operator==(const FlowPathIds& a, const std::vector<uint32_t>& b)
    {
        return a.m_size == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

    friend bool operator==(const std::vector<uint32_t>& a, const FlowPathIds& b) { return b == a; }

    friend bool operator!=(const FlowPathIds& a, const std::vector<uint32_t>& b)
    {
        return !(a == b);
    }

    friend bool operator!=(const std::vector<uint32_t>& a, const FlowPathIds& b)
    {
        return !(b == a);
    }

    /// Lexicographic order, as std::vector's (so paths sort and key a std::set or std::map).
    friend bool operator<(const FlowPathIds& a, const FlowPathIds& b)
    {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

    friend bool operator>(const FlowPathIds& a, const FlowPathIds& b) { return b < a; }

    friend bool operator<=(const FlowPathIds& a, const FlowPathIds& b) { return !(b < a); }

    friend bool operator>=(const FlowPathIds& a, const FlowPathIds& b) { return !(a < b); }

    /// Lexicographic order against a std::vector's ids.
    friend bool operator<(const FlowPathIds& a, const std::vector<uint32_t>& b)
    {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

    /// Lexicographic order against a std::vector's ids.
    friend bool operator<(const std::vector<uint32_t>& a, const FlowPathIds& b)
    {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }

    /// "{a, b, c}", as test frameworks print a container.
    friend std::ostream& operator<<(std::ostream& os, const FlowPathIds& ids)
    {
        os << '{';
        for (uint32_t i = 0; i < ids.m_size; ++i)
        {
            os << (i ? ", " : "") << ids[i];
        }
        return os << '}';
    }

  private:
    bool OnHeap() const { return m_cap > INLINE; }

    uint32_t* Data() { return OnHeap() ? m_heap : m_inline; }

    const uint32_t* Data() const { return OnHeap() ? m_heap : m_inline; }

    void Release()
    {
        if (OnHeap())
        {
            delete[] m_heap;
        }
        m_cap = INLINE;
        m_size = 0;
    }

    /// Move \p o's ids here (this list holds nothing); \p o is left empty.
    void Take(FlowPathIds& o)
    {
        m_size = o.m_size;
        m_cap = o.m_cap;
        if (o.OnHeap())
        {
            m_heap = o.m_heap;
        }
        else
        {
            std::memcpy(m_inline, o.m_inline, o.m_size * sizeof(uint32_t));
        }
        o.m_cap = INLINE;
        o.m_size = 0;
    }

    uint32_t m_size{0};
    uint32_t m_cap{INLINE}; //!< INLINE: the ids are in m_inline; more: in m_heap

    union
    {
        uint32_t m_inline[INLINE];
        uint32_t* m_heap;
    };
};

} // namespace ns3

#endif // FLOW_PATH_IDS_H
