// SPDX-License-Identifier: GPL-2.0-only
// The fabric's event core (issue #12): FabricHeapScheduler pops events in MapScheduler's order
// (same uids, same timestamps) on random sequences with many equal timestamps, and
// FabricSimulatorImpl shows DefaultSimulatorImpl's semantics through Simulator:: (same-time
// order, Cancel, Remove, IsExpired, GetDelayLeft, ScheduleNow, ScheduleDestroy, Stop(delay),
// Run after Stop, GetEventCount, contexts, uids), each checked under both implementations and
// with the fabric core driving a MapScheduler through its virtual interface.
#include "ns3/fabric-heap-scheduler.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/map-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// A distinct, never dereferenced event pointer per uid (schedulers only store it).
EventImpl*
FakeImpl(uint32_t uid)
{
    return reinterpret_cast<EventImpl*>(static_cast<uintptr_t>(uid) * 16 + 16);
}

Scheduler::Event
MakeEv(uint64_t ts, uint32_t uid, uint32_t context)
{
    Scheduler::Event ev;
    ev.impl = FakeImpl(uid);
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = context;
    return ev;
}

void
ExpectSameEvent(const Scheduler::Event& a, const Scheduler::Event& b, int step)
{
    EXPECT_EQ(a.key.m_ts, b.key.m_ts) << "step " << step;
    EXPECT_EQ(a.key.m_uid, b.key.m_uid) << "step " << step;
    EXPECT_EQ(a.key.m_context, b.key.m_context) << "step " << step;
    EXPECT_EQ(a.impl, b.impl) << "step " << step;
}

/// Random inserts, removes of pending events and RemoveNext on both schedulers; timestamps
/// from [now, now + span) so that many are equal (the uid decides their order). With
/// \p fixedDelays > 0, four inserts in five use one of that many fixed delays instead, as a
/// packet simulation's transmissions and arrivals do (FabricEventHeap's lanes).
/// \return the number of inserts (GetLanePushes of the heap in \p lanePushes)
uint64_t
CompareWithMap(uint32_t seed,
               uint64_t span,
               int steps,
               uint32_t fixedDelays = 0,
               uint64_t* lanePushes = nullptr)
{
    std::mt19937_64 rng(seed);
    Ptr<Scheduler> map = CreateObject<MapScheduler>();
    Ptr<FabricHeapScheduler> heap = CreateObject<FabricHeapScheduler>();
    std::vector<Scheduler::Event> pending; // unordered
    uint32_t uid = 4;
    uint64_t now = 0;
    uint64_t popped = 0;
    uint64_t removed = 0;
    uint64_t peak = 0;
    uint64_t inserts = 0;
    for (int step = 0; step < steps; ++step)
    {
        const uint32_t op = rng() % 10;
        if (op < 5 || pending.empty())
        {
            const uint64_t delay
                = fixedDelays > 0 && rng() % 5 != 0 ? 7 * (1 + rng() % fixedDelays) : rng() % span;
            const Scheduler::Event ev = MakeEv(now + delay, uid++, rng() % 7);
            map->Insert(ev);
            heap->Insert(ev);
            pending.push_back(ev);
            ++inserts;
            peak = std::max<uint64_t>(peak, pending.size());
        }
        else if (op < 8)
        {
            ExpectSameEvent(map->PeekNext(), heap->PeekNext(), step);
            const Scheduler::Event a = map->RemoveNext();
            const Scheduler::Event b = heap->RemoveNext();
            ExpectSameEvent(a, b, step);
            now = a.key.m_ts;
            for (size_t i = 0; i < pending.size(); ++i)
            {
                if (pending[i].key.m_uid == a.key.m_uid)
                {
                    pending[i] = pending.back();
                    pending.pop_back();
                    break;
                }
            }
            ++popped;
        }
        else
        {
            const size_t i = rng() % pending.size();
            map->Remove(pending[i]);
            heap->Remove(pending[i]);
            pending[i] = pending.back();
            pending.pop_back();
            ++removed;
        }
        EXPECT_EQ(map->IsEmpty(), heap->IsEmpty()) << "step " << step;
    }
    int step = steps;
    while (!map->IsEmpty())
    {
        EXPECT_FALSE(heap->IsEmpty());
        ExpectSameEvent(map->RemoveNext(), heap->RemoveNext(), step++);
        ++popped;
    }
    EXPECT_TRUE(heap->IsEmpty());
    EXPECT_GT(popped, uint64_t(steps) / 4);
    EXPECT_GT(removed, uint64_t(steps) / 20);
    EXPECT_EQ(heap->GetPeakPending(), peak);
    if (lanePushes)
    {
        *lanePushes = heap->GetLanePushes();
    }
    return inserts;
}

} // namespace

