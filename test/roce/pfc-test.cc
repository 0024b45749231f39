// SPDX-License-Identifier: GPL-2.0-only
// Lossless RoCE (PFC): incast and all-to-all without drops on ROFT and ZCube, headroom
// overflow when the headroom is too small, pause timing on the upstream queue, and the
// deadlock detector's cycle search.
#include "../ns3-sim-fixture.h"

#include "ns3/core-module.h"
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-link-device.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-warning.h"
#include "ns3/pfc-dependency.h"
#include "ns3/pfc-helper.h"
#include "ns3/pfc-queue.h"
#include "ns3/pfc-ring.h"
#include "ns3/pfc-study.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/queue-size.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/traffic-pattern.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <functional>

using namespace ns3;

namespace
{

class Pfc : public Ns3SimTest
{
  protected:
    static FlowSpec Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
    {
        FlowSpec f;
        f.id = id;
        f.src = src;
        f.dst = dst;
        f.bytes = bytes;
        f.srcPort = static_cast<uint16_t>(49152 + id % 16000);
        return f;
    }

    /// Every host sends \p bytes to every other host, all at once.
    static std::vector<FlowSpec> AllPairs(uint32_t hosts, uint64_t bytes)
    {
        std::vector<FlowSpec> flows;
        for (uint32_t s = 0; s < hosts; ++s)
        {
            for (uint32_t d = 0; d < hosts; ++d)
            {
                if (s != d)
                {
                    flows.push_back(Flow(flows.size(), s, d, bytes));
                }
            }
        }
        return flows;
    }

    /// Lossless means: nothing dropped, every flow complete with no retransmission, every
    /// packet sent delivered.
    static void ExpectLossless(const FabricRoceRunResult& r)
    {
        EXPECT_EQ(r.droppedPackets, 0u);
        EXPECT_TRUE(r.drops.empty());
        EXPECT_EQ(r.incompleteFlows, 0u);
        EXPECT_EQ(r.sentPackets, r.deliveredPackets);
        EXPECT_EQ(r.inFlightPackets, 0);
        EXPECT_EQ(r.Unaccounted(), 0);
        for (const auto& f : r.flows)
        {
            EXPECT_EQ(f.retxPackets, 0u) << "flow " << f.spec.id;
            EXPECT_EQ(f.timeouts, 0u) << "flow " << f.spec.id;
            EXPECT_EQ(f.rxBytes, f.spec.bytes) << "flow " << f.spec.id;
        }
    }

    /// A shallow static XOFF threshold (32 KB, under 8 frames): every queue build-up of an
    /// all-to-all (ECMP collisions, two flows into one port) makes PFC act. With the default
    /// dynamic threshold (alpha 1/8 of a 32 MB buffer) the same traffic never pauses.
    static void SmallBuffer(PfcHelper& h)
    {
        h.SetSwitchAttribute("Alpha", DoubleValue(0));
        h.SetSwitchAttribute("XoffBytes", UintegerValue(32 * 1024));
        QuickDeadlockCheck(h);
    }

    /// A deadlock check after 10 us of pause (default 500 us) every 5 us: the acyclic cases
    /// pause links for longer than that, so "no deadlock reported" says something.
    static void QuickDeadlockCheck(PfcHelper& h)
    {
        h.SetNetworkAttribute("DeadlockTime", TimeValue(MicroSeconds(10)));
        h.SetNetworkAttribute("CheckInterval", TimeValue(MicroSeconds(5)));
    }

    /// All-to-all as 15 shifted permutations, each flow at line rate (MakeShiftedAllToAll),
    /// plus every host sending to every other at once: both at line rate per host.
    static std::vector<FlowSpec> AllToAll(uint32_t hosts, uint64_t bytes)
    {
        std::vector<FlowSpec> flows = MakeShiftedAllToAll(hosts, bytes, 0, 1);
        for (FlowSpec f : AllPairs(hosts, bytes / 4))
        {
            f.id = flows.size();
            f.srcPort = static_cast<uint16_t>(60000 + f.id % 5000);
            flows.push_back(f);
        }
        return flows;
    }

    /// Every queue pair at line rate: no rate control, so only PFC keeps the fabric lossless.
    static FabricRoceRunOptions LineRate(FabricRoceRunOptions o)
    {
        o.senderAttributes["RateControl"]
            = std::make_shared<TypeIdValue>(NoRateControl::GetTypeId());
        return o;
    }

    struct PfcFigures
    {
        uint64_t pauseFrames{0};
        uint64_t episodes{0};
        uint64_t headroomDrops{0};
        size_t deadlocks{0};
        size_t storms{0};
        double maxPausedSeconds{0};
        uint64_t maxHeadroomUsed{0}; //!< largest headroom occupancy of any switch port
        uint64_t headroomSize{0};    //!< that port's headroom
    };

    static void Print(const std::string& what, const PfcFigures& f)
    {
        std::cout << "  [" << what << "] pause frames " << f.pauseFrames << ", episodes "
                  << f.episodes << ", longest paused link " << f.maxPausedSeconds * 1e6
                  << " us in all"
                  << ", max headroom used " << f.maxHeadroomUsed << " of " << f.headroomSize
                  << " bytes\n";
    }

    /// Read the PFC figures at the end of the run (before the simulator is destroyed).
    static FabricRoceRunOptions Collect(Ptr<PfcNetwork> pfc, PfcFigures& out)
    {
        FabricRoceRunOptions o;
        o.afterRun = [pfc, &out](Ptr<FabricNetwork> net, const ApplicationContainer&)
        {
            out.pauseFrames = pfc->GetPauseFrames();
            out.episodes = pfc->GetPauseEpisodes();
            out.headroomDrops = pfc->GetHeadroomDrops();
            out.deadlocks = pfc->GetDeadlocks().size();
            out.storms = pfc->GetStorms().size();
            for (uint32_t d = 0; d < pfc->GetNDirLinks(); ++d)
            {
                out.maxPausedSeconds = std::max(out.maxPausedSeconds, pfc->GetPausedSeconds(d));
            }
            for (uint32_t v = 0; v < net->GetGraph().GetNNodes(); ++v)
            {
                if (auto sw = pfc->GetSwitch(v))
                {
                    for (uint32_t p = 0; p < net->GetGraph().GetNPorts(v); ++p)
                    {
                        if (sw->GetMaxHeadroomUsed(p) > out.maxHeadroomUsed)
                        {
                            out.maxHeadroomUsed = sw->GetMaxHeadroomUsed(p);
                            out.headroomSize = sw->GetHeadroom(p);
                        }
                    }
                }
            }
        };
        return o;
    }
};

} // namespace

