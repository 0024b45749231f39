// SPDX-License-Identifier: GPL-2.0-only
//
// Packet-rate benchmark: the same ZCube AllReduce (UDP, every GPU at line rate split over its
// n-1 flows) simulated for a fixed time four ways in one process, so the ratios are measured
// side by side on the same machine state:
//   fast    - our routing, switches forward at the device level (FabricSwitchForwarder)
//   fastdev - fast on FastP2pNetDevice links (ns3::FabricNetwork::LinkDevice=fast)
//   ipv4    - our routing as an Ipv4RoutingProtocol on switches with the full IPv4 stack
//   global  - stock ns-3: IPv4 everywhere and Ipv4GlobalRouting
// The hosts of fast, fastdev and ipv4 send and receive through the host fast path
// (FabricHostPath, ns3::UdpFlowSender::HostPath=fast by default; variants.<v>.host_fast_packets
// counts the packets sent that way), global's through IPv4. The benchmark reports hop-level
// packets (transmissions onto a link) per wall-second, events per
// second and the ratio to global routing. The fast variant is also run under each of ns-3's
// event schedulers (--schedulers, alternating rounds): event order is (time, uid) in all of
// them, so the simulated results are identical and only the wall time differs. It also times
// building a large ZCube (graph, ns-3 nodes, devices and stacks) and reports the process's peak
// memory after it. With --roce (default), RoCE + DCQCN on ZCube and ROFT, permutation and
// AllReduce, with the NIC's fast host path and with the hosts' IPv4 path, next to UDP with our
// routing and UDP with stock global routing on the same fabric and flows (RoceBenchRow), each
// row in --roce-rounds alternating rounds with the median wall time per run. It prints and
// writes the acceptance lines of issue #12 it measures ("acceptance") and the machine's load
// during the run ("machine": a wall-clock rate on a loaded machine measures the neighbours).
//
//   ./build/bin/bench-packet-rate                # n=128, k=16, 100 us simulated per variant
//   ./build/bin/bench-packet-rate --sim-us=500 --build-n=1024 --build-k=32
#include "ns3/bench-acceptance.h"
#include "ns3/bench-measure.h"
#include "ns3/bench-scaling.h"
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-choice.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/packet-flow-compare.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/roce-bench.h"
#include "ns3/udp-flow-sender.h"
#include "ns3/zcube-helper.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// The wall seconds of variant \p run of a RoCE row in each of \p rounds.
template<typename Run>
std::vector<double>
Walls(const std::vector<RoceBenchRow>& rounds, Run RoceBenchRow::*run)
{
    std::vector<double> w;
    for (const auto& r : rounds)
    {
        w.push_back((r.*run).wallSeconds);
    }
    return w;
}

/// The stock ns-3 baseline the ratios divide by: ns-3's IPv4 and global routing over ns-3's
/// point-to-point device and DropTailQueue<Packet>, whatever the program's defaults
/// (FabricCli's FastQueue) or flags (LinkDevice) choose for the fabric's own variants.
Ptr<FabricNetwork>
InstallStockBaseline(std::shared_ptr<const FabricGraph> graph)
{
    // InstallGlobalRouting keeps ns-3's queue whatever FastQueue says; the device is ours to pin.
    FabricNetworkHelper stock;
    stock.SetNetworkAttribute("LinkDevice", StringValue("p2p"));
    Ptr<FabricNetwork> net = stock.InstallGlobalRouting(graph);
    auto dev = DynamicCast<PointToPointNetDevice>(net->GetDevice(0, 0));
    NS_ABORT_MSG_UNLESS(
        dev && dev->GetQueue()->GetInstanceTypeId() == DropTailQueue<Packet>::GetTypeId(),
        "bench-packet-rate: the stock baseline must run ns-3's device and queue");
    return net;
}

