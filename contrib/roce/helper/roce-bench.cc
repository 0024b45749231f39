// SPDX-License-Identifier: GPL-2.0-only
#include "roce-bench.h"

#include "ns3/config.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-results.h"
#include "ns3/log.h"
#include "ns3/roce-nic.h"
#include "ns3/string.h"

#include <algorithm>
#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceBench");

namespace
{

/// The current default of attribute \p name of \p tid, as a string.
std::string
AttributeDefault(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    const bool found = tid.LookupAttributeByName(name, &info);
    NS_ABORT_MSG_UNLESS(found, tid.GetName() << " has no attribute " << name);
    return info.initialValue->SerializeToString(info.checker);
}

/// RoCE on a network from \p build, with the defaults of ns3::RoceNic::HostPath and
/// ns3::FabricNetwork::LinkDevice set for the run and restored after it.
FabricRoceRunResult
RunRoceWith(const std::function<Ptr<FabricNetwork>()>& build,
            const std::vector<FlowSpec>& flows,
            Time simTime,
            const std::string& hostPath,
            const std::string& linkDevice)
{
    // The defaults are restored however the run ends (an exception reaches the program's
    // error handler, which may still write results).
    struct Restore
    {
        std::string hostPath = AttributeDefault(RoceNic::GetTypeId(), "HostPath");
        std::string device = AttributeDefault(FabricNetwork::GetTypeId(), "LinkDevice");

        ~Restore()
        {
            Config::SetDefault("ns3::RoceNic::HostPath", StringValue(hostPath));
            Config::SetDefault("ns3::FabricNetwork::LinkDevice", StringValue(device));
        }
    } restore;
    Config::SetDefault("ns3::RoceNic::HostPath", StringValue(hostPath));
    Config::SetDefault("ns3::FabricNetwork::LinkDevice", StringValue(linkDevice));
    FabricRoceRunOptions opt;
    opt.stopAt = simTime;
    return RunFabricRoce(build(), flows, opt);
}

} // namespace

RoceBenchRow
RunRoceBenchRow(const std::function<Ptr<FabricNetwork>()>& build,
                const std::function<Ptr<FabricNetwork>()>& buildGlobal,
                const std::vector<FlowSpec>& flows,
                const std::vector<double>& rates,
                Time simTime,
                uint32_t rotation)
{
    RoceBenchRow row;
    const std::vector<std::function<void()>> runs = {
        [&]() { row.global = RunFabricUdp(buildGlobal(), flows, rates, 4096, simTime); },
        [&]() { row.udp = RunFabricUdp(build(), flows, rates, 4096, simTime); },
        [&]() { row.roce = RunRoceWith(build, flows, simTime, "fast", "p2p"); },
        [&]() { row.roceIpv4 = RunRoceWith(build, flows, simTime, "ipv4", "p2p"); },
        [&]() { row.roceFastDevice = RunRoceWith(build, flows, simTime, "fast", "fast"); },
    };
    static_assert(ROCE_BENCH_ROW_RUNS == 5, "RunRoceBenchRow's rotation period");
    for (size_t i = 0; i < runs.size(); ++i)
    {
        runs[(rotation + i) % runs.size()]();
    }
    return row;
}

void
PrintRoceBenchHeader(std::ostream& os, Time simTime)
{
    os << "\nRoCE transport vs UDP constant rate, " << simTime.ToDouble(Time::US)
       << " us simulated, switch fast path; RoCE host path fast (NIC) and ipv4 (host stack)\n";
    os << std::left << std::setw(8) << "fabric" << std::setw(13) << "pattern" << std::right
       << std::setw(13) << "global hop/s" << std::setw(13) << "udp hop/s" << std::setw(13)
       << "roce hop/s" << std::setw(13) << "ctrl hop/s" << std::setw(15) << "roce-ip hop/s"
       << std::setw(10) << "roce/udp" << std::setw(12) << "roce/global" << std::setw(12)
       << "fast/ipv4" << std::setw(14) << "roce-fd hop/s" << std::setw(10) << "fd/global"
       << "\n";
}

