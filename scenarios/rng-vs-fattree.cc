// SPDX-License-Identifier: GPL-2.0-only
//
// RNG (random d-regular mesh, Spraypoint / shortest-path ECMP / k-shortest-paths) vs a
// two-tier fat tree with the same servers and the same oversubscription (RNG paper §7.3
// model), at packet level with RoCE flows (go-back-N, DCQCN by default, ECN at the switches):
// permutation and all-to-all. Per routing: per-flow throughput (mean, p1, min), FCT slowdown
// (p50/p99 of RoceFlowRecord::Slowdown()), path lengths counted on the data packets as they
// cross the switches, retransmissions, CNPs and packet accounting; then the blast radius of a
// router failure and of 1% link failures, before and after the routing reconverges.
//
//   ./build/bin/rng-vs-fattree --out=results/rng-vs-fattree
//   ./build/bin/rng-vs-fattree --full=true
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/flow-hash-ecmp.h"
#include "ns3/ipv4-header.h"
#include "ns3/ppp-header.h"
#include "ns3/rng-models.h"
#include "ns3/roce-header.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <unordered_map>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// Settings shared by every packet-level run.
struct Setup
{
    double lineBps;
    std::string rateControl; //!< dcqcn | none
    Time stopAt;             //!< safety horizon of a run
};

/// What one run produced: its JSON summary and the per-flow records.
struct RunOut
{
    json j;
    std::vector<RoceFlowRecord> flows;
};

/// Nearest-rank quantile of a sorted vector (0 if empty).
double
Quantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
    {
        return 0;
    }
    const auto rank = static_cast<size_t>(std::ceil(q * sorted.size()));
    return sorted[std::min(sorted.size() - 1, rank > 0 ? rank - 1 : 0)];
}

/// True for a RoCE data packet as received by a host device (PPP, IPv4, UDP, RoCE headers).
bool
IsRoceData(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    RoceHeader roce;
    if (c->GetSize() < ppp.GetSerializedSize() + 20 + 8 + RoceHeader::SIZE)
    {
        return false;
    }
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != 17)
    {
        return false;
    }
    c->RemoveHeader(udp);
    c->PeekHeader(roce);
    return roce.GetType() == RoceHeader::DATA;
}

/**
 * One packet-level RoCE run. Router hops of every data packet are counted as it is forwarded
 * (the switches' Forward trace, keyed by packet uid) and binned when the packet reaches its
 * host: the path-length histogram is measured from packets, retransmissions included.
 */