TEST_F(Pfc, Incast16To1LosslessHasNoDrops)
{
    // The same incast as RoceTransport.Incast16To1CompletesWithBoundedQueue (lossy: ~2700
    // queue-overflow drops), now lossless.
    RoftHelper roft(RoftLayout(32, 8, 4), 3);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    QuickDeadlockCheck(pfcHelper);
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows.push_back(Flow(i, 8 + i, 0, 2000000));
    }
    PfcFigures fig;
    auto r = RunFabricRoce(net, flows, Collect(pfc, fig));
    ExpectLossless(r);
    EXPECT_GT(fig.pauseFrames, 0u) << "an incast this size must pause";
    EXPECT_GT(fig.episodes, 0u);
    EXPECT_EQ(fig.headroomDrops, 0u);
    EXPECT_EQ(fig.deadlocks, 0u) << "incast is acyclic";
    EXPECT_EQ(fig.storms, 0u) << "no port paused for 2 ms";
    uint32_t cnps = 0;
    for (const auto& f : r.flows)
    {
        cnps += f.cnps;
    }
    EXPECT_GT(cnps, 0u) << "ECN marking (and DCQCN) keeps working on top of PFC";
    EXPECT_GT(fig.maxHeadroomUsed, 0u) << "the headroom absorbed what came after an XOFF";
    EXPECT_LE(fig.maxHeadroomUsed, fig.headroomSize);
    Print("incast 16:1", fig);
    // Line rate out of the bottleneck is still reached: 32 MB in well under 2x the ideal.
    EXPECT_LT(r.lastCompletionSeconds, 2 * 16 * 2000000 * 8.0 / 400e9);
}

TEST_F(Pfc, PausedPortResumesWhenOtherPortsFreeThePool)
{
    // Leaf 0 of a 16-GPU ROFT with on-off pauses, a 1.5 MB buffer (about 600 KB shared once
    // every port's headroom is reserved) and alpha 1/2, no rate control. GPU 1 -> GPU 0 (A)
    // piles up behind leaf 0's port to GPU 0, which the test keeps paused; GPU 2 and GPU 4
    // -> GPU 3 (B, 2 MB each) use the pool meanwhile, so A's port pauses GPU 1 at a low
    // threshold (alpha x free pool). From 10 us the test lets A's frames out one at a time
    // until A's headroom is empty: A's shared bytes stay, and from then on none of A's bytes
    // moves. When B's bytes leave, the threshold rises above A's bytes + XonOffsetBytes:
    // the switch must resume GPU 1 then, while A's bytes are still stuck. Before the fix the
    // resume was checked only when the port's own bytes left: GPU 1 stayed paused until the
    // test let GPU 0's port go at 300 us.
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    pfcHelper.SetSwitchAttribute("BufferSize", UintegerValue(1500000));
    pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(0.5));
    pfcHelper.ConfigureLinks(links);
    auto net = RoftHelper(RoftLayout(16, 4, 4), 1).Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    const FabricGraph& g = net->GetGraph();
    const uint32_t leaf = g.GetPeer(0, 0);
    ASSERT_EQ(g.GetPeer(1, 0), leaf);
    ASSERT_EQ(g.GetPeer(3, 0), leaf);
    Ptr<PfcSwitch> sw = pfc->GetSwitch(leaf);
    ASSERT_TRUE(sw);
    const uint32_t portA = g.GetPeerPort(1, 0); // leaf 0's port from GPU 1
    auto toGpu0 = DynamicCast<PfcQueue>(
        FabricLinkDevice::GetQueue(net->GetDevice(leaf, g.GetPeerPort(0, 0))));
    ASSERT_TRUE(toGpu0);
    toGpu0->ReceivePause(PfcQueue::DATA, Time::Max());

    std::vector<std::pair<Time, bool>> pausesA; // leaf 0's XOFF/XON to GPU 1
    uint64_t stuckBytes = 0;                    // A's charge once its headroom is empty
    Time stuckAt;
    uint64_t bytesAtXon = UINT64_MAX; // A's charge when the first resume after that went out
    sw->TraceConnectWithoutContext("Pause",
                                   Callback<void, uint32_t, uint32_t, uint8_t, bool>(
                                       [&](uint32_t, uint32_t port, uint8_t, bool xoff)
                                       {
                                           if (port != portA)
                                           {
                                               return;
                                           }
                                           pausesA.emplace_back(Simulator::Now(), xoff);
                                           if (!xoff && !stuckAt.IsZero()
                                               && bytesAtXon == UINT64_MAX)
                                           {
                                               bytesAtXon = sw->GetIngressBytes(portA);
                                           }
                                       }));
    // One frame out per pulse: a resume restarts the idle device, which takes the head frame
    // at once (PfcQueue::Kick), and the pause is back before it asks for the next.
    std::function<void()> pulse = [&]()
    {
        if (sw->GetBufferState().ports[portA].headroom == 0)
        {
            stuckBytes = sw->GetIngressBytes(portA);
            stuckAt = Simulator::Now();
            return;
        }
        toGpu0->ReceivePause(PfcQueue::DATA, Time(0));
        toGpu0->ReceivePause(PfcQueue::DATA, Time::Max());
        Simulator::Schedule(NanoSeconds(200), pulse);
    };
    Simulator::Schedule(MicroSeconds(10), pulse);
    Simulator::Schedule(MicroSeconds(300),
                        [&]() { toGpu0->ReceivePause(PfcQueue::DATA, Time(0)); });

    FabricRoceRunOptions o = LineRate(FabricRoceRunOptions());
    auto r = RunFabricRoce(
        net, {Flow(0, 1, 0, 1000000), Flow(1, 2, 3, 2000000), Flow(2, 4, 3, 2000000)}, o);
    ExpectLossless(r);
    ASSERT_FALSE(stuckAt.IsZero()) << "A's headroom never emptied";
    ASSERT_GT(stuckBytes, 0u) << "A's shared bytes are what stays";
    ASSERT_LT(stuckAt, MicroSeconds(30));
    bool pausedWhenStuck = false;
    for (const auto& [t, xoff] : pausesA)
    {
        if (t <= stuckAt)
        {
            pausedWhenStuck = xoff;
        }
    }
    ASSERT_TRUE(pausedWhenStuck) << "A's port was still pausing GPU 1 when its bytes stopped";
    Time xonAt = Time::Max();
    for (const auto& [t, xoff] : pausesA)
    {
        if (t > stuckAt && !xoff)
        {
            xonAt = t;
            break;
        }
    }
    std::cout << "  A stuck at " << stuckAt.As(Time::US) << " with " << stuckBytes
              << " bytes; resumed at " << xonAt.As(Time::US) << "; B done at "
              << std::max(r.flows[1].finish, r.flows[2].finish).As(Time::US) << "\n";
    EXPECT_LT(xonAt, MicroSeconds(300)) << "resumed only when its own bytes moved";
    EXPECT_EQ(bytesAtXon, stuckBytes) << "resumed by other ports' departures alone";
    EXPECT_EQ(r.flows[0].rxBytes, 1000000u);
}

