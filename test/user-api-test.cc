// SPDX-License-Identifier: GPL-2.0-only
// What a user of the modules relies on (issue 14): ns-3 attribute defaults honoured by
// FabricNetworkHelper, the run drivers' hook and per-flow Config paths, FlowSpec validation
// and default source ports, results that tell loss from packets in flight, pcap/ascii files
// named by fabric node and port.
#include "ns3-sim-fixture.h"
#include "program-test-util.h"

#include "ns3/core-module.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-traffic-helper.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/fabric-warning.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/queue-size.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

class UserApi : public Ns3SimTest
{
  protected:
    /// Link attributes of host 0's port 0, as text.
    static std::string DataRateOf(Ptr<FabricNetwork> net)
    {
        DataRateValue v;
        net->GetDevice(0, 0)->GetAttribute("DataRate", v);
        return std::to_string(v.Get().GetBitRate());
    }

    static uint64_t MtuOf(Ptr<FabricNetwork> net)
    {
        UintegerValue v;
        net->GetDevice(0, 0)->GetAttribute("Mtu", v);
        return v.Get();
    }

    static Time DelayOf(Ptr<FabricNetwork> net)
    {
        TimeValue v;
        net->GetDevice(0, 0)->GetChannel()->GetAttribute("Delay", v);
        return v.Get();
    }

    static std::string QueueOf(Ptr<FabricNetwork> net)
    {
        std::ostringstream os;
        os << FabricLinkDevice::GetQueue(net->GetDevice(0, 0))->GetMaxSize();
        return os.str();
    }

    static Ptr<FabricNetwork> SmallZCube(FabricNetworkHelper& links)
    {
        ZCubeHelper zcube(16, 4);
        return zcube.Install(links);
    }
};

TEST_F(UserApi, DatacenterLinkDefaultsWhenNothingIsSet)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    EXPECT_EQ(DataRateOf(net), "400000000000");
    EXPECT_EQ(MtuOf(net), 4200u);
    EXPECT_EQ(DelayOf(net), MicroSeconds(1));
    EXPECT_EQ(QueueOf(net), "2000000B");
    EXPECT_EQ(links.GetLinkAttribute("ns3::PointToPointNetDevice", "DataRate"), "400000000000bps");
}

TEST_F(UserApi, Ns3DefaultsChangedByTheProgramWin)
{
    // Set after the helper was constructed: the helper decides at Install.
    FabricNetworkHelper links;
    Config::SetDefault("ns3::PointToPointNetDevice::DataRate", StringValue("10Gbps"));
    Config::SetDefault("ns3::PointToPointChannel::Delay", StringValue("3us"));
    Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", StringValue("64p"));
    Ptr<FabricNetwork> net = SmallZCube(links);
    EXPECT_EQ(DataRateOf(net), "10000000000");
    EXPECT_EQ(DelayOf(net), MicroSeconds(3));
    EXPECT_EQ(QueueOf(net), "64p");
    EXPECT_EQ(MtuOf(net), 4200u); // not changed: still the datacenter default
    // Every link, switch ports included.
    DataRateValue v;
    net->GetDevice(net->GetGraph().GetNNodes() - 1, 0)->GetAttribute("DataRate", v);
    EXPECT_EQ(v.Get().GetBitRate(), 10000000000u);
}

TEST_F(UserApi, HelperCallsBeatNs3Defaults)
{
    Config::SetDefault("ns3::PointToPointNetDevice::DataRate", StringValue("10Gbps"));
    Config::SetDefault("ns3::PointToPointNetDevice::Mtu", UintegerValue(9000));
    FabricNetworkHelper links;
    links.SetDeviceAttribute("DataRate", DataRateValue(DataRate("25Gbps")));
    links.SetQueueAttribute("MaxSize", QueueSizeValue(QueueSize("1MB")));
    Ptr<FabricNetwork> net = SmallZCube(links);
    EXPECT_EQ(DataRateOf(net), "25000000000");
    EXPECT_EQ(MtuOf(net), 9000u);
    EXPECT_EQ(QueueOf(net), "1000000B");
}

TEST_F(UserApi, OneFlowRunsAtTheDefaultDataRate)
{
    Config::SetDefault("ns3::PointToPointNetDevice::DataRate", StringValue("10Gbps"));
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    FlowSpec f;
    f.src = 0;
    f.dst = 15;
    f.bytes = 1000000;
    f.srcPort = 49152;
    // Offered at 10 Gb/s: on 400 Gb/s links it would take 1/40 of the time.
    FabricUdpRunResult r = RunFabricUdp(net, {f}, {10e9}, 4096);
    ASSERT_EQ(r.flows.size(), 1u);
    EXPECT_EQ(r.flows[0].rxBytes, f.bytes);
    EXPECT_GT(r.flows[0].ThroughputBps(), 9e9);
    EXPECT_LT(r.flows[0].ThroughputBps(), 10e9);
}

