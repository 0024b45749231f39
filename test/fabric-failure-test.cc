// SPDX-License-Identifier: GPL-2.0-only
// Failures in ns-3 runs: a failed link, switch or NIC port really stops carrying packets
// (queued packets flushed, packets on the wire and later ones dropped, all counted link-down),
// repair restores delivery, routing views that have not learnt keep sending into the hole,
// overlapping failures, TTL ends loops, and the failure spec grammar.
#include "ns3-sim-fixture.h"

#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-routing.h"
#include "ns3/error-model.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-failure-helper.h"
#include "ns3/fabric-ipv4-routing.h"
#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/ipv4.h"
#include "ns3/queue.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

constexpr uint32_t PAYLOAD = 4096;

/// h0 - s2 - s3 - h1 (links 0, 1, 2); the middle link at \p midBps.
std::shared_ptr<FabricGraph>
Chain(double midBps = 0)
{
    auto g = std::make_shared<FabricGraph>();
    g->AddNode(FabricRole::HOST, "h0", 0);
    g->AddNode(FabricRole::HOST, "h1", 0);
    g->AddNode(FabricRole::SWITCH, "s2", 1);
    g->AddNode(FabricRole::SWITCH, "s3", 1);
    g->Connect(0, 2);
    g->Connect(2, 3, midBps);
    g->Connect(3, 1);
    return g;
}

/// h0 - s2 < s3, s4 > s5 - h1: links 0 (h0-s2), 1 (h1-s5), 2 (s2-s3), 3 (s2-s4), 4 (s3-s5),
/// 5 (s4-s5). Port 1 of s2 leads to s3, port 2 to s4.
std::shared_ptr<FabricGraph>
Diamond()
{
    auto g = std::make_shared<FabricGraph>();
    g->AddNode(FabricRole::HOST, "h0", 0);
    g->AddNode(FabricRole::HOST, "h1", 0);
    for (const char* name : {"s2", "s3", "s4", "s5"})
    {
        g->AddNode(FabricRole::SWITCH, name, name[1] == '2' || name[1] == '5' ? 1 : 2);
    }
    g->Connect(0, 2);
    g->Connect(1, 5);
    g->Connect(2, 3);
    g->Connect(2, 4);
    g->Connect(3, 5);
    g->Connect(4, 5);
    return g;
}

FlowSpec
Flow(uint32_t id, uint32_t src, uint32_t dst, uint32_t packets, uint16_t srcPort)
{
    FlowSpec f;
    f.id = id;
    f.src = src;
    f.dst = dst;
    f.bytes = uint64_t(packets) * PAYLOAD;
    f.srcPort = srcPort;
    return f;
}

/// A routing that bounces every packet between s2 and s3 of the chain: a forwarding loop.
class LoopRouting : public FabricRouting
{
  public:
    uint32_t SelectPort(uint32_t node, uint32_t, uint32_t, const FlowKey&) const override
    {
        return node == 2 ? 1 : 0; // hosts: their port; s2 -> s3; s3 -> s2
    }

    std::vector<uint32_t> Candidates(uint32_t node, uint32_t, uint32_t) const override
    {
        return {node == 2 ? 1u : 0u};
    }

    std::string GetName() const override { return "loop"; }

  protected:
    void DoSetGraph() override {}
};

class FabricFailure : public Ns3SimFixture<::testing::TestWithParam<FabricSwitchMode>>
{
  protected:
    Ptr<FabricNetwork> Install(std::shared_ptr<FabricGraph> g, Ptr<FabricRouting> routing)
    {
        FabricNetworkHelper links;
        links.SetSwitchMode(GetParam());
        return links.Install(g, routing);
    }

    static void ExpectAccounted(const FabricUdpRunResult& r)
    {
        EXPECT_GT(r.sentPackets, 0u);
        EXPECT_EQ(r.Unaccounted(), 0) << "sent " << r.sentPackets << " delivered "
                                      << r.deliveredPackets << " dropped " << r.droppedPackets;
    }

    static uint64_t Drops(const FabricUdpRunResult& r, const char* reason)
    {
        auto it = r.drops.find(reason);
        return it == r.drops.end() ? 0 : it->second;
    }

    /// Count MacRx of a device (packets it received intact), with their times.
    static std::shared_ptr<std::vector<Time>> RecordRx(Ptr<NetDevice> dev)
    {
        auto times = std::make_shared<std::vector<Time>>();
        dev->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>([times](Ptr<const Packet>)
                                              { times->push_back(Simulator::Now()); }));
        return times;
    }

    static size_t CountIn(const std::vector<Time>& times, Time from, Time to)
    {
        size_t n = 0;
        for (const Time& t : times)
        {
            n += (t >= from && t < to) ? 1 : 0;
        }
        return n;
    }

    /// A source port whose flow from h0 to h1 crosses (or avoids) node \p via.
    static uint16_t PortVia(const FabricRouting& routing, uint32_t via, bool crosses)
    {
        for (uint16_t port = 49152; port < 49152 + 1000; ++port)
        {
            FlowSpec f = Flow(0, 0, 1, 1, port);
            const FabricPath path = TracePath(routing, 0, 1, f.Key());
            const bool has
                = std::find(path.nodes.begin(), path.nodes.end(), via) != path.nodes.end();
            if (path.delivered && has == crosses)
            {
                return port;
            }
        }
        ADD_FAILURE() << "no source port found";
        return 0;
    }
};

} // namespace

