// SPDX-License-Identifier: GPL-2.0-only
#ifndef TX_TIME_CACHE_H
#define TX_TIME_CACHE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * DataRate::CalculateBytesTxTime with the last two (rate, size) pairs remembered.
 *
 * The division behind CalculateBytesTxTime (a 128-bit int64x64_t division) costs about 600
 * instructions, and a port or a paced sender asks for the same one or two sizes (data
 * frames and acknowledgements) at the same rate again and again. The result is the value
 * CalculateBytesTxTime returns, computed once per distinct pair, so nothing changes.
 */
class TxTimeCache
{
  public:
    /// The serialization time of \p bytes at \p bps bit/s (DataRate(bps).CalculateBytesTxTime).
    Time Get(uint64_t bps, uint32_t bytes)
    {
        for (auto& e : m_entry)
        {
            if (e.valid && e.bps == bps && e.bytes == bytes)
            {
                return e.time;
            }
        }
        Entry& e = m_entry[m_victim];
        m_victim ^= 1;
        e.valid = true;
        e.bps = bps;
        e.bytes = bytes;
        e.time = DataRate(bps).CalculateBytesTxTime(bytes);
        return e.time;
    }

    /// The serialization time of \p bytes at \p rate.
    Time Get(const DataRate& rate, uint32_t bytes) { return Get(rate.GetBitRate(), bytes); }

  private:
    struct Entry
    {
        bool valid{false};
        uint64_t bps{0};
        uint32_t bytes{0};
        Time time;
    };

    Entry m_entry[2];
    uint32_t m_victim{0};
};

} // namespace ns3

#endif // TX_TIME_CACHE_H