TEST_F(Pfc, OnOffPausesAlsoLossless)
{
    RoftHelper roft(RoftLayout(32, 8, 4), 3);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows.push_back(Flow(i, 8 + i, 0, 1000000));
    }
    PfcFigures fig;
    auto r = RunFabricRoce(net, flows, Collect(pfc, fig));
    ExpectLossless(r);
    EXPECT_GT(fig.pauseFrames, 0u);
    Print("incast 16:1 on-off", fig);
}

TEST_F(Pfc, TooLittleHeadroomDropsAndSaysSo)
{
    RoftHelper roft(RoftLayout(32, 8, 4), 3);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    // A 400 Gb/s, 1 us link needs about 108 KB; give it two frames.
    pfcHelper.SetSwitchAttribute("HeadroomBytes", UintegerValue(8500));
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    const uint64_t warnings0 = GetFabricWarningCount();
    testing::internal::CaptureStderr();
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    const std::string warned = testing::internal::GetCapturedStderr();
    EXPECT_GT(GetFabricWarningCount(), warnings0) << "misconfiguration reported at start";
    // The need it names is RequiredHeadroom's, and so is its formula (three frames; the
    // warning said "2 MTU" until session 15).
    EXPECT_NE(warned.find("need (up to 112670 bytes: rate x 2 x delay + 3 frames of MTU + "
                          "pause frame)"),
              std::string::npos)
        << warned;
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows.push_back(Flow(i, 8 + i, 0, 1000000));
    }
    PfcFigures fig;
    auto r = RunFabricRoce(net, flows, Collect(pfc, fig));
    ASSERT_GT(r.droppedPackets, 0u);
    EXPECT_EQ(r.drops.size(), 1u);
    EXPECT_EQ(r.drops[FabricDropReason::HEADROOM_OVERFLOW], r.droppedPackets);
    EXPECT_EQ(fig.headroomDrops, r.droppedPackets);
    EXPECT_EQ(r.Unaccounted(), 0);
    EXPECT_EQ(r.incompleteFlows, 0u) << "go-back-N recovers the headroom drops";
}

TEST_F(Pfc, DeeperNicQueueWithSeveralQueuePairsIsRefused)
{
    // The headroom budgets one frame queued in a host NIC. With DeviceQueuePackets 4 and 8
    // queue pairs per host, 15 hosts into one GPU at line rate used to overflow it silently
    // (432 headroom-overflow drops, 6401 resent packets in a "lossless" run): now refused at
    // install, naming both attributes.
    Config::SetDefault("ns3::RoceNic::DeviceQueuePackets", UintegerValue(4));
    auto install = []()
    {
        RoftHelper roft(RoftLayout(16, 4, 4), 1);
        FabricNetworkHelper links;
        PfcHelper pfcHelper;
        pfcHelper.SetSwitchAttribute("BufferSize", UintegerValue(12000000));
        pfcHelper.ConfigureLinks(links);
        auto net = roft.Install(links);
        return std::make_pair(net, pfcHelper.Install(net));
    };
    auto incast = [](uint32_t qps, uint64_t bytes)
    {
        std::vector<FlowSpec> flows;
        for (uint32_t h = 0; h < 15; ++h)
        {
            for (uint32_t q = 0; q < qps; ++q)
            {
                flows.push_back(Flow(flows.size(), h, 15, bytes));
            }
        }
        return flows;
    };
    {
        auto [net, pfc] = install();
        try
        {
            RunFabricRoce(net, incast(8, 500000), LineRate({}));
            ADD_FAILURE() << "DeviceQueuePackets 4 with 8 queue pairs per lossless host ran";
        }
        catch (const std::invalid_argument& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find("DeviceQueuePackets 4"), std::string::npos) << what;
            EXPECT_NE(what.find("PfcSwitch::HeadroomBytes"), std::string::npos) << what;
            EXPECT_NE(what.find("of host0"), std::string::npos) << what;
        }
    }
    Simulator::Destroy();
    // One queue pair per host never has more than one frame waiting (its pacing): allowed,
    // and lossless.
    auto [net, pfc] = install();
    PfcFigures fig;
    auto r = RunFabricRoce(net, incast(1, 500000), LineRate(Collect(pfc, fig)));
    ExpectLossless(r);
    EXPECT_GT(fig.pauseFrames, 0u);
    EXPECT_EQ(fig.headroomDrops, 0u);
}

TEST_F(Pfc, BufferSizeBeyondADeviceQueueIsRefused)
{
    // Device queues are sized from BufferSize in 32 bits: 2^32 + 12 MB used to become 12 MB
    // queues under a 4.3 GB pool that never paused (1473 queue-overflow drops in a lossless
    // incast). Refused, naming the attribute and its range; the largest size that fits is
    // kept exactly.
    {
        PfcHelper pfcHelper;
        pfcHelper.SetSwitchAttribute("BufferSize", UintegerValue(4306967296ULL));
        FabricNetworkHelper links;
        try
        {
            pfcHelper.ConfigureLinks(links);
            ADD_FAILURE() << "BufferSize 4306967296 was accepted";
        }
        catch (const std::invalid_argument& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find("BufferSize 4306967296"), std::string::npos) << what;
            EXPECT_NE(what.find("1..4294967295"), std::string::npos) << what;
        }
    }
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("BufferSize", UintegerValue(4294967295ULL));
    FabricNetworkHelper links;
    pfcHelper.ConfigureLinks(links);
    auto net = RoftHelper(RoftLayout(16, 4, 4), 1).Install(links);
    EXPECT_EQ(FabricLinkDevice::GetQueue(net->GetDevice(0, 0))->GetMaxSize().GetValue(),
              4294967295u);
}

