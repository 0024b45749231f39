// SPDX-License-Identifier: GPL-2.0-only
// FabricState (links and nodes up/down, overlapping failures, listeners) and routing views:
// a scheme decides only from what its view believes.
#include "ns3/boolean.h"
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-addressing.h"
#include "ns3/fabric-state.h"
#include "ns3/traffic-pattern.h"
#include "ns3/uinteger.h"
#include "ns3/zcube-routing.h"
#include "ns3/zcube-topology.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/// h0 - s0 = s1 - h1: two parallel links between the switches.
std::shared_ptr<FabricGraph>
TwoSwitches()
{
    auto g = std::make_shared<FabricGraph>();
    g->AddNode(FabricRole::HOST, "h0", 0);
    g->AddNode(FabricRole::HOST, "h1", 0);
    const uint32_t s0 = g->AddNode(FabricRole::SWITCH, "s0", 1);
    const uint32_t s1 = g->AddNode(FabricRole::SWITCH, "s1", 1);
    g->Connect(0, s0);  // link 0
    g->Connect(1, s1);  // link 1
    g->Connect(s0, s1); // link 2
    g->Connect(s0, s1); // link 3
    return g;
}

FlowKey
Key(uint32_t src, uint32_t dst, uint16_t sport)
{
    return FlowKey{FabricAddressing::HostAddress(src),
                   FabricAddressing::HostAddress(dst),
                   sport,
                   ROCEV2_UDP_PORT,
                   17};
}

} // namespace

TEST(FabricState, AllUpAtStartAndDirectionsIndependent)
{
    auto g = TwoSwitches();
    FabricState st(g);
    for (uint32_t d = 0; d < 2 * g->GetNLinks(); ++d)
    {
        EXPECT_TRUE(st.IsDirLinkUp(d));
        EXPECT_TRUE(st.IsDirLinkUsable(d));
    }
    st.FailDirLink(4); // s0 -> s1 on link 2
    EXPECT_FALSE(st.IsDirLinkUsable(4));
    EXPECT_TRUE(st.IsDirLinkUsable(5));
    EXPECT_FALSE(st.IsPortUsable(2, g->GetNPorts(2) - 2)); // s0's port on link 2
    EXPECT_EQ(st.GetNDirLinksDown(), 1u);
    st.RepairDirLink(4);
    EXPECT_TRUE(st.IsDirLinkUsable(4));
    EXPECT_EQ(st.GetVersion(), 2u);
}

TEST(FabricState, NodeFailureMakesItsLinksUnusableNotDown)
{
    auto g = TwoSwitches();
    FabricState st(g);
    st.FailNode(3); // s1
    EXPECT_TRUE(st.IsDirLinkUp(4));
    EXPECT_FALSE(st.IsDirLinkUsable(4)); // into the dead switch
    EXPECT_FALSE(st.IsDirLinkUsable(5)); // out of it
    EXPECT_FALSE(st.IsDirLinkUsable(2)); // h1 -> s1
    EXPECT_TRUE(st.IsDirLinkUsable(0));  // h0 -> s0 untouched
    st.RepairNode(3);
    for (uint32_t d = 0; d < 2 * g->GetNLinks(); ++d)
    {
        EXPECT_TRUE(st.IsDirLinkUsable(d)) << d;
    }
}

TEST(FabricState, OverlappingFailuresNeedEveryRepair)
{
    auto g = TwoSwitches();
    FabricState st(g);
    st.FailLink(2);
    st.FailNode(2);    // s0, an end of link 2
    st.FailDirLink(4); // the same direction twice
    st.RepairLink(2);
    EXPECT_FALSE(st.IsDirLinkUp(4)); // one failure of that direction left
    EXPECT_TRUE(st.IsDirLinkUp(5));
    EXPECT_FALSE(st.IsDirLinkUsable(5)); // its tail switch is still down
    st.RepairNode(2);
    EXPECT_TRUE(st.IsDirLinkUsable(5));
    EXPECT_FALSE(st.IsDirLinkUsable(4));
    st.RepairDirLink(4);
    EXPECT_TRUE(st.IsDirLinkUsable(4));
    EXPECT_THROW(st.RepairDirLink(4), std::invalid_argument);
    EXPECT_THROW(st.RepairNode(2), std::invalid_argument);
    EXPECT_THROW(st.FailDirLink(8), std::invalid_argument);
    EXPECT_THROW(st.FailNode(4), std::invalid_argument);
}

