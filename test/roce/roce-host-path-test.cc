// SPDX-License-Identifier: GPL-2.0-only
// RoceNic host paths (issue #12): the fast path (UDP/IPv4 headers written by the NIC, a protocol
// handler on receive) puts the same bytes on the wire and gives the same results as the IPv4
// path, field by field, on small runs of every kind: ECN and drops, AllReduce and permutation
// on ZCube and ROFT, random losses, a NIC port failover and a lossless (PFC) fabric.
#include "../ns3-sim-fixture.h"
#include "roce-result-compare.h"
#include "roce-test-fabrics.h"
#include "spine-loss.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-failure-detector.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-host-path.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/pfc-helper.h"
#include "ns3/queue-size.h"
#include "ns3/roce-bench.h"
#include "ns3/roce-header.h"
#include "ns3/roce-nic.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/traffic-pattern.h"
#include "ns3/udp-header.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

class RoceHostPath : public Ns3SimTest
{
};

/// What one run gave, and how many packets took the fast path.
struct PathRun
{
    FabricRoceRunResult r;
    uint64_t fastTx{0};
    uint64_t fastRx{0};
    uint32_t reroutes{0};
};

/// A scenario builds its network and runs it with the given options (afterRun is set).
using Scenario = std::function<FabricRoceRunResult(FabricRoceRunOptions)>;

PathRun
RunWith(const std::string& hostPath, const Scenario& scenario)
{
    Config::SetDefault("ns3::RoceNic::HostPath", StringValue(hostPath));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    PathRun out;
    auto senders = std::make_shared<std::vector<Ptr<RoceSender>>>();
    FabricRoceRunOptions o;
    o.senderCreated = [senders](uint32_t, Ptr<RoceSender> s)
    {
        senders->push_back(s);
    };
    o.afterRun = [&out, senders](Ptr<FabricNetwork> net, const ApplicationContainer&)
    {
        const NodeContainer hosts = net->GetHostNodes();
        for (uint32_t i = 0; i < hosts.GetN(); ++i)
        {
            if (Ptr<RoceNic> nic = hosts.Get(i)->GetObject<RoceNic>())
            {
                out.fastTx += nic->GetFastTxPackets();
                out.fastRx += nic->GetFastRxPackets();
            }
        }
        for (const auto& s : *senders)
        {
            out.reroutes += s->GetReroutes();
        }
    };
    out.r = scenario(o);
    Simulator::Destroy();
    Config::Reset();
    return out;
}

/// Both paths; the fast one really used; identical results. Returns the fast run.
PathRun
CompareHostPaths(const Scenario& scenario)
{
    const PathRun ipv4 = RunWith("ipv4", scenario);
    const PathRun fast = RunWith("fast", scenario);
    EXPECT_EQ(ipv4.fastTx, 0u);
    EXPECT_EQ(ipv4.fastRx, 0u);
    EXPECT_GT(fast.fastTx, 0u);
    EXPECT_GT(fast.fastRx, 0u);
    EXPECT_EQ(ipv4.reroutes, fast.reroutes);
    ExpectSameRoceResults(ipv4.r, fast.r);
    return fast;
}

} // namespace

TEST_F(RoceHostPath, ChecksumsFollowAValueBoundDuringInstall)
{
    // ChecksumEnabled bound while the applications are being installed, after the first NICs
    // chose their host path: the fast path must still write checksums (IPv4 verifies them on
    // receive and drops a packet whose header checksum is wrong), so every flow completes
    // and both paths agree.
    auto scenario = [](FabricRoceRunOptions o)
    {
        auto created = o.senderCreated;
        o.senderCreated = [created](uint32_t i, Ptr<RoceSender> s)
        {
            if (i == 1)
            {
                GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
            }
            created(i, s);
        };
        return RunFabricRoce(Roft16("8MB"), IncastAndOneMore(), o);
    };
    const PathRun ipv4 = RunWith("ipv4", scenario);
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
    const PathRun fast = RunWith("fast", scenario);
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
    EXPECT_GT(fast.fastTx, 0u);
    EXPECT_EQ(fast.fastRx, 0u); // checksums to verify: received through IPv4
    EXPECT_EQ(fast.r.incompleteFlows, 0u);
    ExpectSameRoceResults(ipv4.r, fast.r);
}