RunOut
Run1(std::shared_ptr<const FabricRouting> routing,
     const std::vector<FlowSpec>& flows,
     const Setup& st,
     Time stopAt)
{
    FabricNetworkHelper links;
    links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(st.lineBps))));
    auto net = links.Install(routing->GetGraphPtr(), routing);
    const FabricGraph& g = routing->GetGraph();
    auto hops = std::make_shared<std::unordered_map<uint64_t, uint32_t>>();
    auto hist = std::make_shared<std::map<uint32_t, uint64_t>>();
    for (uint32_t v = g.GetNHosts(); v < g.GetNNodes(); ++v)
    {
        auto fw = net->GetNode(v)->GetObject<FabricSwitchForwarder>();
        fw->TraceConnectWithoutContext("Forward",
                                       Callback<void, Ptr<const Packet>, uint32_t, uint32_t>(
                                           [hops](Ptr<const Packet> p, uint32_t, uint32_t)
                                           { (*hops)[p->GetUid()]++; }));
    }
    for (uint32_t hst = 0; hst < g.GetNHosts(); ++hst)
    {
        net->GetDevice(hst, 0)->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>(
                [hops, hist](Ptr<const Packet> p)
                {
                    auto it = hops->find(p->GetUid());
                    if (it == hops->end())
                    {
                        return;
                    }
                    if (IsRoceData(p))
                    {
                        (*hist)[it->second - 1]++; // router-router links = routers - 1
                    }
                    hops->erase(it);
                }));
    }
    FabricRoceRunOptions opt;
    opt.stopAt = stopAt;
    opt.senderAttributes["RateControl"] = std::make_shared<TypeIdValue>(
        st.rateControl == "dcqcn" ? DcqcnRateControl::GetTypeId() : NoRateControl::GetTypeId());
    FabricRoceRunResult r = RunFabricRoce(net, flows, opt);

    std::vector<double> slow;
    std::vector<double> fct;
    std::vector<double> tput;
    uint32_t incomplete = 0;
    uint32_t withRetx = 0;
    uint64_t retx = 0;
    uint64_t cnps = 0;
    uint64_t timeouts = 0;
    double first = 1e300;
    double last = 0;
    std::map<uint32_t, uint64_t> flowHist; // router links of each flow's routed path
    for (const auto& rec : r.flows)
    {
        retx += rec.retxPackets;
        cnps += rec.cnps;
        timeouts += rec.timeouts;
        withRetx += rec.retxPackets > 0 ? 1 : 0;
        if (rec.path.size() >= 3)
        {
            flowHist[static_cast<uint32_t>(rec.path.size() - 3)]++;
        }
        if (!rec.complete)
        {
            ++incomplete;
            continue;
        }
        slow.push_back(rec.Slowdown());
        fct.push_back(rec.FctSeconds() * 1e6);
        tput.push_back(rec.ThroughputBps() / 1e9);
        first = std::min(first, rec.start.GetSeconds());
        last = std::max(last, rec.finish.GetSeconds());
    }
    std::sort(slow.begin(), slow.end());
    std::sort(fct.begin(), fct.end());
    std::sort(tput.begin(), tput.end());
    double tputMean = 0;
    for (double x : tput)
    {
        tputMean += x / tput.size();
    }
    json h = json::object();
    json hFlows = json::object();
    uint64_t tot = 0;
    double mean = 0;
    for (const auto& [k, c] : *hist)
    {
        tot += c;
    }
    for (const auto& [k, c] : *hist)
    {
        h[std::to_string(k)] = double(c) / tot;
        mean += double(k) * c / tot;
    }
    for (const auto& [k, c] : flowHist)
    {
        hFlows[std::to_string(k)] = double(c) / r.flows.size();
    }
    json drops = json::object();
    for (const auto& [reason, c] : r.drops)
    {
        drops[reason] = c;
    }
    RunOut out;
    out.j = json{{"routing", routing->GetName()},
                 {"flows", r.flows.size()},
                 {"flows_complete", r.flows.size() - incomplete},
                 {"flows_incomplete", incomplete},
                 {"flows_with_retransmissions", withRetx},
                 {"throughput_gbps",
                  {{"mean", tputMean},
                   {"p1", Quantile(tput, 0.01)},
                   {"min", tput.empty() ? 0 : tput.front()},
                   {"p50", Quantile(tput, 0.5)},
                   {"max", tput.empty() ? 0 : tput.back()}}},
                 {"fct_slowdown",
                  {{"p50", Quantile(slow, 0.5)},
                   {"p90", Quantile(slow, 0.9)},
                   {"p99", Quantile(slow, 0.99)},
                   {"max", slow.empty() ? 0 : slow.back()}}},
                 {"fct_us", {{"p50", Quantile(fct, 0.5)}, {"p99", Quantile(fct, 0.99)}}},
                 {"makespan_us", last > 0 ? (last - first) * 1e6 : 0.0},
                 {"path_length_hist", h},
                 {"path_length_data_packets", tot},
                 {"mean_router_links", mean},
                 {"routed_path_length_hist_per_flow", hFlows},
                 {"retransmitted_packets", retx},
                 {"timeouts", timeouts},
                 {"cnps", cnps},
                 {"drops", drops},
                 {"horizon_us", stopAt.ToDouble(Time::US)},
                 {"events", r.events},
                 {"wall_s", r.wallSeconds}};
    out.j.update(PacketAccountingJson(r.sentPackets, r.deliveredPackets, r.drops, incomplete > 0));
    out.flows = std::move(r.flows);
    return out;
}

/**
 * All-to-all as steps of shifted permutations: in step k every server i sends \p bytes to
 * server (i + shift_k) mod N, and a server starts its next step when its previous flow
 * completed (pairwise exchange without a global barrier). \p steps random distinct shifts in
 * [1, N-1] (all N-1 when steps = 0 or >= N-1).
 */
