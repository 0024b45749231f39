// SPDX-License-Identifier: GPL-2.0-only
// The fabric's event core (FabricSimulatorImpl with FabricHeapScheduler, issue #12) against
// ns-3's (DefaultSimulatorImpl with MapScheduler) on small packet-level runs: every
// transmission on every link (time, port, bytes, packet uid and tags), every flow's result,
// the link counters and the number of events are the same.
#include "../ns3-sim-fixture.h"
#include "roce-result-compare.h"
#include "roce-test-fabrics.h"

#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/global-value.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/traffic-pattern.h"
#include "ns3/type-id.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class SimulatorCorePackets : public Ns3SimTest
{
  protected:
    void TearDown() override
    {
        Ns3SimTest::TearDown();
        Use("ns3::DefaultSimulatorImpl", "ns3::MapScheduler");
    }

    /// Select the core of the next simulation (the current one is destroyed).
    static void Use(const std::string& impl, const std::string& scheduler)
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        GlobalValue::Bind("SchedulerType", TypeIdValue(TypeId::LookupByName(scheduler)));
    }

    /// Run \p scenario from a fresh seed under ns-3's core, then under the fabric's; returns
    /// both results.
    template<typename R>
    static std::pair<R, R> BothCores(const std::function<R()>& scenario)
    {
        Use("ns3::DefaultSimulatorImpl", "ns3::MapScheduler");
        RngSeedManager::SetRun(1);
        const R ns3Core = scenario();
        Use("ns3::FabricSimulatorImpl", "ns3::FabricHeapScheduler");
        // the core the global value names is the one created (the scenario's run uses it)
        EXPECT_EQ(Simulator::GetImplementation()->GetInstanceTypeId().GetName(),
                  "ns3::FabricSimulatorImpl");
        RngSeedManager::SetRun(1);
        const R fabricCore = scenario();
        return {ns3Core, fabricCore};
    }
};

} // namespace

TEST_F(SimulatorCorePackets, RoceIncastOnRoftSameTransmissions)
{
    // Two flows into one host (ECN marks, CNPs, DCQCN timers) and a third elsewhere.
    std::vector<std::string> a;
    std::vector<std::string> b;
    std::vector<std::string>* log = &a;
    const auto [ns3Core, fabricCore] = BothCores<FabricRoceRunResult>(
        [&]()
        {
            auto net = Roft16("8MB");
            RecordEveryTransmission(net, *log, true);
            FabricRoceRunResult r = RunFabricRoce(net, IncastAndOneMore());
            log = &b;
            return r;
        });
    ASSERT_GT(a.size(), 200u);
    ExpectSameTransmissions(a, b);
    ExpectSameRoceResults(ns3Core, fabricCore);
    EXPECT_EQ(ns3Core.events, fabricCore.events);
    EXPECT_EQ(fabricCore.incompleteFlows, 0u);
}

TEST_F(SimulatorCorePackets, RoceIncastWithQueueDropsAndRetransmissions)
{
    // An 8:1 incast into 150 KB queues: drops, NACKs, retransmission timers (cancelled and
    // rescheduled events).
    const auto [ns3Core, fabricCore] = BothCores<FabricRoceRunResult>(
        []()
        {
            std::vector<FlowSpec> flows;
            for (uint32_t i = 0; i < 8; ++i)
            {
                flows.push_back(Flow(i, 4 + i, 0, 400000));
            }
            return RunFabricRoce(Roft16("150KB"), flows);
        });
    ExpectSameRoceResults(ns3Core, fabricCore);
    EXPECT_EQ(ns3Core.events, fabricCore.events);
    EXPECT_GT(fabricCore.droppedPackets, 0u);
    EXPECT_EQ(fabricCore.incompleteFlows, 0u);
}

TEST_F(SimulatorCorePackets, UdpAllReduceOnZCubeSameResults)
{
    const auto flows = Pattern(TrafficPattern::ALLREDUCE, 16, 1 << 30);
    const auto rates = LineRateShares(flows, 16);
    const auto [ns3Core, fabricCore] = BothCores<FabricUdpRunResult>(
        [&]()
        {
            ZCubeHelper zcube(16, 4);
            FabricNetworkHelper links;
            return RunFabricUdp(zcube.Install(links), flows, rates, 4096, MicroSeconds(60));
        });
    EXPECT_GT(ns3Core.deliveredPackets, 0u);
    ExpectSameUdpResults(ns3Core, fabricCore);
    EXPECT_EQ(ns3Core.events, fabricCore.events);
}
