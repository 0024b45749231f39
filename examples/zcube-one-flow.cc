// SPDX-License-Identifier: GPL-2.0-only
// One flow across a small ZCube: the path Eq. 1 gives it, and the bytes seen on each link.
//
//   ./build/bin/zcube-one-flow --n=32 --k=8 --src=0 --dst=31
//
// The flow sends at its host's line rate, so ns-3 attribute defaults change it, e.g.
//   ./build/bin/zcube-one-flow --ns3::PointToPointNetDevice::DataRate=10Gbps
#include "ns3/core-module.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-link-monitor.h"
#include "ns3/fabric-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <iostream>

using namespace ns3;

namespace
{

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "One flow across a ZCube: its Eq. 1 path and bytes per link.");
    cli.Add("n", "GPUs", "32");
    cli.Add("k", "GPUs per switch (must divide n)", "8");
    cli.Add("src", "source GPU (0-based)", "0");
    cli.Add("dst", "destination GPU (0-based)", "31");
    cli.Add("bytes", "flow size in bytes", "1000000");
    cli.Parse(argc, argv);
    const auto n = static_cast<uint32_t>(cli.GetUint("n", 2, 65536));
    const auto k = static_cast<uint32_t>(cli.GetUint("k", 1, n));
    const auto src = static_cast<uint32_t>(cli.GetUint("src", 0, UINT32_MAX));
    const auto dst = static_cast<uint32_t>(cli.GetUint("dst", 0, UINT32_MAX));
    const uint64_t bytes = cli.GetUint("bytes", 1, uint64_t(1) << 40);
    if (src >= n || dst >= n || src == dst)
    {
        throw std::invalid_argument("--src and --dst must be distinct GPUs in [0, "
                                    + std::to_string(n - 1) + "]");
    }
    // An ns-3 network takes about 45 kB per GPU (measured: n=4096: 0.19 GB, n=16384: 0.69 GB).
    CheckFabricMemory(30e6 + 45e3 * n, "--n=" + std::to_string(n));
    ZCubeHelper zcube(n, k);
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = zcube.Install(links);
    auto monitor = CreateObject<FabricLinkMonitor>();
    monitor->Install(net);
    FabricTrafficHelper traffic(net);
    FlowSpec f;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.srcPort = 49152;
    // The host NIC's rate: FabricNetworkHelper's datacenter default unless changed.
    DataRateValue line;
    net->GetDevice(src, 0)->GetAttribute("DataRate", line);
    const double lineBps = static_cast<double>(line.Get().GetBitRate());
    traffic.Install({f}, {lineBps});
    Simulator::Run();

    const FabricGraph& g = net->GetGraph();
    FabricPath path = TracePath(*zcube.GetRouting(), src, dst, f.Key());
    std::cout << "line rate " << lineBps / 1e9 << " Gb/s\npath:";
    for (uint32_t v : path.nodes)
    {
        std::cout << " " << g.GetName(v);
    }
    std::cout << "\nlinks carrying bytes:\n";
    for (uint32_t d = 0; d < monitor->GetLinks().size(); ++d)
    {
        if (monitor->GetLinks()[d].txBytes > 0)
        {
            std::cout << "  " << g.GetDirLinkLabel(d) << ": " << monitor->GetLinks()[d].txBytes
                      << " B\n";
        }
    }
    const FlowRecord& r = traffic.GetRecords()[0];
    std::cout << "received " << r.rxBytes << " of " << bytes << " bytes, throughput "
              << r.ThroughputBps() / 1e9 << " Gb/s\n";
    Simulator::Destroy();
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
