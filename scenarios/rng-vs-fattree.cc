// SPDX-License-Identifier: GPL-2.0-only
//
// RNG (random d-regular mesh, Spraypoint / shortest-path ECMP / k-shortest-paths) vs a
// two-tier fat tree with the same servers and the same oversubscription (RNG paper §7.3
// model), at packet level with constant-rate UDP (the RoCE transport is not in yet):
// permutation and all-to-all; throughput, FCT slowdown, path lengths read from packets; and
// the blast radius of a router failure and of 1% link failures, before and after the
// routing reconverges.
//
//   ./build/bin/rng-vs-fattree --out=results/rng-vs-fattree
//   ./build/bin/rng-vs-fattree --full
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/flow-hash-ecmp.h"
#include "ns3/rng-models.h"
#include "ns3/spraypoint-routing.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <unordered_map>

using namespace ns3;
using json = nlohmann::json;

namespace
{

struct Setup
{
    double lineBps;
    double load;
    uint32_t packetSize;
};

/// Packet-level run with router hops counted per packet (Forward traces, by packet uid).
json
Run1(std::shared_ptr<const FabricRouting> routing,
     const std::vector<FlowSpec>& flows,
     const std::vector<uint32_t>& minLinks,
     const std::vector<char>& counted,
     const Setup& st,
     double* goodputOut)
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
                    if (it != hops->end())
                    {
                        (*hist)[it->second - 1]++; // router-router links = routers - 1
                        hops->erase(it);
                    }
                }));
    }
    std::vector<double> rates(flows.size(), st.load * st.lineBps);
    FabricUdpRunResult r = RunFabricUdp(net, flows, rates, st.packetSize);
    std::vector<double> slow;
    uint64_t rxBytes = 0;
    uint32_t incomplete = 0;
    uint32_t hit = 0;
    uint32_t countedFlows = 0;
    double last = 0;
    const double wireBits = (st.packetSize + 30) * 8.0;
    for (size_t f = 0; f < flows.size(); ++f)
    {
        if (!counted[f])
        {
            continue;
        }
        ++countedFlows;
        rxBytes += r.flows[f].rxBytes;
        if (r.flows[f].rxBytes < flows[f].bytes)
        {
            ++incomplete;
            hit += r.flows[f].rxBytes < r.flows[f].txBytes ? 1 : 0;
            continue;
        }
        const double pk = std::ceil(double(flows[f].bytes) / st.packetSize);
        const double ideal = (pk - 1) * wireBits / (st.load * st.lineBps)
                           + minLinks[f] * (wireBits / st.lineBps + 1e-6);
        const double fct = r.flows[f].lastRx.GetSeconds() - flows[f].startS;
        slow.push_back(fct / ideal);
        last = std::max(last, r.flows[f].lastRx.GetSeconds());
    }
    std::sort(slow.begin(), slow.end());
    auto q = [&slow](double x)
    {
        return slow.empty() ? 0.0 : slow[std::min(slow.size() - 1, size_t(x * slow.size()))];
    };
    json h = json::object();
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
    json drops = json::object();
    for (const auto& [reason, c] : r.drops)
    {
        drops[reason] = c;
    }
    const double goodput = last > 0 ? rxBytes * 8.0 / last / 1e9 : 0;
    if (goodputOut)
    {
        *goodputOut = goodput;
    }
    return json{{"routing", routing->GetName()},
                {"flows", countedFlows},
                {"goodput_gbps", goodput},
                {"flows_incomplete", incomplete},
                {"flows_losing_packets", hit},
                {"fct_slowdown",
                 {{"p50", q(0.5)},
                  {"p90", q(0.9)},
                  {"p99", q(0.99)},
                  {"max", slow.empty() ? 0 : slow.back()}}},
                {"path_length_hist", h},
                {"mean_router_links", mean},
                {"sent_packets", r.sentPackets},
                {"delivered_packets", r.deliveredPackets},
                {"dropped_packets", r.droppedPackets},
                {"drops", drops},
                {"unaccounted_packets", r.Unaccounted()},
                {"wall_s", r.wallSeconds}};
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "RNG vs fat tree of the same oversubscription, packet level.");
    cli.Add("n", "RNG routers (= fat-tree leaves)", "64");
    cli.Add("d", "RNG router degree (uplink lanes)", "8");
    cli.Add("s", "servers per router / leaf", "2");
    cli.Add("p", "Spraypoint p", "2");
    cli.Add("h", "Spraypoint h", "2");
    cli.Add("k", "k of k-shortest-paths", "8");
    cli.Add("seed", "graph, key, traffic and failure seed", "1");
    cli.Add("load", "per-flow sending rate as a fraction of the line rate", "0.5");
    cli.Add("perm-bytes", "bytes per permutation flow", "204800");
    cli.Add("a2a-bytes",
            "bytes per all-to-all flow (flows of a server are sent one after "
            "the other)",
            "4096");
    cli.Add("link-rate-gbps", "lane / link rate", "100");
    cli.Add("routings", "RNG routings: comma list of spraypoint|ecmp|ksp", "spraypoint,ecmp,ksp");
    cli.Add("full", "paper-like scale (n=256, d=16, s=8)", "false");
    cli.Add("out", "results folder", "results/rng-vs-fattree");
    cli.Parse(argc, argv);
    const bool full = cli.GetBool("full");
    const auto n = full ? 256u : static_cast<uint32_t>(cli.GetUint("n", 4, 4096));
    const auto d = full ? 16u : static_cast<uint32_t>(cli.GetUint("d", 2, 1000));
    const auto s = full ? 8u : static_cast<uint32_t>(cli.GetUint("s", 1, 64));
    const auto p = static_cast<uint32_t>(cli.GetUint("p", 1, 1000));
    const auto h = static_cast<uint32_t>(cli.GetUint("h", 1, 1000));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, 64));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    Setup st{
        cli.GetDouble("link-rate-gbps", 0.001, 10000) * 1e9, cli.GetDouble("load", 0.01, 1), 4096};
    const uint64_t permBytes = cli.GetUint("perm-bytes", 1, uint64_t(1) << 34);
    const uint64_t a2aBytes = cli.GetUint("a2a-bytes", 1, uint64_t(1) << 30);
    std::vector<std::string> routings;
    for (const auto& r : cli.GetList("routings"))
    {
        if (r != "spraypoint" && r != "ecmp" && r != "ksp")
        {
            throw std::invalid_argument("--routings: '" + r + "' must be spraypoint|ecmp|ksp");
        }
        routings.push_back(r);
    }
    FabricResults out(cli.GetString("out"));

    RngFabric fab(MakeRandomRegularGraph(n, d, seed), s);
    SpraypointParams prm;
    prm.p = p;
    prm.h = h;
    prm.key = seed;
    auto tab = std::make_shared<SpraypointTables>(fab.GetRouters(), prm);
    auto rGraph = std::shared_ptr<const FabricGraph>(fab.Build());
    // Fat tree with the same end-to-end oversubscription as the model gives the RNG.
    const OversubModel om = ModelOversubscription(n, d, p, h);
    const double rngE2E = std::max(1.0, s * om.oversub / d);
    const uint32_t spines
        = std::min(s, std::max(1u, static_cast<uint32_t>(std::ceil(s / rngE2E - 1e-9))));
    LeafSpineLayout ft(n, s, spines);
    auto fGraph = std::shared_ptr<const FabricGraph>(ft.Build());
    const uint32_t nServers = n * s;
    std::cout << "RNG: " << n << " routers, d=" << d << ", s=" << s << " (" << nServers
              << " servers), Spraypoint p=" << p << " h=" << h << "; model mesh oversub "
              << om.oversub << " -> end-to-end " << rngE2E << "\nfat tree: " << n << " leaves x "
              << s << " servers, " << spines << " spines (oversub " << double(s) / spines
              << ")\nswitch ports: RNG " << n * (s + d) << ", fat tree " << ft.SwitchPorts()
              << "; switches: RNG " << n << ", fat tree " << n + spines << "\n";
    json summary;
    summary["params"] = {{"n", n},
                         {"d", d},
                         {"s", s},
                         {"p", p},
                         {"h", h},
                         {"k", k},
                         {"seed", seed},
                         {"load", st.load},
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
    std::map<std::string, std::vector<FlowSpec>> patterns;
    tp.bytes = permBytes;
    patterns["permutation"] = MakeTraffic(TrafficPattern::PERMUTATION, tp);
    tp.bytes = a2aBytes;
    auto a2a = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
    {
        std::vector<uint32_t> idx(nServers, 0);
        const double gap = std::ceil(double(a2aBytes) / st.packetSize) * (st.packetSize + 30) * 8
                         / (st.load * st.lineBps);
        for (auto& f : a2a)
        {
            f.startS = gap * idx[f.src]++;
        }
    }
    patterns["all-to-all"] = a2a;
    FlowHashEcmp rDist(rGraph, 0, false);
    FlowHashEcmp fDist(fGraph, 0, false);

    std::cout << "\n"
              << std::left << std::setw(13) << "pattern" << std::setw(10) << "fabric"
              << std::setw(12) << "routing" << std::right << std::setw(10) << "Gb/s" << std::setw(8)
              << "incompl" << std::setw(8) << "fct-p50" << std::setw(8) << "fct-p99" << std::setw(9)
              << "links"
              << "  path-length histogram (router-router links)\n";
    auto row = [](const std::string& pat, const std::string& fabName, const json& j)
    {
        std::cout << std::left << std::setw(13) << pat << std::setw(10) << fabName << std::setw(12)
                  << j["routing"].get<std::string>() << std::right << std::fixed
                  << std::setprecision(1) << std::setw(10) << j["goodput_gbps"].get<double>()
                  << std::setw(8) << j["flows_incomplete"].get<uint32_t>() << std::setprecision(2)
                  << std::setw(8) << j["fct_slowdown"]["p50"].get<double>() << std::setw(8)
                  << j["fct_slowdown"]["p99"].get<double>() << std::setw(9)
                  << j["mean_router_links"].get<double>() << "  ";
        for (const auto& [kk, v] : j["path_length_hist"].items())
        {
            std::cout << kk << ":" << std::setprecision(3) << v.get<double>() << " ";
        }
        std::cout << "\n";
    };
    std::map<std::string, double> baseGoodput;
    for (const auto& [pat, flows] : patterns)
    {
        std::vector<uint32_t> minR;
        std::vector<uint32_t> minF;
        for (const auto& f : flows)
        {
            minR.push_back(rDist.GetDistance(f.src, f.dst));
            minF.push_back(fDist.GetDistance(f.src, f.dst));
        }
        const std::vector<char> all(flows.size(), 1);
        for (const auto& name : routings)
        {
            std::cerr << "[" << pat << "] rng " << name << "...\n";
            double gp = 0;
            json j = Run1(makeRng(name, rGraph, fab, tab), flows, minR, all, st, &gp);
            row(pat, "rng", j);
            summary["runs"][pat]["rng"][name] = j;
            baseGoodput["rng-" + name + "-" + pat] = gp;
        }
        std::cerr << "[" << pat << "] fat tree ecmp...\n";
        double gp = 0;
        json j
            = Run1(std::make_shared<FlowHashEcmp>(fGraph, seed, true), flows, minF, all, st, &gp);
        row(pat, "fat-tree", j);
        summary["runs"][pat]["fat_tree"]["ecmp"] = j;
        baseGoodput["ft-" + pat] = gp;
    }

    // Blast radius, permutation traffic: RNG (Spraypoint) vs fat tree (ECMP).
    std::cout << "\nblast radius (permutation): flows = flows not from/to a failed router's "
                 "servers\n"
              << std::left << std::setw(22) << "failure" << std::setw(10) << "fabric" << std::right
              << std::setw(14) << "elements" << std::setw(16) << "flows-hit-pre" << std::setw(16)
              << "goodput-post"
              << "\n";
    FabricRng frng(seed ^ 0x6661696cULL);
    const auto& perm = patterns["permutation"];
    std::vector<uint32_t> minR;
    std::vector<uint32_t> minF;
    for (const auto& f : perm)
    {
        minR.push_back(rDist.GetDistance(f.src, f.dst));
        minF.push_back(fDist.GetDistance(f.src, f.dst));
    }
    for (const std::string kind : {"router", "links-1pct"})
    {
        // RNG.
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
                failedEdges.insert(static_cast<uint32_t>(frng.Below(fab.GetRouters().GetNEdges())));
            }
        }
        std::vector<char> counted(perm.size(), 1);
        for (size_t f = 0; f < perm.size(); ++f)
        {
            if (failedRouter != UINT32_MAX
                && (perm[f].src / s == failedRouter || perm[f].dst / s == failedRouter))
            {
                counted[f] = 0;
            }
        }
        // Fabric links of the RNG graph: router-router link e is FabricGraph link n*s + e.
        std::set<uint32_t> fLinks;
        for (uint32_t e : failedEdges)
        {
            fLinks.insert(nServers + e);
        }
        auto pre = std::make_shared<FailureMaskRouting>(
            std::make_shared<SpraypointRouting>(rGraph, fab, tab, seed),
            fLinks,
            std::set<uint32_t>{});
        json jPre = Run1(pre, perm, minR, counted, st, nullptr);
        RngFabric degraded(fab.GetRouters().WithoutEdges(failedEdges), s);
        auto dGraph = std::shared_ptr<const FabricGraph>(degraded.Build());
        auto dTab = std::make_shared<SpraypointTables>(degraded.GetRouters(), prm);
        json jPost = Run1(std::make_shared<SpraypointRouting>(dGraph, degraded, dTab, seed),
                          perm,
                          minR,
                          counted,
                          st,
                          nullptr);
        const double hitR
            = double(jPre["flows_incomplete"].get<uint32_t>()) / jPre["flows"].get<uint32_t>();
        std::cout << std::left << std::setw(22) << kind << std::setw(10) << "rng" << std::right
                  << std::setw(14)
                  << (kind == "router" ? "router R" + std::to_string(failedRouter)
                                       : std::to_string(failedEdges.size()) + " links")
                  << std::setw(16) << std::setprecision(3) << hitR << std::setw(16)
                  << jPost["goodput_gbps"].get<double>() << "\n";
        summary["blast_radius"][kind]["rng"]
            = {{"failed_router", failedRouter == UINT32_MAX ? json(nullptr) : json(failedRouter)},
               {"failed_links", failedEdges.size()},
               {"flows_hit_before_reconvergence", hitR},
               {"before", jPre},
               {"after", jPost}};
        // Fat tree: a spine (the upper-layer failure), or 1% of leaf-spine links.
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
        const std::vector<char> allF(perm.size(), 1);
        auto fPre = std::make_shared<FailureMaskRouting>(
            std::make_shared<FlowHashEcmp>(fGraph, seed, true), ftLinks, ftNodes);
        json fjPre = Run1(fPre, perm, minF, allF, st, nullptr);
        auto fdGraph = std::shared_ptr<const FabricGraph>(ft.Build(removed, failedSpine));
        json fjPost = Run1(
            std::make_shared<FlowHashEcmp>(fdGraph, seed, true), perm, minF, allF, st, nullptr);
        const double hitF
            = double(fjPre["flows_incomplete"].get<uint32_t>()) / fjPre["flows"].get<uint32_t>();
        std::cout << std::left << std::setw(22) << kind << std::setw(10) << "fat-tree" << std::right
                  << std::setw(14)
                  << (kind == "router" ? "spine S" + std::to_string(failedSpine)
                                       : std::to_string(removed.size()) + " links")
                  << std::setw(16) << std::setprecision(3) << hitF << std::setw(16)
                  << fjPost["goodput_gbps"].get<double>() << "\n";
        summary["blast_radius"][kind]["fat_tree"]
            = {{"failed_spine", failedSpine == UINT32_MAX ? json(nullptr) : json(failedSpine)},
               {"failed_links", removed.size()},
               {"flows_hit_before_reconvergence", hitF},
               {"before", fjPre},
               {"after", fjPost}};
    }
    std::cout << "\nflows-hit-pre: fraction of counted flows that lost packets with the failure "
                 "in place and routing not yet reconverged; goodput-post: aggregate goodput (Gb/s) "
                 "after routing is recomputed on the degraded graph\n";
    out.WriteJson("summary.json", summary);
    std::cout << "wrote " << out.Path("summary.json") << "\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    try
    {
        return Run(argc, argv);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
}