TEST_F(RoceHostPath, SameBytesOnEveryLink)
{
    // Every transmission on every device, in order: time, node, port, bytes and packet tags.
    auto capture = [](std::vector<std::string>& out)
    {
        return [&out](FabricRoceRunOptions o)
        {
            auto net = Roft16("8MB");
            RecordEveryTransmission(net, out, true);
            return RunFabricRoce(net, IncastAndOneMore(), o);
        };
    };
    std::vector<std::string> ipv4;
    std::vector<std::string> fast;
    const PathRun a = RunWith("ipv4", capture(ipv4));
    const PathRun b = RunWith("fast", capture(fast));
    EXPECT_GT(b.fastTx, 0u);
    ASSERT_GT(ipv4.size(), 200u);
    ExpectSameTransmissions(ipv4, fast);
    ExpectSameRoceResults(a.r, b.r);
}

TEST_F(RoceHostPath, SameBytesWithAndWithoutASenderTxSink)
{
    // Without a Tx sink on its sender a data packet's RoCE header is written with the UDP/IPv4
    // headers in one (RoceNic::SendIp's prefix); with one, it is added first, as the sink sees
    // it. Every transmission and result is the same either way.
    auto capture = [](std::vector<std::string>& out, bool sink, uint64_t& seen)
    {
        return [&out, sink, &seen](FabricRoceRunOptions o)
        {
            if (sink)
            {
                auto created = o.senderCreated;
                o.senderCreated = [created, &seen](uint32_t i, Ptr<RoceSender> s)
                {
                    created(i, s);
                    s->TraceConnectWithoutContext(
                        "Tx",
                        Callback<void, Ptr<const Packet>, uint32_t, bool>(
                            [&seen](Ptr<const Packet> p, uint32_t, bool)
                            { seen += p->GetSize() >= RoceHeader::SIZE ? 1 : 0; }));
                };
            }
            auto net = Roft16("8MB");
            RecordEveryTransmission(net, out, true);
            return RunFabricRoce(net, IncastAndOneMore(), o);
        };
    };
    std::vector<std::string> plain;
    std::vector<std::string> traced;
    uint64_t none = 0;
    uint64_t seen = 0;
    const PathRun a = RunWith("fast", capture(plain, false, none));
    const PathRun b = RunWith("fast", capture(traced, true, seen));
    EXPECT_GT(a.fastTx, 0u);
    EXPECT_EQ(a.fastTx, b.fastTx);
    EXPECT_GT(seen, 0u);
    ASSERT_GT(plain.size(), 200u);
    ExpectSameTransmissions(plain, traced);
    ExpectSameRoceResults(a.r, b.r);
}

TEST(FabricUdpIpv4Header, APrefixWritesTheRoceHeaderAfterUdp)
{
    // IPv4, UDP and RoCE headers in one (the NIC's fast send) are the bytes of the three
    // headers added one by one; RoceHeader::Write writes what Serialize writes.
    RoceHeader rh;
    rh.SetType(RoceHeader::NACK);
    rh.SetFlags(RoceHeader::FLAG_LAST);
    rh.SetQp(0x01020304);
    rh.SetPsn(0xfffffffe);
    rh.SetRound(0xabcd);
    const uint32_t payload = 1000;
    const Ipv4Address src("10.0.0.9");
    const Ipv4Address dst("10.0.1.17");

    Ptr<Packet> three = Create<Packet>(payload);
    three->AddHeader(rh);
    UdpHeader udp;
    udp.SetSourcePort(49153);
    udp.SetDestinationPort(4791);
    three->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(17);
    ip.SetPayloadSize(three->GetSize());
    ip.SetTtl(64);
    ip.SetTos(Ipv4Header::ECN_ECT0);
    ip.SetMayFragment();
    ip.SetIdentification(7);
    three->AddHeader(ip);

    uint8_t bytes[RoceHeader::SIZE];
    rh.Write(bytes);
    FabricUdpIpv4Header h;
    h.Set(src, dst, Ipv4Header::ECN_ECT0, 64, 7, 49153, 4791, payload + RoceHeader::SIZE);
    h.SetPrefix(bytes, RoceHeader::SIZE);
    Ptr<Packet> one = Create<Packet>(payload);
    one->AddHeader(h);

    ASSERT_EQ(one->GetSize(), three->GetSize());
    std::vector<uint8_t> a(one->GetSize());
    std::vector<uint8_t> b(three->GetSize());
    one->CopyData(a.data(), a.size());
    three->CopyData(b.data(), b.size());
    EXPECT_EQ(a, b);
    Ipv4Header rip;
    UdpHeader rudp;
    RoceHeader rrh;
    one->RemoveHeader(rip);
    one->RemoveHeader(rudp);
    one->RemoveHeader(rrh);
    EXPECT_EQ(rrh.GetType(), RoceHeader::NACK);
    EXPECT_EQ(rrh.GetQp(), 0x01020304u);
    EXPECT_EQ(rrh.GetPsn(), 0xfffffffeu);
    EXPECT_EQ(rrh.GetRound(), 0xabcd);
    EXPECT_EQ(one->GetSize(), payload);
}

