// SPDX-License-Identifier: GPL-2.0-only
// FastP2pNetDevice and FastP2pChannel keep per-frame copies of state that lives elsewhere
// (session 14, doc/fabric.md "Devices"): which trace sources have sinks, the channel's peer and
// delay, the frames on the wire in a ring. These tests change that state in the middle of a run
// and check the frames see the change as they would without the copies.
#include "../ns3-sim-fixture.h"

#include "ns3/core-module.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/fast-p2p-channel.h"
#include "ns3/fast-p2p-net-device.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

class FastP2pWire : public Ns3SimTest
{
  protected:
    /// Two nodes, a device on each, joined by a channel of \p delay, devices at \p rate.
    void Build(Time delay, const std::string& rate)
    {
        m_nodes.Create(2);
        m_channel = CreateObject<FastP2pChannel>();
        m_channel->SetAttribute("Delay", TimeValue(delay));
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<FastP2pNetDevice> d = CreateObject<FastP2pNetDevice>();
            d->SetAddress(Mac48Address::Allocate());
            d->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("100000p")));
            d->SetQueue(q);
            m_nodes.Get(i)->AddDevice(d);
            d->Attach(m_channel);
            m_dev.push_back(d);
        }
        m_dev[1]->SetReceiveCallback(NetDevice::ReceiveCallback(
            [this](Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
            {
                m_rxUid.push_back(p->GetUid());
                m_rxTime.push_back(Simulator::Now());
                return true;
            }));
    }

    /// Send a frame of \p bytes payload from device 0 at \p at; returns nothing (uids in order).
    void SendAt(Time at, uint32_t bytes)
    {
        Simulator::Schedule(at,
                            [this, bytes]()
                            {
                                Ptr<Packet> p = Create<Packet>(bytes);
                                m_txUid.push_back(p->GetUid());
                                m_dev[0]->Send(p, m_dev[1]->GetAddress(), 0x0800);
                            });
    }

    NodeContainer m_nodes;
    Ptr<FastP2pChannel> m_channel;
    std::vector<Ptr<FastP2pNetDevice>> m_dev;
    std::vector<uint64_t> m_txUid;
    std::vector<uint64_t> m_rxUid;
    std::vector<Time> m_rxTime;
};

/// A counting sink for a device's packet trace sources.
struct Counter
{
    uint32_t n{0};

    void Count(Ptr<const Packet>) { ++n; }

    Callback<void, Ptr<const Packet>> Sink() { return MakeCallback(&Counter::Count, this); }
};

} // namespace

TEST_F(FastP2pWire, TraceConnectedMidRunFiresAndDisconnectedStops)
{
    // 10 frames, one per microsecond (1 Gbps: 0.8 us each); sinks on the sender's PhyTxBegin
    // and PhyTxEnd and the receiver's PhyRxEnd and MacRx from 3.5 us to 7.5 us.
    Build(MicroSeconds(1), "1Gbps");
    for (uint32_t i = 0; i < 10; ++i)
    {
        SendAt(MicroSeconds(i), 98);
    }
    Counter txBegin;
    Counter txEnd;
    Counter rxEnd;
    Counter macRx;
    Simulator::Schedule(
        NanoSeconds(3500),
        [&]()
        {
            EXPECT_TRUE(m_dev[0]->TraceConnectWithoutContext("PhyTxBegin", txBegin.Sink()));
            EXPECT_TRUE(m_dev[0]->TraceConnectWithoutContext("PhyTxEnd", txEnd.Sink()));
            EXPECT_TRUE(m_dev[1]->TraceConnectWithoutContext("PhyRxEnd", rxEnd.Sink()));
            EXPECT_TRUE(m_dev[1]->TraceConnectWithoutContext("MacRx", macRx.Sink()));
        });
    Simulator::Schedule(
        NanoSeconds(7500),
        [&]()
        {
            EXPECT_TRUE(m_dev[0]->TraceDisconnectWithoutContext("PhyTxBegin", txBegin.Sink()));
            EXPECT_TRUE(m_dev[0]->TraceDisconnectWithoutContext("PhyTxEnd", txEnd.Sink()));
            EXPECT_TRUE(m_dev[1]->TraceDisconnectWithoutContext("PhyRxEnd", rxEnd.Sink()));
            EXPECT_TRUE(m_dev[1]->TraceDisconnectWithoutContext("MacRx", macRx.Sink()));
        });
    Simulator::Run();
    EXPECT_EQ(m_rxUid.size(), 10u);
    // Frames start at 4, 5, 6, 7 us: PhyTxBegin 4 times. PhyTxEnd fires 0.8 us after each
    // start (this device is not ArrivalDriven: every frame has its event), at 3.8 (the frame
    // started before the connect), 4.8, 5.8, 6.8; 7.8 is after the disconnect.
    EXPECT_EQ(txBegin.n, 4u);
    EXPECT_EQ(txEnd.n, 4u);
    // Arrivals at i + 1.8 us: 3.8 ... 6.8 (i = 2..5) within the window.
    EXPECT_EQ(rxEnd.n, 4u);
    EXPECT_EQ(macRx.n, 4u);
}

