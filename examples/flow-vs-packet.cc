// SPDX-License-Identifier: GPL-2.0-only
// One experiment at both levels: a prefill-to-decode pattern on a 16-GPU ROFT, run packet by
// packet (RoCE, DCQCN) and at the flow level (max-min fair rates) with the same graph, the same
// routing object and the same flow list. Both levels hash each flow onto the same path; the
// table puts the two completion times side by side.
//
//   ./build/bin/flow-vs-packet --bytes=1000000
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-stats.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-topology.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "The same flows at packet and at flow level on a 16-GPU ROFT.");
    cli.Add("bytes", "message size per flow (bytes)", "1000000");
    cli.Parse(argc, argv);
    const uint64_t bytes = cli.GetUint("bytes", 4096, uint64_t(1) << 32);

    // 16 GPUs, 4 per leaf, 4 spines (not oversubscribed).
    std::shared_ptr<const FabricGraph> graph = RoftLayout(16, 4, 4).Build();
    FabricNetworkHelper links; // 400 Gb/s links, flow-hash ECMP (ns3::EcmpRouting, Seed 1)
    Ptr<FabricRouting> routing = links.CreateRouting(graph);

    TrafficPatternParams tp;
    tp.hosts = 16;
    tp.bytes = bytes;
    tp.prefillFraction = 0.25; // GPUs 0-3 (leaf 0) send to every other GPU
    const std::vector<FlowSpec> flows = MakeTraffic(TrafficPattern::PREFILL, tp);

    // Flow level first: no simulator inside, so it does not disturb the packet run.
    FlowSimHelper flowLevel;
    const Ptr<FlowSimulator> fs = flowLevel.Run(routing, flows);
    const std::vector<FlowSimRecord>& fr = fs->GetRecords();
    const FabricRoceRunResult pr = RunFabricRoce(links.Install(graph, routing), flows);

    std::vector<double> ratio;
    uint32_t samePath = 0;
    uint64_t retx = 0;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        ratio.push_back(pr.flows[i].FctSeconds() / fr[i].FctSeconds());
        samePath += pr.flows[i].path == fr[i].path ? 1 : 0;
        retx += pr.flows[i].retxPackets;
    }
    std::cout << flows.size() << " flows of " << bytes << " bytes, leaf 0 -> every other GPU\n"
              << "flow  src->dst  packet FCT (us)  flow FCT (us)  ratio\n"
              << std::fixed << std::setprecision(1);
    for (size_t i = 0; i < flows.size(); i += flows.size() / 8)
    {
        std::cout << std::setw(4) << i << "  " << std::setw(3) << flows[i].src << "->"
                  << std::setw(3) << flows[i].dst << "  " << std::setw(15)
                  << pr.flows[i].FctSeconds() * 1e6 << "  " << std::setw(13)
                  << fr[i].FctSeconds() * 1e6 << "  " << std::setprecision(3) << ratio[i]
                  << std::setprecision(1) << "\n";
    }
    std::cout << std::setprecision(3) << "FCT packet/flow: median " << Quantile(ratio, 0.5)
              << ", p99 " << Quantile(ratio, 0.99) << "; identical paths: " << samePath << " of "
              << flows.size() << "\npacket level: " << pr.sentPackets << " packets sent, "
              << pr.deliveredPackets << " delivered, " << pr.droppedPackets << " dropped, " << retx
              << " retransmitted\n";
    // Exit 1 if the two levels did not run the same experiment or packets went missing.
    return samePath == flows.size() && pr.Unaccounted() == 0 && pr.incompleteFlows == 0 ? 0 : 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
