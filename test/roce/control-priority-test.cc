// SPDX-License-Identifier: GPL-2.0-only
// Control packets with strict priority in lossy queues (issue #9's last line): the
// DscpPriorityQueue alone (order, shared limit, drops, flush, against a reference model), its
// selection through ns3::FabricNetwork::ControlPriority, and at packet level: a RoCE ACK/CNP
// crossing a port whose queue is full of data arrives one propagation plus at most one data
// frame per hop after it was sent, not a queue later.
#include "../ns3-sim-fixture.h"
#include "roce-test-fabrics.h"

#include "ns3/boolean.h"
#include "ns3/core-module.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/dscp-priority-queue.h"
#include "ns3/fabric-link-device.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/pfc-helper.h"
#include "ns3/pfc-queue.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-size.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>

using namespace ns3;

namespace
{

constexpr uint8_t DSCP_CONTROL = 48; // RoceReceiver's ACK/NACK/CNP
constexpr uint8_t DSCP_DATA = 0;

/// A frame as a device queues it: PPP header, IPv4 header with \p dscp, \p payload bytes.
Ptr<Packet>
Frame(uint8_t dscp, uint32_t payload)
{
    Ptr<Packet> p = Create<Packet>(payload);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(payload);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    p->AddHeader(ip);
    PppHeader ppp;
    ppp.SetProtocol(0x0021);
    p->AddHeader(ppp);
    return p;
}

Ptr<DscpPriorityQueue>
MakeQueue(const std::string& maxSize)
{
    Ptr<DscpPriorityQueue> q = CreateObject<DscpPriorityQueue>();
    q->SetMaxSize(QueueSize(maxSize));
    return q;
}

class ControlPriority : public Ns3SimTest
{
};

} // namespace

TEST(DscpPriorityQueue, ControlBeforeQueuedDataFifoWithinEachClass)
{
    Ptr<DscpPriorityQueue> q = MakeQueue("100p");
    // Arrival order: D0 D1 C0 D2 C1 C2 D3; expected departures: C0 C1 C2 D0 D1 D2 D3.
    const std::vector<std::pair<char, uint8_t>> arrivals
        = {{'D', 0}, {'D', 1}, {'C', 0}, {'D', 2}, {'C', 1}, {'C', 2}, {'D', 3}};
    std::map<uint64_t, std::string> name;
    for (const auto& [cls, i] : arrivals)
    {
        Ptr<Packet> p = Frame(cls == 'C' ? DSCP_CONTROL : DSCP_DATA, 100 + i);
        name[p->GetUid()] = std::string(1, cls) + std::to_string(i);
        ASSERT_TRUE(q->Enqueue(p));
    }
    EXPECT_EQ(q->GetNControlPackets(), 3u);
    EXPECT_EQ(q->GetControlEnqueued(), 3u);
    EXPECT_EQ(q->GetControlOvertakes(), 3u); // each found data queued
    std::vector<std::string> out;
    ASSERT_EQ(name[q->Peek()->GetUid()], "C0");
    while (Ptr<Packet> p = q->Dequeue())
    {
        out.push_back(name[p->GetUid()]);
    }
    EXPECT_EQ(out, (std::vector<std::string>{"C0", "C1", "C2", "D0", "D1", "D2", "D3"}));
    EXPECT_EQ(q->GetNControlPackets(), 0u);
    EXPECT_EQ(q->GetNBytes(), 0u);
    EXPECT_EQ(q->Dequeue(), nullptr);
    EXPECT_EQ(q->Peek(), nullptr);
    // A control packet into an empty queue overtakes nothing.
    ASSERT_TRUE(q->Enqueue(Frame(DSCP_CONTROL, 10)));
    EXPECT_EQ(q->GetControlOvertakes(), 3u);
}