// A link failed mid-run: its queue (built up behind a slower link) is flushed, the packets on
// the wire are lost, later packets are dropped by the switch; all of it, and nothing else, is
// link-down. Repair restores delivery.
TEST_P(FabricFailure, LinkFailedMidRunDropsQueuedAndLaterPacketsThenRepairs)
{
    auto g = Chain(100e9);
    auto routing = MakeRouting<EcmpRouting>(g);
    auto net = Install(g, routing);
    const Time tFail = MicroSeconds(20);
    const Time tRepair = MicroSeconds(60);
    // Probe the queue of s2's port toward s3 just before the failure (same time, earlier).
    auto queued = std::make_shared<uint32_t>(0);
    Ptr<Queue<Packet>> queue = FabricLinkDevice::GetQueue(net->GetDevice(2, 1));
    Simulator::Schedule(tFail, [queued, queue]() { *queued = queue->GetNPackets(); });
    auto interfaceUpDuring = std::make_shared<int>(-1);
    Ptr<Node> s2 = net->GetNode(2);
    Simulator::Schedule(tFail + MicroSeconds(1),
                        [interfaceUpDuring, s2]()
                        {
                            if (auto ipv4 = s2->GetObject<Ipv4>())
                            {
                                *interfaceUpDuring = ipv4->IsUp(2) ? 1 : 0;
                            }
                        });
    FabricFailureHelper failures(net);
    failures.Schedule("link:1@20us,repair:link:1@60us");

    auto atS2 = RecordRx(net->GetDevice(2, 0));
    auto txBegin = std::make_shared<std::vector<Time>>();
    net->GetDevice(2, 1)->TraceConnectWithoutContext(
        "PhyTxBegin",
        Callback<void, Ptr<const Packet>>([txBegin](Ptr<const Packet>)
                                          { txBegin->push_back(Simulator::Now()); }));
    auto atS3 = RecordRx(net->GetDevice(3, 0));
    auto atH1 = RecordRx(net->GetDevice(1, 0));
    auto changes = std::make_shared<std::vector<std::pair<Time, FabricStateChange>>>();
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::FabricLinkGuard/StateChange",
        Callback<void, const FabricStateChange&>([changes](const FabricStateChange& c)
                                                 { changes->emplace_back(Simulator::Now(), c); }));
    auto portStates = std::make_shared<std::vector<std::string>>();
    Config::ConnectWithoutContext("/NodeList/3/$ns3::FabricLinkGuard/PortState",
                                  Callback<void, uint32_t, bool, bool>(
                                      [portStates](uint32_t port, bool egress, bool ingress) {
                                          portStates->push_back(std::to_string(port)
                                                                + (egress ? "E" : "e")
                                                                + (ingress ? "I" : "i"));
                                      }));
    auto guardDrops = std::make_shared<uint64_t>(0);
    Config::ConnectWithoutContext("/NodeList/*/$ns3::FabricLinkGuard/Drop",
                                  Callback<void, Ptr<const Packet>, const std::string&>(
                                      [guardDrops](Ptr<const Packet>, const std::string& reason)
                                      {
                                          EXPECT_EQ(reason, FabricDropReason::LINK_DOWN);
                                          ++*guardDrops;
                                      }));

    // 200 Gb/s into a 100 Gb/s link: a queue builds at s2.
    const uint32_t packets = 1000;
    auto r = RunFabricUdp(net, {Flow(0, 0, 1, packets, 49152)}, {200e9}, PAYLOAD);
    ExpectAccounted(r);
    const uint64_t lost = atS2->size() - atS3->size();
    EXPECT_GT(*queued, 10u) << "the failure must find a queue to flush";
    EXPECT_EQ(Drops(r, FabricDropReason::LINK_DOWN), lost) << "every loss is link-down";
    EXPECT_EQ(r.droppedPackets, lost) << "and nothing else is lost";
    // Exactly: queued at the failure + arrived at s2 while down + on the wire (the packet
    // being serialized and those propagating over 1 us: at most 1 + 1 us / 0.33 us).
    const uint64_t arrivedWhileDown = CountIn(*atS2, tFail, tRepair);
    const uint64_t onWire = CountIn(*txBegin, Time(0), tFail) - CountIn(*atS3, Time(0), tRepair);
    EXPECT_EQ(CountIn(*txBegin, tFail, tRepair), 0u) << "nothing leaves a dead port";
    EXPECT_EQ(lost, *queued + arrivedWhileDown + onWire);
    EXPECT_GE(onWire, 1u);
    EXPECT_LE(onWire, 5u);
    EXPECT_GE(*guardDrops, *queued);
    // Delivery: nothing arrives at s3 while down (after the in-flight packets), all of
    // it again after the repair, and every packet received by s2 after the repair arrives.
    EXPECT_EQ(CountIn(*atS3, tFail + MicroSeconds(2), tRepair), 0u);
    EXPECT_GT(CountIn(*atH1, tRepair, Seconds(1)), 0u);
    EXPECT_EQ(CountIn(*atS2, tRepair, Seconds(1)), CountIn(*atS3, tRepair, Seconds(1)));
    EXPECT_EQ(r.deliveredPackets, atH1->size());
    // Two directions down, then up, each reported once, by the tail node, at the right time.
    ASSERT_EQ(changes->size(), 4u);
    for (size_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ((*changes)[i].first, i < 2 ? tFail : tRepair);
        EXPECT_EQ((*changes)[i].second.element, FabricStateChange::Element::DIR_LINK);
        EXPECT_EQ((*changes)[i].second.id / 2, 1u);
        EXPECT_EQ((*changes)[i].second.up, i >= 2);
    }
    // s3 sees its port 0 lose its ingress, then its egress, then get both back.
    EXPECT_EQ(*portStates, (std::vector<std::string>{"0Ei", "0ei", "0eI", "0EI"}));
    if (GetParam() == FabricSwitchMode::IPV4)
    {
        EXPECT_EQ(*interfaceUpDuring, 0) << "the switch's IPv4 interface goes down";
    }
}

