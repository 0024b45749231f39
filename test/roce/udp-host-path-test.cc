// SPDX-License-Identifier: GPL-2.0-only
// UDP host paths (issue #12): UdpFlowSender::HostPath=fast (FabricHostPath writes the UDP/IPv4
// headers and sends to the device; FabricTrafficHelper's sinks are fed by its protocol handler)
// puts the same bytes on every link, runs the same events and gives the same results, field by
// field, as the IPv4 path: incast with queue drops, permutation and AllReduce on ZCube and ROFT,
// a switch link and a NIC port failing and coming back, checksums on, global routing.
#include "../ns3-sim-fixture.h"
#include "roce-result-compare.h"
#include "roce-test-fabrics.h"

#include "ns3/core-module.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-failure-detector.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-host-path.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-traffic-helper.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/packet-sink.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-pattern.h"
#include "ns3/udp-flow-sender.h"
#include "ns3/udp-header.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class UdpHostPath : public Ns3SimTest
{
};

/// One run's result and how many packets took the fast path (sent, received).
struct PathRun
{
    FabricUdpRunResult r;
    uint64_t fastTx{0};
    uint64_t fastRx{0};
    uint64_t senderFast{0};
};

/// A scenario runs RunFabricUdp with the hook it is given.
using Scenario = std::function<FabricUdpRunResult(const FabricRunHook&)>;

PathRun
RunWith(const std::string& hostPath, const Scenario& scenario)
{
    Config::SetDefault("ns3::UdpFlowSender::HostPath", StringValue(hostPath));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    auto paths = std::make_shared<std::vector<Ptr<FabricHostPath>>>();
    auto senders = std::make_shared<std::vector<Ptr<UdpFlowSender>>>();
    FabricRunHook hook = [paths, senders](Ptr<FabricNetwork> net, const ApplicationContainer& apps)
    {
        const NodeContainer hosts = net->GetHostNodes();
        for (uint32_t i = 0; i < hosts.GetN(); ++i)
        {
            paths->push_back(FabricHostPath::Get(hosts.Get(i)));
        }
        for (uint32_t i = 0; i < apps.GetN(); ++i)
        {
            if (auto s = DynamicCast<UdpFlowSender>(apps.Get(i)))
            {
                senders->push_back(s);
            }
        }
    };
    PathRun out;
    out.r = scenario(hook);
    for (const auto& p : *paths)
    {
        out.fastTx += p->GetFastTxPackets();
        out.fastRx += p->GetFastRxPackets();
    }
    for (const auto& s : *senders)
    {
        out.senderFast += s->GetFastPackets();
    }
    Simulator::Destroy();
    Config::Reset();
    return out;
}

/// Both paths; the fast one really used; identical results and events. Returns the fast run.
PathRun
CompareHostPaths(const Scenario& scenario)
{
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_EQ(ipv4.fastTx, 0u);
    EXPECT_EQ(ipv4.fastRx, 0u);
    EXPECT_GT(fast.fastTx, 0u);
    EXPECT_GT(fast.fastRx, 0u);
    EXPECT_EQ(fast.senderFast, fast.fastTx);
    EXPECT_GT(ipv4.r.deliveredPackets, 0u);
    ExpectSameUdpResults(ipv4.r, fast.r);
    EXPECT_EQ(ipv4.r.events, fast.r.events);
    return fast;
}

/// Eight GPUs at line rate into GPU 15 (queue drops at its leaf), two flows of one host pair
/// (one IPv4 identification counter), and a flow on the side.
std::vector<FlowSpec>
IncastFlows()
{
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 8; ++i)
    {
        flows.push_back(Flow(i, i, 15, 300000));
    }
    flows.push_back(Flow(8, 9, 12, 200000));
    flows.push_back(Flow(9, 9, 12, 200000));
    return flows;
}

} // namespace