TEST_F(Pfc, RequiredHeadroomFollowsRateDelayAndMtu)
{
    // 400 Gb/s x 2 x 1 us = 100000 bytes, + 3 x (4200 + 2) + 64.
    EXPECT_EQ(PfcSwitch::RequiredHeadroom(400000000000ULL, MicroSeconds(1), 4200), 112670u);
    EXPECT_EQ(PfcSwitch::RequiredHeadroom(100000000000ULL, MicroSeconds(2), 1500),
              50000u + 3 * 1502 + 64);
}

TEST_F(Pfc, UpstreamStopsWithinLinkDelayPlusOneFrame)
{
    RoftHelper roft(RoftLayout(32, 8, 4), 3);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    const FabricGraph& g = net->GetGraph();

    // Data frames started per directed link, and XOFF/XON times per directed link (of the
    // upstream, i.e. the paused direction).
    std::map<uint32_t, std::vector<double>> txStarts;
    std::map<uint32_t, std::vector<std::pair<double, bool>>> pauses;
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            const uint32_t d = g.GetEgressDirLink(v, p);
            net->GetDevice(v, p)->TraceConnectWithoutContext(
                "PhyTxBegin",
                Callback<void, Ptr<const Packet>>(
                    [&txStarts, d](Ptr<const Packet> pkt)
                    {
                        if (pkt->GetSize() > 100)
                        {
                            txStarts[d].push_back(Simulator::Now().GetSeconds());
                        }
                    }));
        }
        if (auto sw = pfc->GetSwitch(v))
        {
            sw->TraceConnectWithoutContext(
                "Pause",
                Callback<void, uint32_t, uint32_t, uint8_t, bool>(
                    [&pauses, &g](uint32_t node, uint32_t port, uint8_t, bool xoff)
                    {
                        // The port's ingress direction is the peer's egress.
                        const uint32_t up = g.GetEgressDirLink(node, port) ^ 1u;
                        pauses[up].emplace_back(Simulator::Now().GetSeconds(), xoff);
                    }));
        }
    }
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows.push_back(Flow(i, 8 + i, 0, 1000000));
    }
    auto r = RunFabricRoce(net, flows);
    ExpectLossless(r);

    const double delay = 1e-6;
    const double frame = (4200 + 2) * 8 / 400e9;
    const double pauseFrame = 64 * 8 / 400e9;
    uint32_t checked = 0;
    uint32_t fromSwitches = 0;
    for (const auto& [up, events] : pauses)
    {
        for (size_t i = 0; i < events.size(); ++i)
        {
            if (!events[i].second)
            {
                continue;
            }
            const double xoff = events[i].first;
            const double xon = (i + 1 < events.size()) ? events[i + 1].first : 1e9;
            // Nothing new may start once the pause arrived and the frame on the wire ended,
            // until the resume arrives.
            const double stopBy = xoff + delay + pauseFrame + frame + 1e-12;
            const double resumeAt = xon + delay;
            for (double t : txStarts[up])
            {
                EXPECT_FALSE(t > stopBy && t < resumeAt)
                    << g.GetDirLinkLabel(up) << " started a data frame at " << t * 1e6
                    << " us; XOFF at " << xoff * 1e6 << " us, XON at " << xon * 1e6 << " us";
            }
            ++checked;
            fromSwitches += g.IsHost(g.GetDirLinkTail(up)) ? 0 : 1;
        }
    }
    EXPECT_GT(checked, 0u);
    std::cout << "  XOFF episodes checked: " << checked << " (" << fromSwitches
              << " with a switch upstream)\n";
    EXPECT_GT(fromSwitches, 0u) << "pauses propagated hop by hop to a switch upstream";
}

TEST_F(Pfc, PauseWindowHoldsALinkForItsDuration)
{
    // What an OCS "pause" stall policy does: the four uplinks of leaf 0 are paused from
    // 100 us to 150 us while GPU 0 sends to GPU 15 on another leaf.
    RoftHelper roft(RoftLayout(16, 4, 4), 1);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    const FabricGraph& g = net->GetGraph();
    const uint32_t leaf0 = 16;
    std::vector<uint32_t> uplinks;
    std::vector<int64_t> starts; // ns, exact
    for (uint32_t p = 4; p < 8; ++p)
    {
        uplinks.push_back(g.GetEgressDirLink(leaf0, p));
        net->GetDevice(leaf0, p)->TraceConnectWithoutContext(
            "PhyTxBegin",
            Callback<void, Ptr<const Packet>>(
                [&starts](Ptr<const Packet> pkt)
                {
                    if (pkt->GetSize() > 100)
                    {
                        starts.push_back(Simulator::Now().GetNanoSeconds());
                    }
                }));
    }
    EXPECT_THROW(pfc->PauseDirLink(100000, MicroSeconds(1)), std::invalid_argument);
    EXPECT_THROW(pfc->PauseDirLink(uplinks[0], Time(0)), std::invalid_argument);
    FabricRoceRunOptions o;
    o.beforeRun = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        Simulator::Schedule(MicroSeconds(100),
                            [pfc, uplinks]()
                            {
                                for (uint32_t d : uplinks)
                                {
                                    pfc->PauseDirLink(d, MicroSeconds(50));
                                }
                            });
    };
    auto r = RunFabricRoce(net, {Flow(0, 0, 15, 10000000)}, o);
    ExpectLossless(r);
    const int64_t frameNs = 85; // 4202 bytes at 400 Gb/s: 84.04 ns
    uint32_t before = 0;
    uint32_t after = 0;
    for (int64_t t : starts)
    {
        EXPECT_FALSE(t > 100000 + frameNs && t < 150000) << "a frame started at " << t << " ns";
        before += t < 100000 ? 1 : 0;
        after += t >= 150000 ? 1 : 0;
    }
    EXPECT_GT(before, 0u);
    EXPECT_GT(after, 0u) << "the link resumed by itself";
    // 50 us held: the 10 MB flow (200 us at line rate) finishes about 50 us late.
    EXPECT_GT(r.lastCompletionSeconds, 250e-6);
    EXPECT_LT(r.lastCompletionSeconds, 300e-6);
}

TEST_F(Pfc, AllToAllAtLineRateLosslessOnRoft)
{
    RoftHelper roft(RoftLayout(16, 4, 4), 1);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    SmallBuffer(pfcHelper);
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    PfcFigures fig;
    auto r = RunFabricRoce(net, AllToAll(16, 400000), LineRate(Collect(pfc, fig)));
    ExpectLossless(r);
    EXPECT_EQ(fig.deadlocks, 0u);
    EXPECT_GT(fig.pauseFrames, 0u) << "PFC was exercised, not merely idle";
    Print(net->GetRouting()->GetName() + " all-to-all", fig);
}