TEST(FabricHeapScheduler, SameOrderAsMapSchedulerWithEqualTimestamps)
{
    // span 1: every timestamp equal to now (ScheduleNow-like); 3: mostly ties; 1000: few.
    for (uint64_t span : {1, 3, 1000})
    {
        for (uint32_t seed = 1; seed <= 5; ++seed)
        {
            CompareWithMap(seed, span, 4000);
        }
    }
}

TEST(FabricHeapScheduler, SameOrderAsMapSchedulerWithFewDelays)
{
    // Most events with one of a few delays: fewer delays than lanes, as many, and more (the
    // lanes change hands when they empty; the rest go to the heap).
    for (uint32_t delays : {1, 3, 6, 20})
    {
        uint64_t inserts = 0;
        uint64_t lanePushes = 0;
        for (uint32_t seed = 1; seed <= 5; ++seed)
        {
            uint64_t pushes = 0;
            inserts += CompareWithMap(seed, 50, 6000, delays, &pushes);
            lanePushes += pushes;
        }
        std::cout << delays << " delays: " << lanePushes << " of " << inserts
                  << " inserts went to a lane\n";
        if (delays <= 6)
        {
            // Four inserts in five have one of at most six delays: the lanes take most
            // (the order above would hold even if they took none).
            EXPECT_GT(lanePushes, inserts / 2) << delays << " delays";
        }
    }
}

TEST(FabricHeapScheduler, LaneGrowsAndErasesAcrossItsWrapPoint)
{
    // One delay (10 steps) only, so every event waits in one lane; the lane's ring (64 entries
    // at first) wraps once 30 were taken out, then an entry before and one after the wrap
    // point are removed and the ring grows while wrapped. Popped in MapScheduler's order.
    Ptr<Scheduler> map = CreateObject<MapScheduler>();
    Ptr<FabricHeapScheduler> heap = CreateObject<FabricHeapScheduler>();
    uint32_t uid = 4;
    uint64_t inserts = 0;
    std::vector<Scheduler::Event> evs;
    auto insert = [&](uint64_t ts)
    {
        evs.push_back(MakeEv(ts, uid, uid % 3));
        ++uid;
        map->Insert(evs.back());
        heap->Insert(evs.back());
        ++inserts;
    };
    int step = 0;
    auto popBoth = [&]()
    {
        ExpectSameEvent(map->PeekNext(), heap->PeekNext(), step);
        ExpectSameEvent(map->RemoveNext(), heap->RemoveNext(), step);
        ++step;
    };
    for (int i = 0; i < 40; ++i)
    {
        insert(10); // now 0, delay 10
    }
    for (int i = 0; i < 30; ++i)
    {
        popBoth(); // now 10; the lane's head at slot 30
    }
    for (int i = 0; i < 40; ++i)
    {
        insert(20); // now 10, delay 10: slots 40..63, then 0..15
    }
    // Logical positions 5 (slot 35) and 40 (slot 6): entries behind each shift across the
    // wrap point.
    const Scheduler::Event before = evs[35];
    const Scheduler::Event after = evs[70];
    ASSERT_EQ(before.key.m_ts, 10u);
    ASSERT_EQ(after.key.m_ts, 20u);
    for (const Scheduler::Event& ev : {before, after})
    {
        map->Remove(ev);
        heap->Remove(ev);
        ExpectSameEvent(map->PeekNext(), heap->PeekNext(), step);
    }
    for (int i = 0; i < 60; ++i)
    {
        insert(20); // 48 pending: the ring grows at 64, its head still at slot 30
    }
    EXPECT_EQ(heap->GetLanePushes(), inserts);
    while (!map->IsEmpty())
    {
        ASSERT_FALSE(heap->IsEmpty());
        popBoth();
    }
    EXPECT_TRUE(heap->IsEmpty());
    EXPECT_EQ(step, 30 + 108);
}