namespace
{

/// Run the incast with both host paths (checksums on or off), recording every transmission
/// on every device (packet uid, time, node, port, every byte, packet tags); expect them and
/// the results identical.
void
CompareTransmissionsOfBothPaths(bool checksums)
{
    auto capture = [checksums](std::vector<std::string>& out)
    {
        return [&out, checksums](const FabricRunHook& hook)
        {
            // Bound in the run: RunWith's Config::Reset puts it back to false.
            GlobalValue::Bind("ChecksumEnabled", BooleanValue(checksums));
            auto net = Roft16("150KB");
            RecordEveryTransmission(net, out, true);
            const auto flows = IncastFlows();
            return RunFabricUdp(
                net, flows, std::vector<double>(flows.size(), 400e9), 4096, Time(0), hook);
        };
    };
    std::vector<std::string> ipv4;
    std::vector<std::string> fast;
    const PathRun a = RunWith("ipv4", capture(ipv4));
    const PathRun b = RunWith("fast", capture(fast));
    EXPECT_GT(b.fastTx, 0u);
    EXPECT_GT(b.r.drops.at(FabricDropReason::QUEUE_OVERFLOW), 0u);
    ASSERT_GT(ipv4.size(), 1000u);
    ExpectSameTransmissions(ipv4, fast);
    ExpectSameUdpResults(a.r, b.r);
    EXPECT_EQ(a.r.events, b.r.events);
}

} // namespace

TEST_F(UdpHostPath, SameBytesOnEveryLink)
{
    CompareTransmissionsOfBothPaths(false);
}

TEST_F(UdpHostPath, SameBytesOnEveryLinkWithChecksums)
{
    // The UDP and IPv4 checksums the fast path writes are those IPv4 writes.
    CompareTransmissionsOfBothPaths(true);
}

TEST(FabricUdpIpv4Header, WritesTheBytesOfUdpHeaderThenIpv4Header)
{
    // The host path's one-header send writes what UdpL4Protocol's UdpHeader and
    // Ipv4L3Protocol's Ipv4Header write (checksums off), for payloads, TOS/ECN, TTL,
    // identification and ports at their edges; Ipv4Header and UdpHeader read it back.
    struct Case
    {
        uint32_t payload;
        uint8_t tos;
        uint8_t ttl;
        uint16_t id;
        uint16_t sport;
        uint16_t dport;
    };
    const Case cases[] = {{0, 0, 64, 0, 1, 4791},
                          {4116, Ipv4Header::ECN_ECT0, 64, 1, 49152, 4791},
                          {1000, 0xc0 | Ipv4Header::ECN_CE, 1, 0xffff, 0xffff, 9},
                          {8972, 0xff, 255, 0x1234, 0x8001, 0xfffe}};
    for (const Case& c : cases)
    {
        const Ipv4Address src("10.1.2.3");
        const Ipv4Address dst("10.200.0.254");
        Ptr<Packet> two = Create<Packet>(c.payload);
        UdpHeader udp;
        udp.SetSourcePort(c.sport);
        udp.SetDestinationPort(c.dport);
        two->AddHeader(udp);
        Ipv4Header ip;
        ip.SetSource(src);
        ip.SetDestination(dst);
        ip.SetProtocol(17);
        ip.SetPayloadSize(two->GetSize());
        ip.SetTtl(c.ttl);
        ip.SetTos(c.tos);
        ip.SetMayFragment();
        ip.SetIdentification(c.id);
        two->AddHeader(ip);

        Ptr<Packet> one = Create<Packet>(c.payload);
        FabricUdpIpv4Header h;
        h.Set(src, dst, c.tos, c.ttl, c.id, c.sport, c.dport, c.payload);
        one->AddHeader(h);

        ASSERT_EQ(one->GetSize(), two->GetSize());
        std::vector<uint8_t> a(one->GetSize());
        std::vector<uint8_t> b(two->GetSize());
        one->CopyData(a.data(), a.size());
        two->CopyData(b.data(), b.size());
        EXPECT_EQ(a, b) << "payload " << c.payload << " tos " << unsigned(c.tos);

        Ipv4Header rip;
        one->RemoveHeader(rip);
        UdpHeader rudp;
        one->RemoveHeader(rudp);
        EXPECT_EQ(rip.GetSource(), src);
        EXPECT_EQ(rip.GetDestination(), dst);
        EXPECT_EQ(rip.GetTos(), c.tos);
        EXPECT_EQ(rip.GetTtl(), c.ttl);
        EXPECT_EQ(rip.GetIdentification(), c.id);
        EXPECT_EQ(rip.GetPayloadSize(), c.payload + 8);
        EXPECT_FALSE(rip.IsDontFragment());
        EXPECT_TRUE(rip.IsLastFragment());
        EXPECT_EQ(rudp.GetSourcePort(), c.sport);
        EXPECT_EQ(rudp.GetDestinationPort(), c.dport);
        EXPECT_EQ(one->GetSize(), c.payload);
    }
}