TEST_F(RoceHostPath, SameBytesThroughASingleNicPortOutage)
{
    // ROFT hosts have one NIC port: while host 15's fails, its senders and its receiver's
    // ACKs/CNPs have no route and IPv4 drops them (no-route) without taking an IPv4
    // identification. The fast path must not take one either, or every datagram host 15 sends
    // after the repair carries another identification than in the IPv4 run.
    auto capture = [](std::vector<std::string>& out)
    {
        return [&out](FabricRoceRunOptions o)
        {
            auto net = Roft16("8MB");
            auto det = CreateObject<FabricFailureDetector>();
            det->Install(net);
            FabricFailureHelper failures(net);
            failures.FailNicPort(15, 0, MicroSeconds(10));
            failures.RepairNicPort(15, 0, MicroSeconds(200));
            RecordEveryTransmission(net, out, true);
            o.stopAt = MilliSeconds(50);
            return RunFabricRoce(
                net, {Flow(0, 0, 15, 4000000), Flow(1, 15, 2, 4000000), Flow(2, 1, 6, 100000)}, o);
        };
    };
    std::vector<std::string> ipv4;
    std::vector<std::string> fast;
    const PathRun a = RunWith("ipv4", capture(ipv4));
    const PathRun b = RunWith("fast", capture(fast));
    EXPECT_GT(b.fastTx, 0u);
    EXPECT_GT(a.r.droppedPackets, 0u);
    EXPECT_EQ(b.r.incompleteFlows, 0u);
    ASSERT_GT(ipv4.size(), 200u);
    ExpectSameTransmissions(ipv4, fast);
    ExpectSameRoceResults(a.r, b.r);
}

TEST_F(RoceHostPath, RoftIncastWithEcnAndQueueDrops)
{
    const PathRun fast = CompareHostPaths(
        [](FabricRoceRunOptions o)
        {
            std::vector<FlowSpec> flows;
            for (uint32_t i = 0; i < 8; ++i)
            {
                flows.push_back(Flow(i, 4 + i, 0, 400000));
            }
            return RunFabricRoce(Roft16("150KB"), flows, o);
        });
    uint64_t cnps = 0;
    uint64_t retx = 0;
    for (const auto& f : fast.r.flows)
    {
        cnps += f.cnps;
        retx += f.retxPackets;
        EXPECT_TRUE(f.complete);
    }
    EXPECT_GT(cnps, 0u);
    EXPECT_GT(retx, 0u);
    EXPECT_GT(fast.r.drops.at(FabricDropReason::QUEUE_OVERFLOW), 0u);
}

TEST_F(RoceHostPath, ZCubeAndRoftPermutationAndAllReduce)
{
    for (const auto pattern : {TrafficPattern::PERMUTATION, TrafficPattern::ALLREDUCE})
    {
        CompareHostPaths(
            [pattern](FabricRoceRunOptions o)
            {
                ZCubeHelper zcube(16, 4);
                FabricNetworkHelper links;
                return RunFabricRoce(zcube.Install(links), Pattern(pattern, 16, 200000), o);
            });
        CompareHostPaths([pattern](FabricRoceRunOptions o)
                         { return RunFabricRoce(Roft16("8MB"), Pattern(pattern, 16, 200000), o); });
    }
}

