// SPDX-License-Identifier: GPL-2.0-only
// The same flows twice on a ZCube: analytic link loads (each flow's bytes added along the path
// the routing function gives it) and packet-level bytes counted on every link. They agree
// because the ns-3 switches call the same routing function.
//
//   ./build/bin/zcube-analytic-vs-packet --n=32 --k=8 --pattern=permutation
#include "ns3/core-module.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/link-load.h"
#include "ns3/udp-flow-sender.h"
#include "ns3/zcube-helper.h"

#include <algorithm>
#include <cmath>
#include <iostream>

using namespace ns3;

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Analytic vs packet-level link loads of one traffic pattern on ZCube.");
    cli.Add("n", "GPUs", "32");
    cli.Add("k", "GPUs per switch (must divide n)", "8");
    cli.Add("pattern", "allreduce|prefill|elephants|all-to-one|permutation", "permutation");
    cli.Add("bytes", "bytes per flow", "409600");
    cli.Parse(argc, argv);
    const auto n = static_cast<uint32_t>(cli.GetUint("n", 2, 256));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, n));
    const uint64_t bytes = cli.GetUint("bytes", 1, uint64_t(1) << 30);
    const uint32_t packetSize = 4096;

    ZCubeHelper zcube(n, k);
    TrafficPatternParams tp;
    tp.hosts = n;
    tp.bytes = bytes;
    const std::vector<FlowSpec> flows
        = MakeTraffic(ParseTrafficPattern(cli.GetString("pattern")), tp);

    // Analytic: IPv4 bytes of every flow along its Eq. 1 path.
    std::vector<double> wire(flows.size(), double(UdpFlowSender::Ipv4BytesOf(bytes, packetSize)));
    const std::vector<double> analytic = ComputeDirLinkLoads(*zcube.GetRouting(), flows, wire);

    // Packet level: the same flows as UDP, each at a rate that keeps the most shared link at
    // 90% of the line rate (no queue overflows), bytes counted on every link.
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = zcube.Install(links);
    DataRateValue line;
    net->GetDevice(0, 0)->GetAttribute("DataRate", line);
    const std::vector<double> sharing
        = ComputeDirLinkLoads(*zcube.GetRouting(), flows, std::vector<double>(flows.size(), 1.0));
    const double most = *std::max_element(sharing.begin(), sharing.end());
    const double rate = 0.9 * double(line.Get().GetBitRate()) / most;
    const FabricUdpRunResult r
        = RunFabricUdp(net, flows, std::vector<double>(flows.size(), rate), packetSize);

    const FabricGraph& g = net->GetGraph();
    uint32_t loaded = 0;
    uint32_t differ = 0;
    double maxLoad = 0;
    uint32_t maxLink = 0;
    for (uint32_t d = 0; d < analytic.size(); ++d)
    {
        const double packet = double(r.links[d].txBytes);
        loaded += (analytic[d] > 0 || packet > 0) ? 1 : 0;
        differ += std::abs(packet - analytic[d]) > 0.5 ? 1 : 0;
        if (analytic[d] > maxLoad)
        {
            maxLoad = analytic[d];
            maxLink = d;
        }
    }
    std::cout << flows.size() << " flows at " << rate / 1e9 << " Gb/s each, " << loaded
              << " loaded directed links of " << analytic.size() << "\n"
              << "busiest link " << g.GetDirLinkLabel(maxLink) << ": analytic "
              << static_cast<uint64_t>(maxLoad) << " B, packet level " << r.links[maxLink].txBytes
              << " B\n"
              << "links where analytic and packet-level bytes differ: " << differ << "\n"
              << "drops " << r.droppedPackets << ", unaccounted " << r.Unaccounted() << "\n";
    return (differ == 0 && r.droppedPackets == 0 && r.Unaccounted() == 0) ? 0 : 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