TEST_F(UdpHostPath, IncastWithQueueDropsRunsToTheEnd)
{
    const PathRun fast = CompareHostPaths(
        [](const FabricRunHook& hook)
        {
            const auto flows = IncastFlows();
            return RunFabricUdp(Roft16("150KB"),
                                flows,
                                std::vector<double>(flows.size(), 400e9),
                                4096,
                                Time(0),
                                hook);
        });
    EXPECT_GT(fast.r.drops.at(FabricDropReason::QUEUE_OVERFLOW), 0u);
    EXPECT_EQ(fast.r.inFlightPackets, 0);
    // Host 9's two flows overfill its port: a packet meeting the stopped device queue goes to
    // IPv4, whose traffic-control layer drops it (host-queue-full); every other packet left
    // through the fast path, and every one delivered arrived through it.
    const uint64_t hostFull = fast.r.drops.at(FabricDropReason::HOST_QUEUE_FULL);
    EXPECT_GT(hostFull, 0u);
    EXPECT_EQ(fast.fastTx + hostFull, fast.r.sentPackets);
    EXPECT_EQ(fast.fastRx, fast.r.deliveredPackets);
}

TEST_F(UdpHostPath, ZCubeAndRoftPermutationAndAllReduce)
{
    for (const auto pattern : {TrafficPattern::PERMUTATION, TrafficPattern::ALLREDUCE})
    {
        const auto flows = Pattern(pattern, 16, 1 << 30);
        const auto rates = LineRateShares(flows, 16);
        CompareHostPaths(
            [&](const FabricRunHook& hook)
            {
                ZCubeHelper zcube(16, 4);
                FabricNetworkHelper links;
                return RunFabricUdp(
                    zcube.Install(links), flows, rates, 4096, MicroSeconds(60), hook);
            });
        CompareHostPaths(
            [&](const FabricRunHook& hook)
            { return RunFabricUdp(Roft16("200KB"), flows, rates, 4096, MicroSeconds(60), hook); });
    }
}

TEST_F(UdpHostPath, SwitchLinkFailureAndRepair)
{
    const auto flows = Pattern(TrafficPattern::ALLREDUCE, 16, 1 << 30);
    const auto rates = LineRateShares(flows, 16);
    const PathRun fast = CompareHostPaths(
        [&](const FabricRunHook& hook)
        {
            auto net = Roft16("200KB");
            FabricFailureHelper failures(net);
            const FabricGraph& g = net->GetGraph();
            const uint32_t leaf = g.GetPeer(0, 0);
            for (uint32_t p = 0; p < g.GetNPorts(leaf); ++p)
            {
                if (!g.IsHost(g.GetPeer(leaf, p)))
                {
                    failures.FailLink(g.GetPortLink(leaf, p), MicroSeconds(20));
                    failures.RepairLink(g.GetPortLink(leaf, p), MicroSeconds(40));
                    break;
                }
            }
            return RunFabricUdp(net, flows, rates, 4096, MicroSeconds(60), hook);
        });
    EXPECT_GT(fast.r.drops.at(FabricDropReason::LINK_DOWN), 0u);
}

TEST_F(UdpHostPath, NicPortFailureAndRepairFallsBackToIpv4)
{
    // GPU 3's port 0 fails while it sends and receives: until the detector moves the routes,
    // its packets meet a down interface, which only IPv4 handles (the fast path hands them
    // over): link-down drops counted where they were, the same results.
    const PathRun fast = CompareHostPaths(
        [](const FabricRunHook& hook)
        {
            ZCubeHelper zcube(16, 4);
            FabricNetworkHelper links;
            auto net = zcube.Install(links);
            auto det = CreateObject<FabricFailureDetector>();
            det->Install(net);
            FabricFailureHelper failures(net);
            failures.FailNicPort(3, 0, MicroSeconds(10));
            failures.RepairNicPort(3, 0, MicroSeconds(60));
            std::vector<FlowSpec> flows;
            for (uint32_t i = 0; i < 6; ++i)
            {
                flows.push_back(Flow(i, 3, 4 + 2 * i, 400000));
                flows.push_back(Flow(6 + i, 5 + 2 * i, 3, 400000));
            }
            return RunFabricUdp(
                net, flows, std::vector<double>(flows.size(), 50e9), 4096, MicroSeconds(150), hook);
        });
    EXPECT_GT(fast.r.drops.at(FabricDropReason::LINK_DOWN), 0u);
    EXPECT_LT(fast.fastTx, fast.r.sentPackets); // some took IPv4
}