/// RoCE (DCQCN, go-back-N; NIC fast host path and the hosts' IPv4 path) against plain
/// constant-rate UDP on the same fabric and flows, with our switch fast path and with stock
/// ns-3 global routing: hop-level packets per wall-second (RoceBenchRow). Each row runs
/// \p rounds times (a round runs its five variants one after the other, so a slow spell of the
/// machine hits all of them, round r starting with the (r mod 5)-th, so that no variant keeps
/// one position; round_order in the summary); the row's rates and ratios are from the median wall
/// time of each variant, every round's wall times are kept (*_wall_s_all, roce_vs_global_all).
void
RunRoceVariants(uint32_t n, uint32_t k, Time simTime, uint32_t rounds, json& summary)
{
    PrintRoceBenchHeader(std::cout, simTime);
    std::cout << "(each row: median wall time of " << rounds
              << " alternating rounds per variant)\n";
    for (const std::string fabric : {"zcube", "roft"})
    {
        for (const auto pattern : {TrafficPattern::PERMUTATION, TrafficPattern::ALLREDUCE})
        {
            TrafficPatternParams tp;
            tp.hosts = n;
            tp.bytes = uint64_t(1) << 40;
            const auto flows = MakeTraffic(pattern, tp);
            std::vector<uint32_t> perSrc(n, 0);
            for (const auto& f : flows)
            {
                perSrc[f.src]++;
            }
            std::vector<double> rates;
            for (const auto& f : flows)
            {
                rates.push_back(400e9 / perSrc[f.src]);
            }
            const FabricChoice fab = MakeFabricChoice(fabric, FabricChoiceParams{n, k});
            std::vector<RoceBenchRow> all;
            // CPU against wall seconds of each whole round (setup included): a round that got
            // much less than a CPU second per wall second shared its core
            std::vector<double> roundCpu;
            std::vector<double> roundWall;
            for (uint32_t round = 0; round < rounds; ++round)
            {
                const double cpu0 = ProcessCpuSeconds();
                const auto wall0 = std::chrono::steady_clock::now();
                all.push_back(RunRoceBenchRow(
                    [&fab]()
                    {
                        FabricNetworkHelper links;
                        return links.Install(fab.graph, fab.CreateRouting(1));
                    },
                    [&fab]() { return InstallStockBaseline(fab.graph); },
                    flows,
                    rates,
                    simTime,
                    round));
                roundCpu.push_back(ProcessCpuSeconds() - cpu0);
                roundWall.push_back(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0)
                        .count());
            }
            // The simulation is deterministic: every round simulates the same runs, so the
            // median row is the last round's with each variant's median wall time.
            RoceBenchRow median = all.back();
            median.global.wallSeconds = MedianOf(Walls(all, &RoceBenchRow::global));
            median.udp.wallSeconds = MedianOf(Walls(all, &RoceBenchRow::udp));
            median.roce.wallSeconds = MedianOf(Walls(all, &RoceBenchRow::roce));
            median.roceIpv4.wallSeconds = MedianOf(Walls(all, &RoceBenchRow::roceIpv4));
            median.roceFastDevice.wallSeconds = MedianOf(Walls(all, &RoceBenchRow::roceFastDevice));
            bool same = true;
            json perRound = json::array();
            for (const auto& r : all)
            {
                same = same && r.global.hopPackets == median.global.hopPackets
                    && r.udp.hopPackets == median.udp.hopPackets
                    && r.roce.hopPackets == median.roce.hopPackets
                    && r.roceIpv4.hopPackets == median.roceIpv4.hopPackets
                    && r.roceFastDevice.hopPackets == median.roceFastDevice.hopPackets;
                perRound.push_back((r.roce.hopPackets / r.roce.wallSeconds)
                                   / (r.global.hopPackets / r.global.wallSeconds));
            }
            const std::string name = TrafficPatternName(pattern);
            json j = RoceBenchRowJson(median, fabric, name, std::cout);
            j["rounds"] = rounds;
            // a difference is a bug (nondeterminism), reported rather than hidden
            j["rounds_same_hop_packets"] = same;
            j["global_udp_wall_s_all"] = Walls(all, &RoceBenchRow::global);
            j["udp_wall_s_all"] = Walls(all, &RoceBenchRow::udp);
            j["roce_wall_s_all"] = Walls(all, &RoceBenchRow::roce);
            j["roce_ipv4_wall_s_all"] = Walls(all, &RoceBenchRow::roceIpv4);
            j["roce_fast_device_wall_s_all"] = Walls(all, &RoceBenchRow::roceFastDevice);
            j["roce_vs_global_all"] = perRound;
            j["round_cpu_s_all"] = roundCpu;
            j["round_wall_s_all"] = roundWall;
            // round r runs the five variants starting with the (r mod 5)-th (RunRoceBenchRow)
            j["round_order"] = {"global", "udp", "roce", "roce_ipv4", "roce_fast_device"};
            if (rounds > 1 || !same)
            {
                std::cout << "        roce/global per round:";
                for (const auto& x : perRound)
                {
                    std::cout << " " << std::fixed << std::setprecision(2) << x.get<double>()
                              << "x";
                }
                std::cout << (same ? "" : "  WARNING: the rounds simulated different runs") << "\n";
            }
            summary["roce"][fabric][name] = j;
        }
    }
}

