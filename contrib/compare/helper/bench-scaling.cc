// SPDX-License-Identifier: GPL-2.0-only
#include "bench-scaling.h"

#include "bench-measure.h"
#include "packet-flow-compare.h"

#include "ns3/fabric-checks.h"
#include "ns3/fabric-choice.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/flow-collectives.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BenchScaling");
NS_OBJECT_ENSURE_REGISTERED(CountingScheduler);

TypeId
CountingScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CountingScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Compare")
                            .AddConstructor<CountingScheduler>()
                            .AddAttribute("Inner",
                                          "TypeId of the scheduler that orders the events.",
                                          TypeIdValue(TypeId::LookupByName("ns3::MapScheduler")),
                                          MakeTypeIdAccessor(&CountingScheduler::m_innerType),
                                          MakeTypeIdChecker());
    return tid;
}

uint64_t CountingScheduler::s_lastPeak = 0;

CountingScheduler::CountingScheduler()
{
    NS_LOG_FUNCTION(this);
}

CountingScheduler::~CountingScheduler()
{
    s_lastPeak = m_peak;
}

void
CountingScheduler::CreateInner() const
{
    ObjectFactory f;
    f.SetTypeId(m_innerType);
    m_inner = f.Create<Scheduler>();
}

void
CountingScheduler::Insert(const Event& ev)
{
    Inner()->Insert(ev);
    m_peak = std::max(m_peak, ++m_pending);
}

bool
CountingScheduler::IsEmpty() const
{
    return Inner()->IsEmpty();
}

Scheduler::Event
CountingScheduler::PeekNext() const
{
    return Inner()->PeekNext();
}

Scheduler::Event
CountingScheduler::RemoveNext()
{
    --m_pending;
    return Inner()->RemoveNext();
}

void
CountingScheduler::Remove(const Event& ev)
{
    --m_pending;
    Inner()->Remove(ev);
}

std::string
SimulatorImplementationName()
{
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    return impl.Get();
}

TypeId
SchedulerTypeInUse()
{
    TypeIdValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    return scheduler.Get();
}

bool
UsesFabricSimulatorImpl()
{
    return SimulatorImplementationName() == FabricSimulatorImpl::GetTypeId().GetName();
}

void
ParseScalingPoint(const std::string& spec, const std::string& what, ScalingPoint& point)
{
    const auto a = spec.find(':');
    const auto b = a == std::string::npos ? a : spec.find(':', a + 1);
    const std::string help = what + "='" + spec
                           + "' must be fabric:pattern:transport with fabric zcube|roft, "
                             "pattern permutation|allreduce|ring|hd|none, transport udp|roce";
    if (b == std::string::npos)
    {
        throw std::invalid_argument(help);
    }
    point.fabric = spec.substr(0, a);
    point.pattern = spec.substr(a + 1, b - a - 1);
    point.transport = spec.substr(b + 1);
    if ((point.fabric != "zcube" && point.fabric != "roft")
        || (point.pattern != "permutation" && point.pattern != "allreduce"
            && point.pattern != "ring" && point.pattern != "hd" && point.pattern != "none")
        || (point.transport != "udp" && point.transport != "roce"))
    {
        throw std::invalid_argument(help);
    }
    if ((point.pattern == "ring" || point.pattern == "hd") && point.transport != "roce")
    {
        throw std::invalid_argument(what + "='" + spec
                                    + "': the steps of ring and hd wait for completions, which "
                                      "only the roce transport reports (use :ring:roce, :hd:roce)");
    }
}