TEST_F(UdpHostPath, AnInterfaceSetDownThroughIpv4IsLeftToIpv4UntilSetUp)
{
    // GPU 3's only interface is set down through Ipv4::SetDown while it sends and receives,
    // and up again later. The host path keeps the interface state from IPv4's notifications
    // (it does not ask the interface per packet): while the interface is down, the datagrams
    // GPU 3 sends or receives go to IPv4; after the up, the fast path takes them again. The
    // same flows, links and events as the IPv4 path, and every packet accounted for: those
    // GPU 3 receives while down are dropped by IPv4's Receive (its Drop trace), those it
    // sends by SendRealOut without a trace, which the link monitor counts at SendOutgoing.
    struct Seen
    {
        Ptr<FabricHostPath> path; //!< GPU 3's (of the last run: the fast one)
        uint64_t txAtDown{0};
        uint64_t rxAtDown{0};
        uint64_t txAtUp{0};
        uint64_t rxAtUp{0};
    };

    auto seen = std::make_shared<Seen>();
    const Scenario scenario = [seen](const FabricRunHook& hook)
    {
        auto net = Roft16("200KB");
        std::vector<FlowSpec> flows;
        for (uint32_t i = 0; i < 3; ++i)
        {
            flows.push_back(Flow(i, 3, 8 + i, 400000));
            flows.push_back(Flow(3 + i, 12 + i, 3, 400000));
        }
        const FabricRunHook setDownThenUp
            = [hook, seen](Ptr<FabricNetwork> n, const ApplicationContainer& apps)
        {
            hook(n, apps);
            Ptr<Node> host = n->GetHostNodes().Get(3);
            Ptr<Ipv4> ipv4 = host->GetObject<Ipv4>();
            seen->path = FabricHostPath::Get(host);
            Simulator::Schedule(MicroSeconds(20),
                                [ipv4, seen]()
                                {
                                    seen->txAtDown = seen->path->GetFastTxPackets();
                                    seen->rxAtDown = seen->path->GetFastRxPackets();
                                    ipv4->SetDown(1); // interface 1: port 0
                                });
            Simulator::Schedule(MicroSeconds(50),
                                [ipv4, seen]()
                                {
                                    seen->txAtUp = seen->path->GetFastTxPackets();
                                    seen->rxAtUp = seen->path->GetFastRxPackets();
                                    ipv4->SetUp(1);
                                });
        };
        return RunFabricUdp(net,
                            flows,
                            std::vector<double>(flows.size(), 50e9),
                            4096,
                            MicroSeconds(150),
                            setDownThenUp);
    };
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_EQ(ipv4.fastTx, 0u);
    ASSERT_EQ(ipv4.r.flows.size(), fast.r.flows.size());
    for (size_t i = 0; i < fast.r.flows.size(); ++i)
    {
        EXPECT_EQ(ipv4.r.flows[i].txPackets, fast.r.flows[i].txPackets) << i;
        EXPECT_EQ(ipv4.r.flows[i].rxPackets, fast.r.flows[i].rxPackets) << i;
        EXPECT_EQ(ipv4.r.flows[i].rxBytes, fast.r.flows[i].rxBytes) << i;
    }
    ASSERT_EQ(ipv4.r.links.size(), fast.r.links.size());
    for (size_t l = 0; l < fast.r.links.size(); ++l)
    {
        EXPECT_EQ(ipv4.r.links[l].txPackets, fast.r.links[l].txPackets) << l;
    }
    EXPECT_EQ(ipv4.r.sentPackets, fast.r.sentPackets);
    EXPECT_EQ(ipv4.r.deliveredPackets, fast.r.deliveredPackets);
    EXPECT_LT(fast.r.deliveredPackets, fast.r.sentPackets); // the down interface lost some
    for (const PathRun* run : {&ipv4, &fast})
    {
        EXPECT_EQ(run->r.Unaccounted(), 0);
        EXPECT_EQ(run->r.inFlightPackets, 0);
        EXPECT_EQ(run->r.drops.at(FabricDropReason::LINK_DOWN), run->r.droppedPackets);
    }
    EXPECT_EQ(ipv4.r.events, fast.r.events);
    ASSERT_TRUE(seen->path);
    EXPECT_GT(seen->txAtDown, 0u);
    EXPECT_GT(seen->rxAtDown, 0u);
    EXPECT_EQ(seen->txAtUp, seen->txAtDown); // nothing through the fast path while down
    EXPECT_EQ(seen->rxAtUp, seen->rxAtDown);
    EXPECT_GT(seen->path->GetFastTxPackets(), seen->txAtUp); // and again after the up
    EXPECT_GT(seen->path->GetFastRxPackets(), seen->rxAtUp);
}