// The routing view that has not learnt keeps choosing the dead port: the flow through it
// loses everything after the failure. A view that learns (5 us later) moves it to the other
// spine; the other flow never notices.
TEST_P(FabricFailure, UnlearntViewKeepsChoosingDeadPortLearntViewAvoidsIt)
{
    for (bool learn : {false, true})
    {
        SCOPED_TRACE(learn ? "view learns after 5 us" : "view never learns");
        auto g = Diamond();
        auto routing = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
        const uint16_t viaS3 = PortVia(*routing, 3, true);
        const uint16_t viaS4 = PortVia(*routing, 3, false);
        auto net = Install(g, routing);
        FabricFailureHelper failures(net);
        if (learn)
        {
            failures.LearnAfter(routing, MicroSeconds(5));
        }
        failures.FailLink(2, MicroSeconds(20)); // s2 - s3
        const uint32_t packets = 300;
        auto r = RunFabricUdp(net,
                              {Flow(0, 0, 1, packets, viaS3), Flow(1, 0, 1, packets, viaS4)},
                              {100e9, 100e9},
                              PAYLOAD);
        ExpectAccounted(r);
        EXPECT_EQ(r.flows[1].rxPackets, packets) << "the flow through s4 is unaffected";
        EXPECT_EQ(r.droppedPackets, Drops(r, FabricDropReason::LINK_DOWN));
        EXPECT_EQ(r.flows[0].rxPackets + r.droppedPackets, packets);
        // At 100 Gb/s a packet leaves every 0.33 us: 20 us is ~60 packets.
        if (learn)
        {
            EXPECT_GT(r.droppedPackets, 0u) << "the window before the view learns";
            EXPECT_LT(r.droppedPackets, 25u);
            EXPECT_FALSE(routing->GetView()->IsDirLinkUsable(4));
            const FabricPath p = TracePath(*routing, 0, 1, Flow(0, 0, 1, 1, viaS3).Key());
            EXPECT_TRUE(p.delivered);
            EXPECT_EQ(std::count(p.nodes.begin(), p.nodes.end(), 3u), 0) << "avoids s3";
        }
        else
        {
            EXPECT_GT(r.droppedPackets, packets - 70) << "everything after the failure";
            EXPECT_TRUE(routing->GetView()->IsDirLinkUsable(4)) << "the view never learnt";
        }
        Simulator::Destroy();
    }
}

// Every path fails: no crash, no hang; what the view does not know goes into the hole
// (link-down), what it knows has no route (no-route at the switch, refused at the source).
TEST_P(FabricFailure, AllPathsFailedGivesNoRouteOrLinkDown)
{
    for (bool learn : {false, true})
    {
        SCOPED_TRACE(learn ? "learnt" : "not learnt");
        auto g = Diamond();
        auto routing = MakeRouting<EcmpRouting>(g);
        auto net = Install(g, routing);
        FabricFailureHelper failures(net);
        if (learn)
        {
            failures.LearnAfter(routing, Time(0));
        }
        failures.Schedule("switch:3@20us,switch:4@20us");
        auto r = RunFabricUdp(
            net, {Flow(0, 0, 1, 200, 49152), Flow(1, 0, 1, 200, 49153)}, {100e9, 100e9}, PAYLOAD);
        ExpectAccounted(r);
        EXPECT_LT(r.deliveredPackets, 2 * 80u);
        if (learn)
        {
            EXPECT_GT(Drops(r, FabricDropReason::NO_ROUTE)
                          + Drops(r, FabricDropReason::REFUSED_AT_SOURCE),
                      200u);
        }
        else
        {
            EXPECT_GT(Drops(r, FabricDropReason::LINK_DOWN), 200u);
            EXPECT_EQ(Drops(r, FabricDropReason::NO_ROUTE), 0u);
        }
        Simulator::Destroy();
    }
}

// A switch fails and is repaired: the flow through it stops and resumes, the other does not
// notice.
TEST_P(FabricFailure, SwitchFailureAndRepair)
{
    auto g = Diamond();
    auto routing = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
    const uint16_t viaS3 = PortVia(*routing, 3, true);
    const uint16_t viaS4 = PortVia(*routing, 3, false);
    auto net = Install(g, routing);
    auto atS5FromS3 = RecordRx(net->GetDevice(5, 1)); // s5's port 1 is link 4 (from s3)
    FabricFailureHelper failures(net);
    failures.FailSwitch(3, MicroSeconds(20));
    failures.RepairSwitch(3, MicroSeconds(60));
    const uint32_t packets = 300;
    auto r = RunFabricUdp(net,
                          {Flow(0, 0, 1, packets, viaS3), Flow(1, 0, 1, packets, viaS4)},
                          {100e9, 100e9},
                          PAYLOAD);
    ExpectAccounted(r);
    EXPECT_EQ(r.flows[1].rxPackets, packets);
    EXPECT_EQ(r.droppedPackets, Drops(r, FabricDropReason::LINK_DOWN));
    EXPECT_GT(r.droppedPackets, 100u);
    EXPECT_EQ(r.flows[0].rxPackets + r.droppedPackets, packets);
    EXPECT_EQ(CountIn(*atS5FromS3, MicroSeconds(23), MicroSeconds(60)), 0u);
    EXPECT_GT(CountIn(*atS5FromS3, MicroSeconds(60), Seconds(1)), 0u) << "repair restores";
}