TEST(FabricHeapScheduler, RemoveAnywhereKeepsTheHeapOrdered)
{
    // Remove every pending event in a random order, checking the order of what is left.
    for (uint32_t seed = 1; seed <= 20; ++seed)
    {
        std::mt19937_64 rng(seed);
        Ptr<Scheduler> map = CreateObject<MapScheduler>();
        Ptr<FabricHeapScheduler> heap = CreateObject<FabricHeapScheduler>();
        std::vector<Scheduler::Event> evs;
        for (uint32_t uid = 4; uid < 300; ++uid)
        {
            evs.push_back(MakeEv(rng() % 20, uid, 0));
            map->Insert(evs.back());
            heap->Insert(evs.back());
        }
        std::shuffle(evs.begin(), evs.end(), rng);
        for (size_t i = 0; i + 1 < evs.size(); ++i)
        {
            map->Remove(evs[i]);
            heap->Remove(evs[i]);
            ExpectSameEvent(map->PeekNext(), heap->PeekNext(), static_cast<int>(i));
        }
    }
}

TEST(FabricHeapScheduler, RemovingAnUnknownEventIsFatal)
{
    Ptr<FabricHeapScheduler> heap = CreateObject<FabricHeapScheduler>();
    heap->Insert(MakeEv(5, 4, 0));
    EXPECT_DEATH(heap->Remove(MakeEv(5, 9, 0)), "no pending event with uid 9");
}

namespace
{

/// (SimulatorImplementationType, SchedulerType)
using Core = std::tuple<std::string, std::string>;

/// Every test runs under each core; the simulator is destroyed and the defaults restored
/// around it.
class SimulatorCore : public ::testing::TestWithParam<Core>
{
  protected:
    void SetUp() override
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue(std::get<0>(GetParam())));
        GlobalValue::Bind("SchedulerType",
                          TypeIdValue(TypeId::LookupByName(std::get<1>(GetParam()))));
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName("ns3::MapScheduler")));
    }

  public:
    /// Append "name@time/context" to the log (public: events name it as &SimulatorCore::Mark).
    void Mark(const std::string& name)
    {
        std::ostringstream s;
        s << name << "@" << Simulator::Now().GetNanoSeconds() << "/";
        if (Simulator::GetContext() == Simulator::NO_CONTEXT)
        {
            s << "none";
        }
        else
        {
            s << Simulator::GetContext();
        }
        m_log.push_back(s.str());
    }

    std::vector<std::string> m_log;
};

std::string
Joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : " ") + x;
    }
    return s;
}

} // namespace

TEST_P(SimulatorCore, TheImplementationAskedForRuns)
{
    Simulator::Now(); // creates the implementation
    EXPECT_EQ(Simulator::GetImplementation()->GetInstanceTypeId().GetName(),
              std::get<0>(GetParam()));
    EXPECT_EQ(Simulator::GetSystemId(), 0u);
    EXPECT_EQ(Simulator::GetMaximumSimulationTime(), TimeStep(0x7fffffffffffffffLL));
    EXPECT_EQ(Simulator::GetContext(), Simulator::NO_CONTEXT);
    EXPECT_EQ(Simulator::Now(), Time(0));
    EXPECT_TRUE(Simulator::IsFinished());
}