TEST_F(UdpHostPath, ChecksumsOnAreWrittenAndVerifiedByIpv4)
{
    // With ChecksumEnabled the fast path writes the checksums IPv4 would write (IPv4 on the
    // receiving host verifies them and drops a packet whose header checksum is wrong) and
    // leaves receiving to IPv4, which verifies.
    // Bound in the run: RunWith's Config::Reset puts it back to false.
    auto scenario = [](const FabricRunHook& hook)
    {
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
        const auto flows = IncastFlows();
        return RunFabricUdp(
            Roft16("8MB"), flows, std::vector<double>(flows.size(), 40e9), 4096, Time(0), hook);
    };
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    BooleanValue checksums;
    GlobalValue::GetValueByName("ChecksumEnabled", checksums);
    EXPECT_FALSE(checksums.Get());
    EXPECT_EQ(fast.fastTx, fast.r.sentPackets);
    EXPECT_EQ(fast.fastRx, 0u);
    EXPECT_EQ(fast.r.deliveredPackets, fast.r.sentPackets); // no header checksum was wrong
    ExpectSameUdpResults(ipv4.r, fast.r);
    EXPECT_EQ(ipv4.r.events, fast.r.events);
}

TEST_F(UdpHostPath, GlobalRoutingHostsKeepIpv4)
{
    // Stock ns-3 global routing: hosts are not routed by FabricIpv4Routing, so every packet
    // takes IPv4 whatever HostPath says.
    const auto flows = Pattern(TrafficPattern::PERMUTATION, 16, 1 << 30);
    const auto rates = LineRateShares(flows, 16);
    auto scenario = [&](const FabricRunHook& hook)
    {
        ZCubeHelper zcube(16, 4);
        FabricNetworkHelper stock;
        return RunFabricUdp(stock.InstallGlobalRouting(zcube.GetGraph()),
                            flows,
                            rates,
                            4096,
                            MicroSeconds(30),
                            hook);
    };
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_EQ(fast.fastTx, 0u);
    EXPECT_EQ(fast.fastRx, 0u);
    EXPECT_GT(fast.r.deliveredPackets, 0u);
    ExpectSameUdpResults(ipv4.r, fast.r);
    EXPECT_EQ(ipv4.r.events, fast.r.events);
}

TEST_F(UdpHostPath, ASinkNotYetStartedLeavesItsPacketsToIpv4)
{
    // The sinks start at 8 us, after the first packets arrive (at about 4.3 us): the fast path's
    // handler declines those (IPv4 then answers them as it always did, with ICMP port unreachable,
    // which crosses the fabric too) and takes the rest; both settings give the same run.
    auto scenario = [](const FabricRunHook& hook)
    {
        FabricRunHook late = [hook](Ptr<FabricNetwork> net, const ApplicationContainer& apps)
        {
            for (uint32_t i = 0; i < apps.GetN(); ++i)
            {
                if (DynamicCast<PacketSink>(apps.Get(i)))
                {
                    apps.Get(i)->SetStartTime(MicroSeconds(8));
                }
            }
            hook(net, apps);
        };
        return RunFabricUdp(Roft16("8MB"),
                            {Flow(0, 0, 15, 400000), Flow(1, 4, 9, 400000)},
                            {100e9, 100e9},
                            4096,
                            Time(0),
                            late);
    };
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_GT(fast.fastRx, 0u);
    EXPECT_EQ(fast.fastRx, fast.r.deliveredPackets);
    EXPECT_GT(fast.r.sentPackets, fast.r.deliveredPackets); // the early ones were refused
    // Every field but the accounting check of ExpectSameUdpResults: a datagram IPv4 answers
    // with port unreachable is counted nowhere (no drop trace in ns-3's UDP for it), in both
    // settings alike: the known gap this test does not close.
    ASSERT_EQ(ipv4.r.flows.size(), fast.r.flows.size());
    for (size_t i = 0; i < fast.r.flows.size(); ++i)
    {
        EXPECT_EQ(ipv4.r.flows[i].rxBytes, fast.r.flows[i].rxBytes) << i;
        EXPECT_EQ(ipv4.r.flows[i].rxPackets, fast.r.flows[i].rxPackets) << i;
        EXPECT_EQ(ipv4.r.flows[i].lastRx, fast.r.flows[i].lastRx) << i;
        EXPECT_EQ(ipv4.r.flows[i].txPackets, fast.r.flows[i].txPackets) << i;
    }
    for (size_t l = 0; l < fast.r.links.size(); ++l)
    {
        EXPECT_EQ(ipv4.r.links[l].txBytes, fast.r.links[l].txBytes) << l;
        EXPECT_EQ(ipv4.r.links[l].txPackets, fast.r.links[l].txPackets) << l;
    }
    EXPECT_EQ(ipv4.r.drops, fast.r.drops);
    EXPECT_EQ(ipv4.r.hopPackets, fast.r.hopPackets);
    EXPECT_EQ(ipv4.r.events, fast.r.events);
    EXPECT_EQ(ipv4.r.lastPacketSeconds, fast.r.lastPacketSeconds);
    EXPECT_EQ(ipv4.r.Unaccounted(), fast.r.Unaccounted());
    EXPECT_EQ(fast.r.Unaccounted(), int64_t(fast.r.sentPackets - fast.r.deliveredPackets));
}