// A host's NIC port fails: its IPv4 interface goes down (the routing protocol hears it), the
// packets it sends are dropped by IPv4 (link-down); repair brings it back.
TEST_P(FabricFailure, HostNicPortFailure)
{
    auto g = Chain();
    auto routing = MakeRouting<EcmpRouting>(g);
    auto net = Install(g, routing);
    auto seen = std::make_shared<std::vector<int>>();
    Ptr<Node> h0 = net->GetNode(0);
    auto probe = [seen, h0]()
    {
        Ptr<Ipv4> ipv4 = h0->GetObject<Ipv4>();
        auto proto = DynamicCast<FabricIpv4Routing>(ipv4->GetRoutingProtocol());
        seen->push_back((ipv4->IsUp(1) ? 1 : 0) + (proto->IsPortUp(0) ? 2 : 0));
    };
    Simulator::Schedule(MicroSeconds(30), probe);
    Simulator::Schedule(MicroSeconds(70), probe);
    FabricFailureHelper failures(net);
    failures.Schedule("nic:0/0@20us,repair:nic:0/0@60us");
    auto atH1 = RecordRx(net->GetDevice(1, 0));
    auto r = RunFabricUdp(net, {Flow(0, 0, 1, 300, 49152)}, {100e9}, PAYLOAD);
    ExpectAccounted(r);
    EXPECT_EQ(r.droppedPackets, Drops(r, FabricDropReason::LINK_DOWN));
    EXPECT_GT(r.droppedPackets, 100u);
    EXPECT_GT(CountIn(*atH1, MicroSeconds(61), Seconds(1)), 0u);
    EXPECT_EQ(*seen, (std::vector<int>{0, 3})) << "interface and routing port down, then up";
}

// Only a host's outgoing direction fails: the host still receives everything (its IPv4
// interface stays up), and only what it sends is lost, link-down.
TEST_P(FabricFailure, HostEgressOnlyFailureStillReceives)
{
    auto g = Chain();
    auto routing = MakeRouting<EcmpRouting>(g);
    auto net = Install(g, routing);
    const uint32_t out0 = g->GetEgressDirLink(0, 0);
    auto up = std::make_shared<std::vector<bool>>();
    Ptr<Node> h0 = net->GetNode(0);
    Simulator::Schedule(MicroSeconds(30),
                        [up, h0]() { up->push_back(h0->GetObject<Ipv4>()->IsUp(1)); });
    FabricFailureHelper failures(net);
    failures.Schedule("dirlink:" + std::to_string(out0) + "@20us");
    auto r = RunFabricUdp(
        net, {Flow(0, 1, 0, 300, 49152), Flow(1, 0, 1, 300, 49153)}, {100e9, 100e9}, PAYLOAD);
    ExpectAccounted(r);
    EXPECT_EQ(r.flows[0].rxBytes, r.flows[0].txBytes) << "into the host: nothing lost";
    EXPECT_LT(r.flows[1].rxBytes, r.flows[1].txBytes) << "out of the host: lost";
    EXPECT_EQ(r.droppedPackets, Drops(r, FabricDropReason::LINK_DOWN));
    EXPECT_EQ(*up, std::vector<bool>{true}) << "the interface stays up";
}

// A one-way failure of a host's egress, repaired: the host keeps sending into the dead
// direction (its interface stays up), and every frame whose first bit left before the repair
// is lost there (link-down at the switch), also the last ones, which arrive after the repair.
TEST_P(FabricFailure, OneWayFailureLosesFramesSentIntoItThatArriveAfterTheRepair)
{
    auto g = Chain();
    auto routing = MakeRouting<EcmpRouting>(g);
    auto net = Install(g, routing);
    const uint32_t out0 = g->GetEgressDirLink(0, 0);
    const Time down = MicroSeconds(20);
    const Time up = MicroSeconds(40);
    FabricFailureHelper failures(net);
    failures.Schedule("dirlink:" + std::to_string(out0)
                      + "@20us,repair:dirlink:" + std::to_string(out0) + "@40us");
    auto txStart = std::make_shared<std::map<uint64_t, Time>>();
    auto lostAt = std::make_shared<std::map<uint64_t, Time>>();
    auto intact = std::make_shared<std::set<uint64_t>>();
    auto r = RunFabricUdp(
        net,
        {Flow(0, 0, 1, 200, 49152)},
        {100e9},
        PAYLOAD,
        Time(0),
        [&](Ptr<FabricNetwork> n, const ApplicationContainer&)
        {
            n->GetDevice(0, 0)->TraceConnectWithoutContext(
                "PhyTxBegin",
                Callback<void, Ptr<const Packet>>(
                    [txStart](Ptr<const Packet> p)
                    { txStart->emplace(p->GetUid(), Simulator::Now()); }));
            Ptr<NetDevice> s2in = n->GetDevice(2, 0);
            s2in->TraceConnectWithoutContext("PhyRxDrop",
                                             Callback<void, Ptr<const Packet>>(
                                                 [lostAt](Ptr<const Packet> p) {
                                                     lostAt->emplace(p->GetUid(), Simulator::Now());
                                                 }));
            s2in->TraceConnectWithoutContext(
                "MacRx",
                Callback<void, Ptr<const Packet>>([intact](Ptr<const Packet> p)
                                                  { intact->insert(p->GetUid()); }));
        });
    ExpectAccounted(r);
    EXPECT_EQ(r.droppedPackets, Drops(r, FabricDropReason::LINK_DOWN));
    uint32_t sentInto = 0;
    uint32_t lostAfterRepair = 0;
    for (const auto& [uid, t] : *txStart)
    {
        if (t < down || t >= up)
        {
            continue;
        }
        ++sentInto;
        EXPECT_EQ(intact->count(uid), 0u) << "frame sent at " << t.As(Time::NS) << " arrived";
        auto it = lostAt->find(uid);
        if (it != lostAt->end() && it->second >= up)
        {
            ++lostAfterRepair;
        }
    }
    EXPECT_GT(sentInto, 50u) << "the host kept sending into the dead direction";
    EXPECT_GT(lostAfterRepair, 0u) << "some of those arrive after the repair";
    EXPECT_GT(intact->size(), 100u) << "delivery before the failure and after the repair";
}