nlohmann::json
RoceBenchRowJson(const RoceBenchRow& row,
                 const std::string& fabric,
                 const std::string& pattern,
                 std::ostream& os)
{
    const FabricUdpRunResult& g = row.global;
    const FabricUdpRunResult& u = row.udp;
    const FabricRoceRunResult& r = row.roce;
    const FabricRoceRunResult& ri = row.roceIpv4;
    const double globalRate = g.hopPackets / g.wallSeconds;
    const double udpRate = u.hopPackets / u.wallSeconds;
    const double roceRate = r.hopPackets / r.wallSeconds;
    const double ctrl = r.hopControlPackets / r.wallSeconds;
    const double roceIpv4Rate = ri.hopPackets / ri.wallSeconds;
    const FabricRoceRunResult& rf = row.roceFastDevice;
    const double roceFdRate = rf.hopPackets / rf.wallSeconds;
    const auto flags = os.flags();
    const auto precision = os.precision();
    os << std::left << std::setw(8) << fabric << std::setw(13) << pattern << std::right
       << std::fixed << std::setprecision(0) << std::setw(13) << globalRate << std::setw(13)
       << udpRate << std::setw(13) << roceRate << std::setw(13) << ctrl << std::setw(15)
       << roceIpv4Rate << std::setw(9) << std::setprecision(2) << roceRate / udpRate << "x"
       << std::setw(11) << roceRate / globalRate << "x" << std::setw(11) << roceRate / roceIpv4Rate
       << "x" << std::setprecision(0) << std::setw(14) << roceFdRate << std::setw(9)
       << std::setprecision(2) << roceFdRate / globalRate << "x\n";
    os.flags(flags);
    os.precision(precision);
    return {{"global_udp_hop_packets", g.hopPackets},
            {"global_udp_wall_s", g.wallSeconds},
            {"global_udp_hop_packets_per_s", globalRate},
            {"udp_hop_packets", u.hopPackets},
            {"udp_wall_s", u.wallSeconds},
            {"udp_hop_packets_per_s", udpRate},
            {"roce_hop_packets", r.hopPackets},
            {"roce_control_hop_packets", r.hopControlPackets},
            {"roce_wall_s", r.wallSeconds},
            {"roce_hop_packets_per_s", roceRate},
            {"roce_data_hop_packets_per_s", roceRate - ctrl},
            {"roce_control_hop_packets_per_s", ctrl},
            {"roce_events_per_s", r.events / r.wallSeconds},
            {"roce_ipv4_hop_packets", ri.hopPackets},
            {"roce_ipv4_wall_s", ri.wallSeconds},
            {"roce_ipv4_hop_packets_per_s", roceIpv4Rate},
            // Both host paths simulate the same run (tests check it): a difference here
            // means a bug, reported rather than hidden.
            {"roce_ipv4_same_hop_packets", ri.hopPackets == r.hopPackets},
            // The same RoCE run on FastP2pNetDevice links (LinkDevice=fast): same simulated
            // run (tests check it), fewer events.
            {"roce_fast_device_hop_packets", rf.hopPackets},
            {"roce_fast_device_wall_s", rf.wallSeconds},
            {"roce_fast_device_hop_packets_per_s", roceFdRate},
            {"roce_fast_device_events", rf.events},
            {"roce_events", r.events},
            {"roce_fast_device_same_hop_packets", rf.hopPackets == r.hopPackets},
            {"roce_fast_device_vs_global", roceFdRate / globalRate},
            {"roce_fast_device_vs_roce", roceFdRate / roceRate},
            {"roce_vs_udp", roceRate / udpRate},
            {"roce_vs_global", roceRate / globalRate},
            {"roce_vs_roce_ipv4", roceRate / roceIpv4Rate},
            {"global_udp_accounting",
             PacketAccountingJson(
                 g.sentPackets, g.deliveredPackets, g.drops, true, g.measuredInFlightPackets)},
            {"udp_accounting",
             PacketAccountingJson(
                 u.sentPackets, u.deliveredPackets, u.drops, true, u.measuredInFlightPackets)},
            {"roce_accounting",
             PacketAccountingJson(
                 r.sentPackets, r.deliveredPackets, r.drops, true, r.measuredInFlightPackets)},
            {"roce_ipv4_accounting",
             PacketAccountingJson(
                 ri.sentPackets, ri.deliveredPackets, ri.drops, true, ri.measuredInFlightPackets)}};
}

void
CheckPacketRateBenchSize(uint32_t n, uint32_t buildN, size_t udpRuns, bool roce)
{
    const double flows = double(n) * (n - 1);
    const std::string sizes = "--n=" + std::to_string(n) + " (AllReduce: " + FormatNumber(flows, 3)
                            + " flows) / --build-n=" + std::to_string(buildN);
    CheckFabricMemory(30e6 + 45e3 * std::max(n, buildN) + 3.6e3 * flows, sizes);
    CheckFabricRunTime(9e-5 * flows * (double(udpRuns) + (roce ? 20 : 0)),
                       sizes + " with --variants, --schedulers, --repeat, --roce");
}

} // namespace ns3