TEST_F(UdpHostPath, OneBindingPerPortAndOnlyOnFabricRoutedHosts)
{
    Ptr<FabricNetwork> net = Roft16("8MB");
    Ptr<FabricHostPath> host = FabricHostPath::Get(net->GetHostNodes().Get(0));
    EXPECT_EQ(host, FabricHostPath::Get(net->GetHostNodes().Get(0))); // one per node
    EXPECT_TRUE(host->IsAvailable());
    auto take = [](Ptr<Packet>, const Ipv4Header&, uint16_t)
    {
        return true;
    };
    EXPECT_TRUE(host->BindUdp(5000, FabricHostPath::UdpHandler(take)));
    EXPECT_FALSE(host->BindUdp(5000, FabricHostPath::UdpHandler(take)));
    EXPECT_TRUE(host->BindUdp(5001, FabricHostPath::UdpHandler(take)));
    // In-place handlers share the ports' one binding each.
    auto read = [](Ptr<const Packet>, uint32_t, uint32_t, const Ipv4Header&, uint16_t)
    {
        return true;
    };
    EXPECT_FALSE(host->BindUdpInPlace(5000, FabricHostPath::UdpInPlaceHandler(read)));
    EXPECT_TRUE(host->BindUdpInPlace(5002, FabricHostPath::UdpInPlaceHandler(read)));
    EXPECT_FALSE(host->BindUdp(5002, FabricHostPath::UdpHandler(take)));

    ZCubeHelper zcube(16, 4);
    FabricNetworkHelper stock;
    Ptr<FabricNetwork> global = stock.InstallGlobalRouting(zcube.GetGraph());
    Ptr<FabricHostPath> other = FabricHostPath::Get(global->GetHostNodes().Get(0));
    EXPECT_FALSE(other->IsAvailable());
    EXPECT_FALSE(other->BindUdp(5000, FabricHostPath::UdpHandler(take)));
    EXPECT_FALSE(other->BindUdpInPlace(5000, FabricHostPath::UdpInPlaceHandler(read)));
    EXPECT_FALSE(other->SendUdp(Create<Packet>(100),
                                global->GetHostAddress(0),
                                global->GetHostAddress(1),
                                1,
                                2,
                                0,
                                nullptr));
}

TEST_F(UdpHostPath, AQueueDiscInstalledFromTheHookKeepsIpv4)
{
    // A queue disc put on GPU 0's port from the run hook (after the helpers bound their
    // ports): the disc decides what that device gets, so GPU 0's packets take IPv4; the
    // other hosts' take the fast path; the same run either way.
    auto scenario = [](const FabricRunHook& hook)
    {
        FabricRunHook withDisc = [hook](Ptr<FabricNetwork> net, const ApplicationContainer& apps)
        {
            TrafficControlHelper tch;
            tch.SetRootQueueDisc("ns3::FifoQueueDisc");
            tch.Install(net->GetDevice(0, 0));
            hook(net, apps);
        };
        const auto flows = IncastFlows();
        return RunFabricUdp(Roft16("150KB"),
                            flows,
                            std::vector<double>(flows.size(), 400e9),
                            4096,
                            Time(0),
                            withDisc);
    };
    const PathRun fast = CompareHostPaths(scenario);
    EXPECT_EQ(fast.r.flows[0].txPackets + fast.fastTx
                  + fast.r.drops.at(FabricDropReason::HOST_QUEUE_FULL),
              fast.r.sentPackets);
}