TEST_P(SimulatorCore, SameTimeEventsRunInSchedulingOrder)
{
    // Equal timestamps run in uid order: scheduled first, run first; ScheduleNow events run
    // after the current event and before later ones, also in order.
    for (const char* n : {"a", "b", "c"})
    {
        Simulator::Schedule(MicroSeconds(1), &SimulatorCore::Mark, this, std::string(n));
    }
    Simulator::Schedule(MicroSeconds(1),
                        [this]()
                        {
                            Mark("d");
                            Simulator::ScheduleNow(&SimulatorCore::Mark, this, std::string("d1"));
                            Simulator::Schedule(
                                Time(0), &SimulatorCore::Mark, this, std::string("d2"));
                            Simulator::ScheduleNow(&SimulatorCore::Mark, this, std::string("d3"));
                        });
    Simulator::Schedule(MicroSeconds(1), &SimulatorCore::Mark, this, std::string("e"));
    Simulator::Schedule(NanoSeconds(999), &SimulatorCore::Mark, this, std::string("early"));
    Simulator::Run();
    EXPECT_EQ(Joined(m_log),
              "early@999/none a@1000/none b@1000/none c@1000/none d@1000/none e@1000/none "
              "d1@1000/none d2@1000/none d3@1000/none");
    EXPECT_EQ(Simulator::GetEventCount(), 9u);
}

TEST_P(SimulatorCore, UidsCountFromFourAndDestroyEventsTakeOne)
{
    const EventId a = Simulator::Schedule(Seconds(1), &SimulatorCore::Mark, this, std::string("a"));
    const EventId b = Simulator::ScheduleNow(&SimulatorCore::Mark, this, std::string("b"));
    const EventId d = Simulator::ScheduleDestroy(&SimulatorCore::Mark, this, std::string("d"));
    const EventId c = Simulator::Schedule(Seconds(2), &SimulatorCore::Mark, this, std::string("c"));
    EXPECT_EQ(a.GetUid(), uint32_t(EventId::UID::VALID));
    EXPECT_EQ(b.GetUid(), a.GetUid() + 1);
    EXPECT_EQ(d.GetUid(), uint32_t(EventId::UID::DESTROY));
    EXPECT_EQ(c.GetUid(), a.GetUid() + 3); // the destroy event consumed one
    EXPECT_EQ(a.GetTs(), uint64_t(Seconds(1).GetTimeStep()));
    EXPECT_EQ(d.GetContext(), 0xffffffffu);
}

TEST_P(SimulatorCore, CancelAndRemove)
{
    const EventId a
        = Simulator::Schedule(MicroSeconds(1), &SimulatorCore::Mark, this, std::string("a"));
    const EventId b
        = Simulator::Schedule(MicroSeconds(2), &SimulatorCore::Mark, this, std::string("b"));
    const EventId c
        = Simulator::Schedule(MicroSeconds(3), &SimulatorCore::Mark, this, std::string("c"));
    EXPECT_FALSE(Simulator::IsExpired(a));
    EXPECT_TRUE(a.IsRunning());
    Simulator::Cancel(b);
    EXPECT_TRUE(Simulator::IsExpired(b));
    EXPECT_TRUE(b.IsExpired());
    Simulator::Remove(c);
    EXPECT_TRUE(Simulator::IsExpired(c));
    Simulator::Remove(c); // twice: nothing happens
    Simulator::Cancel(c);
    Simulator::Remove(b); // a cancelled event: nothing happens
    // A running event removes a later one at its own time.
    EventId late;
    Simulator::Schedule(MicroSeconds(5),
                        [this, &late]()
                        {
                            Mark("x");
                            Simulator::Remove(late);
                        });
    late = Simulator::Schedule(MicroSeconds(5), &SimulatorCore::Mark, this, std::string("late"));
    Simulator::Run();
    EXPECT_EQ(Joined(m_log), "a@1000/none x@5000/none");
    // The cancelled event ran as an event that does nothing; removed ones did not run.
    EXPECT_EQ(Simulator::GetEventCount(), 3u);
    EXPECT_TRUE(Simulator::IsExpired(a));
    EXPECT_TRUE(Simulator::IsExpired(late));
    EXPECT_TRUE(Simulator::IsExpired(EventId()));
}

