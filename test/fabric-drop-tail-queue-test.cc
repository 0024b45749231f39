// SPDX-License-Identifier: GPL-2.0-only
// FabricDropTailQueue's counters (EnableCounters, GetCounters): enqueueCalls is derived, not
// counted per packet; it must equal the Enqueue calls made since EnableCounters whatever
// happened to the packets (queued before, dropped, dequeued, removed, flushed, MaxSize changed).
#include "ns3/fabric-drop-tail-queue.h"
#include "ns3/packet.h"
#include "ns3/queue-size.h"

#include <gtest/gtest.h>

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