FlowSpec
Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
{
    FlowSpec f;
    f.id = id;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    return f; // srcPort 0: SourcePort() picks one
}

void
CountRate(uint32_t* changes, std::string context, double, double now)
{
    EXPECT_NE(context.find("/$ns3::RoceSender/RateController/Rate"), std::string::npos);
    EXPECT_GT(now, 0);
    ++*changes;
}

TEST_F(UserApi, RoceHookReachesRateTraceByConfigPath)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    std::vector<FlowSpec> flows{Flow(0, 0, 15, 200000), Flow(1, 1, 15, 200000)};
    flows[1].after = 0; // created only when flow 0 completes
    uint32_t rateChanges = 0;
    uint32_t hookCalls = 0;
    std::vector<uint32_t> created;
    FabricRoceRunOptions opt;
    opt.beforeRun = [&](Ptr<FabricNetwork> n, const ApplicationContainer& apps)
    {
        ++hookCalls;
        EXPECT_EQ(n, net);
        EXPECT_EQ(Simulator::Now(), Seconds(0));
        // A receiver per host, then the sender of flow 0 (flow 1 does not exist yet).
        EXPECT_EQ(apps.GetN(), net->GetGraph().GetNHosts() + 1);
        EXPECT_TRUE(DynamicCast<RoceSender>(apps.Get(apps.GetN() - 1)));
        Config::Connect("/NodeList/*/ApplicationList/*/$ns3::RoceSender/RateController/Rate",
                        MakeBoundCallback(&CountRate, &rateChanges));
    };
    opt.senderCreated = [&](uint32_t flow, Ptr<RoceSender> sender)
    {
        created.push_back(flow);
        ASSERT_TRUE(sender->GetRateController());
    };
    const FabricRoceRunResult r = RunFabricRoce(net, flows, opt);
    EXPECT_EQ(hookCalls, 1u);
    EXPECT_EQ(created, (std::vector<uint32_t>{0, 1}));
    EXPECT_GE(rateChanges, 1u); // flow 0 starts at line rate: traced through the path
    EXPECT_EQ(r.incompleteFlows, 0u);
    EXPECT_EQ(r.inFlightPackets, 0);
    EXPECT_EQ(r.Unaccounted(), 0);
}

TEST_F(UserApi, UdpHookGetsSinksThenSenders)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    uint32_t apps = 0;
    FabricRunHook hook = [&apps](Ptr<FabricNetwork>, const ApplicationContainer& a)
    {
        apps = a.GetN();
    };
    const FabricUdpRunResult r
        = RunFabricUdp(net, {Flow(0, 0, 5, 40960)}, {100e9}, 4096, Time(0), hook);
    EXPECT_EQ(apps, 16u + 1u);
    EXPECT_EQ(r.Unaccounted(), 0);
}

TEST_F(UserApi, ZeroSourcePortGetsADeterministicEphemeralPort)
{
    const FlowSpec a = Flow(3, 0, 15, 1);
    EXPECT_EQ(a.srcPort, 0);
    EXPECT_GE(a.SourcePort(), 49152);
    EXPECT_EQ(a.SourcePort(), Flow(3, 0, 15, 1).SourcePort());
    EXPECT_EQ(a.Key().srcPort, a.SourcePort());
    FlowSpec b = a;
    b.srcPort = 50000;
    EXPECT_EQ(b.SourcePort(), 50000);
    // Different flows spread over the range.
    std::set<uint16_t> ports;
    for (uint32_t id = 0; id < 64; ++id)
    {
        ports.insert(Flow(id, 0, 15, 1).SourcePort());
    }
    EXPECT_GT(ports.size(), 60u);
}

TEST_F(UserApi, ValidationErrorsNameTheFlow)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    RoceTrafficHelper roce(net);
    try
    {
        roce.Install({Flow(0, 0, 1, 100), Flow(7, 3, 3, 100)});
        FAIL() << "src == dst accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("flow 7"), std::string::npos) << e.what();
    }
    FabricTrafficHelper udp(net);
    try
    {
        udp.Install({Flow(9, 0, 99, 100)}, {1e9});
        FAIL() << "dst 99 accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("flow 9"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("[0, 16)"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Flow(1, 0, 1, 0).Validate(16), std::invalid_argument);
}