TEST(FabricState, ListenersHearFlipsOnlyInOrder)
{
    auto g = TwoSwitches();
    FabricState st(g);
    std::vector<FabricStateChange> heard;
    const uint32_t id = st.AddListener([&](const FabricStateChange& c) { heard.push_back(c); });
    st.FailLink(3);
    st.FailDirLink(6); // already down: no flip, no notification
    st.RepairDirLink(6);
    st.RepairLink(3);
    ASSERT_EQ(heard.size(), 4u);
    EXPECT_EQ(heard[0].id, 6u);
    EXPECT_FALSE(heard[0].up);
    EXPECT_EQ(heard[1].id, 7u);
    EXPECT_EQ(heard[3].id, 7u);
    EXPECT_TRUE(heard[3].up);
    EXPECT_EQ(heard[3].version, st.GetVersion());
    st.RemoveListener(id);
    st.FailNode(0);
    EXPECT_EQ(heard.size(), 4u);
}

TEST(FabricState, CopyFromNotifiesEveryDifference)
{
    auto g = TwoSwitches();
    FabricState truth(g);
    FabricState view(g);
    truth.FailLink(2);
    truth.FailNode(1);
    uint32_t heard = 0;
    view.AddListener([&](const FabricStateChange&) { ++heard; });
    view.CopyFrom(truth);
    EXPECT_EQ(heard, 3u);
    for (uint32_t d = 0; d < 2 * g->GetNLinks(); ++d)
    {
        EXPECT_EQ(view.IsDirLinkUsable(d), truth.IsDirLinkUsable(d)) << d;
    }
    FabricState other(TwoSwitches());
    EXPECT_THROW(view.CopyFrom(other), std::invalid_argument);
}

TEST(RoutingView, EcmpRehashesOnlyTheFlowsOfTheDeadLink)
{
    RoftLayout rl(64, 8, 4);
    auto g = rl.Build();
    auto ecmp = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(3));
    TrafficPatternParams tp;
    tp.hosts = 64;
    const auto flows = MakeTraffic(TrafficPattern::ALLREDUCE, tp);
    std::vector<FabricPath> before;
    for (const auto& f : flows)
    {
        before.push_back(TracePath(*ecmp, f.src, f.dst, f.Key()));
    }
    // Leaf 0's first uplink (to spine 0) dies in the truth; the view has not learnt it yet.
    const uint32_t dead = g->GetEgressDirLink(rl.LeafNode(0), 8);
    FabricState truth(g);
    truth.FailLink(dead / 2);
    uint32_t into = 0;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FabricPath p = TracePath(*ecmp, flows[i].src, flows[i].dst, flows[i].Key());
        EXPECT_EQ(p.nodes, before[i].nodes) << "a view that has not learnt changes nothing";
        for (uint32_t d : p.dirLinks)
        {
            into += (d / 2 == dead / 2) ? 1 : 0;
        }
    }
    EXPECT_GT(into, 0u) << "the unlearnt view still sends flows into the dead link";
    // The view learns: flows through the dead link move, every other flow keeps its path.
    ecmp->GetView()->CopyFrom(truth);
    uint32_t moved = 0;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FabricPath p = TracePath(*ecmp, flows[i].src, flows[i].dst, flows[i].Key());
        ASSERT_TRUE(p.delivered);
        bool usedDead = false;
        for (uint32_t d : before[i].dirLinks)
        {
            usedDead = usedDead || d / 2 == dead / 2;
        }
        for (uint32_t d : p.dirLinks)
        {
            EXPECT_NE(d / 2, dead / 2);
        }
        if (usedDead)
        {
            ++moved;
        }
        else
        {
            EXPECT_EQ(p.nodes, before[i].nodes) << "unaffected flow rehashed";
        }
    }
    EXPECT_GT(moved, 0u);
}