std::vector<FlowSpec>
MakeAllToAll(uint32_t servers, uint64_t bytes, uint32_t steps, uint64_t seed)
{
    std::vector<uint32_t> shifts;
    for (uint32_t k = 1; k < servers; ++k)
    {
        shifts.push_back(k);
    }
    FabricRng rng(seed ^ 0x61326131ULL);
    for (size_t i = shifts.size(); i > 1; --i)
    {
        std::swap(shifts[i - 1], shifts[rng.Below(i)]);
    }
    if (steps > 0 && steps < shifts.size())
    {
        shifts.resize(steps);
    }
    std::vector<FlowSpec> flows;
    std::vector<int64_t> prev(servers, -1);
    for (size_t k = 0; k < shifts.size(); ++k)
    {
        for (uint32_t i = 0; i < servers; ++i)
        {
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = i;
            f.dst = (i + shifts[k]) % servers;
            f.bytes = bytes;
            f.srcPort = static_cast<uint16_t>(49152 + k);
            f.after = prev[i];
            prev[i] = f.id;
            flows.push_back(f);
        }
    }
    return flows;
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "RNG vs fat tree of the same oversubscription, RoCE at packet level.");
    cli.Add("n", "RNG routers (= fat-tree leaves)", "64");
    cli.Add("d", "RNG router degree (uplink lanes)", "8");
    cli.Add("s", "servers per router / leaf", "2");
    cli.Add("p", "Spraypoint p, in [1, d-1]", "2");
    cli.Add("h", "Spraypoint h, in [1, d]", "2");
    cli.Add("k", "k of k-shortest-paths", "8");
    cli.Add("seed", "graph, key, traffic and failure seed", "1");
    cli.Add("perm-bytes", "bytes per permutation flow", "524288");
    cli.Add("a2a-bytes", "bytes per all-to-all flow", "8192");
    cli.Add("a2a-steps",
            "all-to-all steps (random distinct shifts; 0: all N-1; --full: 64 unless given)",
            "0");
    cli.Add("link-rate-gbps", "lane / link rate", "100");
    cli.Add("rate-control", "dcqcn | none", "dcqcn");
    cli.Add(
        "stop-ms", "safety horizon of a run in ms (flows not complete then are reported)", "100");
    cli.Add("blackhole-us",
            "how long a failure stays in place before the routing reconverges (us): flows not "
            "complete by then are the ones hit",
            "2000");
    cli.Add("routings", "RNG routings: comma list of spraypoint|ecmp|ksp", "spraypoint,ecmp,ksp");
    cli.Add("patterns", "comma list of permutation|all-to-all", "permutation,all-to-all");
    cli.Add("blast", "run the failure (blast radius) cases", "true");
    cli.Add("full", "paper-like scale (n=256, d=16, s=8)", "false");
    cli.Add("out", "results folder", "results/rng-vs-fattree");
    cli.Parse(argc, argv);
    const bool full = cli.GetBool("full");
    for (const std::string f : {"n", "d", "s"})
    {
        if (full && cli.IsSet(f))
        {
            throw std::invalid_argument("--full sets --n=256 --d=16 --s=8; do not also give --"
                                        + f);
        }
    }
    const auto n = full ? 256u : static_cast<uint32_t>(cli.GetUint("n", 4, 4096));
    const auto d = full ? 16u : static_cast<uint32_t>(cli.GetUint("d", 2, 1000));
    const auto s = full ? 8u : static_cast<uint32_t>(cli.GetUint("s", 1, 64));
    const auto p = static_cast<uint32_t>(cli.GetUint("p", 1, 1000));
    const auto h = static_cast<uint32_t>(cli.GetUint("h", 1, 1000));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, 64));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    const std::string cc = cli.GetChoice("rate-control", {"dcqcn", "none"});
    Setup st{cli.GetDouble("link-rate-gbps", 0.001, 10000) * 1e9,
             cc,
             cli.GetTime("stop-ms", Time::MS, MicroSeconds(1), Seconds(1000))};
    const Time blackhole = cli.GetTime("blackhole-us", Time::US, MicroSeconds(1), Seconds(1000));
    CheckSerializationResolution(st.lineBps, RoceDataWireBytes(), "--link-rate-gbps");
    const uint64_t permBytes = cli.GetUint("perm-bytes", 1, uint64_t(1) << 34);
    const uint64_t a2aBytes = cli.GetUint("a2a-bytes", 1, uint64_t(1) << 30);
    const uint32_t a2aSteps = full && !cli.IsSet("a2a-steps")
                                ? 64u
                                : static_cast<uint32_t>(cli.GetUint("a2a-steps", 0, 16383));
    if (uint64_t(n) * s - 1 > 16383 && a2aSteps == 0)
    {
        throw std::invalid_argument("--a2a-steps=0: all-to-all over " + std::to_string(n * s)
                                    + " servers needs --a2a-steps in [1, 16383] (one UDP source "
                                      "port per step)");
    }
    const bool blast = cli.GetBool("blast");
    std::vector<std::string> routings;
    for (const auto& r : cli.GetList("routings"))
    {
        if (r != "spraypoint" && r != "ecmp" && r != "ksp")
        {
            throw std::invalid_argument("--routings: '" + r + "' must be spraypoint|ecmp|ksp");
        }
        routings.push_back(r);
    }
    std::vector<std::string> patternNames;
    for (const auto& pat : cli.GetList("patterns"))
    {
        if (pat != "permutation" && pat != "all-to-all")
        {
            throw std::invalid_argument("--patterns: '" + pat + "' must be permutation|all-to-all");
        }
        patternNames.push_back(pat);
    }
    // Measured: about 45 kB per ns-3 node (servers and routers) and, for the routing tables,
    // 11 bytes per router pair and 16 per lane.
    CheckFabricMemory(30e6 + 45e3 * double(n) * (s + 1) + 11.0 * n * n + 16.0 * n * d,
                      "--n=" + std::to_string(n) + " --d=" + std::to_string(d)
                          + " --s=" + std::to_string(s));
    // Validate the graph parameters and p, h against d before writing anything.
    RngFabric fab(MakeRandomRegularGraph(n, d, seed), s);
    SpraypointParams prm;
    prm.p = p;
    prm.h = h;
    prm.key = seed;
    auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), prm);
    // Fat tree with the same end-to-end oversubscription as the model gives the RNG.
    const OversubModel om = ModelOversubscription(n, d, p, h);
    const double rngE2E = std::max(1.0, s * om.oversub / d);
    const uint32_t spines
        = std::min(s, std::max(1u, static_cast<uint32_t>(std::ceil(s / rngE2E - 1e-9))));
    if (blast && spines < 2)
    {
        throw std::invalid_argument(
            std::string(cli.IsSet("blast") ? "--blast" : "--blast (default true)")
            + " fails a fat-tree spine, which needs at least 2 spines; --s=" + std::to_string(s)
            + " gives " + std::to_string(spines) + " here: use a larger --s or --blast=false");
    }
    FabricResults out(cli.GetString("out"));

    auto rGraph = std::shared_ptr<const FabricGraph>(fab.Build());
    LeafSpineLayout ft(n, s, spines);
    auto fGraph = std::shared_ptr<const FabricGraph>(ft.Build());
    const uint32_t nServers = n * s;
    std::cout << "RNG: " << n << " routers, d=" << d << ", s=" << s << " (" << nServers
              << " servers), Spraypoint p=" << p << " h=" << h << "; model mesh oversub "
              << om.oversub << " -> end-to-end " << rngE2E << "\nfat tree: " << n << " leaves x "
              << s << " servers, " << spines << " spines (oversub " << double(s) / spines
              << ")\nswitch ports: RNG " << n * (s + d) << ", fat tree " << ft.SwitchPorts()
              << "; switches: RNG " << n << ", fat tree " << n + spines << "\nRoCE ("
              << (cc == "dcqcn" ? "DCQCN" : "no rate control") << "), " << st.lineBps / 1e9
              << " Gb/s links\n";
    json summary;
    summary["params"] = {{"n", n},
                         {"d", d},
                         {"s", s},
                         {"p", p},
                         {"h", h},
                         {"k", k},
                         {"seed", seed},
                         {"transport", "roce"},
                         {"rate_control", cc},
                         {"perm_bytes", permBytes},
                         {"a2a_bytes", a2aBytes},
                         {"a2a_steps", a2aSteps},
                         {"stop_ms", st.stopAt.ToDouble(Time::MS)},
                         {"blackhole_us", blackhole.ToDouble(Time::US)},
                         {"link_rate_gbps", st.lineBps / 1e9},
                         {"servers", nServers},
                         {"fat_tree_spines", spines},
                         {"model_mesh_oversub", om.oversub},
                         {"rng_end_to_end_oversub", rngE2E},
                         {"fat_tree_oversub", double(s) / spines},
                         {"rng_switch_ports", n * (s + d)},
                         {"fat_tree_switch_ports", ft.SwitchPorts()}};

    auto makeRng
        = [&](const std::string& name,
              std::shared_ptr<const FabricGraph> g,
              const RngFabric& f,
              std::shared_ptr<const SpraypointTables> t) -> std::shared_ptr<const FabricRouting>
    {
        if (name == "spraypoint")
        {
            return std::make_shared<SpraypointRouting>(g, f, t, seed);
        }
        if (name == "ksp")
        {
            return std::make_shared<KspRouting>(g, f, k, seed);
        }
        return std::make_shared<FlowHashEcmp>(g, seed, true);
    };

    TrafficPatternParams tp;
    tp.hosts = nServers;
    tp.seed = seed;
    tp.bytes = permBytes;
    std::map<std::string, std::vector<FlowSpec>> patterns;
    patterns["permutation"] = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    patterns["all-to-all"] = MakeAllToAll(nServers, a2aBytes, a2aSteps, seed);

    CsvWriter flowCsv(out.Path("flows.csv"),
                      {"pattern",
                       "fabric",
                       "routing",
                       "case",
                       "flow",
                       "src",
                       "dst",
                       "bytes",
                       "complete",
                       "fct_us",
                       "ideal_us",
                       "slowdown",
                       "throughput_gbps",
                       "retx",
                       "cnps",
                       "routed_router_links"});
    CsvWriter pathCsv(out.Path("path-lengths.csv"),
                      {"pattern", "fabric", "routing", "router_links", "fraction_of_data_packets"});
    auto flowRows = [&flowCsv](const std::string& pat,
                               const std::string& fabName,
                               const std::string& routing,
                               const std::string& what,
                               const std::vector<RoceFlowRecord>& recs)
    {
        for (const auto& r : recs)
        {
            flowCsv.Row({pat,
                         fabName,
                         routing,
                         what,
                         std::to_string(r.spec.id),
                         std::to_string(r.spec.src),
                         std::to_string(r.spec.dst),
                         std::to_string(r.spec.bytes),
                         r.complete ? "1" : "0",
                         FormatNumber(r.complete ? r.FctSeconds() * 1e6 : -1),
                         FormatNumber(r.idealSeconds * 1e6),
                         FormatNumber(r.Slowdown()),
                         FormatNumber(r.ThroughputBps() / 1e9),
                         std::to_string(r.retxPackets),
                         std::to_string(r.cnps),
                         std::to_string(r.path.size() >= 3 ? r.path.size() - 3 : 0)});
        }
    };

    std::cout << "\n"
              << std::left << std::setw(13) << "pattern" << std::setw(10) << "fabric"
              << std::setw(12) << "routing" << std::right << std::setw(7) << "flows" << std::setw(8)
              << "incompl" << std::setw(9) << "tput-avg" << std::setw(8) << "tput-p1"
              << std::setw(9) << "tput-min" << std::setw(8) << "sd-p50" << std::setw(8) << "sd-p99"
              << std::setw(7) << "retx" << std::setw(7) << "cnps" << std::setw(7) << "links"
              << "  path-length histogram (router-router links, data packets)\n";
    auto row = [](const std::string& pat, const std::string& fabName, const json& j)
    {
        std::cout << std::left << std::setw(13) << pat << std::setw(10) << fabName << std::setw(12)
                  << j["routing"].get<std::string>() << std::right << std::fixed << std::setw(7)
                  << j["flows"].get<uint64_t>() << std::setw(8)
                  << j["flows_incomplete"].get<uint32_t>() << std::setprecision(1) << std::setw(9)
                  << j["throughput_gbps"]["mean"].get<double>() << std::setw(8)
                  << j["throughput_gbps"]["p1"].get<double>() << std::setw(9)
                  << j["throughput_gbps"]["min"].get<double>() << std::setprecision(2)
                  << std::setw(8) << j["fct_slowdown"]["p50"].get<double>() << std::setw(8)
                  << j["fct_slowdown"]["p99"].get<double>() << std::setw(7)
                  << j["retransmitted_packets"].get<uint64_t>() << std::setw(7)
                  << j["cnps"].get<uint64_t>() << std::setw(7)
                  << j["mean_router_links"].get<double>() << "  ";
        for (const auto& [kk, v] : j["path_length_hist"].items())
        {
            std::cout << kk << ":" << std::setprecision(3) << v.get<double>() << " ";
        }
        std::cout << "\n";
    };
    uint32_t incompleteTotal = 0;
    for (const auto& pat : patternNames)
    {
        const auto& flows = patterns[pat];
        Gnuplot plot;
        plot.SetTerminal("pngcairo size 900,500");
        plot.SetTitle("FCT slowdown CDF, " + pat + " (" + std::to_string(flows.size())
                      + " RoCE flows, " + std::to_string(nServers) + " servers)");
        plot.SetLegend("FCT slowdown (FCT / ideal FCT on the flow's path)", "fraction of flows");
        plot.AppendExtra("set logscale x");
        plot.AppendExtra("set key bottom right");
        plot.AppendExtra("set yrange [0:1]");
        plot.AppendExtra("set xrange [0.8:*]");
        std::vector<std::pair<std::string, std::shared_ptr<const FabricRouting>>> runs;
        for (const auto& name : routings)
        {
            runs.emplace_back("rng", makeRng(name, rGraph, fab, tab));
        }
        runs.emplace_back("fat-tree", std::make_shared<FlowHashEcmp>(fGraph, seed, true));
        for (const auto& [fabName, routing] : runs)
        {
            std::cerr << "[" << pat << "] " << fabName << " " << routing->GetName() << "..."
                      << std::flush;
            RunOut r = Run1(routing, flows, st, st.stopAt);
            std::cerr << " " << FormatNumber(r.j["wall_s"].get<double>(), 3) << " s\n";
            row(pat, fabName, r.j);
            incompleteTotal += r.j["flows_incomplete"].get<uint32_t>();
            const std::string key = fabName == "rng" ? "rng" : "fat_tree";
            summary["runs"][pat][key][r.j["routing"].get<std::string>()] = r.j;
            flowRows(pat, fabName, routing->GetName(), "normal", r.flows);
            for (const auto& [kk, v] : r.j["path_length_hist"].items())
            {
                pathCsv.Row({pat, fabName, routing->GetName(), kk, FormatNumber(v.get<double>())});
            }
            std::vector<double> sd;
            for (const auto& rec : r.flows)
            {
                if (rec.complete)
                {
                    sd.push_back(rec.Slowdown());
                }
            }
            std::sort(sd.begin(), sd.end());
            Gnuplot2dDataset ds(fabName + " " + routing->GetName());
            ds.SetStyle(Gnuplot2dDataset::LINES);
            const size_t step = std::max<size_t>(1, sd.size() / 400); // keep the .plt small
            for (size_t i = 0; i < sd.size(); ++i)
            {
                if (i % step == 0 || i + 1 == sd.size())
                {
                    ds.Add(sd[i], double(i + 1) / sd.size());
                }
            }
            plot.AddDataset(ds);
        }
        out.WritePng("fct-slowdown-cdf-" + pat + ".png", plot);
    }

    if (blast)
    {
        // Blast radius, permutation traffic: RNG (Spraypoint) vs fat tree (ECMP).
        std::cout << "\nblast radius (permutation; flows from/to the failed RNG router's servers "
                     "left out on both fabrics)\n"
                  << std::left << std::setw(12) << "failure" << std::setw(10) << "fabric"
                  << std::right << std::setw(12) << "elements" << std::setw(7) << "flows"
                  << std::setw(11) << "predicted" << std::setw(9) << "hit-pre" << std::setw(10)
                  << "incompl" << std::setw(10) << "tput-avg" << std::setw(9) << "tput-p1"
                  << std::setw(8) << "sd-p99"
                  << "\n";
        CsvWriter blastCsv(out.Path("blast-radius.csv"),
                           {"failure",
                            "fabric",
                            "elements",
                            "flows",
                            "blackholed_predicted",
                            "hit_fraction_pre",
                            "incomplete_post",
                            "throughput_mean_gbps_post",
                            "throughput_p1_gbps_post",
                            "slowdown_p99_post"});
        FabricRng frng(seed ^ 0x6661696cULL);
        const auto& perm = patterns["permutation"];
        for (const std::string kind : {"router", "links-1pct"})
        {
            // RNG failure.
            std::set<uint32_t> failedEdges;
            uint32_t failedRouter = UINT32_MAX;
            if (kind == "router")
            {
                failedRouter = static_cast<uint32_t>(frng.Below(n));
                for (uint32_t e = 0; e < fab.GetRouters().GetNEdges(); ++e)
                {
                    const auto& ed = fab.GetRouters().GetEdges()[e];
                    if (ed.first == failedRouter || ed.second == failedRouter)
                    {
                        failedEdges.insert(e);
                    }
                }
            }
            else
            {
                const uint32_t m = std::max(1u, fab.GetRouters().GetNEdges() / 100);
                while (failedEdges.size() < m)
                {
                    failedEdges.insert(
                        static_cast<uint32_t>(frng.Below(fab.GetRouters().GetNEdges())));
                }
            }
            std::vector<FlowSpec> flows;
            for (const auto& f : perm)
            {
                if (failedRouter == UINT32_MAX
                    || (f.src / s != failedRouter && f.dst / s != failedRouter))
                {
                    flows.push_back(f);
                    flows.back().id = static_cast<uint32_t>(flows.size() - 1);
                }
            }
            // Fat-tree failure: a spine (the upper-layer failure), or 1% of leaf-spine links.
            std::set<std::pair<uint32_t, uint32_t>> removed;
            uint32_t failedSpine = UINT32_MAX;
            std::set<uint32_t> ftLinks;
            std::set<uint32_t> ftNodes;
            if (kind == "router")
            {
                failedSpine = static_cast<uint32_t>(frng.Below(spines));
                ftNodes.insert(ft.SpineNode(failedSpine));
            }
            else
            {
                const uint32_t m = std::max(1u, n * spines / 100);
                while (removed.size() < m)
                {
                    removed.insert({static_cast<uint32_t>(frng.Below(n)),
                                    static_cast<uint32_t>(frng.Below(spines))});
                }
                for (const auto& [l, sp] : removed)
                {
                    ftLinks.insert(nServers + l * spines + sp);
                }
            }

            struct Case
            {
                std::string fabric;
                std::string elements;
                std::shared_ptr<const FabricRouting> pre;
                std::shared_ptr<const FabricRouting> post;
            };

            // Router-router link e of the RNG is FabricGraph link n*s + e.
            std::set<uint32_t> fLinks;
            for (uint32_t e : failedEdges)
            {
                fLinks.insert(nServers + e);
            }
            RngFabric degraded(fab.GetRouters().WithoutEdges(failedEdges), s);
            auto dGraph = std::shared_ptr<const FabricGraph>(degraded.Build());
            auto dTab = std::make_shared<SpraypointTables>(degraded.GetRouters(), prm);
            auto fdGraph = std::shared_ptr<const FabricGraph>(ft.Build(removed, failedSpine));
            const std::vector<Case> cases{
                {"rng",
                 kind == "router" ? "router R" + std::to_string(failedRouter)
                                  : std::to_string(failedEdges.size()) + " links",
                 std::make_shared<FailureMaskRouting>(
                     std::make_shared<SpraypointRouting>(rGraph, fab, tab, seed),
                     fLinks,
                     std::set<uint32_t>{}),
                 std::make_shared<SpraypointRouting>(dGraph, degraded, dTab, seed)},
                {"fat-tree",
                 kind == "router" ? "spine S" + std::to_string(failedSpine)
                                  : std::to_string(removed.size()) + " links",
                 std::make_shared<FailureMaskRouting>(
                     std::make_shared<FlowHashEcmp>(fGraph, seed, true), ftLinks, ftNodes),
                 std::make_shared<FlowHashEcmp>(fdGraph, seed, true)}};
            for (const auto& c : cases)
            {
                // Flows whose data or ACK path the routing function sends into the failure
                // (no reconvergence yet). ACKs go to port 4791 of the sender's host from the
                // flow's own source port, as RoceReceiver sends them.
                uint32_t predicted = 0;
                for (const auto& f : flows)
                {
                    FlowSpec ack;
                    ack.src = f.dst;
                    ack.dst = f.src;
                    ack.srcPort = f.srcPort;
                    ack.dstPort = ROCEV2_UDP_PORT;
                    const bool ok = TracePath(*c.pre, f.src, f.dst, f.Key()).delivered
                                 && TracePath(*c.pre, ack.src, ack.dst, ack.Key()).delivered;
                    predicted += ok ? 0 : 1;
                }
                std::cerr << "[blast " << kind << "] " << c.fabric << " pre..." << std::flush;
                RunOut pre = Run1(c.pre, flows, st, blackhole);
                std::cerr << " post..." << std::flush;
                // After reconvergence a failure may leave some flows without any path (a
                // leaf that lost all its uplinks): they cannot start, and are counted apart.
                std::vector<FlowSpec> postFlows;
                for (const auto& f : flows)
                {
                    FlowSpec ack;
                    ack.src = f.dst;
                    ack.dst = f.src;
                    ack.srcPort = f.srcPort;
                    ack.dstPort = ROCEV2_UDP_PORT;
                    if (TracePath(*c.post, f.src, f.dst, f.Key()).delivered
                        && TracePath(*c.post, ack.src, ack.dst, ack.Key()).delivered)
                    {
                        postFlows.push_back(f);
                        postFlows.back().id = static_cast<uint32_t>(postFlows.size() - 1);
                    }
                }
                const auto unroutable = static_cast<uint32_t>(flows.size() - postFlows.size());
                if (postFlows.empty())
                {
                    throw std::invalid_argument(
                        "--blast: the " + kind + " failure on the " + c.fabric
                        + " disconnects every flow at this size; use --blast=false or larger "
                          "--n/--d/--s");
                }
                incompleteTotal += unroutable;
                RunOut post = Run1(c.post, postFlows, st, st.stopAt);
                std::cerr << " done\n";
                const uint32_t hit = pre.j["flows_incomplete"].get<uint32_t>();
                const double hitFrac = flows.empty() ? 0.0 : double(hit) / flows.size();
                incompleteTotal += post.j["flows_incomplete"].get<uint32_t>();
                std::cout << std::left << std::setw(12) << kind << std::setw(10) << c.fabric
                          << std::right << std::setw(12) << c.elements << std::setw(7)
                          << flows.size() << std::setw(11) << predicted << std::setw(9)
                          << std::setprecision(3) << hitFrac << std::setw(10)
                          << post.j["flows_incomplete"].get<uint32_t>() << std::setprecision(1)
                          << std::setw(10) << post.j["throughput_gbps"]["mean"].get<double>()
                          << std::setw(9) << post.j["throughput_gbps"]["p1"].get<double>()
                          << std::setprecision(2) << std::setw(8)
                          << post.j["fct_slowdown"]["p99"].get<double>() << "\n";
                const std::string key = c.fabric == "rng" ? "rng" : "fat_tree";
                json bj{{"elements", c.elements},
                        {"flows", flows.size()},
                        {"flows_blackholed_predicted", predicted},
                        {"flows_hit_before_reconvergence", hitFrac},
                        {"flows_unroutable_after", unroutable},
                        {"before", pre.j},
                        {"after", post.j}};
                if (c.fabric == "rng")
                {
                    bj["failed_router"]
                        = failedRouter == UINT32_MAX ? json(nullptr) : json(failedRouter);
                    bj["failed_links"] = failedEdges.size();
                }
                else
                {
                    bj["failed_spine"]
                        = failedSpine == UINT32_MAX ? json(nullptr) : json(failedSpine);
                    bj["failed_links"] = removed.size();
                }
                summary["blast_radius"][kind][key] = bj;
                flowRows("permutation", c.fabric, c.pre->GetName(), kind + "-pre", pre.flows);
                flowRows("permutation", c.fabric, c.post->GetName(), kind + "-post", post.flows);
                blastCsv.Row({kind,
                              c.fabric,
                              c.elements,
                              std::to_string(flows.size()),
                              std::to_string(predicted),
                              FormatNumber(hitFrac),
                              std::to_string(post.j["flows_incomplete"].get<uint32_t>()),
                              FormatNumber(post.j["throughput_gbps"]["mean"].get<double>()),
                              FormatNumber(post.j["throughput_gbps"]["p1"].get<double>()),
                              FormatNumber(post.j["fct_slowdown"]["p99"].get<double>())});
            }
        }
        std::cout << "\npredicted: flows whose data or ACK path the routing function sends into "
                     "the failure; hit-pre: "
                     "fraction of flows not complete after --blackhole-us with the failure in "
                     "place and routing not reconverged; incompl, tput, sd: after the routing "
                     "is recomputed on the degraded graph\n";
    }
    summary["flows_incomplete_total"] = incompleteTotal;
    std::cout << "\ntput: per-flow throughput = message bits / FCT (Gb/s); sd: FCT slowdown = FCT "
                 "/ ideal FCT on the flow's routed path (wire bytes at line rate + base RTT)\n";
    if (incompleteTotal > 0)
    {
        std::cout << "WARNING: " << incompleteTotal
                  << " flows did not complete within --stop-ms (see flows_incomplete)\n";
    }
    out.WriteJson("summary.json", summary);
    std::cout << "wrote " << out.Path("summary.json") << ", flows.csv, path-lengths.csv"
              << (blast ? ", blast-radius.csv" : "") << ", fct-slowdown-cdf-*.png\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