TEST_P(SimulatorCore, IsExpiredAndDelayLeftDuringTheRun)
{
    EventId self;
    EventId sameTimeLater;
    EventId future;
    self = Simulator::Schedule(MicroSeconds(2),
                               [&]()
                               {
                                   Mark("self");
                                   // The running event has expired; a later uid at the same
                                   // time has not; nor has a future one.
                                   EXPECT_TRUE(Simulator::IsExpired(self));
                                   EXPECT_FALSE(Simulator::IsExpired(sameTimeLater));
                                   EXPECT_FALSE(Simulator::IsExpired(future));
                                   EXPECT_EQ(Simulator::GetDelayLeft(self), Time(0));
                                   EXPECT_EQ(Simulator::GetDelayLeft(sameTimeLater), Time(0));
                                   EXPECT_EQ(Simulator::GetDelayLeft(future), MicroSeconds(5));
                               });
    sameTimeLater
        = Simulator::Schedule(MicroSeconds(2), &SimulatorCore::Mark, this, std::string("s"));
    future = Simulator::Schedule(MicroSeconds(7), &SimulatorCore::Mark, this, std::string("f"));
    EXPECT_EQ(Simulator::GetDelayLeft(future), MicroSeconds(7));
    Simulator::Run();
    EXPECT_EQ(Joined(m_log), "self@2000/none s@2000/none f@7000/none");
    EXPECT_EQ(Simulator::GetDelayLeft(future), Time(0));
}

TEST_P(SimulatorCore, ContextsOfEvents)
{
    Simulator::ScheduleWithContext(
        7,
        MicroSeconds(1),
        [this]()
        {
            Mark("ctx");
            // Schedule and ScheduleNow inherit the context.
            Simulator::Schedule(
                MicroSeconds(1), &SimulatorCore::Mark, this, std::string("inherit"));
            Simulator::ScheduleNow(&SimulatorCore::Mark, this, std::string("now"));
            Simulator::ScheduleWithContext(
                3, Time(0), &SimulatorCore::Mark, this, std::string("other"));
        });
    Simulator::Schedule(MicroSeconds(3), &SimulatorCore::Mark, this, std::string("plain"));
    Simulator::Run();
    EXPECT_EQ(Joined(m_log), "ctx@1000/7 now@1000/7 other@1000/3 inherit@2000/7 plain@3000/none");
    // After the run, the context is the last event's.
    EXPECT_EQ(Simulator::GetContext(), Simulator::NO_CONTEXT);
}

TEST_P(SimulatorCore, StopAfterADelayAndRunAgain)
{
    for (int us : {1, 2, 3, 4, 5})
    {
        Simulator::Schedule(MicroSeconds(us), &SimulatorCore::Mark, this, "t" + std::to_string(us));
    }
    Simulator::Stop(MicroSeconds(3)); // an event after t3 (scheduled later, same time)
    Simulator::Run();
    EXPECT_EQ(Joined(m_log), "t1@1000/none t2@2000/none t3@3000/none");
    EXPECT_EQ(Simulator::Now(), MicroSeconds(3));
    // As in DefaultSimulatorImpl, IsFinished says true while the stop flag is set (until the
    // next Run), although events are pending.
    EXPECT_TRUE(Simulator::IsFinished());
    EXPECT_EQ(Simulator::GetEventCount(), 4u); // the stop event counts
    Simulator::Schedule(Time(0), &SimulatorCore::Mark, this, std::string("resume"));
    Simulator::Run(); // continues where it stopped
    EXPECT_EQ(Joined(m_log),
              "t1@1000/none t2@2000/none t3@3000/none resume@3000/none t4@4000/none "
              "t5@5000/none");
    EXPECT_TRUE(Simulator::IsFinished());
    // Stop() from an event ends the run after that event.
    Simulator::Schedule(MicroSeconds(1),
                        [this]()
                        {
                            Mark("stop");
                            Simulator::Stop();
                        });
    Simulator::Schedule(MicroSeconds(1), &SimulatorCore::Mark, this, std::string("after"));
    Simulator::Run();
    EXPECT_EQ(m_log.back(), "stop@6000/none");
    Simulator::Run();
    EXPECT_EQ(m_log.back(), "after@6000/none");
}