/// The fast variant under each scheduler, rounds alternating the schedulers; median wall time.
/// The hop-packet counts must agree (same event order): a difference is reported as an error.
void
CompareSchedulers(const ZCubeHelper& zcube,
                  const std::vector<FlowSpec>& flows,
                  const std::vector<double>& rates,
                  Time simTime,
                  const std::vector<std::string>& schedulers,
                  uint32_t repeat,
                  json& summary)
{
    std::map<std::string, std::vector<double>> walls;
    std::map<std::string, FabricUdpRunResult> last;
    for (uint32_t round = 0; round < repeat; ++round)
    {
        for (const auto& s : schedulers)
        {
            ObjectFactory sched;
            sched.SetTypeId(s);
            Simulator::SetScheduler(sched);
            FabricNetworkHelper links;
            last[s] = RunFabricUdp(zcube.Install(links), flows, rates, 4096, simTime);
            walls[s].push_back(last[s].wallSeconds);
        }
    }
    std::cout << "\nEvent schedulers, fast variant (median of " << repeat
              << " alternating rounds)\n"
              << std::left << std::setw(26) << "scheduler" << std::right << std::setw(12)
              << "hop-pkts" << std::setw(9) << "wall-s" << std::setw(14) << "hop-pkts/s"
              << std::setw(12) << "vs first\n";
    double first = 0;
    std::string fastest;
    double best = 0;
    for (const auto& s : schedulers)
    {
        auto w = walls[s];
        std::sort(w.begin(), w.end());
        const double wall = w[w.size() / 2];
        const FabricUdpRunResult& r = last[s];
        const double rate = r.hopPackets / wall;
        first = first > 0 ? first : rate;
        if (rate > best)
        {
            best = rate;
            fastest = s;
        }
        if (r.hopPackets != last[schedulers.front()].hopPackets)
        {
            throw std::runtime_error("scheduler " + s + " simulated a different run ("
                                     + std::to_string(r.hopPackets) + " hop packets, "
                                     + schedulers.front() + " "
                                     + std::to_string(last[schedulers.front()].hopPackets) + ")");
        }
        summary["schedulers"][s] = {{"hop_packets", r.hopPackets},
                                    {"wall_s_median", wall},
                                    {"wall_s_all", walls[s]},
                                    {"hop_packets_per_s", rate},
                                    {"ratio_vs_first", rate / first}};
        std::cout << std::left << std::setw(26) << s << std::right << std::setw(12) << r.hopPackets
                  << std::setw(9) << std::fixed << std::setprecision(2) << wall << std::setw(14)
                  << std::setprecision(0) << rate << std::setw(11) << std::setprecision(2)
                  << rate / first << "x\n";
    }
    summary["fastest_scheduler"] = fastest;
    std::cout << "fastest: " << fastest << "\n";
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Hop-level packet rate of our routing vs ns-3 global routing.");
    cli.Add("n", "GPUs of the benchmarked ZCube", "128");
    cli.Add("k", "GPUs per switch", "16");
    cli.Add("sim-us", "simulated time per variant in microseconds", "100");
    cli.Add("variants", "comma list of fast|fastdev|ipv4|global", "fast,fastdev,ipv4,global");
    cli.Add("build-n", "GPUs of the large ZCube whose build is timed (0: skip)", "1024");
    cli.Add("build-k", "GPUs per switch of that ZCube", "32");
    cli.Add("scheduler",
            "ns-3 scheduler TypeId of the UDP variants (empty: the SchedulerType global value, "
            "ns3::FabricHeapScheduler unless --SchedulerType says otherwise)",
            "");
    cli.Add("schedulers",
            "comma list of scheduler TypeIds the fast variant is compared under, or none",
            "ns3::MapScheduler,ns3::FabricHeapScheduler,ns3::HeapScheduler,"
            "ns3::CalendarScheduler");
    cli.Add("repeat",
            "alternating rounds of the UDP variants and schedulers (median wall time); with "
            "--scaling, runs of the point in this process (median; default 1 there)",
            "3");
    cli.Add("roce-rounds",
            "alternating rounds of each RoCE row (median wall time per variant; unset: "
            "--repeat's value)",
            "");
    cli.Add("roce",
            "also run the RoCE variant (DCQCN) on ZCube and ROFT, permutation and AllReduce",
            "true");
    cli.Add("out", "results folder", "results/bench-packet-rate");
    cli.Add("scaling",
            "fabric:pattern:transport: measure only this point of the scaling table "
            "(RunScalingPointRepeated; --n, --k, --sim-us, --repeat apply)",
            "");
    cli.Parse(argc, argv);
    for (const char* seedAttribute : {"ns3::EcmpRouting::Seed", "ns3::ZCubeRouting::Seed"})
    {
        cli.ReserveAttribute(seedAttribute,
                             "the default (this benchmark always hashes with seed 1)");
    }
    const auto n = static_cast<uint32_t>(cli.GetUint("n", 2, 65536));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, n));
    const Time simTime = cli.GetTime("sim-us", Time::US, NanoSeconds(1), Seconds(10));
    const double simUs = simTime.ToDouble(Time::US);
    const auto buildN = static_cast<uint32_t>(cli.GetUint("build-n", 0, 65536));
    const auto buildK = static_cast<uint32_t>(cli.GetUint("build-k", 1, 65536));
    const auto repeat = static_cast<uint32_t>(cli.GetUint("repeat", 1, 100));
    MachineLoadProbe machine;
    if (!cli.GetString("scaling").empty())
    {
        ScalingPoint point{"", "", "", n, k, simTime};
        ParseScalingPoint(cli.GetString("scaling"), "--scaling", point);
        FabricResults out(cli.GetString("out"));
        json summary = RunScalingPointRepeated(point, cli.IsSet("repeat") ? repeat : 1);
        summary["machine"] = machine.End();
        machine.Print(std::cout);
        out.WriteSummary(summary);
        return 0;
    }
    const auto variants = cli.GetList("variants");
    for (const auto& v : variants)
    {
        if (v != "fast" && v != "fastdev" && v != "ipv4" && v != "global")
        {
            throw std::invalid_argument("--variants: '" + v + "' is not fast|fastdev|ipv4|global");
        }
    }
    const bool roce = cli.GetBool("roce");
    const auto roceRounds = cli.GetString("roce-rounds").empty()
                              ? repeat
                              : static_cast<uint32_t>(cli.GetUint("roce-rounds", 1, 100));
    const std::string scheduler = cli.GetString("scheduler").empty()
                                    ? SchedulerTypeInUse().GetName()
                                    : cli.GetTypeId("scheduler", "ns3::Scheduler").GetName();
    std::vector<std::string> schedulers;
    if (cli.GetString("schedulers") != "none")
    {
        for (const auto& name : cli.GetList("schedulers"))
        {
            schedulers.push_back(CheckTypeIdName(name, "ns3::Scheduler", "--schedulers").GetName());
        }
    }
    // CheckPacketRateBenchSize counts one round of the RoCE rows (about 20 UDP runs' time);
    // the further rounds are added as that many UDP runs.
    CheckPacketRateBenchSize(n,
                             buildN,
                             (variants.size() + schedulers.size()) * repeat
                                 + (roce ? 20 * (roceRounds - 1) : 0),
                             roce);
    FabricResults out(cli.GetString("out"));
    json summary;
    summary["params"] = {{"n", n},
                         {"k", k},
                         {"sim_us", simUs},
                         {"scheduler", scheduler},
                         {"simulator_implementation", SimulatorImplementationName()},
                         {"repeat", repeat},
                         {"roce_rounds", roce ? roceRounds : 0}};

    // Build time and memory of a large ZCube first, so the peak RSS is the build's.
    if (buildN > 0)
    {
        const double rss0 = PeakRssMiB();
        const auto t0 = std::chrono::steady_clock::now();
        ZCubeHelper big(buildN, buildK);
        const auto t1 = std::chrono::steady_clock::now();
        FabricNetworkHelper links;
        Ptr<FabricNetwork> net = big.Install(links);
        const auto t2 = std::chrono::steady_clock::now();
        const double graphS = std::chrono::duration<double>(t1 - t0).count();
        const double netS = std::chrono::duration<double>(t2 - t1).count();
        const double rss = PeakRssMiB();
        std::cout << "build ZCube n=" << buildN << " k=" << buildK << ": graph+routing "
                  << std::fixed << std::setprecision(3) << graphS << " s, ns-3 network " << netS
                  << " s, total " << graphS + netS << " s; peak RSS " << std::setprecision(1) << rss
                  << " MiB (" << rss - rss0 << " MiB above the process at start)\n";
        summary["build"] = {{"n", buildN},
                            {"k", buildK},
                            {"graph_s", graphS},
                            {"network_s", netS},
                            {"total_s", graphS + netS},
                            {"peak_rss_mib", rss},
                            {"nodes", net->GetNodes().GetN()}};
        net = nullptr;
        Simulator::Destroy();
    }

    ZCubeHelper zcube(n, k);
    TrafficPatternParams tp;
    tp.hosts = n;
    tp.bytes = uint64_t(1) << 40; // never finishes within the simulated time
    const auto flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
    const std::vector<double> rates(flows.size(), 400e9 / (n - 1));

    std::cout << "\nZCube n=" << n << " k=" << k << " AllReduce, " << flows.size()
              << " UDP flows at line rate per GPU, " << simUs << " us simulated, scheduler "
              << scheduler << "\n";
    std::cout << std::left << std::setw(8) << "variant" << std::right << std::setw(12) << "hop-pkts"
              << std::setw(9) << "wall-s" << std::setw(14) << "hop-pkts/s" << std::setw(13)
              << "events/s"
              << "\n";
    // Rounds alternate the variants so that a slow spell of the machine hits all of them; the
    // median wall time per variant is reported (the simulation itself is deterministic).
    std::map<std::string, std::vector<double>> walls;
    std::map<std::string, FabricUdpRunResult> last;
    std::map<std::string, uint64_t> hostFast; // packets the senders sent by the host fast path
    for (uint32_t round = 0; round < repeat; ++round)
    {
        for (const auto& v : variants)
        {
            ObjectFactory sched;
            sched.SetTypeId(scheduler);
            Simulator::SetScheduler(sched);
            FabricNetworkHelper links;
            Ptr<FabricNetwork> net;
            if (v == "global")
            {
                net = InstallStockBaseline(zcube.GetGraph());
            }
            else
            {
                links.SetSwitchMode(v == "ipv4" ? FabricSwitchMode::IPV4 : FabricSwitchMode::FAST);
                links.SetNetworkAttribute("LinkDevice",
                                          StringValue(v == "fastdev" ? "fast" : "p2p"));
                net = zcube.Install(links);
            }
            std::vector<Ptr<UdpFlowSender>> senders;
            FabricRunHook keepSenders
                = [&senders](Ptr<FabricNetwork>, const ApplicationContainer& apps)
            {
                for (uint32_t i = 0; i < apps.GetN(); ++i)
                {
                    if (auto s = DynamicCast<UdpFlowSender>(apps.Get(i)))
                    {
                        senders.push_back(s);
                    }
                }
            };
            last[v] = RunFabricUdp(net, flows, rates, 4096, simTime, keepSenders);
            walls[v].push_back(last[v].wallSeconds);
            hostFast[v] = 0;
            for (const auto& s : senders)
            {
                hostFast[v] += s->GetFastPackets();
            }
        }
    }
    std::map<std::string, double> rate;
    for (const auto& v : variants)
    {
        auto w = walls[v];
        std::sort(w.begin(), w.end());
        const double wall = w[w.size() / 2];
        const FabricUdpRunResult& r = last[v];
        rate[v] = r.hopPackets / wall;
        summary["variants"][v]
            = {{"hop_packets", r.hopPackets},
               {"wall_s_median", wall},
               {"wall_s_all", walls[v]},
               {"hop_packets_per_s", rate[v]},
               {"events", r.events},
               {"events_per_s", r.events / wall},
               {"host_fast_packets", hostFast[v]},
               {"accounting",
                PacketAccountingJson(
                    r.sentPackets, r.deliveredPackets, r.drops, true, r.measuredInFlightPackets)}};
        std::cout << std::left << std::setw(8) << v << std::right << std::setw(12) << r.hopPackets
                  << std::setw(9) << std::fixed << std::setprecision(2) << wall << std::setw(14)
                  << std::setprecision(0) << rate[v] << std::setw(13) << r.events / wall;
        std::cout << "\n";
    }
    if (rate.count("global"))
    {
        for (auto& [v, x] : rate)
        {
            summary["variants"][v]["ratio_vs_global"] = x / rate["global"];
            if (v != "global")
            {
                std::cout << v << " / global = " << std::setprecision(2) << x / rate["global"]
                          << "x (median of " << repeat << " alternating rounds)\n";
            }
        }
    }
    if (!schedulers.empty())
    {
        CompareSchedulers(zcube, flows, rates, simTime, schedulers, repeat, summary);
    }
    if (roce)
    {
        RunRoceVariants(n, k, simTime, roceRounds, summary);
    }
    summary["acceptance"] = Issue12Acceptance(summary, n, std::cout);
    summary["machine"] = machine.End();
    machine.Print(std::cout);
    out.WriteSummary(summary);
    std::cout << "wrote " << out.Path("summary.json") << "\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
