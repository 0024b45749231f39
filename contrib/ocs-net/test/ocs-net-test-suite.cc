// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite of the ocs-net module: a small OCS cluster (Uniform wiring, 4 EGs x 3 ports,
// one host each) whose circuits carry RoCE flows only while duplex, lose the traffic of changed
// circuits as ocs-dark under the drop policy, and stall for exactly the unhidden solve plus
// switching plus restoration. Only public headers.
#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/ocs-cluster-helper.h"
#include "ns3/ocs-configuration.h"
#include "ns3/ocs-controller.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/string.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{

/// OCS 0 joins EGs 0-1 and 2-3, OCS 1 joins 0-2 and 1-3, OCS 2 joins 0-3 and 1-2.
std::vector<OcsCircuit>
Ring()
{
    return {{0, 0, 1},
            {0, 1, 0},
            {0, 2, 3},
            {0, 3, 2},
            {1, 0, 2},
            {1, 2, 0},
            {1, 1, 3},
            {1, 3, 1},
            {2, 0, 3},
            {2, 3, 0},
            {2, 1, 2},
            {2, 2, 1}};
}

/// Ring() with OCS 1 changed to 0-3 and 1-2.
std::vector<OcsCircuit>
RingChanged()
{
    auto c = Ring();
    for (OcsCircuit& x : c)
    {
        if (x.ocs == 1)
        {
            x.s = std::vector<uint32_t>{3, 2, 1, 0}[x.n];
        }
    }
    return c;
}

Ptr<OcsFabric>
Cluster(const std::string& policy, Time switching, Time restoration)
{
    OcsClusterHelper helper;
    helper.SetSwitchAttribute("SwitchingDelay", TimeValue(switching));
    helper.SetSwitchAttribute("RestorationDelay", TimeValue(restoration));
    helper.SetFabricAttribute("Policy", StringValue(policy));
    return helper.Install(OcsWiring(OcsWiringType::UNIFORM, 4, 3));
}

/// All-to-all among the 4 hosts, \p bytes each.
std::vector<FlowSpec>
AllToAll(uint64_t bytes)
{
    std::vector<FlowSpec> flows;
    for (uint32_t s = 0; s < 4; ++s)
    {
        for (uint32_t d = 0; d < 4; ++d)
        {
            if (s != d)
            {
                FlowSpec f;
                f.id = uint32_t(flows.size());
                f.src = s;
                f.dst = d;
                f.bytes = bytes;
                flows.push_back(f);
            }
        }
    }
    return flows;
}

/// Only duplex circuits bring links up, and the flows cross exactly those links.
class OcsCircuitTestCase : public TestCase
{
  public:
    OcsCircuitTestCase()
        : TestCase("Traffic crosses only established duplex circuits; one-way circuits stay down")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<OcsFabric> f = Cluster("drop", MicroSeconds(10), MicroSeconds(5));
        // OCS 0 and 1 duplex; OCS 2 one way only (0 -> 3 and 1 -> 2, no return).
        std::vector<OcsCircuit> c = Ring();
        c.erase(std::remove_if(
                    c.begin(), c.end(), [](const OcsCircuit& x) { return x.ocs == 2 && x.n >= 2; }),
                c.end());
        f->SetCircuits(c);
        uint32_t up = 0;
        for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
        {
            up += f->IsLinkUp(i) ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(up, 4u, "the 4 duplex circuit pairs of OCS 0 and 1 only");
        OcsMatrix expected(4);
        for (auto [a, b] : {std::pair{0, 1}, {2, 3}, {0, 2}, {1, 3}})
        {
            expected(a, b) = expected(b, a) = 1;
        }
        NS_TEST_EXPECT_MSG_EQ((f->MeasureLogicalTopology() == expected), true, "measured ring");
        FabricRoceRunOptions opt;
        opt.stopAt = MilliSeconds(50);
        const auto r = RunFabricRoce(f->GetNetwork(), AllToAll(200000), opt);
        NS_TEST_EXPECT_MSG_EQ(r.incompleteFlows, 0u, "every flow completes over the 4 links");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped + in flight");
        NS_TEST_EXPECT_MSG_EQ(r.droppedPackets, 0u, "nothing dropped");
        uint64_t carried = 0;
        for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
        {
            const uint64_t n
                = f->GetChannel(i)->GetDelivered(0) + f->GetChannel(i)->GetDelivered(1);
            if (!f->IsLinkUp(i))
            {
                NS_TEST_EXPECT_MSG_EQ(n, 0u, "a link that is down carries nothing");
            }
            carried += n;
        }
        NS_TEST_EXPECT_MSG_GT(carried, 0u, "the up links carried the traffic");
        f->Dispose();
    }
};

