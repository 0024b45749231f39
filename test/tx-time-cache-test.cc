// SPDX-License-Identifier: GPL-2.0-only
// TxTimeCache: the serialization time DataRate::CalculateBytesTxTime gives, for any sequence of
// (rate, size) questions, whatever it remembers.
#include "ns3/data-rate.h"
#include "ns3/tx-time-cache.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

template<std::size_t N>
void
ExpectSameAsDataRateForEverySequence()
{
    TxTimeCache<N> cache;
    const std::vector<uint64_t> rates = {400000000000ULL, 100000000000ULL, 38123456789ULL, 1};
    // Repeats (hits), alternations of two (both remembered) and runs of three sizes in turn
    // (each one evicts the oldest): every answer must equal DataRate's.
    const std::vector<uint32_t> sizes = {4136, 62, 4136, 4136, 62, 1, 0, 9000, 62, 4136};
    for (int round = 0; round < 3; ++round)
    {
        for (uint64_t bps : rates)
        {
            for (uint32_t bytes : sizes)
            {
                EXPECT_EQ(cache.Get(bps, bytes), DataRate(bps).CalculateBytesTxTime(bytes))
                    << bps << " bit/s, " << bytes << " bytes";
                EXPECT_EQ(cache.Get(DataRate(bps), bytes),
                          DataRate(bps).CalculateBytesTxTime(bytes));
            }
        }
    }
}

} // namespace

TEST(TxTimeCache, SameAsDataRateForEverySequence)
{
    ExpectSameAsDataRateForEverySequence<2>();
    ExpectSameAsDataRateForEverySequence<1>(); // the queue pair's pacing gap
}

TEST(TxTimeCache, RateChangeIsNotServedFromTheOldRate)
{
    TxTimeCache<> cache;
    const Time fast = cache.Get(400000000000ULL, 4136);
    const Time slow = cache.Get(399999999999ULL, 4136); // 1 bit/s less: a DCQCN step
    EXPECT_EQ(slow, DataRate(399999999999ULL).CalculateBytesTxTime(4136));
    EXPECT_GE(slow, fast);
    EXPECT_EQ(cache.Get(400000000000ULL, 4136), fast);
}