nlohmann::json
RunScalingPoint(const ScalingPoint& point)
{
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point a, Clock::time_point b)
    {
        return std::chrono::duration<double>(b - a).count();
    };
    nlohmann::json out = {{"fabric", point.fabric},
                          {"pattern", point.pattern},
                          {"transport", point.transport},
                          {"n", point.n},
                          {"k", point.k},
                          {"sim_us", point.simTime.ToDouble(Time::US)}};
    {
        // Measured (scripts/scaling-table.py, doc/scaling.md): a network takes up to about
        // 135 kB per GPU (ROFT at 4096 GPUs: 553 MiB; ZCube about half); a UDP flow
        // about 0.9 kB; a RoCE flow about 0.7 kB as a record plus about 3.5 kB while its queue
        // pair exists (every flow of permutation and allreduce, n at a time for ring and hd).
        const double n = point.n;
        const double flows = point.pattern == "allreduce" ? n * (n - 1)
                           : point.pattern == "ring"      ? 2 * (n - 1) * n
                           : point.pattern == "hd"        ? 2 * std::log2(n) * n
                           : point.pattern == "none"      ? 0
                                                          : n;
        const double live = (point.pattern == "ring" || point.pattern == "hd") ? 2 * n : flows;
        const double perFlow
            = point.transport == "udp" ? 0.9e3 * flows : 0.7e3 * flows + 3.5e3 * live;
        CheckFabricMemory(30e6 + 140e3 * n + perFlow,
                          "--scaling=" + point.fabric + ":" + point.pattern + ":" + point.transport
                              + " --n=" + std::to_string(point.n));
    }
    // The scheduler the program selected (SchedulerType). FabricSimulatorImpl counts the peak of
    // pending events itself; under another simulator implementation a CountingScheduler
    // wrapped around that scheduler counts them (the same number: events in the scheduler).
    const bool fabricCore = UsesFabricSimulatorImpl();
    const TypeId schedulerType = SchedulerTypeInUse();
    ObjectFactory sched;
    if (fabricCore)
    {
        sched.SetTypeId(schedulerType);
    }
    else
    {
        sched.SetTypeId("ns3::CountingScheduler");
        sched.Set("Inner", TypeIdValue(schedulerType));
    }
    Simulator::SetScheduler(sched);
    out["simulator_implementation"] = SimulatorImplementationName();
    out["scheduler"] = schedulerType.GetName();

    const auto t0 = Clock::now();
    FabricChoiceParams fp;
    fp.n = point.n;
    fp.k = point.k;
    const FabricChoice fab = MakeFabricChoice(point.fabric, fp);
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = links.Install(fab.graph, fab.CreateRouting(1));
    const auto t1 = Clock::now();
    out["build_s"] = seconds(t0, t1);
    out["build_peak_rss_mib"] = PeakRssMiB();
    out["nodes"] = net->GetNodes().GetN();
    if (point.pattern == "none")
    {
        out["peak_rss_mib"] = PeakRssMiB();
        std::cout << point.fabric << " n=" << point.n << " k=" << point.k << ": built in "
                  << std::fixed << std::setprecision(2) << seconds(t0, t1) << " s, peak RSS "
                  << std::setprecision(0) << PeakRssMiB() << " MiB\n";
        net = nullptr;
        Simulator::Destroy();
        return out;
    }

    std::vector<FlowSpec> flows;
    TrafficPatternParams tp;
    tp.hosts = point.n;
    tp.bytes = uint64_t(1) << 40; // never finishes within the simulated time
    if (point.pattern == "permutation")
    {
        flows = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    }
    else if (point.pattern == "allreduce")
    {
        flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
    }
    else if (point.pattern == "ring")
    {
        flows = MakeRingAllReduce(point.n, point.ringChunkBytes * point.n, true);
    }
    else
    {
        flows = MakeHalvingDoublingAllReduce(point.n, point.hdBytesPerHost);
    }
    out["flows"] = flows.size();

    uint64_t hop = 0;
    uint64_t events = 0;
    double wall = 0;
    nlohmann::json accounting;
    const auto t2 = Clock::now();
    // Processor time of the simulation alone (from Simulator::Run to just before the horizon):
    // on a shared machine the wall time says as much about the neighbours as about the run.
    double cpu0 = 0;
    double cpu1 = 0;
    const Time last = point.simTime - NanoSeconds(1);
    FabricRunHook hook = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        cpu0 = ProcessCpuSeconds();
        Simulator::Schedule(last, [&]() { cpu1 = ProcessCpuSeconds(); });
    };
    if (point.transport == "udp")
    {
        const std::vector<double> rates = HostShareRates(flows, point.n, 400e9);
        const FabricUdpRunResult r = RunFabricUdp(net, flows, rates, 4096, point.simTime, hook);
        hop = r.hopPackets;
        events = r.events;
        wall = r.wallSeconds;
        accounting = PacketAccountingJson(
            r.sentPackets, r.deliveredPackets, r.drops, true, r.measuredInFlightPackets);
        out["unaccounted_packets"] = r.Unaccounted();
    }
    else
    {
        FabricRoceRunOptions opt;
        opt.stopAt = point.simTime;
        opt.beforeRun = hook;
        const FabricRoceRunResult r = RunFabricRoce(net, flows, opt);
        hop = r.hopPackets;
        events = r.events;
        wall = r.wallSeconds;
        uint32_t complete = 0;
        for (const auto& f : r.flows)
        {
            complete += f.complete ? 1 : 0;
        }
        out["flows_complete"] = complete;
        out["control_hop_packets"] = r.hopControlPackets;
        accounting = PacketAccountingJson(
            r.sentPackets, r.deliveredPackets, r.drops, true, r.measuredInFlightPackets);
        out["unaccounted_packets"] = r.Unaccounted();
    }
    const auto t3 = Clock::now();
    out["install_run_s"] = seconds(t2, t3);
    out["run_wall_s"] = wall;
    out["hop_packets"] = hop;
    out["hop_packets_per_s"] = wall > 0 ? hop / wall : 0;
    const double cpu = cpu1 - cpu0;
    out["run_cpu_s"] = cpu;
    out["hop_packets_per_cpu_s"] = cpu > 0 ? hop / cpu : 0;
    out["events"] = events;
    out["events_per_hop_packet"] = hop > 0 ? double(events) / hop : 0;
    const uint64_t peakPending = fabricCore ? FabricSimulatorImpl::GetLastPeakPendingEvents()
                                            : CountingScheduler::GetLastPeakPending();
    out["peak_pending_events"] = peakPending;
    out["accounting"] = accounting;
    out["peak_rss_mib"] = PeakRssMiB();
    std::cout << point.fabric << " " << point.pattern << " " << point.transport << " n=" << point.n
              << " k=" << point.k << ": " << flows.size() << " flows, " << hop << " hop packets in "
              << std::fixed << std::setprecision(2) << wall << " s = " << std::setprecision(0)
              << (wall > 0 ? hop / wall : 0) << " hop packets/s (" << (cpu > 0 ? hop / cpu : 0)
              << " per CPU second), peak RSS " << PeakRssMiB() << " MiB, peak pending events "
              << peakPending << "\n";
    return out;
}