TEST(DscpPriorityQueue, ClassFromTheDscpThreshold)
{
    const uint32_t min = 48;
    EXPECT_EQ(DscpPriorityQueue::ClassOfFrame(Frame(48, 10), min), DscpPriorityQueue::CONTROL);
    EXPECT_EQ(DscpPriorityQueue::ClassOfFrame(Frame(56, 10), min), DscpPriorityQueue::CONTROL);
    EXPECT_EQ(DscpPriorityQueue::ClassOfFrame(Frame(46, 10), min), DscpPriorityQueue::DATA);
    EXPECT_EQ(DscpPriorityQueue::ClassOfFrame(Frame(46, 10), 32), DscpPriorityQueue::CONTROL);
    // Not IPv4 behind PPP, or too short: data.
    Ptr<Packet> other = Create<Packet>(50);
    PppHeader ppp;
    ppp.SetProtocol(0x0057); // IPv6
    other->AddHeader(ppp);
    EXPECT_EQ(DscpPriorityQueue::ClassOfFrame(other, min), DscpPriorityQueue::DATA);
    EXPECT_EQ(DscpPriorityQueue::ClassOfFrame(Create<Packet>(2), min), DscpPriorityQueue::DATA);
    // The attribute moves the threshold in the queue.
    Ptr<DscpPriorityQueue> q = MakeQueue("10p");
    q->SetAttribute("ControlDscpMin", UintegerValue(32));
    q->Enqueue(Frame(DSCP_DATA, 10));
    q->Enqueue(Frame(46, 10)); // EF: control at 32
    EXPECT_EQ(q->GetNControlPackets(), 1u);
    EXPECT_EQ(q->Dequeue()->GetSize(), Frame(46, 10)->GetSize());
}

TEST(DscpPriorityQueue, OneSharedByteLimitDropsEitherClassAndCounts)
{
    const uint32_t frame = Frame(DSCP_DATA, 1000)->GetSize();
    Ptr<DscpPriorityQueue> q = MakeQueue(std::to_string(3 * frame) + "B");
    uint64_t dropTrace = 0;
    q->TraceConnectWithoutContext(
        "Drop",
        Callback<void, Ptr<const Packet>>([&dropTrace](Ptr<const Packet>) { ++dropTrace; }));
    std::vector<uint32_t> bytesTrace;
    q->TraceConnectWithoutContext(
        "BytesInQueue",
        Callback<void, uint32_t, uint32_t>([&bytesTrace](uint32_t, uint32_t now)
                                           { bytesTrace.push_back(now); }));
    EXPECT_TRUE(q->Enqueue(Frame(DSCP_DATA, 1000)));
    EXPECT_TRUE(q->Enqueue(Frame(DSCP_DATA, 1000)));
    // A control packet takes room from the same limit.
    EXPECT_TRUE(q->Enqueue(Frame(DSCP_CONTROL, 500)));
    EXPECT_EQ(q->GetNBytes(), 2 * frame + Frame(DSCP_CONTROL, 500)->GetSize());
    EXPECT_EQ(bytesTrace.back(), q->GetNBytes()); // the total of both classes
    // Full for a data frame; a control frame that does not fit is dropped too (no push-out).
    EXPECT_FALSE(q->Enqueue(Frame(DSCP_DATA, 1000)));
    EXPECT_FALSE(q->Enqueue(Frame(DSCP_CONTROL, 1000)));
    EXPECT_EQ(q->GetTotalDroppedPacketsBeforeEnqueue(), 2u);
    EXPECT_EQ(dropTrace, 2u);
    EXPECT_EQ(q->GetNControlPackets(), 1u);
    EXPECT_EQ(q->GetControlEnqueued(), 1u);
    // Offered = accepted (the base class's "received") + dropped; accepted = dequeued.
    uint32_t out = 0;
    while (q->Dequeue())
    {
        ++out;
    }
    EXPECT_EQ(q->GetTotalReceivedPackets() + q->GetTotalDroppedPackets(), 5u);
    EXPECT_EQ(q->GetTotalReceivedPackets(), out);
    EXPECT_EQ(out, 3u);
    EXPECT_EQ(q->GetNBytes(), 0u);
}

