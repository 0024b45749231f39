// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-checks.h"

#include "ns3/fabric-warning.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChecks");

namespace
{

std::string
Gb(double bytes)
{
    std::ostringstream s;
    s.precision(3);
    s << bytes / 1e9 << " GB";
    return s.str();
}

/// A positive integer from the environment, or 0.
uint64_t
EnvNumber(const char* name)
{
    const char* v = std::getenv(name);
    if (!v || !*v)
    {
        return 0;
    }
    char* end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 10);
    return *end == '\0' ? x : 0;
}

} // namespace

uint64_t
FabricMemoryBudgetBytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGE_SIZE);
    double budget = pages > 0 && pageSize > 0 ? 0.8 * double(pages) * double(pageSize) : 4e9;
    rlimit rl{};
    if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    {
        budget = std::min(budget, 0.8 * double(rl.rlim_cur));
    }
    if (const uint64_t mb = EnvNumber("AIFABRIC_MEMORY_LIMIT_MB"))
    {
        budget = std::min(budget, double(mb) * 1e6);
    }
    return static_cast<uint64_t>(budget);
}

void
CheckFabricMemory(double bytes, const std::string& params)
{
    const double budget = static_cast<double>(FabricMemoryBudgetBytes());
    if (!(bytes <= budget))
    {
        throw std::invalid_argument(params + " would need about " + Gb(bytes)
                                    + " of memory, more than the " + Gb(budget)
                                    + " this machine allows (80% of its memory); use smaller "
                                      "sizes");
    }
}

void
CheckFabricRunTime(double seconds, const std::string& params)
{
    const uint64_t env = EnvNumber("AIFABRIC_TIME_LIMIT_S");
    const double limit = env ? double(env) : 3600.0;
    if (!(seconds <= limit))
    {
        std::ostringstream s;
        s.precision(3);
        s << params << " would run for about " << seconds / 3600 << " hours (limit " << limit / 3600
          << " h, AIFABRIC_TIME_LIMIT_S); use smaller sizes";
        throw std::invalid_argument(s.str());
    }
}

void
CheckSerializationResolution(double rateBps, uint64_t wireBytes, const std::string& rateFlag)
{
    const double step = Time::FromInteger(1, Time::GetResolution()).GetSeconds();
    const double steps = 8.0 * double(wireBytes) / rateBps / step;
    if (steps < 200)
    {
        std::ostringstream s;
        s.precision(6);
        s << rateFlag << " is too fast for the simulator's time resolution (" << step * 1e12
          << " ps): a " << wireBytes << "-byte packet would serialize in " << steps
          << " steps and round by more than 0.25%; valid: at most "
          << 8.0 * double(wireBytes) / (200 * step) / 1e9 << " Gb/s for this packet size";
        throw std::invalid_argument(s.str());
    }
}

void
UseFabricTimeResolution()
{
    if (Time::GetResolution() != Time::PS)
    {
        Time::SetResolution(Time::PS);
    }
}

uint64_t
RoceDataWireBytes()
{
    TypeId tid;
    TypeId::AttributeInformation info;
    uint64_t payload = 4096;
    if (TypeId::LookupByNameFailSafe("ns3::RoceSender", &tid)
        && tid.LookupAttributeByName("PacketSize", &info))
    {
        if (auto v = DynamicCast<const UintegerValue>(info.initialValue))
        {
            payload = v->Get();
        }
    }
    return payload + 42;
}

nlohmann::json
PacketAccountingJson(uint64_t sent,
                     uint64_t delivered,
                     const std::map<std::string, uint64_t>& dropsByReason,
                     bool stoppedAtHorizon,
                     std::optional<int64_t> measuredInFlight)
{
    uint64_t dropped = 0;
    nlohmann::json reasons = nlohmann::json::object();
    for (const auto& [reason, count] : dropsByReason)
    {
        dropped += count;
        reasons[reason] = count;
    }
    if (delivered + dropped > sent)
    {
        throw std::logic_error("packet accounting: delivered " + std::to_string(delivered)
                               + " + dropped " + std::to_string(dropped) + " exceed sent "
                               + std::to_string(sent));
    }
    const uint64_t inFlight = sent - delivered - dropped;
    nlohmann::json j = {{"sent_packets", sent},
                        {"delivered_packets", delivered},
                        {"dropped_packets", dropped},
                        {"dropped_by_reason", reasons},
                        {"in_flight_at_stop", inFlight},
                        {"stopped_at_horizon", stoppedAtHorizon}};
    if (measuredInFlight)
    {
        // Not thrown: the run's results are still written, with the mismatch in them.
        const bool closed = *measuredInFlight == int64_t(inFlight);
        if (!closed)
        {
            FabricWarn("packet accounting",
                       std::to_string(*measuredInFlight)
                           + " packets counted in queues, on links and held, but sent "
                           + std::to_string(sent) + " - delivered " + std::to_string(delivered)
                           + " - dropped " + std::to_string(dropped) + " = "
                           + std::to_string(inFlight) + ": packets vanished without a reason");
        }
        j["in_flight_measured"] = *measuredInFlight;
        j["accounting_closed"] = closed;
    }
    return j;
}

} // namespace ns3
