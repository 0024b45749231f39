// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-udp-run.h"

#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/simulator.h"

#include <chrono>

namespace ns3
{

FabricUdpRunResult
RunFabricUdp(Ptr<FabricNetwork> net,
             const std::vector<FlowSpec>& flows,
             const std::vector<double>& rateBps,
             uint32_t packetSize,
             Time stopAt,
             const FabricRunHook& hook)
{
    // Payload + UDP, IPv4 and point-to-point headers.
    CheckNetworkSerializationResolution(net, uint64_t(packetSize) + 30, "RunFabricUdp");
    auto monitor = CreateObject<FabricLinkMonitor>();
    monitor->Install(net);
    FabricTrafficHelper traffic(net);
    traffic.SetPacketSize(packetSize);
    traffic.Install(flows, rateBps);
    if (stopAt.IsStrictlyPositive())
    {
        Simulator::Stop(stopAt);
    }
    if (hook)
    {
        hook(net, traffic.GetApplications());
    }
    const uint64_t events0 = Simulator::GetEventCount();
    const auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto t1 = std::chrono::steady_clock::now();

    FabricUdpRunResult r;
    r.wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    r.events = Simulator::GetEventCount() - events0;
    r.simSeconds = Simulator::Now().GetSeconds();
    r.lastPacketSeconds = monitor->GetLastPacketTime().GetSeconds();
    r.inFlightPackets = monitor->GetInFlightPackets();
    r.measuredInFlightPackets = monitor->GetMeasuredInFlightPackets();
    r.links = monitor->GetLinks();
    r.flows = traffic.GetRecords();
    r.drops = monitor->GetDrops();
    if (traffic.GetRefusedPackets() > 0)
    {
        r.drops[FabricDropReason::REFUSED_AT_SOURCE] += traffic.GetRefusedPackets();
    }
    r.sentPackets = traffic.GetTxPackets();
    r.deliveredPackets = traffic.GetRxPackets();
    for (const auto& [reason, n] : r.drops)
    {
        r.droppedPackets += n;
    }
    r.hopPackets = monitor->GetTotalTxPackets();
    Simulator::Destroy();
    return r;
}

} // namespace ns3