TEST(DscpPriorityQueue, RemoveFlushesControlFirstAndTheQueueStaysUsable)
{
    Ptr<DscpPriorityQueue> q = MakeQueue("100p");
    std::vector<uint32_t> removedSizes;
    q->TraceConnectWithoutContext(
        "DropAfterDequeue",
        Callback<void, Ptr<const Packet>>([&removedSizes](Ptr<const Packet> p)
                                          { removedSizes.push_back(p->GetSize()); }));
    q->Enqueue(Frame(DSCP_DATA, 1000));
    q->Enqueue(Frame(DSCP_CONTROL, 20));
    q->Enqueue(Frame(DSCP_DATA, 1001));
    // FabricLinkGuard's flush: Remove() until empty.
    while (!q->IsEmpty())
    {
        ASSERT_NE(q->Remove(), nullptr);
    }
    EXPECT_EQ(q->Remove(), nullptr);
    ASSERT_EQ(removedSizes.size(), 3u);
    EXPECT_EQ(removedSizes[0], Frame(DSCP_CONTROL, 20)->GetSize());
    EXPECT_EQ(removedSizes[1], Frame(DSCP_DATA, 1000)->GetSize());
    EXPECT_EQ(removedSizes[2], Frame(DSCP_DATA, 1001)->GetSize());
    EXPECT_EQ(q->GetNControlPackets(), 0u);
    EXPECT_EQ(q->GetTotalDroppedPacketsAfterDequeue(), 3u);
    // After the flush the classes start again from empty.
    q->Enqueue(Frame(DSCP_DATA, 7));
    q->Enqueue(Frame(DSCP_CONTROL, 8));
    EXPECT_EQ(q->Dequeue()->GetSize(), Frame(DSCP_CONTROL, 8)->GetSize());
    EXPECT_EQ(q->Dequeue()->GetSize(), Frame(DSCP_DATA, 7)->GetSize());
    // Flush() (the base class's) goes through Remove() as well.
    q->Enqueue(Frame(DSCP_DATA, 7));
    q->Enqueue(Frame(DSCP_CONTROL, 8));
    q->Flush();
    EXPECT_TRUE(q->IsEmpty());
    EXPECT_EQ(q->GetNControlPackets(), 0u);
    q->Enqueue(Frame(DSCP_DATA, 9));
    EXPECT_EQ(q->Peek()->GetSize(), Frame(DSCP_DATA, 9)->GetSize());
}

TEST(DscpPriorityQueue, RandomOperationsMatchTwoFifosWithStrictPriority)
{
    // Against the obvious model: two FIFOs, control served first, one byte limit.
    std::mt19937 rng(7);
    const uint32_t limit = 20000;
    Ptr<DscpPriorityQueue> q = MakeQueue(std::to_string(limit) + "B");
    std::deque<Ptr<Packet>> ctl;
    std::deque<Ptr<Packet>> data;
    uint32_t bytes = 0;
    uint64_t drops = 0;
    for (int step = 0; step < 20000; ++step)
    {
        const uint32_t op = rng() % 10;
        if (op < 6)
        {
            const bool control = rng() % 3 == 0;
            Ptr<Packet> p = Frame(control ? DSCP_CONTROL : DSCP_DATA, 50 + rng() % 3000);
            const bool fits = bytes + p->GetSize() <= limit;
            ASSERT_EQ(q->Enqueue(p), fits) << "step " << step;
            if (fits)
            {
                (control ? ctl : data).push_back(p);
                bytes += p->GetSize();
            }
            else
            {
                ++drops;
            }
        }
        else
        {
            Ptr<Packet> expected;
            auto& fifo = !ctl.empty() ? ctl : data;
            if (!fifo.empty())
            {
                expected = fifo.front();
                fifo.pop_front();
                bytes -= expected->GetSize();
            }
            Ptr<const Packet> peeked = q->Peek();
            Ptr<Packet> got = op < 9 ? q->Dequeue() : q->Remove();
            ASSERT_EQ(got, expected) << "step " << step;
            ASSERT_EQ(peeked, Ptr<const Packet>(expected)) << "step " << step;
        }
        ASSERT_EQ(q->GetNBytes(), bytes);
        ASSERT_EQ(q->GetNControlPackets(), ctl.size());
        ASSERT_EQ(q->GetNPackets(), ctl.size() + data.size());
    }
    EXPECT_GT(drops, 0u);
    EXPECT_EQ(q->GetTotalDroppedPacketsBeforeEnqueue(), drops);
}