nlohmann::json
RunScalingPointRepeated(const ScalingPoint& point, uint32_t repeat)
{
    if (repeat == 0)
    {
        throw std::invalid_argument("--repeat=0 is out of range [1, 100]: a point runs at least "
                                    "once");
    }
    std::vector<nlohmann::json> runs;
    for (uint32_t i = 0; i < repeat; ++i)
    {
        runs.push_back(RunScalingPoint(point));
    }
    nlohmann::json out = runs.front();
    const bool simulated = point.pattern != "none";
    // The keys that are clock readings; everything else is the same in every run.
    std::vector<std::string> timed{"build_s"};
    if (simulated)
    {
        for (const char* k : {"install_run_s",
                              "run_wall_s",
                              "run_cpu_s",
                              "hop_packets_per_s",
                              "hop_packets_per_cpu_s"})
        {
            timed.emplace_back(k);
        }
    }
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : runs)
    {
        if (simulated && (r["hop_packets"] != out["hop_packets"] || r["events"] != out["events"]))
        {
            throw std::runtime_error("--scaling --repeat: run " + std::to_string(all.size() + 1)
                                     + " simulated " + r["hop_packets"].dump() + " hop packets and "
                                     + r["events"].dump() + " events, run 1 "
                                     + out["hop_packets"].dump() + " and " + out["events"].dump());
        }
        nlohmann::json one;
        for (const auto& k : timed)
        {
            one[k] = r[k];
        }
        all.push_back(one);
    }
    auto median = [&runs](const std::string& key)
    {
        std::vector<double> v;
        for (const auto& r : runs)
        {
            v.push_back(r[key].get<double>());
        }
        return MedianOf(v);
    };
    out["repeat"] = repeat;
    out["runs"] = all;
    // Run 1's build: later runs of the same point can take a routing's all-up tables from its
    // process-wide cache (EcmpRouting, SpraypointRouting), so their build is not the build a
    // program pays; every run's build_s stays in "runs".
    out["build_s"] = runs.front()["build_s"];
    out["peak_rss_mib"] = PeakRssMiB();
    if (!simulated)
    {
        return out;
    }
    const double hop = out["hop_packets"].get<double>();
    const double wall = median("run_wall_s");
    const double cpu = median("run_cpu_s");
    out["install_run_s"] = median("install_run_s");
    out["run_wall_s"] = wall;
    out["run_cpu_s"] = cpu;
    // hop packets are the same in every run, so these are the medians of the rates (for an odd
    // count; for an even one MedianOf's upper wall time gives the lower middle rate)
    out["hop_packets_per_s"] = wall > 0 ? hop / wall : 0;
    out["hop_packets_per_cpu_s"] = cpu > 0 ? hop / cpu : 0;
    if (repeat > 1)
    {
        std::cout << "median of " << repeat << " runs: " << std::fixed << std::setprecision(0)
                  << out["hop_packets_per_s"].get<double>() << " hop packets/s ("
                  << out["hop_packets_per_cpu_s"].get<double>() << " per CPU second)\n";
    }
    return out;
}

} // namespace ns3