TEST_F(Pfc, AllToAllAtLineRateLosslessOnZCube)
{
    ZCubeHelper zcube(16, 4);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    SmallBuffer(pfcHelper);
    pfcHelper.ConfigureLinks(links);
    auto net = zcube.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    PfcFigures fig;
    auto r = RunFabricRoce(net, AllToAll(16, 400000), LineRate(Collect(pfc, fig)));
    ExpectLossless(r);
    EXPECT_EQ(fig.deadlocks, 0u);
    EXPECT_GT(fig.pauseFrames, 0u) << "PFC was exercised, not merely idle";
    Print(net->GetRouting()->GetName() + " all-to-all", fig);
}

TEST_F(Pfc, DeadlockOnARingIsReportedNotHung)
{
    // Four switches in a ring, every flow three hops clockwise: each ring link waits for the
    // next one (cyclic buffer dependency). Small static thresholds fill the ring quickly.
    auto graph = MakePfcRingGraph(4);
    auto routing = CreateObject<ClockwiseRingRouting>();
    routing->SetGraph(graph);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(0));
    pfcHelper.SetSwitchAttribute("XoffBytes", UintegerValue(64000));
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    pfcHelper.SetNetworkAttribute("StopOnDeadlock", BooleanValue(true));
    pfcHelper.ConfigureLinks(links);
    auto net = links.Install(graph, routing);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 4; ++i)
    {
        flows.push_back(Flow(i, i, (i + 3) % 4, 20000000));
    }
    std::vector<PfcNetwork::DeadlockReport> reports;
    FabricRoceRunOptions o;
    o.stopAt = Seconds(0.1);
    o.senderAttributes["RateControl"] = std::make_shared<TypeIdValue>(NoRateControl::GetTypeId());
    o.afterRun = [pfc, &reports](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        reports = pfc->GetDeadlocks();
    };
    auto r = RunFabricRoce(net, flows, o);
    ASSERT_EQ(reports.size(), 1u) << "one deadlock, reported once";
    const auto& g = *graph;
    EXPECT_EQ(reports[0].dirLinks.size(), 4u) << "the four clockwise ring links";
    for (uint32_t d : reports[0].dirLinks)
    {
        EXPECT_FALSE(g.IsHost(g.GetDirLinkTail(d)));
        EXPECT_FALSE(g.IsHost(g.GetDirLinkHead(d)));
    }
    EXPECT_LT(r.simSeconds, 0.1) << "the run ended at the report, not at the horizon";
    EXPECT_GT(r.incompleteFlows, 0u);
    EXPECT_EQ(r.droppedPackets, 0u) << "a deadlock loses nothing; it just stops";
    EXPECT_EQ(r.Unaccounted(), 0);
}

TEST_F(Pfc, WatchdogDropPolicyBreaksTheRingDeadlock)
{
    // The same ring, no deadlock stop: the pause-storm watchdog finds ring ports paused for
    // longer than 200 us, drops what waits there (pfc-watchdog) and ignores further pauses
    // on them; go-back-N then completes every flow.
    auto graph = MakePfcRingGraph(4);
    auto routing = CreateObject<ClockwiseRingRouting>();
    routing->SetGraph(graph);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(0));
    pfcHelper.SetSwitchAttribute("XoffBytes", UintegerValue(64000));
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    pfcHelper.SetNetworkAttribute("StormTime", TimeValue(MicroSeconds(200)));
    pfcHelper.SetNetworkAttribute("WatchdogPolicy", StringValue("drop"));
    pfcHelper.ConfigureLinks(links);
    auto net = links.Install(graph, routing);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 4; ++i)
    {
        flows.push_back(Flow(i, i, (i + 3) % 4, 2000000));
    }
    size_t storms = 0;
    size_t deadlocks = 0;
    uint64_t watchdogDrops = 0;
    FabricRoceRunOptions o = LineRate({});
    o.stopAt = Seconds(0.2);
    o.afterRun = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        storms = pfc->GetStorms().size();
        deadlocks = pfc->GetDeadlocks().size();
        watchdogDrops = pfc->GetWatchdogDrops();
    };
    auto r = RunFabricRoce(net, flows, o);
    EXPECT_GT(storms, 0u);
    EXPECT_GT(watchdogDrops, 0u);
    EXPECT_EQ(r.drops[FabricDropReason::PFC_WATCHDOG], watchdogDrops);
    EXPECT_EQ(r.incompleteFlows, 0u) << "the watchdog broke the deadlock";
    EXPECT_EQ(r.Unaccounted(), 0);
    std::cout << "  storms " << storms << ", deadlock reports " << deadlocks << ", watchdog drops "
              << watchdogDrops << ", drops " << r.droppedPackets << ", last completion "
              << r.lastCompletionSeconds * 1e6 << " us\n";
}

TEST_F(Pfc, EgressQueueSmallerThanTheBufferDropsAndAccounts)
{
    // Egress queues capped at 64 KB under a 32 MB buffer: PFC does not stop them filling
    // (the ingress threshold is far higher), so they overflow; whether in the device's Send
    // or on PfcSwitch's held path, every drop is a queue-overflow and is accounted for.
    RoftHelper roft(RoftLayout(32, 8, 4), 3);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.ConfigureLinks(links);
    links.SetQueueAttribute("MaxSize", QueueSizeValue(QueueSize("64KB")));
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows.push_back(Flow(i, 8 + i, 0, 500000));
    }
    auto r = RunFabricRoce(net, flows);
    ASSERT_GT(r.droppedPackets, 0u);
    EXPECT_EQ(r.drops.size(), 1u);
    EXPECT_EQ(r.drops[FabricDropReason::QUEUE_OVERFLOW], r.droppedPackets);
    EXPECT_EQ(r.Unaccounted(), 0);
    EXPECT_EQ(r.incompleteFlows, 0u);
}

TEST_F(Pfc, MisuseIsRefused)
{
    PfcHelper pfcHelper;
    {
        // Drop-tail queues: ConfigureLinks was not called.
        FabricNetworkHelper links;
        auto net = RoftHelper(RoftLayout(16, 4, 4), 1).Install(links);
        EXPECT_THROW(pfcHelper.Install(net), std::invalid_argument);
    }
    {
        // Switches with IPv4 have no device-level forwarder to take the egress from.
        FabricNetworkHelper links;
        links.SetSwitchMode(FabricSwitchMode::IPV4);
        pfcHelper.ConfigureLinks(links);
        auto net = RoftHelper(RoftLayout(16, 4, 4), 1).Install(links);
        EXPECT_THROW(pfcHelper.Install(net), std::invalid_argument);
    }
    {
        // A buffer smaller than the headroom it must reserve.
        PfcHelper tiny;
        tiny.SetSwitchAttribute("BufferSize", UintegerValue(200000));
        FabricNetworkHelper links;
        tiny.ConfigureLinks(links);
        auto net = RoftHelper(RoftLayout(16, 4, 4), 1).Install(links);
        EXPECT_THROW(tiny.Install(net), std::invalid_argument);
    }
}

