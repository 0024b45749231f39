// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite for the flow level: small FlowSimulator runs checked against hand-computed
// max-min shares, a failure that re-shares a link, and the incremental recomputation against
// the full one.
#include "ns3/boolean.h"
#include "ns3/ecmp-routing.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <random>

using namespace ns3;

namespace
{

/// Hosts 0..h-1 on one leaf (a star), links at the default 400 Gb/s, ECMP routing.
Ptr<FabricRouting>
OneLeaf(uint32_t hosts)
{
    return MakeRouting<EcmpRouting>(LeafSpineLayout(hosts, hosts, 1).Build());
}

constexpr double RATE = 400e9; //!< FlowSimulator's DefaultLinkRate

/// Three flows into one host share its link in thirds; every wire byte is on every link of
/// its path.
class FlowIncastTestCase : public TestCase
{
  public:
    FlowIncastTestCase()
        : TestCase("incast: three flows share one host link equally, bytes conserved")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<FlowSimulator> sim = FlowSimHelper().Run(
            OneLeaf(4),
            {FlowSpec{0, 0, 3, 1000000}, FlowSpec{1, 1, 3, 1000000}, FlowSpec{2, 2, 3, 1000000}});
        const auto& rec = sim->GetRecords();
        double expected = 0;
        for (const auto& r : rec)
        {
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, "every flow completes");
            // Fluid time at a third of the link, plus the path tail (ideal FCT minus the fluid
            // time at full rate).
            const double tail = r.idealS - r.wireBytes * 8 / RATE;
            NS_TEST_EXPECT_MSG_EQ_TOL(r.FctSeconds(),
                                      3 * r.wireBytes * 8 / RATE + tail,
                                      1e-12,
                                      "flow " << r.spec.id << " got a third of the link");
            expected += r.wireBytes * r.dirLinks.size();
        }
        double carried = 0;
        for (const auto& l : sim->GetLinks())
        {
            carried += l.bytes;
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(carried, expected, expected * 1e-9, "bytes conserved");
    }
};

/// A failed host link stalls its flow; the survivor gets the shared link alone at once.
class FlowFailureTestCase : public TestCase
{
  public:
    FlowFailureTestCase()
        : TestCase("failure: a failed link stalls its flow, the survivor takes the whole link")
    {
    }

  private:
    void DoRun() override
    {
        // Flows 0 -> 2 and 1 -> 2 share host 2's link; host 0's link fails at once.
        Ptr<FabricRouting> routing = OneLeaf(3);
        const uint32_t host0Link = routing->GetGraph().GetPortLink(0, 0);
        Ptr<FlowSimulator> sim
            = FlowSimHelper().Run(routing,
                                  {FlowSpec{0, 0, 2, 2000000}, FlowSpec{1, 1, 2, 2000000}},
                                  {{0.0, FlowSimLinkEvent::Kind::FAIL_LINK, host0Link}});
        const auto& rec = sim->GetRecords();
        NS_TEST_EXPECT_MSG_EQ(rec[0].complete, false, "the cut-off flow cannot complete");
        NS_TEST_EXPECT_MSG_GT(rec[0].stalledS, 0.0, "the cut-off flow is stalled");
        NS_TEST_ASSERT_MSG_EQ(rec[1].complete, true, "the survivor completes");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            rec[1].FctSeconds(), rec[1].idealS, 1e-12, "the survivor sends at the full link rate");
    }
};

/// Poisson arrivals on an oversubscribed leaf-spine: the incremental recomputation (verified
/// local stage, threshold stage) gives the full recomputation's completion times.
class FlowIncrementalTestCase : public TestCase
{
  public:
    explicit FlowIncrementalTestCase(bool fluid)
        : TestCase(fluid ? "incremental recomputation equals the full one (fluid split)"
                         : "incremental recomputation equals the full one (hashed paths)"),
          m_fluid(fluid)
    {
    }

  private:
    void DoRun() override
    {
        std::mt19937 rng(5);
        const uint32_t hosts = 32;
        std::vector<FlowSpec> flows;
        double t = 0;
        for (uint32_t i = 0; i < 300; ++i)
        {
            t += (rng() % 1000) * 4e-10;
            const uint32_t src = rng() % hosts;
            const uint32_t dst = (src + 1 + rng() % (hosts - 1)) % hosts;
            flows.push_back(FlowSpec{i, src, dst, 20000 + rng() % 1000000, t});
        }
        auto graph = LeafSpineLayout(hosts, 8, 2).Build();
        auto run = [&](bool incremental)
        {
            FlowSimHelper h;
            h.SetAttribute("Incremental", BooleanValue(incremental));
            h.SetAttribute("FluidSplit", BooleanValue(m_fluid));
            return h.Run(MakeRouting<EcmpRouting>(graph, "Seed", UintegerValue(3)), flows);
        };
        Ptr<FlowSimulator> a = run(true);
        Ptr<FlowSimulator> b = run(false);
        for (size_t f = 0; f < flows.size(); ++f)
        {
            const FlowSimRecord& x = a->GetRecords()[f];
            const FlowSimRecord& y = b->GetRecords()[f];
            NS_TEST_ASSERT_MSG_EQ(x.complete && y.complete, true, "flow " << f << " completes");
            NS_TEST_EXPECT_MSG_EQ_TOL(x.finishS, y.finishS, 1e-9 * y.finishS, "flow " << f);
        }
        NS_TEST_EXPECT_MSG_EQ(
            a->GetStats().rateChanges, b->GetStats().rateChanges, "the same rate changes");
        NS_TEST_EXPECT_MSG_LT(a->GetStats().flowsRecomputed,
                              b->GetStats().flowsRecomputed,
                              "fewer flows water-filled");
    }

    bool m_fluid;
};

class FlowTestSuite : public TestSuite
{
  public:
    FlowTestSuite()
        : TestSuite("flow", UNIT)
    {
        AddTestCase(new FlowIncastTestCase, TestCase::QUICK);
        AddTestCase(new FlowFailureTestCase, TestCase::QUICK);
        AddTestCase(new FlowIncrementalTestCase(false), TestCase::QUICK);
        AddTestCase(new FlowIncrementalTestCase(true), TestCase::QUICK);
    }
};

static FlowTestSuite g_flowTestSuite;

} // namespace
