// SPDX-License-Identifier: GPL-2.0-only
#ifndef APPEND_RUN_H
#define APPEND_RUN_H

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace ns3
{

/**
 * \ingroup flow
 * Entries of a trivially copyable type in one array, in the order they are placed (the sorted
 * run of a FlowSimulator's pending completions): plain C++, no simulator inside.
 *
 * Append constructs an entry in place from its arguments, inline. Two things it avoids: a
 * std::vector's emplace_back stayed an out-of-line call in the simulator's event loop, and a
 * braced temporary copied in whole (16-byte loads of narrower stores just made) stalled on
 * store forwarding (doc/flow.md, Session 18). Insert places an entry before any other, and
 * EraseFront drops a prefix. Reserved room is left unwritten until used.
 */
template<typename T>
class AppendRun
{
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "entries are moved with memmove and released without destruction");

  public:
    AppendRun() = default;
    AppendRun(const AppendRun&) = delete;
    AppendRun& operator=(const AppendRun&) = delete;

    ~AppendRun() { Release(); }

    /// Room for at least \p n entries.
    void Reserve(std::size_t n)
    {
        if (n > m_cap)
        {
            Grow(n);
        }
    }

    std::size_t Size() const { return m_size; }

    bool Empty() const { return m_size == 0; }

    /// Room without growing.
    std::size_t Capacity() const { return m_cap; }

    /// Entry \p i (< Size()).
    const T& operator[](std::size_t i) const { return m_data[i]; }

    /// No entries (the storage is kept).
    void Clear() { m_size = 0; }

    /// Append the entry T(\p args...), made where it is stored.
    template<typename... Args>
    void Append(Args&&... args)
    {
        if (m_size == m_cap)
        {
            Grow(2 * m_cap + 16);
        }
        ::new (static_cast<void*>(m_data + m_size)) T(std::forward<Args>(args)...);
        ++m_size;
    }

    /// Insert \p e before entry \p i (i <= Size(); i == Size() appends). \p e may be an entry
    /// of this run.
    void Insert(std::size_t i, const T& e)
    {
        const T copy = e; // (before the entries move, or the storage moves)
        if (m_size == m_cap)
        {
            Grow(2 * m_cap + 16);
        }
        std::memmove(static_cast<void*>(m_data + i + 1),
                     static_cast<const void*>(m_data + i),
                     (m_size - i) * sizeof(T));
        ::new (static_cast<void*>(m_data + i)) T(copy);
        ++m_size;
    }

    /// Drop the first \p n entries (n <= Size()); the others move to the front, in order.
    void EraseFront(std::size_t n)
    {
        if (n == 0)
        {
            return;
        }
        std::memmove(static_cast<void*>(m_data),
                     static_cast<const void*>(m_data + n),
                     (m_size - n) * sizeof(T));
        m_size -= n;
    }

  private:
    [[gnu::noinline]] void Grow(std::size_t n)
    {
        T* grown = std::allocator<T>().allocate(n);
        if (m_size > 0)
        {
            std::memcpy(
                static_cast<void*>(grown), static_cast<const void*>(m_data), m_size * sizeof(T));
        }
        Release();
        m_data = grown;
        m_cap = n;
    }

    void Release()
    {
        if (m_data)
        {
            std::allocator<T>().deallocate(m_data, m_cap);
        }
        m_data = nullptr;
    }

    T* m_data{nullptr};
    std::size_t m_size{0};
    std::size_t m_cap{0};
};

} // namespace ns3

#endif // APPEND_RUN_H
