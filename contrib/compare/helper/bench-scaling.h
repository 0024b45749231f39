// SPDX-License-Identifier: GPL-2.0-only
#ifndef BENCH_SCALING_H
#define BENCH_SCALING_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup compare
 * An event scheduler that hands everything to another scheduler (Inner, a TypeId) and counts
 * the events pending in it, with their peak: how many timers and packets a run keeps waiting.
 * The inner scheduler decides the order, so a run under it is the run under Inner.
 */
class CountingScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    CountingScheduler();
    ~CountingScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// Events pending now.
    uint64_t GetPending() const { return m_pending; }
    /// The most events pending at once since the scheduler was made.
    uint64_t GetPeakPending() const { return m_peak; }
    /// The peak of the last CountingScheduler destroyed (Simulator::Destroy disposes it).
    static uint64_t GetLastPeakPending() { return s_lastPeak; }

  private:
    /// The inner scheduler, created on first use (after the attributes are set). A raw
    /// pointer: called several times per event, where a Ptr copy costs a reference count.
    Scheduler* Inner() const
    {
        if (!m_inner)
        {
            CreateInner();
        }
        return PeekPointer(m_inner);
    }
    void CreateInner() const;
    mutable Ptr<Scheduler> m_inner;
    TypeId m_innerType;
    uint64_t m_pending{0};
    uint64_t m_peak{0};
    static uint64_t s_lastPeak;
};

/**
 * \ingroup compare
 * \return the global value SimulatorImplementationType: the simulator implementation the next
 * simulation runs on (the project's programs bind ns3::FabricSimulatorImpl, see FabricCli).
 */
std::string SimulatorImplementationName();

/**
 * \ingroup compare
 * \return the global value SchedulerType: the scheduler the next simulation uses.
 */
TypeId SchedulerTypeInUse();

/**
 * \ingroup compare
 * \return true if the global value SimulatorImplementationType names ns3::FabricSimulatorImpl
 * (the project's programs bind it by default, see FabricCli), which counts the peak of pending
 * events itself.
 */
bool UsesFabricSimulatorImpl();

/**
 * \ingroup compare
 * One point of bench-packet-rate's scaling table (its --scaling flag): a fabric of \p n GPUs
 * built, a pattern installed and simulated for \p simTime, measured alone in its process so
 * that the peak memory is this point's.
 */
struct ScalingPoint
{
    std::string fabric{"zcube"};         //!< zcube | roft
    std::string pattern{"permutation"};  //!< permutation | allreduce | ring | hd | none
    std::string transport{"udp"};        //!< udp (switch fast path, constant rate) | roce
    uint32_t n{128};                     //!< GPUs
    uint32_t k{16};                      //!< GPUs per switch / leaf
    Time simTime{MicroSeconds(50)};      //!< simulated time
    uint64_t ringChunkBytes{64 * 1024};  //!< ring: bytes per chunk (n chunks per GPU)
    uint64_t hdBytesPerHost{256 * 1024}; //!< hd: bytes per GPU (n must be a power of two)
};

/**
 * Parse "fabric:pattern:transport" (e.g. "zcube:allreduce:udp") into \p point.
 * \throws std::invalid_argument naming \p what and the valid values
 */
void ParseScalingPoint(const std::string& spec, const std::string& what, ScalingPoint& point);

/**
 * Build, install and run \p point and measure it: build wall time, memory after the build and
 * at the end (peak RSS of the process), flows, hop-level packets per wall-second, events
 * executed and the peak of pending events (FabricSimulatorImpl's count, or a CountingScheduler
 * around SchedulerType under another simulator implementation), packet
 * accounting. Patterns: permutation - every GPU sends to one (a random derangement) at line
 * rate; allreduce - every ordered pair, each GPU's line rate split over its n-1 flows; ring -
 * ring AllReduce (MakeRingAllReduce, pipelined, 64 KiB chunks; RoCE only: its steps wait for
 * completions); hd - halving-doubling AllReduce of 256 KiB per GPU (MakeHalvingDoublingAllReduce,
 * phases; RoCE only); none - only build the network. Prints one line and returns the summary.
 * \throws std::invalid_argument on a bad combination (named)
 */
nlohmann::json RunScalingPoint(const ScalingPoint& point);

/**
 * RunScalingPoint \p repeat times in this process (bench-packet-rate --scaling --repeat=N):
 * a short point is a fraction of a second of CPU, and one run of it swings with the machine.
 * Returns the first run's summary with the timed keys (build_s, install_run_s, run_wall_s,
 * run_cpu_s, hop_packets_per_s, hop_packets_per_cpu_s) replaced by the medians over the runs
 * (MedianOf), "repeat", and "runs": every run's timed keys in order. peak_rss_mib is the
 * process's at the end (the largest run's). Prints each run's line and the medians.
 * \throws std::invalid_argument if \p repeat is 0
 * \throws std::runtime_error if two runs simulated different hop packets or events (the
 *         simulation is deterministic: that would be a bug)
 */
nlohmann::json RunScalingPointRepeated(const ScalingPoint& point, uint32_t repeat);

} // namespace ns3

#endif // BENCH_SCALING_H
