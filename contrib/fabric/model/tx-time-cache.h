// SPDX-License-Identifier: GPL-2.0-only
#ifndef TX_TIME_CACHE_H
#define TX_TIME_CACHE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * DataRate::CalculateBytesTxTime with the last \p N (rate, size) pairs remembered (N is 1 or
 * 2).
 *
 * The division behind CalculateBytesTxTime (a 128-bit int64x64_t division) costs about 600
 * instructions, and a port or a paced sender asks for the same one or two sizes (data
 * frames and acknowledgements) at the same rate again and again. The result is the value
 * CalculateBytesTxTime returns, computed once per distinct pair, so nothing changes. An entry
 * is 24 bytes and there is no other state (a queue pair keeps a one-entry cache in its
 * per-packet cache line); a new pair replaces the oldest.
 */
template<std::size_t N = 2>
class TxTimeCache
{
    static_assert(N == 1 || N == 2, "one or two entries");

  public:
    /// The serialization time of \p bytes at \p bps bit/s (DataRate(bps).CalculateBytesTxTime).
    Time Get(uint64_t bps, uint32_t bytes)
    {
        for (const Entry& e : m_entry)
        {
            // bytes 0 marks an empty entry, so a zero-byte question is always computed.
            if (e.bytes == bytes && e.bps == bps && bytes != 0)
            {
                return e.time;
            }
        }
        if (N == 2)
        {
            m_entry[N - 1] = m_entry[0]; // the newest first, the oldest goes
        }
        Entry& e = m_entry[0];
        e.bps = bps;
        e.bytes = bytes;
        e.time = DataRate(bps).CalculateBytesTxTime(bytes);
        return e.time;
    }

    /// The serialization time of \p bytes at \p rate.
    Time Get(const DataRate& rate, uint32_t bytes) { return Get(rate.GetBitRate(), bytes); }

    /**
     * The bytes of the last question (0: none yet). With one entry (N = 1 only) that entry
     * is always the last pair asked, so a paced sender can read back its last packet's size
     * and gap instead of storing them again per packet.
     */
    uint32_t GetLastBytes() const
    {
        static_assert(N == 1, "only one entry is always the last question");
        return m_entry[0].bytes;
    }

    /// The answer to the last question (N = 1 only; meaningless while GetLastBytes() is 0).
    Time GetLastTime() const
    {
        static_assert(N == 1, "only one entry is always the last question");
        return m_entry[0].time;
    }

  private:
    struct Entry
    {
        uint64_t bps{0};
        Time time;
        uint32_t bytes{0}; //!< 0: empty
    };

    Entry m_entry[N];
};

} // namespace ns3

#endif // TX_TIME_CACHE_H