TEST_F(FastP2pWire, ContextSinkAndChannelTraceFollowConnections)
{
    // Config paths connect with a context (TraceConnect); the channel's own trace source sees
    // every frame while connected, even though frames skip the channel without a sink.
    Build(MicroSeconds(1), "1Gbps");
    for (uint32_t i = 0; i < 6; ++i)
    {
        SendAt(MicroSeconds(i), 98);
    }
    std::vector<std::string> contexts;
    auto withContext = [&contexts](std::string context, Ptr<const Packet>)
    {
        contexts.push_back(context);
    };
    uint32_t channelFrames = 0;
    Callback<void, Ptr<const Packet>, Ptr<NetDevice>, Ptr<NetDevice>, Time, Time> onWire(
        [&channelFrames](Ptr<const Packet>, Ptr<NetDevice>, Ptr<NetDevice>, Time tx, Time last)
        {
            ++channelFrames;
            EXPECT_EQ(last - tx, MicroSeconds(1));
        });
    Callback<void, std::string, Ptr<const Packet>> sink(withContext);
    Simulator::Schedule(NanoSeconds(1500),
                        [&]()
                        {
                            EXPECT_TRUE(m_dev[0]->TraceConnect("MacTx", "ctx", sink));
                            EXPECT_TRUE(
                                m_channel->TraceConnectWithoutContext("TxRxPointToPoint", onWire));
                        });
    Simulator::Schedule(
        NanoSeconds(3500),
        [&]()
        {
            EXPECT_TRUE(m_dev[0]->TraceDisconnect("MacTx", "ctx", sink));
            EXPECT_TRUE(m_channel->TraceDisconnectWithoutContext("TxRxPointToPoint", onWire));
        });
    Simulator::Run();
    EXPECT_EQ(m_rxUid, m_txUid);
    EXPECT_EQ(contexts, std::vector<std::string>({"ctx", "ctx"}));
    EXPECT_EQ(channelFrames, 2u);
}

TEST_F(FastP2pWire, DataRateAndDelayChangedMidRunTakeEffect)
{
    // A 1000-byte frame (1002 with the PPP header) at 1 Gbps takes 8016 ns, at 2 Gbps 4008 ns.
    Build(MicroSeconds(1), "1Gbps");
    SendAt(Seconds(0), 1000);
    Simulator::Schedule(MicroSeconds(20),
                        [&]()
                        { m_dev[0]->SetAttribute("DataRate", DataRateValue(DataRate("2Gbps"))); });
    SendAt(MicroSeconds(30), 1000);
    Simulator::Schedule(MicroSeconds(40),
                        [&]() { m_channel->SetAttribute("Delay", TimeValue(MicroSeconds(3))); });
    SendAt(MicroSeconds(50), 1000);
    Simulator::Schedule(MicroSeconds(60), [&]() { m_dev[0]->SetDataRate(DataRate("4Gbps")); });
    SendAt(MicroSeconds(70), 1000);
    Simulator::Run();
    ASSERT_EQ(m_rxTime.size(), 4u);
    EXPECT_EQ(m_rxTime[0], NanoSeconds(8016 + 1000));
    EXPECT_EQ(m_rxTime[1], MicroSeconds(30) + NanoSeconds(4008 + 1000));
    EXPECT_EQ(m_rxTime[2], MicroSeconds(50) + NanoSeconds(4008 + 3000));
    EXPECT_EQ(m_rxTime[3], MicroSeconds(70) + NanoSeconds(2004 + 3000));
}