namespace
{

/// Two leaves (one host each) joined through four spines: leaf 0 has four equal-cost uplinks.
struct FourUplinks
{
    std::shared_ptr<FabricGraph> g{std::make_shared<FabricGraph>()};
    std::vector<uint32_t> uplinks; //!< leaf 0's links to spines 0..3

    FourUplinks()
    {
        g->AddNode(FabricRole::HOST, "h0", 0);
        g->AddNode(FabricRole::HOST, "h1", 0);
        g->AddNode(FabricRole::SWITCH, "L0", 1);
        g->AddNode(FabricRole::SWITCH, "L1", 1);
        for (uint32_t s = 0; s < 4; ++s)
        {
            g->AddNode(FabricRole::SWITCH, "S" + std::to_string(s), 2);
        }
        g->Connect(0, 2);
        g->Connect(1, 3);
        for (uint32_t s = 4; s < 8; ++s)
        {
            uplinks.push_back(g->GetNLinks());
            g->Connect(2, s);
            g->Connect(3, s);
        }
    }

    static FlowKey Key(uint32_t i)
    {
        FlowSpec f;
        f.src = 0;
        f.dst = 1;
        f.srcPort = 1024 + i;
        return f.Key();
    }
};

} // namespace

// Local fast failover (the node has learnt the dead port, its groups not recomputed yet) and
// the recomputed group (ComputeDelay later) pick the same survivor: a flow moves once.
TEST(RoutingView, EcmpFastFailoverChoiceIsKeptWhenTheGroupIsRecomputed)
{
    FourUplinks t;
    auto r = MakeRouting<EcmpRouting>(t.g, "Seed", UintegerValue(5));
    std::vector<std::shared_ptr<FabricState>> views;
    for (uint32_t v = 0; v < t.g->GetNNodes(); ++v)
    {
        views.push_back(std::make_shared<FabricState>(t.g));
        r->SetNodeView(v, views.back());
    }
    const uint32_t leaf = 2;
    const uint32_t deadPort = t.g->GetLink(t.uplinks[0]).port[0];
    const uint32_t n = 4000;
    std::vector<uint32_t> before(n);
    std::vector<uint32_t> failover(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        before[i] = r->SelectPort(leaf, 0, 1, FourUplinks::Key(i));
    }
    views[leaf]->FailLink(t.uplinks[0]);
    for (uint32_t i = 0; i < n; ++i)
    {
        failover[i] = r->SelectPort(leaf, 0, 1, FourUplinks::Key(i));
    }
    r->NotifyNodeConverged(leaf);
    uint32_t displaced = 0;
    std::vector<uint32_t> perSurvivor(8, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t now = r->SelectPort(leaf, 0, 1, FourUplinks::Key(i));
        EXPECT_NE(failover[i], deadPort);
        EXPECT_EQ(now, failover[i]) << "flow " << i << " moved again at convergence";
        if (before[i] == deadPort)
        {
            ++displaced;
            ++perSurvivor.at(now);
        }
        else
        {
            EXPECT_EQ(failover[i], before[i]) << "a flow of a live member moved";
        }
    }
    ASSERT_GT(displaced, n / 8);
    // The displaced flows spread over the three survivors (each gets a fair part).
    uint32_t used = 0;
    for (uint32_t c : perSurvivor)
    {
        used += c > 0 ? 1 : 0;
        EXPECT_LT(c, displaced / 2);
    }
    EXPECT_EQ(used, 3u);
}