// Overlapping failures of a link and its switch: the port is usable again only after both
// repairs, in either order.
TEST_P(FabricFailure, OverlappingLinkAndSwitchFailures)
{
    for (bool linkFirst : {true, false})
    {
        SCOPED_TRACE(linkFirst ? "link repaired first" : "switch repaired first");
        auto g = Diamond();
        auto routing = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
        const uint16_t viaS3 = PortVia(*routing, 3, true);
        auto net = Install(g, routing);
        auto usable = std::make_shared<std::vector<bool>>();
        Ptr<FabricLinkGuard> guard = net->GetNode(2)->GetObject<FabricLinkGuard>();
        for (double us : {25.0, 55.0, 75.0})
        {
            Simulator::Schedule(MicroSeconds(us),
                                [usable, guard]() { usable->push_back(guard->IsPortUsable(1)); });
        }
        FabricFailureHelper failures(net);
        failures.Schedule(linkFirst ? "link:2@20us,switch:3@30us,repair:link:2@50us,"
                                      "repair:switch:3@70us"
                                    : "link:2@20us,switch:3@30us,repair:switch:3@50us,"
                                      "repair:link:2@70us");
        auto atS3 = RecordRx(net->GetDevice(3, 0));
        const uint32_t packets = 300;
        auto r = RunFabricUdp(net, {Flow(0, 0, 1, packets, viaS3)}, {100e9}, PAYLOAD);
        ExpectAccounted(r);
        EXPECT_EQ(*usable, (std::vector<bool>{false, false, true}));
        EXPECT_EQ(CountIn(*atS3, MicroSeconds(22), MicroSeconds(70)), 0u);
        EXPECT_GT(CountIn(*atS3, MicroSeconds(70), Seconds(1)), 0u);
        EXPECT_EQ(r.droppedPackets, Drops(r, FabricDropReason::LINK_DOWN));
        EXPECT_EQ(r.flows[0].rxPackets + r.droppedPackets, packets);
        Simulator::Destroy();
    }
}

// A forwarding loop ends by TTL expiry, in both switch modes: always (Ttl=always), and by
// default (while-down) as soon as something is down.
TEST_P(FabricFailure, LoopEndsByTtlExpiry)
{
    for (bool always : {true, false})
    {
        SCOPED_TRACE(always ? "Ttl=always" : "Ttl=while-down, an unrelated link down");
        Config::SetDefault("ns3::FabricSwitchForwarder::Ttl",
                           StringValue(always ? "always" : "while-down"));
        auto g = Chain();
        g->Connect(2, 3); // link 3: a second s2-s3 link, unused by the loop
        auto routing = CreateObject<LoopRouting>();
        routing->SetGraph(g);
        auto net = Install(g, routing);
        if (!always)
        {
            net->GetState()->FailLink(3);
        }
        auto r = RunFabricUdp(net, {Flow(0, 0, 1, 20, 49152)}, {10e9}, PAYLOAD);
        ExpectAccounted(r);
        EXPECT_EQ(r.deliveredPackets, 0u);
        EXPECT_EQ(Drops(r, FabricDropReason::TTL_EXPIRED), 20u);
        // TTL 64 from the host: 63 switch hops between s2 and s3, then the drop (in IPv4 mode
        // the switch's ICMP time-exceeded messages loop and expire too; they are not counted).
        const uint64_t hops = r.links[g->GetEgressDirLink(2, 1)].txPackets
                            + r.links[g->GetEgressDirLink(3, 0)].txPackets;
        if (GetParam() == FabricSwitchMode::FAST)
        {
            EXPECT_EQ(hops, 20u * 63);
        }
        else
        {
            EXPECT_GE(hops, 20u * 63);
        }
        Simulator::Destroy();
    }
}

// RoCE: a flow whose path fails and is repaired recovers by go-back-N and completes; the
// other flow is untouched.
TEST_P(FabricFailure, RoceRecoversAfterRepair)
{
    auto g = Diamond();
    auto routing = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
    const uint16_t viaS3 = PortVia(*routing, 3, true);
    const uint16_t viaS4 = PortVia(*routing, 3, false);
    auto net = Install(g, routing);
    FabricFailureHelper failures(net);
    failures.Schedule("link:2@20us,repair:link:2@200us");
    std::vector<FlowSpec> flows{Flow(0, 0, 1, 500, viaS3), Flow(1, 0, 1, 500, viaS4)};
    auto r = RunFabricRoce(net, flows);
    for (const auto& f : r.flows)
    {
        EXPECT_TRUE(f.complete && f.delivered) << f.spec.id;
        EXPECT_EQ(f.rxBytes, f.spec.bytes) << f.spec.id;
    }
    EXPECT_GT(r.flows[0].retxPackets, 0u);
    EXPECT_GT(r.flows[0].FctSeconds(), 200e-6) << "completes only after the repair";
    EXPECT_GT(r.drops[FabricDropReason::LINK_DOWN], 0u);
    EXPECT_EQ(r.droppedPackets, r.drops[FabricDropReason::LINK_DOWN]);
    EXPECT_EQ(r.Unaccounted(), 0);
}

// Path changes are recorded per flow: the view learns the failure 5 us after it and the flow
// through s3 moves to s4 then; after the repair (learnt 5 us later) it goes back to its all-up
// choice (resilient hashing). The flow through s4 never changes.
TEST_P(FabricFailure, RocePathChangesAreRecorded)
{
    auto g = Diamond();
    auto routing = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
    const uint16_t viaS3 = PortVia(*routing, 3, true);
    const uint16_t viaS4 = PortVia(*routing, 3, false);
    auto net = Install(g, routing);
    FabricFailureHelper failures(net);
    failures.LearnAfter(routing, MicroSeconds(5));
    failures.Schedule("link:2@20us,repair:link:2@200us");
    std::vector<FlowSpec> flows{Flow(0, 0, 1, 2000, viaS3), Flow(1, 0, 1, 2000, viaS4)};
    auto r = RunFabricRoce(net, flows);
    ASSERT_TRUE(r.flows[0].complete);
    const auto& changes = r.flows[0].pathChanges;
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].first, MicroSeconds(25));
    EXPECT_EQ(std::count(changes[0].second.begin(), changes[0].second.end(), 3u), 0);
    EXPECT_EQ(std::count(changes[0].second.begin(), changes[0].second.end(), 4u), 1);
    EXPECT_EQ(changes[1].first, MicroSeconds(205));
    EXPECT_EQ(changes[1].second, r.flows[0].path) << "back to the all-up choice";
    EXPECT_TRUE(r.flows[1].pathChanges.empty());
    const nlohmann::json j = RoceFlowsToJson(r.flows);
    ASSERT_EQ(j[0]["path_changes"].size(), 2u);
    EXPECT_NEAR(j[0]["path_changes"][0]["t_us"].get<double>(), 25.0, 1e-9);
    EXPECT_FALSE(j[1].contains("path_changes"));
    EXPECT_EQ(r.Unaccounted(), 0);
}

