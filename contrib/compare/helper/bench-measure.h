// SPDX-License-Identifier: GPL-2.0-only
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup compare
 * The median of \p values (for an even count the upper of the two middle values, the rule of
 * bench-packet-rate's alternating rounds since they were added).
 * \throws std::invalid_argument if \p values is empty
 */
double MedianOf(std::vector<double> values);

/**
 * \ingroup compare
 * The load averages of /proc/loadavg (1, 5 and 15 minutes), or nothing where the file cannot
 * be read or parsed (not Linux).
 */
std::optional<std::array<double, 3>> ReadLoadAverage();

/**
 * \ingroup compare
 * The value of glibc's `glibc.malloc.hugetlb` tunable in \p tunables, a value of the
 * environment variable GLIBC_TUNABLES (a colon-separated list of name=value, the last setting
 * of a name wins; null: unset), or "" when it is not set there.
 */
std::string MallocHugetlbTunable(const char* tunables);

/**
 * \ingroup compare
 * Whether this process's malloc backs its heap with huge pages: glibc (2.35 and later) does so
 * when GLIBC_TUNABLES, read at process start, sets `glibc.malloc.hugetlb=1` (transparent huge
 * pages through madvise, so only where the kernel's mode \p thpMode is "always" or "madvise")
 * or `=2` (hugetlbfs pages, where the system has them reserved). \p tunables is that
 * variable's value (null: unset). Large runs touch ~100 MiB of small objects per hop path;
 * with 4 KiB pages a good part of their time at 1024 GPUs goes to memory stalls
 * (doc/scaling.md).
 */
bool MallocOnHugePages(const char* tunables, const std::string& thpMode);

/**
 * \ingroup compare
 * The kernel's transparent huge page mode (the bracketed word of
 * /sys/kernel/mm/transparent_hugepage/enabled: "always", "madvise" or "never"), or "" where
 * the file cannot be read.
 */
std::string TransparentHugePageMode();

/**
 * \ingroup compare
 * What the machine was doing while a timed benchmark ran: the load averages at the start
 * (construction) and at the end (End()), and the process's CPU seconds against the wall
 * seconds in between. On a machine shared with other jobs a wall-clock rate measures the
 * neighbours as much as the code; a summary that records this says which it was.
 */
class MachineLoadProbe
{
  public:
    /// Records the load averages, the wall clock and the process's CPU time now.
    MachineLoadProbe();

    /**
     * Record the end (the load averages, wall and CPU seconds since construction) and return
     * the summary.json object: loadavg_start and loadavg_end ([1, 5, 15] minutes, null where
     * /proc/loadavg is not readable), wall_s, cpu_s, cpu_per_wall, cpus_online, and the
     * memory set-up: malloc_hugepages (MallocOnHugePages of this process's GLIBC_TUNABLES and
     * the kernel's mode), glibc_tunables (the variable, null when unset) and thp_mode
     * (TransparentHugePageMode).
     */
    nlohmann::json End();

    /// One line: "machine: load 0.12 at start, 0.80 at end (1-min averages, 2 CPUs); CPU
    /// 10.1 s over 10.3 s wall", then "; malloc on huge pages" when it is. End() must have
    /// been called.
    void Print(std::ostream& os) const;

  private:
    std::optional<std::array<double, 3>> m_loadStart;
    std::optional<std::array<double, 3>> m_loadEnd;
    std::chrono::steady_clock::time_point m_wall0;
    double m_cpu0;
    double m_wallS{0};
    double m_cpuS{0};
    bool m_ended{false};
};

} // namespace ns3

#endif // BENCH_MEASURE_H