TEST_F(UserApi, StopBeforeDrainCountsInFlightNotLost)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    // 1 MB at 400 Gb/s takes 20 us; stop after 5 us.
    const FabricUdpRunResult r
        = RunFabricUdp(net, {Flow(0, 0, 15, 1000000)}, {400e9}, 4096, MicroSeconds(5));
    EXPECT_NEAR(r.simSeconds, 5e-6, 1e-12);
    EXPECT_GT(r.inFlightPackets, 0);
    EXPECT_EQ(r.measuredInFlightPackets, r.inFlightPackets); // counted in queues and on links
    EXPECT_EQ(r.droppedPackets, 0u);
    EXPECT_EQ(r.Unaccounted(), 0);
    EXPECT_GT(r.lastPacketSeconds, 0);
    EXPECT_LE(r.lastPacketSeconds, r.simSeconds);

    // Run to the end: nothing in flight; the last packet arrives before the sim ends.
    Ptr<FabricNetwork> net2 = SmallZCube(links);
    const FabricUdpRunResult full = RunFabricUdp(net2, {Flow(0, 0, 15, 1000000)}, {400e9}, 4096);
    EXPECT_EQ(full.inFlightPackets, 0);
    EXPECT_EQ(full.Unaccounted(), 0);
    EXPECT_GT(full.lastPacketSeconds, 19e-6);
    EXPECT_LE(full.lastPacketSeconds, full.simSeconds);
}

TEST_F(UserApi, RoceStopBeforeDrainCountsInFlightWhereThePacketsAre)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    FabricRoceRunOptions opt;
    opt.stopAt = MicroSeconds(7);
    const FabricRoceRunResult r
        = RunFabricRoce(net, {Flow(0, 0, 15, 2000000), Flow(1, 3, 15, 2000000)}, opt);
    EXPECT_EQ(r.incompleteFlows, 2u);
    EXPECT_GT(r.measuredInFlightPackets, 0);
    EXPECT_EQ(r.measuredInFlightPackets, r.inFlightPackets);
    EXPECT_EQ(r.Unaccounted(), 0);
    const nlohmann::json j = PacketAccountingJson(
        r.sentPackets, r.deliveredPackets, r.drops, true, r.measuredInFlightPackets);
    EXPECT_EQ(j["in_flight_measured"], r.measuredInFlightPackets);
    EXPECT_EQ(j["accounting_closed"], true);
}