TEST_F(RoceHostPath, RandomLossGoBackN)
{
    const PathRun fast = CompareHostPaths(
        [](FabricRoceRunOptions o)
        {
            auto net = Roft16("8MB");
            CorruptArrivalsFromSpines(net, 15, 0.02);
            std::vector<FlowSpec> flows;
            for (uint32_t i = 0; i < 4; ++i)
            {
                flows.push_back(Flow(i, i, 12 + i, 1000000));
            }
            return RunFabricRoce(net, flows, o);
        });
    EXPECT_GT(fast.r.drops.at(FabricDropReason::PHY_RX_ERROR), 0u);
    EXPECT_GT(fast.r.flows[0].nacks + fast.r.flows[1].nacks, 0u);
}

TEST_F(RoceHostPath, NicPortFailoverAndRepair)
{
    // GPU 3's port 0 fails while it sends and receives: its queue pairs move to port 1 (the
    // IPv4 path then drops on the down interface until the view changes, in both modes).
    const PathRun fast = CompareHostPaths(
        [](FabricRoceRunOptions o)
        {
            ZCubeHelper zcube(16, 4);
            FabricNetworkHelper links;
            auto net = zcube.Install(links);
            auto det = CreateObject<FabricFailureDetector>();
            det->Install(net);
            FabricFailureHelper failures(net);
            failures.FailNicPort(3, 0, MicroSeconds(40));
            failures.RepairNicPort(3, 0, MicroSeconds(400));
            std::vector<FlowSpec> flows;
            for (uint32_t i = 0; i < 6; ++i)
            {
                flows.push_back(Flow(i, 3, 4 + 2 * i, 1500000));
                flows.push_back(Flow(6 + i, 5 + 2 * i, 3, 1500000));
            }
            o.stopAt = MilliSeconds(50);
            return RunFabricRoce(net, flows, o);
        });
    EXPECT_GT(fast.reroutes, 0u);
    EXPECT_GT(fast.r.droppedPackets, 0u);
    EXPECT_EQ(fast.r.incompleteFlows, 0u);
}

TEST_F(RoceHostPath, LosslessPfcIncast)
{
    const PathRun fast = CompareHostPaths(
        [](FabricRoceRunOptions o)
        {
            RoftHelper roft(RoftLayout(32, 8, 4), 3);
            FabricNetworkHelper links;
            PfcHelper pfcHelper;
            pfcHelper.ConfigureLinks(links);
            auto net = roft.Install(links);
            Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
            std::vector<FlowSpec> flows;
            for (uint32_t i = 0; i < 12; ++i)
            {
                flows.push_back(Flow(i, 8 + i, 0, 500000));
            }
            return RunFabricRoce(net, flows, o);
        });
    EXPECT_EQ(fast.r.droppedPackets, 0u);
    EXPECT_EQ(fast.r.incompleteFlows, 0u);
}

TEST_F(RoceHostPath, OtherTrafficStillReachesIpv4OnAFastHost)
{
    // Hosts 0 and 15 run RoCE (so the NIC's protocol handler is installed); a UDP echo between
    // them goes through their IPv4 stacks and sockets as before.
    auto net = Roft16("8MB");
    RoceTrafficHelper roce(net);
    roce.Install({Flow(0, 0, 15, 200000), Flow(1, 15, 0, 200000)});
    UdpEchoServerHelper server(9);
    ApplicationContainer s = server.Install(net->GetHostNodes().Get(15));
    UdpEchoClientHelper client(net->GetHostAddress(15), 9);
    client.SetAttribute("MaxPackets", UintegerValue(5));
    client.SetAttribute("Interval", TimeValue(MicroSeconds(20)));
    ApplicationContainer c = client.Install(net->GetHostNodes().Get(0));
    c.Start(MicroSeconds(5));
    uint32_t echoes = 0;
    c.Get(0)->TraceConnectWithoutContext(
        "Rx", Callback<void, Ptr<const Packet>>([&echoes](Ptr<const Packet>) { ++echoes; }));
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    EXPECT_EQ(echoes, 5u);
    EXPECT_TRUE(roce.GetRecords()[0].complete);
    EXPECT_TRUE(roce.GetRecords()[1].complete);
    EXPECT_GT(net->GetHostNodes().Get(15)->GetObject<RoceNic>()->GetFastRxPackets(), 0u);
}

