// SPDX-License-Identifier: GPL-2.0-only
#include "bench-measure.h"

#include "packet-flow-compare.h"

#include "ns3/abort.h"
#include "ns3/fabric-cli.h"
#include "ns3/log.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BenchMeasure");

double
MedianOf(std::vector<double> values)
{
    if (values.empty())
    {
        throw std::invalid_argument("MedianOf: no values");
    }
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

std::optional<std::array<double, 3>>
ReadLoadAverage()
{
    std::ifstream f("/proc/loadavg");
    std::array<double, 3> load{};
    if (!(f >> load[0] >> load[1] >> load[2]))
    {
        return std::nullopt;
    }
    return load;
}

std::string
MallocHugetlbTunable(const char* tunables)
{
    // GLIBC_TUNABLES: name=value items separated by ':', the last setting of a name wins
    return LastSettingIn(tunables, ':', "glibc.malloc.hugetlb").value_or("");
}

bool
MallocOnHugePages(const char* tunables, const std::string& thpMode)
{
    const std::string value = MallocHugetlbTunable(tunables);
    return (value == "1" && (thpMode == "always" || thpMode == "madvise")) || value == "2";
}

std::string
TransparentHugePageMode()
{
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string word;
    while (f >> word)
    {
        if (word.size() > 2 && word.front() == '[' && word.back() == ']')
        {
            return word.substr(1, word.size() - 2);
        }
    }
    return "";
}

MachineLoadProbe::MachineLoadProbe()
    : m_loadStart(ReadLoadAverage()),
      m_wall0(std::chrono::steady_clock::now()),
      m_cpu0(ProcessCpuSeconds())
{
}

namespace
{

nlohmann::json
LoadJson(const std::optional<std::array<double, 3>>& load)
{
    return load ? nlohmann::json(*load) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json
MachineLoadProbe::End()
{
    m_loadEnd = ReadLoadAverage();
    m_wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wall0).count();
    m_cpuS = ProcessCpuSeconds() - m_cpu0;
    m_ended = true;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return {{"loadavg_start", LoadJson(m_loadStart)},
            {"loadavg_end", LoadJson(m_loadEnd)},
            {"wall_s", m_wallS},
            {"cpu_s", m_cpuS},
            {"cpu_per_wall", m_wallS > 0 ? m_cpuS / m_wallS : 0.0},
            {"cpus_online", cpus > 0 ? cpus : 0},
            {"malloc_hugepages",
             MallocOnHugePages(std::getenv("GLIBC_TUNABLES"), TransparentHugePageMode())},
            {"glibc_tunables",
             std::getenv("GLIBC_TUNABLES") ? nlohmann::json(std::getenv("GLIBC_TUNABLES"))
                                           : nlohmann::json(nullptr)},
            {"thp_mode", TransparentHugePageMode()}};
}

void
MachineLoadProbe::Print(std::ostream& os) const
{
    NS_ABORT_MSG_UNLESS(m_ended, "MachineLoadProbe::Print before End");
    const auto flags = os.flags();
    const auto precision = os.precision();
    auto one = [](const std::optional<std::array<double, 3>>& l)
    {
        std::ostringstream s;
        if (l)
        {
            s << std::fixed << std::setprecision(2) << (*l)[0];
        }
        else
        {
            s << "unknown";
        }
        return s.str();
    };
    os << "machine: load " << one(m_loadStart) << " at start, " << one(m_loadEnd)
       << " at end (1-min averages, " << sysconf(_SC_NPROCESSORS_ONLN) << " CPUs online); CPU "
       << std::fixed << std::setprecision(1) << m_cpuS << " s over " << m_wallS << " s wall"
       << (MallocOnHugePages(std::getenv("GLIBC_TUNABLES"), TransparentHugePageMode())
               ? "; malloc on huge pages"
               : "")
       << "\n";
    os.flags(flags);
    os.precision(precision);
}

} // namespace ns3
