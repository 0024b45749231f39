// SPDX-License-Identifier: GPL-2.0-only
// A program of your own: two RoCE flows across a 16-GPU ZCube, built against the installed
// AiFabric package (examples/own-program/CMakeLists.txt).
#include "ns3/core-module.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    // Before any network exists: a 4138-byte packet at 400 Gb/s serializes in 82.76 ns, which
    // the default 1 ns resolution would round (RunFabricRoce refuses such a run).
    Time::SetResolution(Time::PS);
    CommandLine cmd(__FILE__); // --ns3::PointToPointNetDevice::DataRate=100Gbps etc. work
    cmd.Parse(argc, argv);

    ZCubeHelper zcube(16, 4);  // 16 GPUs, 4 per switch
    FabricNetworkHelper links; // datacenter link defaults (see doc/fabric.md)
    Ptr<FabricNetwork> net = zcube.Install(links);

    std::vector<FlowSpec> flows(2);
    flows[0].id = 0, flows[0].src = 0, flows[0].dst = 15, flows[0].bytes = 1000000;
    flows[1].id = 1, flows[1].src = 1, flows[1].dst = 14, flows[1].bytes = 1000000;
    FabricRoceRunResult r = RunFabricRoce(net, flows);

    for (const RoceFlowRecord& f : r.flows)
    {
        std::cout << "flow " << f.spec.id << ": " << f.spec.src << " -> " << f.spec.dst
                  << (f.complete ? "" : " (not complete)") << ", FCT " << f.FctSeconds() * 1e6
                  << " us\n";
    }
    std::cout << "packets sent " << r.sentPackets << ", delivered " << r.deliveredPackets
              << ", dropped " << r.droppedPackets << "\n";
    return (r.Unaccounted() == 0 && r.flows[0].complete && r.flows[1].complete) ? 0 : 1;
}