TEST_F(ControlPriority, SelectedByTheNetworkAttributeWithTheFabricsQueueSize)
{
    for (const std::string device : {"p2p", "fast"})
    {
        Config::SetDefault("ns3::FabricNetwork::LinkDevice", StringValue(device));
        ZCubeHelper zcube(16, 4);
        {
            FabricNetworkHelper links;
            auto net = zcube.Install(links);
            auto q = FabricLinkDevice::GetQueue(net->GetDevice(0, 0));
            EXPECT_EQ(q->GetInstanceTypeId(), DropTailQueue<Packet>::GetTypeId()) << device;
        }
        Config::SetDefault("ns3::FabricNetwork::ControlPriority", BooleanValue(true));
        {
            FabricNetworkHelper links;
            auto net = zcube.Install(links);
            for (uint32_t v = 0; v < net->GetGraph().GetNNodes(); ++v)
            {
                for (uint32_t p = 0; p < net->GetGraph().GetNPorts(v); ++p)
                {
                    auto q = FabricLinkDevice::GetQueue(net->GetDevice(v, p));
                    ASSERT_TRUE(DynamicCast<DscpPriorityQueue>(q)) << device << v << "/" << p;
                    ASSERT_EQ(q->GetMaxSize(), QueueSize("2MB")); // the datacenter default
                }
            }
        }
        {
            // The fabric's queue size settings apply to it as to a DropTailQueue.
            FabricNetworkHelper links;
            links.SetQueueAttribute("MaxSize", QueueSizeValue(QueueSize("300KB")));
            auto net = zcube.Install(links);
            EXPECT_EQ(FabricLinkDevice::GetQueue(net->GetDevice(20, 0))->GetMaxSize(),
                      QueueSize("300KB"));
        }
        Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", StringValue("64p"));
        {
            FabricNetworkHelper links;
            auto net = zcube.Install(links);
            EXPECT_EQ(FabricLinkDevice::GetQueue(net->GetDevice(20, 0))->GetMaxSize(),
                      QueueSize("64p"));
        }
        Config::Reset();
        Config::SetDefault("ns3::FabricNetwork::LinkDevice", StringValue(device));
        Config::SetDefault("ns3::FabricNetwork::ControlPriority", BooleanValue(true));
        Config::SetDefault("ns3::DscpPriorityQueue<Packet>::MaxSize", StringValue("77p"));
        {
            FabricNetworkHelper links;
            auto net = zcube.Install(links);
            EXPECT_EQ(FabricLinkDevice::GetQueue(net->GetDevice(20, 0))->GetMaxSize(),
                      QueueSize("77p"));
        }
        {
            // PfcQueue has its own classes: kept. Another queue type cannot be replaced.
            FabricNetworkHelper links;
            PfcHelper().ConfigureLinks(links);
            auto net = zcube.Install(links);
            EXPECT_TRUE(DynamicCast<PfcQueue>(FabricLinkDevice::GetQueue(net->GetDevice(20, 0))));
            FabricNetworkHelper other;
            other.SetQueueType("ns3::DropTailQueue<QueueDiscItem>");
            EXPECT_THROW(zcube.Install(other), std::invalid_argument);
        }
        Simulator::Destroy();
        Config::Reset();
    }
}