// A flow displaced by one failure stays where it went when another member fails (resilient
// groups move only the flows of the member that died), with one view for all nodes.
TEST(RoutingView, EcmpDisplacedFlowStaysWhenAnotherMemberFails)
{
    FourUplinks t;
    auto r = MakeRouting<EcmpRouting>(t.g, "Seed", UintegerValue(5));
    const uint32_t leaf = 2;
    const uint32_t n = 4000;
    r->GetView()->FailLink(t.uplinks[0]);
    std::vector<uint32_t> first(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        first[i] = r->SelectPort(leaf, 0, 1, FourUplinks::Key(i));
    }
    const uint32_t secondPort = t.g->GetLink(t.uplinks[1]).port[0];
    r->GetView()->FailLink(t.uplinks[1]);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t now = r->SelectPort(leaf, 0, 1, FourUplinks::Key(i));
        if (first[i] == secondPort)
        {
            ++moved;
            EXPECT_NE(now, secondPort);
        }
        else
        {
            EXPECT_EQ(now, first[i]) << "flow " << i << " moved by a failure of another member";
        }
    }
    EXPECT_GT(moved, 0u);
}

TEST(RoutingView, ZCubeParallelLinksRehashSingleLinkHasNoRoute)
{
    ZCubeLayout zl(32, 8, 2);
    auto g = zl.Build();
    auto zr = MakeRouting<ZCubeRouting>(g, "Seed", UintegerValue(1));
    // O_0 -> E_3 has two parallel links; kill the first in the view.
    const uint32_t o0 = zl.OddNode(0);
    zr->GetView()->FailLink(g->GetPortLink(o0, zl.OddCorePort(3, 0)));
    for (uint16_t sp = 49152; sp < 49152 + 64; ++sp)
    {
        const FabricPath p = TracePath(*zr, 0, 31, Key(0, 31, sp));
        ASSERT_TRUE(p.delivered);
        EXPECT_EQ(p.dirLinks[1], g->GetEgressDirLink(o0, zl.OddCorePort(3, 1)));
    }
    EXPECT_EQ(zr->Candidates(o0, 0, 31), std::vector<uint32_t>{zl.OddCorePort(3, 1)});
    zr->GetView()->FailLink(g->GetPortLink(o0, zl.OddCorePort(3, 1)));
    EXPECT_FALSE(TracePath(*zr, 0, 31, Key(0, 31, 1)).delivered);
    EXPECT_TRUE(zr->Candidates(o0, 0, 31).empty());
    EXPECT_TRUE(TracePath(*zr, 0, 1, Key(0, 1, 1)).delivered) << "other pairs unaffected";
}

TEST(RoutingView, SharedViewAndForeignViewRejected)
{
    RoftLayout rl(16, 4, 2);
    auto g = rl.Build();
    auto view = std::make_shared<FabricState>(g);
    auto a = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(1));
    auto b = MakeRouting<EcmpRouting>(g, "Seed", UintegerValue(2));
    a->SetView(view);
    b->SetView(view);
    view->FailNode(rl.SpineNode(0));
    for (auto r : {a, b})
    {
        for (uint32_t dst = 4; dst < 16; ++dst)
        {
            const FabricPath p = TracePath(*r, 0, dst, Key(0, dst, 7));
            ASSERT_TRUE(p.delivered);
            for (uint32_t v : p.nodes)
            {
                EXPECT_NE(v, rl.SpineNode(0));
            }
        }
    }
    auto other = std::make_shared<FabricState>(rl.Build());
    EXPECT_THROW(a->SetView(other), std::invalid_argument);
    EXPECT_THROW(a->SetGraph(g), std::invalid_argument);
    auto unbound = CreateObject<EcmpRouting>();
    EXPECT_THROW(unbound->SetView(view), std::logic_error);
    EXPECT_THROW(MakeRouting<ZCubeRouting>(g), std::invalid_argument) << "ZCube on a ROFT graph";
}