namespace
{
bool
Swallow(Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
{
    return true; // takes the packet and says nothing: a bug the accounting must catch
}
} // namespace

TEST_F(UserApi, APacketThatVanishesWithoutADropIsCaught)
{
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    // Every packet host 0 sends disappears at the switch port it arrives on.
    FabricRunHook hook = [](Ptr<FabricNetwork> n, const ApplicationContainer&)
    {
        for (uint32_t p = 0; p < n->GetGraph().GetNPorts(0); ++p)
        {
            const uint32_t toSwitch = n->GetGraph().GetEgressDirLink(0, p);
            // The device sending the other way is the switch's port on this link.
            n->GetDirLinkDevice(toSwitch ^ 1u)->SetReceiveCallback(MakeCallback(&Swallow));
        }
    };
    const FabricUdpRunResult r
        = RunFabricUdp(net, {Flow(0, 0, 15, 40960)}, {100e9}, 4096, Time(0), hook);
    EXPECT_EQ(r.deliveredPackets, 0u);
    EXPECT_EQ(r.droppedPackets, 0u);
    EXPECT_EQ(r.measuredInFlightPackets, 0);              // nothing is anywhere
    EXPECT_EQ(r.inFlightPackets, int64_t(r.sentPackets)); // the remainder would hide it
    EXPECT_EQ(r.Unaccounted(), int64_t(r.sentPackets));
    const nlohmann::json j = PacketAccountingJson(
        r.sentPackets, r.deliveredPackets, r.drops, false, r.measuredInFlightPackets);
    EXPECT_EQ(j["accounting_closed"], false);
    EXPECT_EQ(j["in_flight_measured"], 0);
}

TEST_F(UserApi, UnreachableFlowsWarnAndAreCountedAsDrops)
{
    FabricNetworkHelper links;
    ZCubeHelper zcube(16, 4);
    Ptr<FabricNetwork> net = zcube.Install(links);
    // The routing believes both of host 0's links are down (ZCube GPUs have two NIC ports and
    // fail over to the second): nothing it sends can be routed.
    const FabricGraph& g = net->GetGraph();
    for (uint32_t port = 0; port < g.GetNPorts(0); ++port)
    {
        zcube.GetRouting()->GetView()->FailLink(g.GetPortLink(0, port));
    }
    const uint64_t before = GetFabricWarningCount();
    const FabricUdpRunResult r = RunFabricUdp(net, {Flow(0, 0, 15, 40960)}, {100e9}, 4096);
    EXPECT_EQ(GetFabricWarningCount(), before + 1);
    EXPECT_EQ(r.deliveredPackets, 0u);
    EXPECT_GT(r.droppedPackets, 0u);
    EXPECT_EQ(r.Unaccounted(), 0);
}

TEST_F(UserApi, PcapAndAsciiFilesAreNamedByFabricNodeAndPort)
{
    const std::string dir = programtest::TempDir("pcap", true);
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = SmallZCube(links);
    const std::shared_ptr<const FabricGraph> graph = net->GetGraphPtr(); // outlives net
    const FabricGraph& g = *graph;
    const uint32_t sw = g.GetNNodes() - 1;
    auto hook = [&](Ptr<FabricNetwork> n, const ApplicationContainer&)
    {
        links.EnablePcap(dir + "/run", n, true);
        links.EnablePcap(dir + "/run", n, sw, 0);
        links.EnableAscii(dir + "/ascii", n, true);
    };
    const FabricUdpRunResult r
        = RunFabricUdp(net, {Flow(0, 0, 15, 40960)}, {100e9}, 4096, Time(0), hook);
    ASSERT_EQ(r.Unaccounted(), 0);
    EXPECT_THROW(links.EnablePcap(dir + "/x", net, 0, 5), std::invalid_argument);
    // ns-3 closes (flushes) a pcap file when its device is destroyed: release the network.
    net = nullptr;
    namespace fs = std::filesystem;
    const std::string src = dir + "/run-" + g.GetName(0) + "-0.pcap";
    const std::string dst = dir + "/run-" + g.GetName(15) + "-0.pcap";
    ASSERT_TRUE(fs::exists(src)) << src;
    // 24-byte pcap header plus 10 data packets (16-byte record headers) at least.
    EXPECT_GT(fs::file_size(src), 24u + 10 * (16 + 4096));
    // ZCube GPUs have two NICs; the flow arrives on one of them.
    const std::string dst1 = dir + "/run-" + g.GetName(15) + "-1.pcap";
    ASSERT_TRUE(fs::exists(dst1)) << dst1;
    EXPECT_GT(fs::file_size(dst) + fs::file_size(dst1), 2 * 24u + 10 * (16 + 4096));
    EXPECT_TRUE(fs::exists(dir + "/run-" + g.GetName(sw) + "-0.pcap"));
    EXPECT_FALSE(fs::exists(dir + "/run-" + g.GetName(sw) + "-1.pcap")); // hosts only, + one
    EXPECT_FALSE(fs::exists(dir + "/run-" + g.GetName(0) + "-2.pcap"));
    EXPECT_GT(fs::file_size(dir + "/ascii-" + g.GetName(0) + "-0.tr"), 0u);
    fs::remove_all(dir);
}

/// zcube-one-flow's "throughput X Gb/s" with the given extra argument.
double
OneFlowThroughputGbps(const std::string& arg)
{
    const std::string dir = programtest::TempDir("one-flow", true);
    const std::string out = dir + "/stdout.txt";
    std::vector<std::string> argv{programtest::BIN + "/zcube-one-flow"};
    if (!arg.empty())
    {
        argv.push_back(arg);
    }
    // A shell only to capture stdout; the arguments are this test's fixed strings.
    std::string cmd;
    for (const auto& a : argv)
    {
        cmd += a + " ";
    }
    const int rc = std::system((cmd + "> " + out + " 2>&1").c_str());
    const std::string text = programtest::ReadText(out);
    EXPECT_EQ(rc, 0) << text;
    const auto pos = text.find("throughput ");
    EXPECT_NE(pos, std::string::npos) << text;
    return pos == std::string::npos ? -1 : std::stod(text.substr(pos + 11));
}

TEST(ZCubeOneFlow, CommandLineDataRateSetsTheLineRate)
{
    const double base = OneFlowThroughputGbps("");
    EXPECT_GT(base, 300); // 400 Gb/s links by default
    const double slow = OneFlowThroughputGbps("--ns3::PointToPointNetDevice::DataRate=10Gbps");
    EXPECT_GT(slow, 9.0);
    EXPECT_LT(slow, 10.0);
}

} // namespace