// The guard's receive error model goes on a device only when the link into it first fails
// (a healthy receiver calls no model per packet); a model the user set before is kept as its
// inner model and still decides for the packets the failure does not drop.
TEST_P(FabricFailure, GuardErrorModelWrapsAUsersModelWhenTheLinkFirstFails)
{
    auto g = Chain(100e9);
    auto routing = MakeRouting<EcmpRouting>(g);
    auto net = Install(g, routing);
    auto modelOf = [](Ptr<NetDevice> dev)
    {
        PointerValue v;
        dev->GetAttribute("ReceiveErrorModel", v);
        return v.Get<ErrorModel>();
    };
    Ptr<NetDevice> intoS3 = net->GetDevice(3, 0); // receives over link 1 (s2 -> s3)
    Ptr<NetDevice> intoS2 = net->GetDevice(2, 1); // receives over link 1 (s3 -> s2)
    Ptr<NetDevice> healthy = net->GetDevice(1, 0);
    EXPECT_FALSE(modelOf(intoS3));
    EXPECT_FALSE(modelOf(intoS2));
    auto user = CreateObject<ReceiveListErrorModel>();
    user->SetList({5, 150}); // the 5th and 150th packets asked about: one before, one after
    FabricLinkDevice::SetReceiveErrorModel(intoS3, user);
    EXPECT_EQ(modelOf(intoS3), user) << "the guard leaves a healthy link's model alone";

    auto during = std::make_shared<std::vector<Ptr<ErrorModel>>>();
    Simulator::Schedule(MicroSeconds(21),
                        [during, intoS3, intoS2, healthy, modelOf]()
                        {
                            during->push_back(modelOf(intoS3));
                            during->push_back(modelOf(intoS2));
                            during->push_back(modelOf(healthy));
                        });
    FabricFailureHelper failures(net);
    failures.Schedule("link:1@20us,repair:link:1@60us");
    auto atS3 = RecordRx(intoS3);
    auto r = RunFabricUdp(net, {Flow(0, 0, 1, 1000, 49152)}, {200e9}, PAYLOAD);
    ExpectAccounted(r);
    ASSERT_EQ(during->size(), 3u);
    auto wrapS3 = DynamicCast<FabricLinkErrorModel>((*during)[0]);
    auto wrapS2 = DynamicCast<FabricLinkErrorModel>((*during)[1]);
    ASSERT_TRUE(wrapS3) << "the failure puts the guard's model on the device";
    ASSERT_TRUE(wrapS2);
    EXPECT_EQ(wrapS3->GetInner(), user);
    EXPECT_FALSE(wrapS2->GetInner());
    EXPECT_FALSE((*during)[2]) << "a link that never failed gets no model";
    EXPECT_EQ(Drops(r, FabricDropReason::PHY_RX_ERROR), 2u)
        << "the user's model dropped its two packets, before and after the failure";
    EXPECT_GT(Drops(r, FabricDropReason::LINK_DOWN), 0u);
    EXPECT_GT(CountIn(*atS3, MicroSeconds(60), Seconds(1)), 0u) << "delivery resumes";
}

INSTANTIATE_TEST_SUITE_P(SwitchModes,
                         FabricFailure,
                         ::testing::Values(FabricSwitchMode::FAST, FabricSwitchMode::IPV4),
                         [](const auto& info)
                         { return info.param == FabricSwitchMode::FAST ? "fast" : "ipv4"; });