TEST(PfcCycle, FindsAConstructedCycleInTravelOrder)
{
    // 0 -> 1 -> 2 -> 0 plus a tail 3 -> 0 and a chord 1 -> 3.
    const std::vector<std::pair<uint32_t, uint32_t>> edges{{0, 1}, {1, 2}, {2, 0}, {3, 0}, {1, 3}};
    const auto cycle = FindDirectedCycle(4, edges);
    ASSERT_FALSE(cycle.empty());
    for (size_t i = 0; i < cycle.size(); ++i)
    {
        const auto& e = edges[cycle[i]];
        const auto& next = edges[cycle[(i + 1) % cycle.size()]];
        EXPECT_EQ(e.second, next.first) << "edges chain head to tail";
    }
}

TEST(PfcCycle, NoCycleInATreeOrADag)
{
    // Incast tree: hosts 4..7 -> leaves 2,3 -> spine 1 -> leaf 0 (the receiver's).
    EXPECT_TRUE(
        FindDirectedCycle(8, {{4, 2}, {5, 2}, {6, 3}, {7, 3}, {2, 1}, {3, 1}, {1, 0}}).empty());
    // A diamond is acyclic too.
    EXPECT_TRUE(FindDirectedCycle(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}).empty());
    EXPECT_TRUE(FindDirectedCycle(3, {}).empty());
}

TEST(PfcCycle, TwoWayPauseAndSelfLoopAreCycles)
{
    EXPECT_EQ(FindDirectedCycle(2, {{0, 1}, {1, 0}}).size(), 2u);
    EXPECT_EQ(FindDirectedCycle(1, {{0, 0}}).size(), 1u);
    EXPECT_THROW(FindDirectedCycle(2, {{0, 2}}), std::invalid_argument);
}

TEST_F(Pfc, TwoWayPauseWithoutDependencyIsNoDeadlock)
{
    // Switches A and B, each with a fast and a slow (1 Gb/s) host. gpu0 (on A) sends to the
    // slow gpu3 (on B), gpu2 (on B) to the slow gpu1 (on A): B pauses A->B and A pauses
    // B->A, for long stretches at once, with packets waiting on both. A cycle of paused links
    // at node level (A->B->A), but not a buffer dependency: what A->B carries waits at B for
    // B->gpu3, which is never paused. Nothing must be reported.
    auto g = std::make_shared<FabricGraph>();
    for (uint32_t h = 0; h < 4; ++h)
    {
        g->AddNode(FabricRole::HOST, "gpu" + std::to_string(h), 0);
    }
    const uint32_t a = g->AddNode(FabricRole::SWITCH, "A", 1);
    const uint32_t b = g->AddNode(FabricRole::SWITCH, "B", 1);
    g->Connect(0, a);
    g->Connect(1, a, 1e9);
    g->Connect(2, b);
    g->Connect(3, b, 1e9);
    const uint32_t ab = g->Connect(a, b);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("Alpha", DoubleValue(0));
    pfcHelper.SetSwitchAttribute("XoffBytes", UintegerValue(64000));
    pfcHelper.SetSwitchAttribute("XonOffsetBytes", UintegerValue(32000));
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    QuickDeadlockCheck(pfcHelper);
    pfcHelper.ConfigureLinks(links);
    auto routing = CreateObject<EcmpRouting>();
    routing->SetGraph(g);
    auto net = links.Install(g, routing);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    std::vector<FlowSpec> flows{Flow(0, 0, 3, 300000), Flow(1, 2, 1, 300000)};
    std::vector<PfcNetwork::PauseEvent> events;
    size_t deadlocks = 0;
    FabricRoceRunOptions o = LineRate({});
    o.stopAt = Seconds(0.1);
    o.afterRun = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        events = pfc->GetPauseEvents();
        deadlocks = pfc->GetDeadlocks().size();
    };
    auto r = RunFabricRoce(net, flows, o);
    ExpectLossless(r);
    EXPECT_EQ(deadlocks, 0u) << "a two-way pause without buffer dependency is no deadlock";
    // Both directions of A-B paused at once for longer than DeadlockTime: what the old,
    // node-level rule (a cycle of long-paused links) reported as a deadlock.
    const uint32_t fwd = 2 * ab;
    const uint32_t rev = 2 * ab + 1;
    bool paused[2] = {false, false};
    double since[2] = {0, 0};
    double longestBoth = 0;
    double bothSince = -1;
    for (const auto& e : events)
    {
        if (e.dirLink != fwd && e.dirLink != rev)
        {
            continue;
        }
        const int i = e.dirLink == fwd ? 0 : 1;
        paused[i] = e.paused;
        since[i] = e.t;
        if (paused[0] && paused[1])
        {
            bothSince = std::max(since[0], since[1]);
        }
        else if (bothSince >= 0)
        {
            longestBoth = std::max(longestBoth, e.t - bothSince);
            bothSince = -1;
        }
    }
    EXPECT_GT(longestBoth, 10e-6) << "both directions paused together past DeadlockTime";
    std::cout << "  both directions of A-B paused together for up to " << longestBoth * 1e6
              << " us; last completion " << r.lastCompletionSeconds * 1e6 << " us\n";
}

namespace
{

/// A switch buffer with static 64000-byte thresholds and 8404 bytes of resume offset.
PfcSwitchBuffer
StaticBuffer(std::vector<PfcPortBuffer> ports)
{
    PfcSwitchBuffer b;
    b.ports = std::move(ports);
    b.pool = 10000000;
    b.xoffBytes = 64000;
    b.xonOffset = 8404;
    return b;
}

} // namespace