TEST_P(SimulatorCore, DestroyEventsRunInOrder)
{
    Simulator::ScheduleDestroy(&SimulatorCore::Mark, this, std::string("d1"));
    const EventId removed
        = Simulator::ScheduleDestroy(&SimulatorCore::Mark, this, std::string("gone"));
    const EventId cancelled
        = Simulator::ScheduleDestroy(&SimulatorCore::Mark, this, std::string("cancelled"));
    Simulator::ScheduleDestroy(
        [this]()
        {
            Mark("d2");
            // Scheduled during Destroy: a destroy event runs, an ordinary one never does.
            Simulator::ScheduleDestroy(&SimulatorCore::Mark, this, std::string("d3"));
            Simulator::Schedule(Seconds(1), &SimulatorCore::Mark, this, std::string("never"));
        });
    Simulator::Schedule(MicroSeconds(4), &SimulatorCore::Mark, this, std::string("run"));
    EXPECT_FALSE(Simulator::IsExpired(removed));
    Simulator::Remove(removed);
    EXPECT_TRUE(Simulator::IsExpired(removed));
    Simulator::Cancel(cancelled);
    EXPECT_TRUE(Simulator::IsExpired(cancelled));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(Joined(m_log), "run@4000/none d1@4000/none d2@4000/none d3@4000/none");
}

TEST_P(SimulatorCore, ChangingTheSchedulerKeepsThePendingEvents)
{
    for (int i = 0; i < 20; ++i)
    {
        Simulator::Schedule(
            NanoSeconds(i % 4), &SimulatorCore::Mark, this, "e" + std::to_string(i));
    }
    const EventId r
        = Simulator::Schedule(NanoSeconds(2), &SimulatorCore::Mark, this, std::string("r"));
    ObjectFactory f;
    for (const char* s : {"ns3::MapScheduler",
                          "ns3::FabricHeapScheduler",
                          "ns3::HeapScheduler",
                          "ns3::FabricHeapScheduler"})
    {
        f.SetTypeId(s);
        Simulator::SetScheduler(f);
    }
    Simulator::Remove(r);
    Simulator::Run();
    std::vector<std::string> want;
    for (int t = 0; t < 4; ++t)
    {
        for (int i = t; i < 20; i += 4)
        {
            want.push_back("e" + std::to_string(i) + "@" + std::to_string(t) + "/none");
        }
    }
    EXPECT_EQ(Joined(m_log), Joined(want));
}

// A scheduler changed by a running event: the events still pending (at the same time and
// later) keep their order, under each core.
TEST_P(SimulatorCore, ChangingTheSchedulerFromARunningEvent)
{
    for (int i = 0; i < 12; ++i)
    {
        Simulator::Schedule(
            NanoSeconds(1 + i % 3), &SimulatorCore::Mark, this, "e" + std::to_string(i));
    }
    Simulator::Schedule(NanoSeconds(1),
                        [this]()
                        {
                            Mark("switch");
                            Simulator::ScheduleNow(&SimulatorCore::Mark, this, std::string("now"));
                            ObjectFactory f;
                            f.SetTypeId("ns3::MapScheduler");
                            Simulator::SetScheduler(f);
                            f.SetTypeId("ns3::FabricHeapScheduler");
                            Simulator::SetScheduler(f);
                        });
    Simulator::Run();
    std::vector<std::string> want;
    for (int t = 1; t <= 3; ++t)
    {
        for (int i = t - 1; i < 12; i += 3)
        {
            want.push_back("e" + std::to_string(i) + "@" + std::to_string(t) + "/none");
        }
        if (t == 1)
        {
            want.push_back("switch@1/none");
            want.push_back("now@1/none");
        }
    }
    EXPECT_EQ(Joined(m_log), Joined(want));
}

