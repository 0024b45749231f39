// SPDX-License-Identifier: GPL-2.0-only
// FabricHopCounter::HopTable: the switches crossed per packet uid, exactly as a plain map
// would count them, whatever the uids and however often they share a slot.
#include "ns3/fabric-hop-counter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>

using namespace ns3;

TEST(HopTable, SameAsAMapWithCollisionsAndPacketsNeverTaken)
{
    // 4 slots for up to 40 packets in flight: most share a slot with another. Some packets
    // are never taken (dropped on the way) and keep their count.
    FabricHopCounter::HopTable table(2);
    std::map<uint64_t, uint32_t> ref;
    std::mt19937_64 rng(7);
    uint64_t nextUid = 0;
    for (int step = 0; step < 20000; ++step)
    {
        const uint32_t action = rng() % 3;
        if (action == 0 || ref.empty())
        {
            const uint64_t uid = nextUid++ * (1 + rng() % 3); // uids with gaps, some equal mod 4
            if (ref.count(uid) == 0 && ref.size() < 40)
            {
                table.Count(uid);
                ref[uid] = 1;
            }
            continue;
        }
        auto it = ref.begin();
        std::advance(it, rng() % ref.size());
        if (action == 1)
        {
            table.Count(it->first);
            ++it->second;
            continue;
        }
        uint32_t hops = 0;
        ASSERT_TRUE(table.Take(it->first, hops));
        EXPECT_EQ(hops, it->second);
        uint32_t again = 0;
        EXPECT_FALSE(table.Take(it->first, again)); // taken once only
        ref.erase(it);
    }
    EXPECT_EQ(table.GetSize(), ref.size());
    for (const auto& [uid, hops] : ref)
    {
        uint32_t got = 0;
        ASSERT_TRUE(table.Take(uid, got));
        EXPECT_EQ(got, hops);
    }
    EXPECT_EQ(table.GetSize(), 0u);
}

TEST(HopTable, UnknownUidAndBadSize)
{
    FabricHopCounter::HopTable table(4);
    uint32_t hops = 99;
    EXPECT_FALSE(table.Take(0, hops));
    table.Count(0);  // uid 0 is a valid uid
    table.Count(16); // the same slot as uid 0
    table.Count(0);
    ASSERT_TRUE(table.Take(0, hops));
    EXPECT_EQ(hops, 2u);
    ASSERT_TRUE(table.Take(16, hops));
    EXPECT_EQ(hops, 1u);
    EXPECT_THROW(FabricHopCounter::HopTable(31), std::invalid_argument);
}