TEST(PfcDependency, PortHeldOnlyByPausedBytes)
{
    // Port 0 in XOFF with 70000 bytes: held in XOFF while 60000 of them wait in paused
    // queues (60000 + 8404 > 64000), not when only 50000 do (the rest may leave: resume).
    PfcSwitchBuffer b = StaticBuffer({{true, 64000, 6000, 7}, {false, 1000, 0, 9}});
    EXPECT_EQ(PfcPortsHeldInXoff(b, {60000, 0}), (std::vector<bool>{true, false}));
    EXPECT_EQ(PfcPortsHeldInXoff(b, {50000, 1000}), (std::vector<bool>{false, false}));
    // The headroom drains first: 6000 held bytes in the headroom keep the port in XOFF.
    b.ports[0].shared = 0;
    EXPECT_EQ(PfcPortsHeldInXoff(b, {6000, 0}), (std::vector<bool>{true, false}));
    EXPECT_THROW(PfcPortsHeldInXoff(b, {1}), std::invalid_argument);
    // Dynamic threshold: alpha x the pool left once the released bytes are gone.
    PfcSwitchBuffer d = b;
    d.alpha = 0.5;
    d.pool = 100000;
    d.ports[0] = {true, 40000, 0, 7};
    // Held 40000: threshold 0.5 x (100000 - 40000) = 30000 < 40000 + 8404: held.
    EXPECT_EQ(PfcPortsHeldInXoff(d, {40000, 0}), (std::vector<bool>{true, false}));
    // Held 10000: threshold 45000 >= 18404: may resume.
    EXPECT_EQ(PfcPortsHeldInXoff(d, {10000, 0}), (std::vector<bool>{false, false}));
}

TEST(PfcDependency, RingIsACycleTwoWayPauseIsNot)
{
    // Ring of three switches (port 0: a host, port 1: from the previous switch). The paused
    // queue out of switch i is directed link 10 + i; the link into switch i is the previous
    // switch's, 10 + (i + 2) % 3.
    std::vector<PfcSwitchBuffer> ring;
    std::vector<PfcHeldQueue> held;
    for (uint32_t i = 0; i < 3; ++i)
    {
        ring.push_back(
            StaticBuffer({{false, 0, 0, 100 + i}, {true, 64000, 5000, 10 + (i + 2) % 3}}));
        held.push_back({10 + i, i, {0, 69000}}); // every byte of the ring port waits
    }
    auto edges = PfcBufferDependencies(ring, held);
    EXPECT_EQ(edges.size(), 3u);
    auto cycle = FindDirectedCycle(20, edges);
    ASSERT_EQ(cycle.size(), 3u);
    // Half of the ring port's bytes are for the (unpaused) host port: no dependency.
    for (auto& q : held)
    {
        q.bytesByIngress[1] = 30000;
    }
    EXPECT_TRUE(PfcBufferDependencies(ring, held).empty());

    // Two switches paused both ways on their shared link (dir 0: A->B, dir 1: B->A), but
    // what each paused queue holds came from its own host (port 0), not from the other.
    std::vector<PfcSwitchBuffer> two{
        StaticBuffer({{true, 64000, 3000, 4}, {true, 64000, 3000, 1}}),
        StaticBuffer({{true, 64000, 3000, 6}, {true, 64000, 3000, 0}})};
    std::vector<PfcHeldQueue> both{{0, 0, {67000, 0}}, {1, 1, {67000, 0}}};
    edges = PfcBufferDependencies(two, both);
    EXPECT_TRUE(FindDirectedCycle(8, edges).empty()) << "a two-way pause without buffer dependency";
    // Were the bytes from the other switch (port 1), it would be a true two-switch deadlock.
    both = {{0, 0, {0, 67000}}, {1, 1, {0, 67000}}};
    EXPECT_EQ(FindDirectedCycle(8, PfcBufferDependencies(two, both)).size(), 2u);
    EXPECT_THROW(PfcBufferDependencies(two, {{0, 5, {1}}}), std::invalid_argument);
}

TEST_F(Pfc, PauseFramesAreNotDeliveredOverAFailedLink)
{
    // On-off pauses (a lost resume would leave the upstream paused for ever). At the first
    // XOFF a switch sends to another switch, wait until it took effect, then fail that link
    // for 200 us: the upstream's pause is cleared with the link (as a MAC reset does), the
    // pause frames sent meanwhile (the resume) are lost and counted, and after the repair
    // every flow completes (go-back-N over the link-down drops); nothing unaccounted.
    RoftHelper roft(RoftLayout(32, 8, 4), 3);
    FabricNetworkHelper links;
    PfcHelper pfcHelper;
    pfcHelper.SetSwitchAttribute("PauseMode", StringValue("on-off"));
    pfcHelper.ConfigureLinks(links);
    auto net = roft.Install(links);
    Ptr<PfcNetwork> pfc = pfcHelper.Install(net);
    const FabricGraph& g = net->GetGraph();
    struct Seen
    {
        bool armed{false};
        uint32_t dirLink{0}; //!< the paused upstream's egress
        bool pausedBefore{false};
        bool pausedAfter{true};
        uint64_t lostAtRepair{0};
    };

    auto seen = std::make_shared<Seen>();
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        Ptr<PfcSwitch> sw = pfc->GetSwitch(v);
        if (!sw)
        {
            continue;
        }
        sw->TraceConnectWithoutContext(
            "Pause",
            Callback<void, uint32_t, uint32_t, uint8_t, bool>(
                [seen, pfc, net, &g](uint32_t node, uint32_t port, uint8_t, bool xoff)
                {
                    if (!xoff || seen->armed || g.IsHost(g.GetPeer(node, port)))
                    {
                        return;
                    }
                    seen->armed = true;
                    seen->dirLink
                        = g.GetEgressDirLink(g.GetPeer(node, port), g.GetPeerPort(node, port));
                    const uint32_t link = g.GetPortLink(node, port);
                    Simulator::Schedule(
                        MicroSeconds(3),
                        [seen, pfc, net, link]()
                        {
                            seen->pausedBefore
                                = pfc->GetQueue(seen->dirLink)->IsPaused(PfcQueue::DATA);
                            net->GetState()->FailLink(link);
                            seen->pausedAfter
                                = pfc->GetQueue(seen->dirLink)->IsPaused(PfcQueue::DATA);
                        });
                    Simulator::Schedule(MicroSeconds(203),
                                        [seen, pfc, net, link]()
                                        {
                                            seen->lostAtRepair = pfc->GetLostPauseFrames();
                                            net->GetState()->RepairLink(link);
                                        });
                }));
    }
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < 16; ++i)
    {
        flows.push_back(Flow(i, 8 + i, 0, 1000000));
    }
    FabricRoceRunOptions o;
    o.stopAt = Seconds(0.2);
    uint64_t lost = 0;
    size_t deadlocks = 0;
    o.afterRun = [&](Ptr<FabricNetwork>, const ApplicationContainer&)
    {
        lost = pfc->GetLostPauseFrames();
        deadlocks = pfc->GetDeadlocks().size();
    };
    auto r = RunFabricRoce(net, flows, o);
    ASSERT_TRUE(seen->armed);
    EXPECT_TRUE(seen->pausedBefore) << "the XOFF had taken effect";
    EXPECT_FALSE(seen->pausedAfter) << "link down cleared the upstream's pause";
    EXPECT_GT(seen->lostAtRepair, 0u) << "the resume sent while the link was down was lost";
    EXPECT_GE(lost, seen->lostAtRepair);
    EXPECT_EQ(r.incompleteFlows, 0u) << "nothing stays paused for ever";
    EXPECT_EQ(deadlocks, 0u);
    EXPECT_EQ(r.Unaccounted(), 0);
    for (const auto& [reason, n] : r.drops)
    {
        EXPECT_EQ(reason, FabricDropReason::LINK_DOWN) << n;
    }
    std::cout << "  failed " << g.GetDirLinkLabel(seen->dirLink) << ": " << lost
              << " pause frames lost, drops " << r.droppedPackets << ", last completion "
              << r.lastCompletionSeconds * 1e6 << " us\n";
}