// What pending, cancelled and removed events hold is released: by the run for the events that
// ran, by Simulator::Destroy for those still pending, at once for a removed one.
TEST_P(SimulatorCore, EventsReleaseWhatTheyHold)
{
    Ptr<Packet> ran = Create<Packet>(1);
    Ptr<Packet> pending = Create<Packet>(1);
    Ptr<Packet> cancelled = Create<Packet>(1);
    Ptr<Packet> removed = Create<Packet>(1);
    Ptr<Packet> destroy = Create<Packet>(1);
    Simulator::Schedule(NanoSeconds(1), [ran]() { ran->GetSize(); });
    Simulator::Schedule(NanoSeconds(5), [pending]() { pending->GetSize(); });
    EventId c = Simulator::Schedule(NanoSeconds(2), [cancelled]() { cancelled->GetSize(); });
    EventId r = Simulator::Schedule(NanoSeconds(2), [removed]() { removed->GetSize(); });
    Simulator::ScheduleDestroy([destroy]() { destroy->GetSize(); });
    Simulator::Schedule(NanoSeconds(3), &Simulator::Stop);
    Simulator::Cancel(c);
    Simulator::Remove(r);
    EXPECT_EQ(removed->GetReferenceCount(), 2u); // the EventId still holds the event
    c = EventId();
    r = EventId();
    EXPECT_EQ(removed->GetReferenceCount(), 1u); // the core holds nothing of it
    Simulator::Run();
    EXPECT_EQ(ran->GetReferenceCount(), 1u);
    EXPECT_EQ(cancelled->GetReferenceCount(), 1u); // popped (not run) at 2 ns
    EXPECT_EQ(pending->GetReferenceCount(), 2u);   // still pending after Stop at 3 ns
    EXPECT_EQ(destroy->GetReferenceCount(), 2u);
    Simulator::Destroy();
    EXPECT_EQ(pending->GetReferenceCount(), 1u);
    EXPECT_EQ(destroy->GetReferenceCount(), 1u);
}

namespace
{
/// Schedules an event when it is destroyed (as a DoDispose may): held by a pending event, it
/// schedules while the core releases its pending events.
struct ScheduleOnRelease
{
    Ptr<Packet> held; //!< Held by the event it schedules.

    ~ScheduleOnRelease()
    {
        Simulator::Schedule(NanoSeconds(1), [p = held]() { p->GetSize(); });
    }
};
} // namespace

// Events scheduled while Simulator::Destroy releases the pending ones (100 of them, enough to
// grow the core's storage) are released too.
TEST_P(SimulatorCore, EventsScheduledWhileReleasingAreReleased)
{
    Ptr<Packet> held = Create<Packet>(1);
    for (int i = 0; i < 100; ++i)
    {
        auto r = std::make_shared<ScheduleOnRelease>();
        r->held = held;
        Simulator::Schedule(NanoSeconds(10 + i % 7), [r]() { r->held->GetSize(); });
    }
    Simulator::Stop(NanoSeconds(5));
    Simulator::Run();
    EXPECT_EQ(held->GetReferenceCount(), 101u);
    Simulator::Destroy();
    EXPECT_EQ(held->GetReferenceCount(), 1u);
}