TEST_F(FastP2pWire, LongWireHoldsManyFramesInOrder)
{
    // 100 Gbps over 1 ms: 2000 frames of 100 bytes with the PPP header (8 ns each) are all on
    // the wire at once (the ring starts with 8192 slots: 4096 + 2 rounded up; growth and wrap
    // are ShortWireRingGrowsWhileWrapped's).
    Build(MilliSeconds(1), "100Gbps");
    for (uint32_t i = 0; i < 2000; ++i)
    {
        SendAt(Seconds(0), 98);
    }
    Simulator::Run();
    ASSERT_EQ(m_rxUid.size(), 2000u);
    EXPECT_EQ(m_rxUid, m_txUid);
    // The last frame waited for 1999 before it: (1999 + 1) x 8 ns + 1 ms.
    EXPECT_EQ(m_rxTime.back(), MilliSeconds(1) + NanoSeconds(2000 * 8));
    for (std::size_t i = 1; i < m_rxTime.size(); ++i)
    {
        EXPECT_EQ(m_rxTime[i] - m_rxTime[i - 1], NanoSeconds(8));
    }
}

TEST_F(FastP2pWire, ShortWireRingGrowsWhileWrapped)
{
    // 1 Gbps over 10 us: the ring starts with 4 slots (bandwidth-delay 1.2 KiB frames, + 2).
    // Three frames advance its head by two; a burst of 20 then keeps about 13 on the wire
    // (10.8 us / 0.8 us), so the ring grows twice with its head not at slot 0.
    Build(MicroSeconds(10), "1Gbps");
    for (uint32_t i = 0; i < 3; ++i)
    {
        SendAt(Seconds(0), 98); // 100 bytes with the PPP header: 800 ns
    }
    for (uint32_t i = 0; i < 20; ++i)
    {
        SendAt(NanoSeconds(11700), 98);
    }
    Simulator::Run();
    ASSERT_EQ(m_rxUid.size(), 23u);
    EXPECT_EQ(m_rxUid, m_txUid);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(m_rxTime[i], MicroSeconds(10) + NanoSeconds(800 * (i + 1))) << i;
    }
    for (uint32_t i = 0; i < 20; ++i)
    {
        EXPECT_EQ(m_rxTime[3 + i], NanoSeconds(11700 + 800 * (i + 1)) + MicroSeconds(10)) << i;
    }
}

TEST_F(FastP2pWire, InterframeGapChangedMidRunTakesEffect)
{
    // Two 1000-byte frames sent together: the second starts when the first's serialization
    // (8016 ns at 1 Gbps) and the gap have passed.
    Build(MicroSeconds(1), "1Gbps");
    SendAt(Seconds(0), 1000);
    SendAt(Seconds(0), 1000);
    Simulator::Schedule(MicroSeconds(20),
                        [&]()
                        { m_dev[0]->SetAttribute("InterframeGap", TimeValue(NanoSeconds(500))); });
    SendAt(MicroSeconds(30), 1000);
    SendAt(MicroSeconds(30), 1000);
    Simulator::Run();
    ASSERT_EQ(m_rxTime.size(), 4u);
    EXPECT_EQ(m_rxTime[1] - m_rxTime[0], NanoSeconds(8016));
    EXPECT_EQ(m_rxTime[3] - m_rxTime[2], NanoSeconds(8016 + 500));
}

TEST_F(FastP2pWire, DeviceIsCacheLineAligned)
{
    // The per-frame members fill whole 64-byte lines only if the object starts on one
    // (alignas(64): CreateObject's new must honour it).
    Build(MicroSeconds(1), "1Gbps");
    for (uint32_t i = 0; i < 16; ++i)
    {
        m_dev.push_back(CreateObject<FastP2pNetDevice>());
    }
    for (const Ptr<FastP2pNetDevice>& d : m_dev)
    {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(PeekPointer(d)) % 64, 0u);
    }
}