// The failure spec grammar: what is accepted, and what is rejected with which explanation.
TEST(FabricFailureSpec, AcceptsAndRejects)
{
    const auto g = Chain(); // 4 nodes (hosts 0, 1), 3 links
    struct Case
    {
        std::string spec;
        std::string error; // empty: accepted
    };
    const std::vector<Case> cases{
        {"link:1@50us", ""},
        {"dirlink:5@1ms", ""},
        {"switch:2@2ms", ""},
        {"node:0@1s", ""},
        {"nic:1/0@1.5us", ""},
        {"link:0@2e-6s", ""},
        {"link:1@10us,repair:link:1@20us", ""},
        {"link:1@1ms,switch:2@1ms,repair:switch:2@2ms,repair:link:1@3ms", ""},
        {"link:1@1ms,link:1@2ms,repair:link:1@3ms,repair:link:1@4ms", ""},
        {"", "at least one event"},
        {"link:1", "one '@'"},
        {"link:1@1us@2us", "one '@'"},
        {"link:3@1us", "a link id in [0, 3)"},
        {"dirlink:6@1us", "a directed link id in [0, 6)"},
        {"switch:0@1us", "a switch node id in [2, 4)"},
        {"node:4@1us", "a node id in [0, 4)"},
        {"nic:2/0@1us", "a host id in [0, 2)"},
        {"nic:0/1@1us", "a port of host 0"},
        {"nic:0@1us", "nic:HOST/PORT"},
        {"link:x@1us", "a link id as a non-negative integer"},
        {"link:-1@1us", "a link id as a non-negative integer"},
        {"link:1@5", "a time >= 0 with a unit"},
        {"link:1@5xs", "a time >= 0 with a unit"},
        {"link:1@-5us", "a time >= 0 with a unit"},
        {"link:1@0.5ps", "whole number of the simulator's resolution"},
        {"repair:link:1@1us", "a repair of an element failed earlier"},
        {"link:1@20us,repair:link:1@10us", "a repair of an element failed earlier"},
        {"dirlink:2@1us,repair:link:1@2us", "a repair of an element failed earlier"},
        {"link:1@1us,,link:2@1us", "between commas"},
        {"link:1@1us,", "between commas"},
        {"bogus:1@1us", "an element kind link, dirlink, switch, node or nic"},
        {"link1@1us", "an element kind:id"},
    };
    for (const auto& c : cases)
    {
        SCOPED_TRACE("spec '" + c.spec + "'");
        if (c.error.empty())
        {
            EXPECT_NO_THROW(FabricFailureHelper::Parse(c.spec, *g));
            continue;
        }
        try
        {
            FabricFailureHelper::Parse(c.spec, *g);
            ADD_FAILURE() << "accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("token"), std::string::npos) << e.what();
        }
    }
    // Parsed values, and the text form parses back to the same events.
    const auto events = FabricFailureHelper::Parse("nic:1/0@1.5us,repair:nic:1/0@2ms", *g);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, FabricFailureEvent::Kind::NIC);
    EXPECT_EQ(events[0].id, 1u);
    EXPECT_EQ(events[0].port, 0u);
    EXPECT_EQ(events[0].at, NanoSeconds(1500));
    EXPECT_TRUE(events[1].repair);
    EXPECT_EQ(events[1].at, MilliSeconds(2));
    // Times are whole numbers of ticks, not ns-3's text conversion through a double (which
    // truncated 300us to 299999999 ps at picosecond resolution and so refused it).
    for (const char* us : {"300", "50", "1700", "0.3", "123456"})
    {
        const auto e = FabricFailureHelper::Parse(std::string("link:1@") + us + "us", *g);
        EXPECT_EQ(e[0].at, NanoSeconds(std::llround(std::stod(us) * 1000))) << us;
    }
    const auto again
        = FabricFailureHelper::Parse(events[0].ToString() + "," + events[1].ToString(), *g);
    EXPECT_EQ(again[1].at, events[1].at);
    EXPECT_EQ(again[0].Element(), "nic:1/0");
}

// A repair names the failed element as its failure did (same kind and id): the state alone
// would take a directed link's repair for one direction of a failed link (leaving the link
// half down), or a node's repair for a failed switch.
TEST(FabricFailureSpec, RepairMustNameTheFailedElementsKindAndId)
{
    const auto g = Chain(); // 4 nodes (hosts 0, 1; switches 2, 3), 3 links
    const std::vector<std::pair<std::string, std::string>> refused{
        {"link:0@1us,repair:dirlink:0@2us", "repair:dirlink:0@2us"},
        {"link:0@1us,repair:dirlink:0@2us,repair:dirlink:1@2us", "repair:dirlink:0@2us"},
        {"dirlink:0@1us,dirlink:1@1us,repair:link:0@2us", "repair:link:0@2us"},
        {"switch:2@1us,repair:node:2@2us", "repair:node:2@2us"},
        {"nic:0/0@1us,repair:link:0@2us", "repair:link:0@2us"},
    };
    for (const auto& [spec, token] : refused)
    {
        SCOPED_TRACE("spec '" + spec + "'");
        try
        {
            FabricFailureHelper::Parse(spec, *g);
            ADD_FAILURE() << "accepted";
        }
        catch (const std::invalid_argument& e)
        {
            // The token as the user spelt it, and what was expected.
            const std::string what = e.what();
            EXPECT_NE(what.find("token '" + token + "'"), std::string::npos) << what;
            EXPECT_NE(what.find("same kind and id"), std::string::npos) << what;
        }
    }
    // Overlapping failures of different kinds, each repaired by its own kind: accepted.
    for (const std::string spec :
         {"link:0@1us,dirlink:0@2us,repair:dirlink:0@3us,repair:link:0@4us",
          "node:2@1us,switch:2@1us,repair:switch:2@2us,repair:node:2@3us",
          "nic:0/0@1us,link:0@1us,repair:link:0@2us,repair:nic:0/0@3us"})
    {
        EXPECT_NO_THROW(FabricFailureHelper::Parse(spec, *g)) << spec;
    }
}

// The code API checks the same things as the grammar.
TEST(FabricFailureSpec, CodeApiChecksIdsAndRepairs)
{
    auto g = Chain();
    FabricNetworkHelper links;
    auto net = links.Install(g, MakeRouting<EcmpRouting>(g));
    FabricFailureHelper failures(net);
    EXPECT_THROW(failures.FailLink(3, MicroSeconds(1)), std::invalid_argument);
    EXPECT_THROW(failures.FailSwitch(1, MicroSeconds(1)), std::invalid_argument);
    EXPECT_THROW(failures.RepairLink(1, MicroSeconds(20)), std::invalid_argument);
    failures.FailLink(1, MicroSeconds(10));
    failures.RepairLink(1, MicroSeconds(20));
    EXPECT_THROW(failures.RepairLink(1, MicroSeconds(30)), std::invalid_argument);
    // A repair names the failure's kind and id, as in a spec: both directions of link 0
    // failed one by one are not repaired as the link (the state alone would take it).
    failures.FailDirLink(0, MicroSeconds(60));
    failures.FailDirLink(1, MicroSeconds(60));
    EXPECT_THROW(failures.RepairLink(0, MicroSeconds(70)), std::invalid_argument);
    // Scheduled out of time order: a failure before an already planned repair is fine.
    failures.FailSwitch(2, MicroSeconds(50));
    failures.FailNicPort(0, 0, MicroSeconds(5));
    failures.RepairNicPort(0, 0, MicroSeconds(8));
    EXPECT_EQ(failures.GetEvents().size(), 7u);
    Simulator::Destroy();
}

