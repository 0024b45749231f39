// SPDX-License-Identifier: GPL-2.0-only
// One flow across an RNG fabric under Spraypoint routing: the path TracePath computes from the
// routing function, and the hops its first packet really takes, seen through the switches'
// Forward trace at /NodeList/*/$ns3::FabricSwitchForwarder/Forward.
//
//   ./build/bin/spraypoint-path-trace --src=0 --dst=20
#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/rng-topology.h"
#include "ns3/spraypoint-routing.h"

#include <iostream>

using namespace ns3;

namespace
{

/// Forward trace sink; the context is the matched path, /NodeList/<node id>/$ns3::...
void
OnForward(std::vector<uint32_t>* hops,
          std::string context,
          Ptr<const Packet>,
          uint32_t inPort,
          uint32_t outPort)
{
    const auto node
        = static_cast<uint32_t>(std::stoul(context.substr(std::string("/NodeList/").size())));
    std::cout << "  " << Simulator::Now().GetNanoSeconds() << " ns: node " << node << " port "
              << inPort << " -> " << outPort << "\n";
    hops->push_back(node);
}

} // namespace

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "One Spraypoint flow on an RNG fabric: computed and traced path.");
    cli.Add("src", "source server", "0");
    cli.Add("dst", "destination server", "20");
    cli.Parse(argc, argv);
    // 16 routers of degree 4, 2 servers each (servers 0..31).
    RngFabric fabric(MakeRandomRegularGraph(16, 4, 1), 2);
    std::shared_ptr<const FabricGraph> graph = fabric.Build();
    FlowSpec f;
    f.src = static_cast<uint32_t>(cli.GetUint("src", 0, fabric.GetNServers() - 1));
    f.dst = static_cast<uint32_t>(cli.GetUint("dst", 0, fabric.GetNServers() - 1));
    f.bytes = 4096; // one packet
    f.Validate(fabric.GetNServers());

    FabricNetworkHelper links;
    links.SetRouting("ns3::SpraypointRouting", "H", UintegerValue(2));
    Ptr<FabricRouting> routing = links.CreateRouting(graph);
    const FabricPath path = TracePath(*routing, f.src, f.dst, f.Key());
    std::cout << "computed:";
    for (uint32_t v : path.nodes)
    {
        std::cout << " " << graph->GetName(v);
    }
    std::cout << (path.delivered ? "" : " (undelivered)") << "\n";

    Ptr<FabricNetwork> net = links.Install(graph, routing);
    std::vector<uint32_t> traced{f.src};
    auto hook = [&traced](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        // The context is the matched path: /NodeList/<node id>/$ns3::FabricSwitchForwarder/...
        Config::Connect("/NodeList/*/$ns3::FabricSwitchForwarder/Forward",
                        MakeBoundCallback(&OnForward, &traced));
    };
    std::cout << "traced (Forward trace):\n";
    const FabricUdpRunResult r = RunFabricUdp(net, {f}, {100e9}, 4096, Time(0), hook);
    traced.push_back(f.dst);
    std::cout << "traced:  ";
    for (uint32_t v : traced)
    {
        std::cout << " " << graph->GetName(v);
    }
    std::cout << "\n";
    // ns-3 node ids equal fabric node ids (FabricNetwork), so the two paths compare directly.
    const bool same = traced == path.nodes;
    std::cout << (same ? "the packet took the computed path\n" : "paths differ\n");
    return (same && r.Unaccounted() == 0 && r.deliveredPackets == 1) ? 0 : 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