TEST_F(UdpHostPath, ASinkStoppedMidRunLeavesItsPacketsToIpv4)
{
    // GPU 15's sink stops at 15 us while packets still arrive (until about 36 us): its socket is
    // closed, so IPv4 answers them with ICMP port unreachable; the fast path's handler must
    // decline them too. Both settings give the same run.
    auto scenario = [](const FabricRunHook& hook)
    {
        FabricRunHook stop = [hook](Ptr<FabricNetwork> net, const ApplicationContainer& apps)
        {
            for (uint32_t i = 0; i < apps.GetN(); ++i)
            {
                if (DynamicCast<PacketSink>(apps.Get(i))
                    && apps.Get(i)->GetNode() == net->GetNode(15))
                {
                    apps.Get(i)->SetStopTime(MicroSeconds(15));
                }
            }
            hook(net, apps);
        };
        return RunFabricUdp(Roft16("8MB"),
                            {Flow(0, 0, 15, 400000), Flow(1, 4, 9, 400000)},
                            {100e9, 100e9},
                            4096,
                            Time(0),
                            stop);
    };
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_GT(fast.fastRx, 0u);
    EXPECT_EQ(fast.fastRx, fast.r.deliveredPackets);
    ASSERT_EQ(fast.r.flows.size(), 2u);
    EXPECT_GT(fast.r.flows[0].rxPackets, 0u);
    EXPECT_LT(fast.r.flows[0].rxPackets, fast.r.flows[0].txPackets); // the late ones refused
    EXPECT_EQ(fast.r.flows[1].rxPackets, fast.r.flows[1].txPackets);
    // As ASinkNotYetStartedLeavesItsPacketsToIpv4: every field but the accounting check (a
    // datagram answered with port unreachable is counted nowhere, in both settings alike).
    ASSERT_EQ(ipv4.r.flows.size(), fast.r.flows.size());
    for (size_t i = 0; i < fast.r.flows.size(); ++i)
    {
        EXPECT_EQ(ipv4.r.flows[i].rxBytes, fast.r.flows[i].rxBytes) << i;
        EXPECT_EQ(ipv4.r.flows[i].rxPackets, fast.r.flows[i].rxPackets) << i;
        EXPECT_EQ(ipv4.r.flows[i].lastRx, fast.r.flows[i].lastRx) << i;
        EXPECT_EQ(ipv4.r.flows[i].txPackets, fast.r.flows[i].txPackets) << i;
    }
    for (size_t l = 0; l < fast.r.links.size(); ++l)
    {
        EXPECT_EQ(ipv4.r.links[l].txBytes, fast.r.links[l].txBytes) << l;
        EXPECT_EQ(ipv4.r.links[l].txPackets, fast.r.links[l].txPackets) << l;
    }
    EXPECT_EQ(ipv4.r.drops, fast.r.drops);
    EXPECT_EQ(ipv4.r.hopPackets, fast.r.hopPackets);
    EXPECT_EQ(ipv4.r.events, fast.r.events);
    EXPECT_EQ(ipv4.r.lastPacketSeconds, fast.r.lastPacketSeconds);
    EXPECT_EQ(ipv4.r.Unaccounted(), fast.r.Unaccounted());
}