// Once a failure has happened, the failures in force come from the events applied: a later
// repair must still name it by its kind and id.
TEST(FabricFailureSpec, CodeApiRepairAfterTheFailureHappenedNamesItsKind)
{
    auto g = Chain();
    FabricNetworkHelper links;
    auto net = links.Install(g, MakeRouting<EcmpRouting>(g));
    FabricFailureHelper failures(net);
    failures.FailLink(1, MicroSeconds(10));
    bool dirRepairRefused = false;
    bool linkRepairAccepted = false;
    Simulator::Schedule(MicroSeconds(12),
                        [&]()
                        {
                            try
                            {
                                failures.RepairDirLink(2, MicroSeconds(15));
                            }
                            catch (const std::invalid_argument& e)
                            {
                                dirRepairRefused = std::string(e.what()).find("same kind and id")
                                                != std::string::npos;
                            }
                            failures.RepairLink(1, MicroSeconds(15));
                            linkRepairAccepted = true;
                        });
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    EXPECT_TRUE(dirRepairRefused);
    EXPECT_TRUE(linkRepairAccepted);
    EXPECT_TRUE(net->GetState()->IsDirLinkUsable(2) && net->GetState()->IsDirLinkUsable(3));
    Simulator::Destroy();
}

// Scheduling from a callback at the instant of an event: the plan check starts from the truth,
// which holds exactly the events already run, so it must replay only the others, whether the
// event at this instant has run (callback scheduled after it) or not yet (before it).
TEST(FabricFailureSpec, ScheduleAtTheInstantOfAnEventReplaysOnlyEventsNotYetApplied)
{
    struct Outcome
    {
        bool secondRepairRefused{false};
        bool refailAccepted{false};
        std::string refailError;
    };

    for (const bool callbackFirst : {false, true})
    {
        SCOPED_TRACE(callbackFirst ? "callback before the event at 10 us"
                                   : "callback after the event at 10 us");
        auto g = Chain();
        FabricNetworkHelper links;
        auto net = links.Install(g, MakeRouting<EcmpRouting>(g));
        FabricFailureHelper failures(net);
        Outcome out;
        // A: link 0 fails once at 10 us; at 10 us one repair of it is fine, a second is not.
        auto planA = [&]()
        {
            failures.RepairLink(0, MicroSeconds(20));
            try
            {
                failures.RepairLink(0, MicroSeconds(30));
            }
            catch (const std::invalid_argument&)
            {
                out.secondRepairRefused = true;
            }
        };
        // B: link 1 fails at 5 us and is repaired at 10 us; at 10 us a new failure is valid.
        auto planB = [&]()
        {
            try
            {
                failures.FailLink(1, MicroSeconds(40));
                out.refailAccepted = true;
            }
            catch (const std::invalid_argument& e)
            {
                out.refailError = e.what();
            }
        };
        if (callbackFirst)
        {
            Simulator::Schedule(MicroSeconds(10), planA);
            Simulator::Schedule(MicroSeconds(10), planB);
        }
        failures.FailLink(0, MicroSeconds(10));
        failures.FailLink(1, MicroSeconds(5));
        failures.RepairLink(1, MicroSeconds(10));
        if (!callbackFirst)
        {
            Simulator::Schedule(MicroSeconds(10), planA);
            Simulator::Schedule(MicroSeconds(10), planB);
        }
        EXPECT_NO_THROW(Simulator::Run());
        EXPECT_TRUE(out.secondRepairRefused) << "link 0 failed once: one repair only";
        EXPECT_TRUE(out.refailAccepted) << out.refailError;
        const auto& truth = *net->GetState();
        EXPECT_TRUE(truth.IsDirLinkUp(0) && truth.IsDirLinkUp(1)) << "link 0 repaired at 20 us";
        EXPECT_FALSE(truth.IsDirLinkUp(2) && truth.IsDirLinkUp(3)) << "link 1 failed at 40 us";
        EXPECT_EQ(failures.GetEvents().size(), 5u);
        Simulator::Destroy();
    }
}

// Stock ns-3 IPv4 with global routing on every node obeys failures too: the switches' IPv4
// discards what it forwards into a down interface, counted link-down, and repair restores.
TEST(FabricFailureGlobalRouting, LinkFailureIsCountedAndRepaired)
{
    UseFabricTimeResolution(); // the run drivers refuse 1 ns with 400 Gb/s links
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    auto g = Chain();
    FabricNetworkHelper links;
    auto net = links.InstallGlobalRouting(g);
    FabricFailureHelper failures(net);
    failures.Schedule("link:1@20us,repair:link:1@60us");
    FlowSpec f;
    f.src = 0;
    f.dst = 1;
    f.bytes = 300 * PAYLOAD;
    f.srcPort = 49152;
    auto r = RunFabricUdp(net, {f}, {100e9}, PAYLOAD);
    EXPECT_EQ(r.Unaccounted(), 0) << "sent " << r.sentPackets << " delivered " << r.deliveredPackets
                                  << " dropped " << r.droppedPackets;
    const uint64_t linkDown
        = r.drops.count(FabricDropReason::LINK_DOWN) ? r.drops.at(FabricDropReason::LINK_DOWN) : 0;
    EXPECT_EQ(r.droppedPackets, linkDown);
    EXPECT_GT(linkDown, 100u); // 40 us at 0.33 us per packet
    EXPECT_LT(linkDown, 140u);
    EXPECT_GT(r.deliveredPackets, 150u) << "delivery before the failure and after the repair";
    Simulator::Destroy();
    Config::Reset();
}