namespace
{

/// One-way delays of the control packets host \p from sends to host \p to: from the host's
/// MacTx (the receiver hands it to the device) to the arrival at \p to (MacRx).
struct ControlDelays
{
    std::map<uint64_t, Time> sentAt;
    std::vector<Time> delays;
};

void
WatchControl(Ptr<FabricNetwork> net, uint32_t from, uint32_t to, ControlDelays* d)
{
    net->GetDevice(from, 0)->TraceConnectWithoutContext(
        "MacTx",
        Callback<void, Ptr<const Packet>>(
            [d](Ptr<const Packet> p)
            {
                if (DscpPriorityQueue::ClassOfFrame(p, 48) == DscpPriorityQueue::CONTROL)
                {
                    d->sentAt[p->GetUid()] = Simulator::Now();
                }
            }));
    net->GetDevice(to, 0)->TraceConnectWithoutContext(
        "PhyRxEnd",
        Callback<void, Ptr<const Packet>>(
            [d](Ptr<const Packet> p)
            {
                auto it = d->sentAt.find(p->GetUid());
                if (it != d->sentAt.end())
                {
                    d->delays.push_back(Simulator::Now() - it->second);
                    d->sentAt.erase(it);
                }
            }));
}

/// Roft16: flow 5 -> 0 (its ACK/NACK/CNP go 0 -> 5) while eight other GPUs send to GPU 5,
/// whose leaf's down-link then queues up to MaxSize of data. Returns the run; \p d the
/// delays of GPU 0's control packets to GPU 5; \p maxQueue the deepest queue on leaf 1 ->
/// GPU 5.
FabricRoceRunResult
ControlThroughAFullDataQueue(bool priority, ControlDelays* d, uint32_t* maxQueue)
{
    Config::SetDefault("ns3::FabricNetwork::ControlPriority", BooleanValue(priority));
    auto net = Roft16("1MB");
    std::vector<FlowSpec> flows{Flow(0, 5, 0, 2000000)};
    for (uint32_t s : {6, 7, 8, 9, 10, 11, 12, 13})
    {
        flows.push_back(Flow(static_cast<uint32_t>(flows.size()), s, 5, 2000000));
    }
    WatchControl(net, 0, 5, d);
    const FabricGraph& g = net->GetGraph();
    auto q = FabricLinkDevice::GetQueue(
        net->GetDevice(g.GetPeer(5, 0), g.GetPeerPort(5, 0))); // leaf 1 -> GPU 5
    q->TraceConnectWithoutContext(
        "BytesInQueue",
        Callback<void, uint32_t, uint32_t>([maxQueue](uint32_t, uint32_t now)
                                           { *maxQueue = std::max(*maxQueue, now); }));
    FabricRoceRunOptions o;
    o.stopAt = MilliSeconds(20);
    return RunFabricRoce(net, flows, o);
}

} // namespace

TEST_F(ControlPriority, AckAndCnpOvertakeAFullDataQueue)
{
    // 4 hops (GPU 0, leaf 0, spine, leaf 1 -> GPU 5), 1 us each at 400 Gb/s: with priority a
    // control packet waits at each hop at most for the data frame on the wire.
    const double rate = 400e9;
    const Time frame = Seconds(4202 * 8 / rate); // the largest frame (MTU 4200 + PPP)
    const Time bound = 4 * (MicroSeconds(1) + frame + Seconds(100 * 8 / rate));
    ControlDelays on;
    uint32_t queueOn = 0;
    const FabricRoceRunResult r = ControlThroughAFullDataQueue(true, &on, &queueOn);
    Simulator::Destroy();
    Config::Reset();
    ControlDelays off;
    uint32_t queueOff = 0;
    const FabricRoceRunResult rOff = ControlThroughAFullDataQueue(false, &off, &queueOff);
    for (const auto* run : {&r, &rOff})
    {
        EXPECT_EQ(run->Unaccounted(), 0); // sent = delivered + dropped + in flight
        EXPECT_EQ(run->incompleteFlows, 0u);
    }
    // The down-link to GPU 5 really held a deep data queue in both runs.
    EXPECT_GT(queueOn, 200000u);
    EXPECT_GT(queueOff, 200000u);
    ASSERT_GT(on.delays.size(), 20u);
    ASSERT_GT(off.delays.size(), 20u);
    const Time maxOn = *std::max_element(on.delays.begin(), on.delays.end());
    const Time maxOff = *std::max_element(off.delays.begin(), off.delays.end());
    const Time minOn = *std::min_element(on.delays.begin(), on.delays.end());
    EXPECT_LE(maxOn, bound) << "max " << maxOn.As(Time::NS) << " min " << minOn.As(Time::NS);
    EXPECT_GE(minOn, 4 * MicroSeconds(1));
    // Without priority the same packets wait behind the data (200 KB at 400 Gb/s: 4 us).
    EXPECT_GT(maxOff, bound + MicroSeconds(4)) << "max without priority " << maxOff.As(Time::NS);
    std::cout << "control one-way delay GPU 0 -> GPU 5: priority max " << maxOn.As(Time::NS)
              << " (bound " << bound.As(Time::NS) << ", " << on.delays.size()
              << " packets), without max " << maxOff.As(Time::NS) << "; deepest queue " << queueOn
              << " / " << queueOff << " B\n";
}