TEST_P(SimulatorCore, RandomScenarioGivesTheDefaultCoresLog)
{
    // Events that schedule, cancel and remove others at random (from a seeded stream): the
    // log must equal the one DefaultSimulatorImpl with MapScheduler writes.
    auto run = [this]()
    {
        m_log.clear();
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(11);
        std::vector<EventId> ids;
        std::function<void(uint32_t)> ev = [&](uint32_t n)
        {
            Mark("n" + std::to_string(n) + "c" + std::to_string(Simulator::GetEventCount()));
            const uint32_t k = u->GetInteger(0, 3);
            for (uint32_t i = 0; i < k && ids.size() < 3000; ++i)
            {
                const uint32_t what = u->GetInteger(0, 9);
                const uint32_t id = static_cast<uint32_t>(ids.size());
                if (what < 6)
                {
                    ids.push_back(Simulator::Schedule(NanoSeconds(u->GetInteger(0, 3)),
                                                      [&ev, id]() { ev(id); }));
                }
                else if (what == 6)
                {
                    ids.push_back(Simulator::ScheduleNow([&ev, id]() { ev(id); }));
                }
                else if (what == 7)
                {
                    const uint32_t context = u->GetInteger(0, 5);
                    Simulator::ScheduleWithContext(
                        context, NanoSeconds(u->GetInteger(0, 2)), [&ev, id]() { ev(id); });
                    ids.push_back(EventId()); // no id to cancel: Cancel/Remove ignore it
                }
                else if (!ids.empty())
                {
                    EventId victim = ids[u->GetInteger(0, ids.size() - 1)];
                    if (what == 8)
                    {
                        Simulator::Cancel(victim);
                    }
                    else
                    {
                        Simulator::Remove(victim);
                    }
                }
            }
        };
        for (uint32_t i = 0; i < 8; ++i)
        {
            ids.push_back(Simulator::Schedule(NanoSeconds(i % 3), [&ev, i]() { ev(i); }));
        }
        Simulator::Run();
        return std::make_pair(m_log, Simulator::GetEventCount());
    };
    const auto got = run();
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName("ns3::MapScheduler")));
    RngSeedManager::SetRun(1);
    const auto want = run();
    ASSERT_GT(want.first.size(), 500u);
    EXPECT_EQ(got.second, want.second);
    EXPECT_EQ(got.first, want.first);
}

INSTANTIATE_TEST_SUITE_P(
    Cores,
    SimulatorCore,
    ::testing::Values(Core{"ns3::DefaultSimulatorImpl", "ns3::MapScheduler"},
                      Core{"ns3::FabricSimulatorImpl", "ns3::FabricHeapScheduler"},
                      Core{"ns3::FabricSimulatorImpl", "ns3::MapScheduler"},
                      Core{"ns3::DefaultSimulatorImpl", "ns3::FabricHeapScheduler"}),
    [](const ::testing::TestParamInfo<Core>& info)
    {
        std::string a = std::get<0>(info.param).substr(5);
        std::string b = std::get<1>(info.param).substr(5);
        return a + "_" + b;
    });

TEST(FabricSimulatorImpl, CountsThePeakOfPendingEvents)
{
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    for (const char* sched : {"ns3::FabricHeapScheduler", "ns3::MapScheduler"})
    {
        GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName(sched)));
        for (int i = 0; i < 10; ++i)
        {
            Simulator::Schedule(MicroSeconds(i), []() {});
        }
        const EventId r = Simulator::Schedule(MicroSeconds(3), []() {});
        Simulator::Schedule(MicroSeconds(20),
                            []()
                            {
                                for (int i = 0; i < 4; ++i)
                                {
                                    Simulator::Schedule(MicroSeconds(1), []() {});
                                }
                            });
        Ptr<FabricSimulatorImpl> impl
            = DynamicCast<FabricSimulatorImpl>(Simulator::GetImplementation());
        ASSERT_TRUE(impl);
        EXPECT_EQ(impl->GetPendingEvents(), 12u);
        Simulator::Remove(r);
        EXPECT_EQ(impl->GetPendingEvents(), 11u);
        Simulator::Run();
        EXPECT_EQ(impl->GetPendingEvents(), 0u);
        EXPECT_EQ(impl->GetPeakPendingEvents(), 12u) << sched;
        impl = nullptr;
        Simulator::Destroy();
        EXPECT_EQ(FabricSimulatorImpl::GetLastPeakPendingEvents(), 12u) << sched;
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName("ns3::MapScheduler")));
}