TEST(PfcStudy, IncastWithVictimsLeavesVictimSourcesOut)
{
    // 48 hosts in 6 leaves of 8: senders from leaves 1..4 (hosts 8..39), victims from the last
    // host of leaves 1 and 2 (15, 23) to hosts 40, 41 of the idle last leaf.
    const auto flows = MakeIncastWithVictims(48, 8, 16, 2, 1000, 2000);
    ASSERT_EQ(flows.size(), 18u);
    for (uint32_t i = 0; i < 16; ++i)
    {
        EXPECT_EQ(flows[i].dst, 0u);
        EXPECT_EQ(flows[i].bytes, 1000u);
        EXPECT_GE(flows[i].src, 8u);
        EXPECT_LT(flows[i].src, 40u);
        EXPECT_NE(flows[i].src, 15u);
        EXPECT_NE(flows[i].src, 23u);
        EXPECT_EQ(flows[i].id, i);
        EXPECT_EQ(flows[i].srcPort, 49152 + i);
    }
    EXPECT_EQ(flows[15].src, 25u) << "16 senders: 8..14, 16..22, 24..25 (15, 23: victims)";
    EXPECT_EQ(flows[16].src, 15u);
    EXPECT_EQ(flows[16].dst, 40u);
    EXPECT_EQ(flows[17].src, 23u);
    EXPECT_EQ(flows[17].dst, 41u);
    EXPECT_EQ(flows[17].bytes, 2000u);
    EXPECT_THROW(MakeIncastWithVictims(48, 7, 16, 2, 1, 1), std::invalid_argument);
    EXPECT_THROW(MakeIncastWithVictims(16, 8, 4, 0, 1, 1), std::invalid_argument); // 2 leaves
    EXPECT_THROW(MakeIncastWithVictims(48, 8, 16, 5, 1, 1), std::invalid_argument);
    EXPECT_THROW(MakeIncastWithVictims(48, 8, 31, 2, 1, 1), std::invalid_argument);
    EXPECT_THROW(MakeIncastWithVictims(48, 8, 0, 2, 1, 1), std::invalid_argument);
    EXPECT_EQ(MakeIncastWithVictims(48, 8, 30, 2, 1, 1).size(), 32u);
    const auto ring = MakePfcRingFlows(4, 5);
    ASSERT_EQ(ring.size(), 4u);
    EXPECT_EQ(ring[0].dst, 3u);
    EXPECT_EQ(ring[3].dst, 2u);
    EXPECT_THROW(MakePfcRingFlows(2, 5), std::invalid_argument);
}

TEST(PfcStudy, IncastStatsAndPfcFiguresJson)
{
    auto flow = [](uint32_t dst, bool complete, double fctUs, double idealUs, uint32_t cnps)
    {
        RoceFlowRecord f;
        f.spec.dst = dst;
        f.complete = complete;
        f.start = MicroSeconds(10);
        f.finish = MicroSeconds(10) + NanoSeconds(uint64_t(fctUs * 1000));
        f.idealSeconds = idealUs * 1e-6;
        f.cnps = cnps;
        return f;
    };
    const std::vector<RoceFlowRecord> flows{flow(0, true, 100, 50, 1),
                                            flow(0, true, 300, 50, 2),
                                            flow(0, false, 0, 50, 4), // incomplete: cnps only
                                            flow(7, true, 40, 20, 0),
                                            flow(8, true, 80, 20, 8)};
    const IncastFlowStats s
        = SummarizeIncastFlows(flows, [](const RoceFlowRecord& f) { return f.spec.dst != 0; });
    EXPECT_EQ(s.cnps, 15u);
    EXPECT_DOUBLE_EQ(s.incastFctMaxUs, 300);
    EXPECT_EQ(s.victimsComplete, 2u);
    EXPECT_DOUBLE_EQ(s.victimSlowdownMean, 3);
    EXPECT_DOUBLE_EQ(s.victimSlowdownMax, 4);

    PfcRunFigures fig;
    fig.pauseFrames = 6;
    fig.maxPausedSeconds = 1.0;
    fig.maxPausedLink = "L0->S1";
    fig.events = {{0.5, 3, true}, {1.5, 3, false}, {2.5, 4, true}, {3.0, 4, false}};
    fig.deadlocks.push_back({2.0, {1, 2}, {"A->B", "B->A"}});
    const nlohmann::json j = PfcFiguresJson(fig, 4.0);
    EXPECT_EQ(j["pause_frames"], 6);
    EXPECT_EQ(j["pause_episodes_first_half"], 1) << "pauses before t = 2 s";
    EXPECT_EQ(j["pause_episodes_second_half"], 1);
    EXPECT_DOUBLE_EQ(j["max_paused_fraction"].get<double>(), 0.25);
    EXPECT_EQ(j["max_paused_link"], "L0->S1");
    ASSERT_EQ(j["deadlocks"].size(), 1u);
    EXPECT_DOUBLE_EQ(j["deadlocks"][0]["t_us"].get<double>(), 2e6);
    EXPECT_EQ(j["deadlocks"][0]["links"][1], "B->A");
    EXPECT_EQ(PfcFiguresJson(PfcRunFigures{}, 0)["max_paused_fraction"], 0.0) << "lossy run";
}
