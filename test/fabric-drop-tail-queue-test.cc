// SPDX-License-Identifier: GPL-2.0-only
// FabricDropTailQueue's counters (EnableCounters, GetCounters): enqueueCalls is derived, not
// counted per packet; it must equal the Enqueue calls made since EnableCounters whatever
// happened to the packets (queued before, dropped, dequeued, removed, flushed, MaxSize changed).
// And its FIFO against DropTailQueue<Packet>.
#include "ns3/fabric-drop-tail-queue.h"
#include "ns3/packet.h"
#include "ns3/queue-size.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace ns3;

TEST(FabricDropTailQueue, EnqueueCallsCountEveryOfferSinceEnableCounters)
{
    Ptr<FabricDropTailQueue> q = CreateObject<FabricDropTailQueue>();
    q->SetMaxSize(QueueSize("4p"));
    // Queued before counting starts: neither offered since then nor to be counted when they
    // leave.
    ASSERT_TRUE(q->Enqueue(Create<Packet>(100)));
    ASSERT_TRUE(q->Enqueue(Create<Packet>(2000)));
    EXPECT_EQ(q->GetCounters().enqueueCalls, 0u); // not counting yet
    ASSERT_TRUE(q->EnableCounters(1000));
    EXPECT_FALSE(q->EnableCounters(1000)); // once only

    uint64_t offered = 0;  // Enqueue calls since EnableCounters
    uint64_t accepted = 0; // of them, accepted
    uint64_t dequeued = 0;
    uint64_t dequeuedSmall = 0;
    uint64_t dequeuedBytes = 0;
    const auto check = [&](const std::string& after)
    {
        const FabricDropTailQueue::Counters c = q->GetCounters();
        EXPECT_EQ(c.enqueueCalls, offered) << "after " << after;
        EXPECT_EQ(c.dequeuedFrames, dequeued) << "after " << after;
        EXPECT_EQ(c.dequeuedSmallFrames, dequeuedSmall) << "after " << after;
        EXPECT_EQ(c.dequeuedBytes, dequeuedBytes) << "after " << after;
    };
    const auto enqueue = [&](uint32_t size)
    {
        ++offered;
        accepted += q->Enqueue(Create<Packet>(size)) ? 1 : 0;
        check("Enqueue(" + std::to_string(size) + ")");
    };
    const auto dequeue = [&]()
    {
        Ptr<Packet> p = q->Dequeue();
        if (p)
        {
            ++dequeued;
            dequeuedSmall += p->GetSize() <= 1000 ? 1 : 0;
            dequeuedBytes += p->GetSize();
        }
        check("Dequeue");
    };

    enqueue(300);
    enqueue(1500); // 4 queued: full
    enqueue(400);  // dropped
    enqueue(400);  // dropped
    dequeue();     // one queued before EnableCounters
    ASSERT_TRUE(q->Remove());
    check("Remove"); // the other one
    enqueue(500);
    enqueue(600);
    enqueue(700); // dropped
    q->SetMaxSize(QueueSize("6p"));
    enqueue(800);
    enqueue(900);
    enqueue(1000); // dropped at 6
    dequeue();
    dequeue();
    q->Flush();
    check("Flush");
    EXPECT_TRUE(q->IsEmpty());
    q->SetMaxSize(QueueSize("3000B"));
    enqueue(2500);
    enqueue(600); // dropped: 3100 bytes
    dequeue();
    dequeue(); // empty: nothing
    EXPECT_EQ(offered, 12u);
    EXPECT_EQ(accepted, 7u);
    EXPECT_EQ(q->GetTotalDroppedPacketsBeforeEnqueue(), offered - accepted);
}

TEST(FabricDropTailQueue, KeepsTheFifoOrderOfDropTailQueueAcrossItsRingsGrowthAndWrap)
{
    // The packets behind the head live in a ring that grows (7, 15, 31, ... slots) and wraps:
    // offered the same packets, enqueues, dequeues and removes as ns-3's DropTailQueue<Packet>,
    // it gives back the same packets in the same order, and keeps no reference after Dispose.
    Ptr<FabricDropTailQueue> fast = CreateObject<FabricDropTailQueue>();
    Ptr<DropTailQueue<Packet>> ref = CreateObject<DropTailQueue<Packet>>();
    fast->SetMaxSize(QueueSize("100p"));
    ref->SetMaxSize(QueueSize("100p"));
    uint64_t lcg = 12345;
    const auto next = [&lcg]()
    {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<uint32_t>(lcg >> 33);
    };
    uint32_t maxQueued = 0;
    uint32_t taken = 0;
    for (uint32_t step = 0; step < 20000; ++step)
    {
        // Phases that fill (up to drops at 100) and phases that drain.
        const bool filling = (step / 500) % 2 == 0;
        const uint32_t r = next() % 10;
        if (r < (filling ? 7u : 3u))
        {
            Ptr<Packet> p = Create<Packet>(100 + next() % 1400);
            EXPECT_EQ(fast->Enqueue(p), ref->Enqueue(p)) << step;
        }
        else
        {
            Ptr<Packet> a = r == 9 ? fast->Remove() : fast->Dequeue();
            Ptr<Packet> b = r == 9 ? ref->Remove() : ref->Dequeue();
            ASSERT_EQ(a, b) << step;
            taken += a ? 1 : 0;
        }
        ASSERT_EQ(fast->Peek(), ref->Peek()) << step;
        ASSERT_EQ(fast->GetNPackets(), ref->GetNPackets()) << step;
        maxQueued = std::max(maxQueued, fast->GetNPackets());
    }
    EXPECT_EQ(maxQueued, 100u); // the ring grew to 127 slots
    EXPECT_GT(taken, 5000u);
    EXPECT_EQ(fast->GetTotalDroppedPackets(), ref->GetTotalDroppedPackets());

    // Queued packets are released by Dispose (only the test's Ptr is left).
    Ptr<Packet> kept = Create<Packet>(100);
    while (fast->GetNPackets() < 20)
    {
        ASSERT_TRUE(fast->Enqueue(Create<Packet>(100)));
    }
    ASSERT_TRUE(fast->Enqueue(kept));
    EXPECT_EQ(kept->GetReferenceCount(), 2u);
    fast->Dispose();
    EXPECT_EQ(kept->GetReferenceCount(), 1u);
    EXPECT_FALSE(fast->Dequeue());
    ref->Dispose();
}
