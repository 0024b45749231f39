// SPDX-License-Identifier: GPL-2.0-only
// One link failure and its recovery, packet by packet: a RoCE flow crosses a rail-optimized
// fat tree; the leaf-to-spine link it uses fails 50 us into the run and is repaired at 400 us.
// A FabricFailureDetector makes the switches learn it as real ones do: the leaf next to the
// link after a loss-of-signal delay (then ECMP rehashes the flow onto another spine), the
// others by routing updates. Prints the flow's path changes with their times, the drops by
// reason, the retransmissions, the FCT against an undisturbed flow's, and the accounting.
//
//   ./build/bin/link-failure-recovery --detect-us=5
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-failure-detector.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <iostream>

using namespace ns3;

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "A link on a RoCE flow's path fails and is repaired.");
    cli.Add("detect-us", "loss-of-signal detection delay (microseconds)", "5");
    cli.Parse(argc, argv);
    const Time detect = cli.GetTime("detect-us", Time::US, NanoSeconds(1), MicroSeconds(40));

    // 16 GPUs, 4 per leaf, 4 spines; flow-hash ECMP with hash seed 1.
    RoftHelper roft(RoftLayout(16, 4, 4), 1);
    FlowSpec f;
    f.src = 0;
    f.dst = 12;
    f.bytes = 10000000;
    const FabricPath before = TracePath(*roft.GetRouting(), f.src, f.dst, f.Key());
    const uint32_t link = before.dirLinks.at(1) / 2; // leaf 0 -> its spine

    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = roft.Install(links);
    auto detector = CreateObjectWithAttributes<FabricFailureDetector>("LocalDetectionDelay",
                                                                      TimeValue(detect));
    detector->Install(net);
    FabricFailureHelper failures(net);
    failures.FailLink(link, MicroSeconds(50));
    failures.RepairLink(link, MicroSeconds(400));
    const FabricRoceRunResult r = RunFabricRoce(net, {f});
    const RoceFlowRecord& rec = r.flows.at(0);

    const FabricGraph& g = net->GetGraph();
    auto show = [&g](const std::vector<uint32_t>& path)
    {
        std::string s;
        for (uint32_t v : path)
        {
            s += (s.empty() ? "" : " ") + g.GetName(v);
        }
        return s;
    };
    std::cout << "link " << link << " (" << g.GetDirLinkLabel(2 * link)
              << ") fails at 50 us, repaired at 400 us\n"
              << "path at start: " << show(rec.path) << "\n";
    for (const auto& [at, path] : rec.pathChanges)
    {
        std::cout << "path from " << at.As(Time::US) << ": " << show(path) << "\n";
    }
    std::cout << "drops by reason:";
    for (const auto& [reason, n] : r.drops)
    {
        std::cout << " " << reason << " " << n;
    }
    std::cout << "\nretransmitted " << rec.retxPackets << " packets, timeouts " << rec.timeouts
              << "; FCT " << rec.FctSeconds() * 1e6 << " us, ideal " << rec.idealSeconds * 1e6
              << " us\npackets: " << r.sentPackets << " sent = " << r.deliveredPackets
              << " delivered + " << r.droppedPackets << " dropped + " << r.inFlightPackets
              << " in flight\n";
    // Exit 1 if the flow did not move off the failed link or packets went missing.
    return !rec.pathChanges.empty() && rec.complete && r.Unaccounted() == 0 ? 0 : 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
