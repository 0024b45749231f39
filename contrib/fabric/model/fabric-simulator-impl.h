// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_SIMULATOR_IMPL_H
#define FABRIC_SIMULATOR_IMPL_H

#include "ns3/fabric-heap-scheduler.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <cstdint>
#include <list>
#include <thread>

namespace ns3
{

/**
 * \ingroup fabric
 * A sequential simulator core with the semantics of ns-3's DefaultSimulatorImpl as a user sees
 * them through Simulator:: (uids from 4, Now, Schedule/ScheduleNow/ScheduleWithContext,
 * ScheduleDestroy run in order by Destroy, Stop and Stop(delay), Run resumable after Stop,
 * Cancel, Remove, IsExpired, GetDelayLeft, GetContext, GetEventCount), so the events run in
 * the same order and a run gives the same results.
 *
 * What differs is the cost per event. When the scheduler type it is given
 * (SchedulerType, SetScheduler) is ns3::FabricHeapScheduler, it keeps the pending events in a
 * FabricEventHeap member: no virtual call, no allocation and no NS_LOG check per event. With any
 * other scheduler type (MapScheduler, CountingScheduler, ...) it drives that Scheduler object
 * through its virtual interface, as DefaultSimulatorImpl does.
 *
 * Select it with `--SimulatorImplementationType=ns3::FabricSimulatorImpl` (the project's
 * programs do by default, see FabricCli) or, in a program of your own, before the first
 * Simulator:: call:
 * \code
 *   GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
 *   GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricHeapScheduler"));
 * \endcode
 *
 * Limits: sequential and not thread-safe. Schedule, ScheduleWithContext and the others must be
 * called from the thread that runs the simulation (DefaultSimulatorImpl queues
 * ScheduleWithContext calls from other threads; this core does not). Realtime, emulation and
 * MPI runs keep their own implementations (RealtimeSimulatorImpl, DistributedSimulatorImpl,
 * NullMessageSimulatorImpl). PreEventHook is not called.
 */
class FabricSimulatorImpl : public SimulatorImpl
{
  public:
    static TypeId GetTypeId();
    FabricSimulatorImpl();
    ~FabricSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /// \return the number of events pending now (cancelled ones included until they expire).
    uint64_t GetPendingEvents() const;
    /**
     * \return the largest number of events pending at once since the last SetScheduler (which
     * starts it at the events it moves), counted as ns3::CountingScheduler counts them.
     */
    uint64_t GetPeakPendingEvents() const;
    /// \return GetPeakPendingEvents() of the last FabricSimulatorImpl disposed
    /// (Simulator::Destroy), 0 if none was.
    static uint64_t GetLastPeakPendingEvents();

  private:
    void DoDispose() override;

    /// Add an event to the pending events (the heap or the Scheduler object).
    void Insert(uint64_t ts, uint32_t uid, uint32_t context, EventImpl* event)
    {
        if (m_inline)
        {
            m_heap.Push({ts, uid, context, event});
        }
        else
        {
            InsertExternal(ts, uid, context, event);
        }
    }

    /// Insert into the Scheduler object (not the inline heap).
    void InsertExternal(uint64_t ts, uint32_t uid, uint32_t context, EventImpl* event);
    /// \return true if no event is pending.
    bool NoPendingEvent() const;
    /// Remove and return the earliest pending event.
    FabricEventHeap::Entry PopNext();

    /// Pending events when m_inline (the SchedulerType is ns3::FabricHeapScheduler).
    FabricEventHeap m_heap;
    /// Pending events otherwise.
    Ptr<Scheduler> m_events;
    /// Whether m_heap holds the pending events.
    bool m_inline{true};
    /// Events in m_events (when !m_inline).
    uint64_t m_externalPending{0};
    /// Peak of m_externalPending since the last SetScheduler.
    uint64_t m_externalPeak{0};

    /// Events for Destroy(), in the order they were scheduled.
    std::list<EventId> m_destroyEvents;
    bool m_stop{false};                           //!< Run() returns before the next event.
    uint32_t m_uid{EventId::UID::VALID};          //!< The next event's uid (0-3 are reserved).
    uint32_t m_currentUid{EventId::UID::INVALID}; //!< The running (last run) event's uid.
    uint64_t m_currentTs{0};                      //!< Now, in time steps.
    uint32_t m_currentContext;                    //!< The running (last run) event's context.
    /// The thread that created the core: scheduling from another one is a bug here (asserted
    /// in builds with NS3_ASSERT_ENABLE; DefaultSimulatorImpl queues such calls instead).
    std::thread::id m_mainThread{std::this_thread::get_id()};
    uint64_t m_eventCount{0}; //!< Events run so far.

    static uint64_t s_lastPeak; //!< GetPeakPendingEvents() of the last one disposed.
};

} // namespace ns3

#endif // FABRIC_SIMULATOR_IMPL_H