/// Drop policy: the frames on changed circuits are lost as ocs-dark, the rest is delivered.
class OcsDarkDropTestCase : public TestCase
{
  public:
    OcsDarkDropTestCase()
        : TestCase("Drop policy: traffic on changed circuits is dropped as ocs-dark, flows "
                   "recover")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<OcsFabric> f = Cluster("drop", MicroSeconds(10), MicroSeconds(5));
        f->SetCircuits(Ring());
        bool done = false;
        f->SetReconfigurationDoneCallback(Callback<void, const OcsReconfigRecord&>(
            [&done](const OcsReconfigRecord&) { done = true; }));
        Simulator::Schedule(MicroSeconds(100), [f]() { f->Reconfigure(RingChanged()); });
        FabricRoceRunOptions opt;
        opt.stopAt = MilliSeconds(100);
        const auto r = RunFabricRoce(f->GetNetwork(), AllToAll(4000000), opt);
        NS_TEST_EXPECT_MSG_EQ(done, true, "the reconfiguration ended");
        NS_TEST_EXPECT_MSG_GT(r.droppedPackets, 0u, "frames were on the changed circuits");
        const auto dark = r.drops.find(FabricDropReason::OCS_DARK);
        NS_TEST_EXPECT_MSG_EQ((dark != r.drops.end()), true, "drops have reason ocs-dark");
        if (dark != r.drops.end())
        {
            NS_TEST_EXPECT_MSG_EQ(dark->second, r.droppedPackets, "every drop is ocs-dark");
        }
        NS_TEST_EXPECT_MSG_EQ(r.incompleteFlows, 0u, "every flow completes (retransmissions)");
        NS_TEST_EXPECT_MSG_EQ(r.Unaccounted(), 0, "sent = delivered + dropped + in flight");
        NS_TEST_EXPECT_MSG_EQ(
            (f->MeasureLogicalTopology() == RealizeCircuits(f->GetWiring(), RingChanged()).logical),
            true,
            "the new topology is in place");
        f->Dispose();
    }
};

/// Controller stall: unhidden solve + switching + restoration, for two settings.
class OcsStallTestCase : public TestCase
{
  public:
    OcsStallTestCase()
        : TestCase("Reconfiguration stall = unhidden solve + switching + restoration")
    {
    }

  private:
    void DoRun() override
    {
        struct Setting
        {
            Time switching;
            Time restoration;
            Time solve;
            Time overlap;
        };
        for (const Setting& s :
             {Setting{MicroSeconds(10), MicroSeconds(5), MicroSeconds(20), MicroSeconds(8)},
              Setting{MilliSeconds(1), MicroSeconds(20), MicroSeconds(30), MicroSeconds(50)}})
        {
            Ptr<OcsFabric> f = Cluster("drop", s.switching, s.restoration);
            auto ctl = CreateObjectWithAttributes<OcsController>("Algorithm",
                                                                 StringValue("greedy"),
                                                                 "SolveTime",
                                                                 TimeValue(s.solve),
                                                                 "Overlap",
                                                                 TimeValue(s.overlap));
            ctl->SetFabric(f);
            std::vector<double> ring(16, 0.0);
            std::vector<double> pairs(16, 0.0);
            for (uint32_t a = 0; a < 4; ++a)
            {
                ring[a * 4 + (a + 1) % 4] = ring[((a + 1) % 4) * 4 + a] = 1;
                pairs[a * 4 + (a ^ 1)] = 3;
                pairs[a * 4 + (a ^ 2)] = 1;
            }
            ctl->Install(ring);
            OcsControllerStep step;
            bool done = false;
            Simulator::Schedule(MicroSeconds(50),
                                [&]()
                                {
                                    ctl->Apply(pairs,
                                               Callback<void, const OcsControllerStep&>(
                                                   [&](const OcsControllerStep& st)
                                                   {
                                                       step = st;
                                                       done = true;
                                                   }));
                                });
            Simulator::Stop(MilliSeconds(10));
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(done, true, "the reconfiguration ended");
            NS_TEST_EXPECT_MSG_GT(step.reconfig.changedCircuits, 0u, "circuits changed");
            const Time unhidden = s.solve > s.overlap ? s.solve - s.overlap : Time(0);
            NS_TEST_EXPECT_MSG_EQ(step.unhiddenSolve, unhidden, "overlap hides the solve");
            NS_TEST_EXPECT_MSG_EQ(step.Stall(),
                                  unhidden + s.switching + s.restoration,
                                  "stall = unhidden solve + switching + restoration");
            NS_TEST_EXPECT_MSG_EQ((f->MeasureLogicalTopology() == step.realized),
                                  true,
                                  "the realized topology is in place");
            f->Dispose();
            ctl->Dispose();
            Simulator::Destroy();
        }
    }
};

class OcsNetTestSuite : public TestSuite
{
  public:
    OcsNetTestSuite()
        : TestSuite("ocs-net", UNIT)
    {
        AddTestCase(new OcsCircuitTestCase, TestCase::QUICK);
        AddTestCase(new OcsDarkDropTestCase, TestCase::QUICK);
        AddTestCase(new OcsStallTestCase, TestCase::QUICK);
    }

  private:
    // Before a test case builds a network: the programs' resolution, which the run drivers
    // require for links of 100 Gb/s and beyond (a suite's setup runs before its cases).
    void DoSetup() override { UseFabricTimeResolution(); }
};

OcsNetTestSuite g_ocsNetTestSuite;

} // namespace
