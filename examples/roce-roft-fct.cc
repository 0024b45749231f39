// SPDX-License-Identifier: GPL-2.0-only
// RoCE flows across a rail-optimized fat tree: each flow's completion time and path, the
// busiest link, and the packet accounting (sent = delivered + dropped + in flight).
//
//   ./build/bin/roce-roft-fct --flows=4 --bytes=1000000
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <iostream>

using namespace ns3;

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "RoCE flows on a 16-GPU ROFT: FCT, path, busiest link, accounting.");
    cli.Add("flows", "number of flows, GPU i -> GPU 15-i", "4");
    cli.Add("bytes", "message size per flow (bytes)", "1000000");
    cli.Parse(argc, argv);
    const auto nFlows = static_cast<uint32_t>(cli.GetUint("flows", 1, 8));
    const uint64_t bytes = cli.GetUint("bytes", 1, uint64_t(1) << 32);

    // 16 GPUs, 4 per leaf, 4 spines; flow-hash ECMP over the spines (hash seed 1).
    RoftHelper roft(RoftLayout(16, 4, 4), 1);
    FabricNetworkHelper links; // 400 Gb/s, 1 us, 2 MB queues unless changed (doc/fabric.md)
    Ptr<FabricNetwork> net = roft.Install(links);
    const FabricGraph& g = net->GetGraph();

    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        FlowSpec f;
        f.id = i;
        f.src = i;
        f.dst = 15 - i;
        f.bytes = bytes; // srcPort left 0: a deterministic ephemeral port
        flows.push_back(f);
    }
    const FabricRoceRunResult r = RunFabricRoce(net, flows);

    std::cout << "flow  src -> dst    FCT (us)  ideal (us)  path\n";
    for (const RoceFlowRecord& f : r.flows)
    {
        std::cout << f.spec.id << "     " << g.GetName(f.spec.src) << " -> "
                  << g.GetName(f.spec.dst) << "   " << f.FctSeconds() * 1e6 << "   "
                  << f.idealSeconds * 1e6 << "  ";
        for (uint32_t v : f.path)
        {
            std::cout << " " << g.GetName(v);
        }
        std::cout << "\n";
    }
    uint32_t busiest = 0;
    for (uint32_t d = 0; d < r.links.size(); ++d)
    {
        busiest = r.links[d].txBytes > r.links[busiest].txBytes ? d : busiest;
    }
    std::cout << "busiest link " << g.GetDirLinkLabel(busiest) << ": " << r.links[busiest].txBytes
              << " B, peak queue " << r.links[busiest].maxQueueBytes << " B\n";
    std::cout << "packets sent " << r.sentPackets << " = delivered " << r.deliveredPackets
              << " + dropped " << r.droppedPackets << " + in flight " << r.inFlightPackets
              << " (unaccounted " << r.Unaccounted() << ")\n";
    std::cout << "last flow done at " << r.lastCompletionSeconds * 1e6 << " us\n";
    return (r.Unaccounted() == 0 && r.incompleteFlows == 0) ? 0 : 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