TEST_F(UdpHostPath, TxAndRxTracesFireOncePerFastDatagram)
{
    // FabricHostPath's Tx and Rx fire once for each datagram it sends or takes, with the
    // datagram's IPv4 header (UDP inside, at most the flow's packet size of payload).
    uint64_t tx = 0;
    uint64_t rx = 0;
    uint64_t badTx = 0;
    uint64_t badRx = 0;
    auto scenario = [&](const FabricRunHook& hook)
    {
        FabricRunHook traced = [&, hook](Ptr<FabricNetwork> net, const ApplicationContainer& apps)
        {
            const NodeContainer hosts = net->GetHostNodes();
            for (uint32_t i = 0; i < hosts.GetN(); ++i)
            {
                Ptr<FabricHostPath> hp = FabricHostPath::Get(hosts.Get(i));
                auto check = [](Ptr<const Packet> p, uint64_t& n, uint64_t& bad)
                {
                    ++n;
                    Ipv4Header ip;
                    p->PeekHeader(ip);
                    bad += (ip.GetProtocol() != 17 || ip.GetPayloadSize() + 20u != p->GetSize()
                            || p->GetSize() > 20 + 8 + 4096)
                             ? 1
                             : 0;
                };
                hp->TraceConnectWithoutContext(
                    "Tx",
                    Callback<void, Ptr<const Packet>, Ptr<Ipv4>, uint32_t>(
                        [&, check](Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
                        { check(p, tx, badTx); }));
                hp->TraceConnectWithoutContext(
                    "Rx",
                    Callback<void, Ptr<const Packet>, Ptr<Ipv4>, uint32_t>(
                        [&, check](Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
                        { check(p, rx, badRx); }));
            }
            hook(net, apps);
        };
        return RunFabricUdp(Roft16("8MB"),
                            {Flow(0, 0, 15, 400000), Flow(1, 4, 9, 400000)},
                            {100e9, 100e9},
                            4096,
                            Time(0),
                            traced);
    };
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_GT(fast.fastTx, 0u);
    EXPECT_EQ(tx, fast.fastTx);
    EXPECT_EQ(rx, fast.fastRx);
    EXPECT_EQ(rx, fast.r.deliveredPackets);
    EXPECT_EQ(badTx, 0u);
    EXPECT_EQ(badRx, 0u);
    tx = rx = 0;
    const PathRun ipv4 = RunWith("ipv4", scenario);
    EXPECT_EQ(tx, 0u);
    EXPECT_EQ(rx, 0u);
}

TEST_F(UdpHostPath, FlowMonitorSeesUdpFlowsWithHostPathIpv4)
{
    // UDP flows cross the hosts' IPv4 stacks with HostPath=ipv4, so FlowMonitor classifies them
    // (the fast path bypasses them).
    Config::SetDefault("ns3::UdpFlowSender::HostPath", StringValue("ipv4"));
    auto net = Roft16();
    FlowMonitorHelper fmh;
    Ptr<FlowMonitor> fm = fmh.Install(net->GetHostNodes());
    FabricTrafficHelper udp(net);
    const FlowSpec flow = Flow(0, 0, 15, 400000);
    udp.Install({flow}, {100e9});
    Simulator::Stop(MilliSeconds(1)); // FlowMonitor's periodic check never runs out of events
    Simulator::Run();
    fm->CheckForLostPackets();
    auto classifier = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    bool saw = false;
    for (const auto& [id, stats] : fm->GetFlowStats())
    {
        const auto t = classifier->FindFlow(id);
        if (t.destinationPort == 4791 && t.sourcePort == flow.SourcePort()
            && t.sourceAddress == net->GetHostAddress(0)
            && t.destinationAddress == net->GetHostAddress(15))
        {
            saw = true;
            EXPECT_EQ(stats.txPackets, (400000u + 4095) / 4096);
            EXPECT_EQ(stats.rxPackets, stats.txPackets);
            EXPECT_EQ(stats.rxBytes, stats.txBytes);
        }
    }
    EXPECT_TRUE(saw);
    Config::Reset();
}

TEST_F(UdpHostPath, PacketMetadataOnKeepsTheTwoHeaders)
{
    // With packet metadata on (Packet::EnablePrinting), the fast path adds ns-3's UdpHeader and
    // Ipv4Header, not its one FabricUdpIpv4Header: the records then name the headers readers
    // remove, and printing shows them; results stay those of the IPv4 path. (Metadata stays on
    // for the rest of the process: this test is the file's last; ctest runs each alone.)
    Packet::EnablePrinting();
    std::string printed;
    auto scenario = [&](const FabricRunHook& hook)
    {
        FabricRunHook traced = [&, hook](Ptr<FabricNetwork> net, const ApplicationContainer& apps)
        {
            const NodeContainer hosts = net->GetHostNodes();
            for (uint32_t i = 0; i < hosts.GetN(); ++i)
            {
                FabricHostPath::Get(hosts.Get(i))
                    ->TraceConnectWithoutContext(
                        "Tx",
                        Callback<void, Ptr<const Packet>, Ptr<Ipv4>, uint32_t>(
                            [&](Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
                            {
                                if (printed.empty())
                                {
                                    std::ostringstream os;
                                    p->Print(os);
                                    printed = os.str();
                                }
                            }));
            }
            hook(net, apps);
        };
        return RunFabricUdp(Roft16("8MB"),
                            {Flow(0, 0, 15, 400000), Flow(1, 4, 9, 400000)},
                            {100e9, 100e9},
                            4096,
                            Time(0),
                            traced);
    };
    CompareHostPaths(scenario);
    EXPECT_NE(printed.find("ns3::Ipv4Header"), std::string::npos) << printed;
    EXPECT_NE(printed.find("ns3::UdpHeader"), std::string::npos) << printed;
    EXPECT_EQ(printed.find("FabricUdpIpv4Header"), std::string::npos) << printed;
}