TEST_F(RoceHostPath, RoceRefusesAPortAlreadyBoundOnTheHostPath)
{
    // UDP 4791 of GPU 15 already bound on its fast path by someone without a socket (no IPv4
    // socket conflict to stop the run): the RoCE receiver would lose its packets to that
    // handler, so the NIC aborts, naming the node and the port.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            auto net = Roft16("8MB");
            FabricHostPath::Get(net->GetHostNodes().Get(15))
                ->BindUdp(4791,
                          FabricHostPath::UdpHandler([](Ptr<Packet>, const Ipv4Header&, uint16_t)
                                                     { return true; }));
            RoceTrafficHelper roce(net);
            roce.Install({Flow(0, 0, 15, 200000)});
            Simulator::Stop(MicroSeconds(50));
            Simulator::Run();
        },
        "UDP port 4791 of node [0-9]+ is already bound.*RoCE and FabricTrafficHelper UDP sinks "
        "cannot share a host's port 4791");
}

namespace ns3
{

// bench-packet-rate's rounds rotate the order of a RoCE row's five runs (RunRoceBenchRow's
// rotation): the order in which the runs build their networks, told apart by the builder and
// the host-path and link-device defaults in force, starts at the rotation-th run; the results
// do not depend on the order.
TEST(RoceBenchRow, RotationStartsAtTheGivenRunAndKeepsTheResults)
{
    UseFabricTimeResolution(); // the run drivers refuse 1 ns with 400 Gb/s links
    RoftHelper roft(RoftLayout(16, 4, 4), 1);
    const auto flows = Pattern(TrafficPattern::PERMUTATION, 16, 20000);
    const auto rates = LineRateShares(flows, 16);
    std::vector<std::string> order;
    auto current = [](TypeId tid, const std::string& name)
    {
        TypeId::AttributeInformation info;
        tid.LookupAttributeByName(name, &info);
        return info.initialValue->SerializeToString(info.checker);
    };
    auto build = [&]()
    {
        order.push_back("ours " + current(RoceNic::GetTypeId(), "HostPath") + " "
                        + current(FabricNetwork::GetTypeId(), "LinkDevice"));
        FabricNetworkHelper links;
        return roft.Install(links);
    };
    auto buildGlobal = [&]()
    {
        order.push_back("global");
        FabricNetworkHelper stock;
        return stock.InstallGlobalRouting(roft.GetGraph());
    };
    // Defaults the RoCE runs override and restore, so that the UDP run (which keeps them)
    // builds under a pair no other run has.
    Config::SetDefault("ns3::RoceNic::HostPath", StringValue("ipv4"));
    Config::SetDefault("ns3::FabricNetwork::LinkDevice", StringValue("fast"));
    const std::vector<std::string> base
        = {"global", "ours ipv4 fast", "ours fast p2p", "ours ipv4 p2p", "ours fast fast"};
    std::vector<RoceBenchRow> rows;
    for (uint32_t rotation : {0u, 2u, 7u})
    {
        order.clear();
        rows.push_back(
            RunRoceBenchRow(build, buildGlobal, flows, rates, MicroSeconds(20), rotation));
        std::vector<std::string> expected;
        for (uint32_t i = 0; i < ROCE_BENCH_ROW_RUNS; ++i)
        {
            expected.push_back(base[(rotation + i) % ROCE_BENCH_ROW_RUNS]);
        }
        EXPECT_EQ(order, expected) << "rotation " << rotation;
    }
    Config::SetDefault("ns3::RoceNic::HostPath", StringValue("fast"));
    Config::SetDefault("ns3::FabricNetwork::LinkDevice", StringValue("p2p"));
    for (const auto& r : rows)
    {
        EXPECT_GT(r.roce.hopPackets, 0u);
        EXPECT_EQ(r.global.hopPackets, rows[0].global.hopPackets);
        EXPECT_EQ(r.udp.hopPackets, rows[0].udp.hopPackets);
        EXPECT_EQ(r.roce.hopPackets, rows[0].roce.hopPackets);
        EXPECT_EQ(r.roceIpv4.hopPackets, rows[0].roceIpv4.hopPackets);
        EXPECT_EQ(r.roceFastDevice.hopPackets, rows[0].roceFastDevice.hopPackets);
    }
}

} // namespace ns3
