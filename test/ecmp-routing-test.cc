// SPDX-License-Identifier: GPL-2.0-only
// Seeded flow-hash ECMP: shortest paths only, determinism, rehash, polarization, multi-NIC hosts.
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-addressing.h"
#include "ns3/link-load.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/traffic-pattern.h"
#include "ns3/uinteger.h"
#include "ns3/zcube-topology.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

namespace
{

std::vector<FlowSpec>
AllReduce(uint32_t n)
{
    TrafficPatternParams tp;
    tp.hosts = n;
    return MakeTraffic(TrafficPattern::ALLREDUCE, tp);
}

Ptr<EcmpRouting>
Ecmp(std::shared_ptr<const FabricGraph> g, uint64_t seed, bool mix)
{
    return MakeRouting<EcmpRouting>(
        g, "Seed", UintegerValue(seed), "MixSwitchId", BooleanValue(mix));
}

} // namespace

TEST(EcmpRouting, ShortestPathsOnRoft)
{
    RoftLayout rl(64, 8, 4);
    auto g = rl.Build();
    auto ecmp = Ecmp(g, 1, true);
    // Same leaf: 2 hops, no spine; other leaf: 4 hops through exactly one spine.
    EXPECT_EQ(ecmp->GetDistance(0, 1), 2u);
    EXPECT_EQ(ecmp->GetDistance(0, 63), 4u);
    EXPECT_EQ(ecmp->GetCandidates(rl.LeafNode(0), 63).size(), 4u);
    EXPECT_EQ(ecmp->GetCandidates(rl.LeafNode(0), 1).size(), 1u);
    EXPECT_EQ(ecmp->GetCandidates(rl.SpineNode(2), 63).size(), 1u);
    for (const auto& f : AllReduce(64))
    {
        FabricPath p = TracePath(*ecmp, f.src, f.dst, f.Key());
        ASSERT_TRUE(p.delivered);
        ASSERT_EQ(p.dirLinks.size(), rl.LeafOf(f.src) == rl.LeafOf(f.dst) ? 2u : 4u);
        for (size_t i = 1; i + 1 < p.nodes.size(); ++i)
        {
            ASSERT_FALSE(g->IsHost(p.nodes[i])) << "a host forwarded";
        }
    }
}

TEST(EcmpRouting, SameSeedReproducesOtherSeedRehashes)
{
    RoftLayout rl(128, 16, 8);
    auto g = rl.Build();
    auto flows = AllReduce(128);
    auto spineOf = [&](const EcmpRouting& e)
    {
        std::vector<uint32_t> s;
        for (const auto& f : flows)
        {
            FabricPath p = TracePath(e, f.src, f.dst, f.Key());
            s.push_back(p.nodes.size() > 3 ? p.nodes[2] : UINT32_MAX);
        }
        return s;
    };
    auto a = spineOf(*Ecmp(g, 11, true));
    auto b = spineOf(*Ecmp(g, 11, true));
    auto c = spineOf(*Ecmp(g, 12, true));
    EXPECT_EQ(a, b);
    size_t changed = 0;
    size_t remote = 0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        if (a[i] != UINT32_MAX)
        {
            ++remote;
            changed += (a[i] != c[i]) ? 1 : 0;
        }
    }
    // A fresh draw over 8 spines moves about 7/8 of the flows.
    EXPECT_GT(double(changed) / remote, 0.8);
    EXPECT_LT(double(changed) / remote, 0.95);
}

TEST(EcmpRouting, PolarizationWithoutSwitchIdMixing)
{
    // Two ECMP stages: the leaf picks one of 8 spines, the spine one of 2 parallel down-links.
    // Without mixing both stages read the same hash, so each spine keeps using the same
    // down-link for every flow it receives (polarization); mixing the switch id fixes it.
    RoftLayout rl(128, 16, 8, RoftAttachment::CONTIGUOUS, 2);
    auto g = rl.Build();
    auto flows = AllReduce(128);
    auto usedDownlinks = [&](bool mix)
    {
        auto e = Ecmp(g, 5, mix);
        std::set<uint32_t> used;
        for (const auto& f : flows)
        {
            FabricPath p = TracePath(*e, f.src, f.dst, f.Key());
            if (p.dirLinks.size() == 4)
            {
                used.insert(p.dirLinks[2]); // spine -> leaf
            }
        }
        return used.size();
    };
    const size_t allDown = 8 * 8 * 2;
    EXPECT_EQ(usedDownlinks(true), allDown);
    EXPECT_LE(usedDownlinks(false), allDown / 2);
}

TEST(EcmpRouting, MultiNicHostsAndParallelLinks)
{
    // Two dual-homed hosts on two leaves, two spines, two parallel links leaf0-spine0.
    auto g = std::make_shared<FabricGraph>();
    for (int h = 0; h < 4; ++h)
    {
        g->AddNode(FabricRole::HOST, "h" + std::to_string(h), 0);
    }
    uint32_t l0 = g->AddNode(FabricRole::SWITCH, "l0", 1);
    uint32_t l1 = g->AddNode(FabricRole::SWITCH, "l1", 1);
    uint32_t s0 = g->AddNode(FabricRole::SWITCH, "s0", 2);
    uint32_t s1 = g->AddNode(FabricRole::SWITCH, "s1", 2);
    for (uint32_t h = 0; h < 4; ++h)
    {
        g->Connect(h, h < 2 ? l0 : l1);
    }
    g->Connect(0, l1); // host 0 has a second NIC on the other leaf
    g->Connect(l0, s0);
    g->Connect(l0, s0);
    g->Connect(l0, s1);
    g->Connect(l1, s0);
    g->Connect(l1, s1);
    auto e = Ecmp(g, 3, true);
    // Host 0 to host 3: via its second NIC it is 2 hops, so only that NIC is a candidate.
    EXPECT_EQ(e->GetCandidates(0, 3), std::vector<uint32_t>{1});
    EXPECT_EQ(e->GetDistance(0, 3), 2u);
    // Host 1 to host 3: 4 hops; leaf 0 has three equal uplinks (two parallel to s0).
    EXPECT_EQ(e->GetCandidates(l0, 3).size(), 3u);
    std::set<uint32_t> used;
    for (uint16_t sp = 49152; sp < 49152 + 200; ++sp)
    {
        FlowKey k{FabricAddressing::HostAddress(1), FabricAddressing::HostAddress(3), sp, 4791, 17};
        FabricPath p = TracePath(*e, 1, 3, k);
        ASSERT_TRUE(p.delivered);
        used.insert(p.dirLinks[1]);
    }
    EXPECT_EQ(used.size(), 3u);
}

TEST(EcmpRouting, ViewBatchReactsOnceWithTheSameTables)
{
    RoftLayout rl(64, 8, 4);
    auto g = rl.Build();
    // The spine links of leaf 0 to spines 0 and 1 fail in one instant.
    std::vector<uint32_t> failed;
    for (uint32_t p = 0; p < g->GetNPorts(rl.LeafNode(0)); ++p)
    {
        const uint32_t peer = g->GetPeer(rl.LeafNode(0), p);
        if (peer == rl.SpineNode(0) || peer == rl.SpineNode(1))
        {
            failed.push_back(g->GetEgressDirLink(rl.LeafNode(0), p) / 2);
        }
    }
    ASSERT_EQ(failed.size(), 2u);
    auto eager = Ecmp(g, 1, true);
    auto batched = Ecmp(g, 1, true);
    uint32_t eagerReactions = 0;
    uint32_t batchedReactions = 0;
    eager->TraceConnectWithoutContext(
        "RoutesChanged", Callback<void, uint32_t>([&](uint32_t) { ++eagerReactions; }));
    batched->TraceConnectWithoutContext(
        "RoutesChanged", Callback<void, uint32_t>([&](uint32_t) { ++batchedReactions; }));
    batched->BeginViewBatch();
    batched->BeginViewBatch(); // batches nest
    for (uint32_t l : failed)
    {
        eager->GetView()->FailLink(l);
        batched->GetView()->FailLink(l);
    }
    batched->EndViewBatch();
    EXPECT_EQ(batchedReactions, 0u); // the outer batch is still open
    batched->EndViewBatch();
    EXPECT_EQ(eagerReactions, 4u); // one per directed link
    EXPECT_EQ(batchedReactions, 1u);
    // The same equal-cost sets and paths as reacting to each change.
    EXPECT_EQ(batched->GetCandidates(rl.LeafNode(0), 63), eager->GetCandidates(rl.LeafNode(0), 63));
    EXPECT_EQ(batched->GetCandidates(rl.LeafNode(0), 63).size(), 2u);
    for (const auto& f : AllReduce(64))
    {
        EXPECT_EQ(TracePath(*batched, f.src, f.dst, f.Key()).nodes,
                  TracePath(*eager, f.src, f.dst, f.Key()).nodes);
    }
    // An empty batch does nothing; an unmatched end is an error.
    batched->BeginViewBatch();
    batched->EndViewBatch();
    EXPECT_EQ(batchedReactions, 1u);
    EXPECT_THROW(batched->EndViewBatch(), std::logic_error);
}

// The all-up tables are shared between routing objects over graphs of the same wiring
// (EcmpRouting::DoSetGraph): a graph wired otherwise, or the same graph object after a change,
// gets its own.
TEST(EcmpRouting, TablesFollowEachGraphsWiring)
{
    // Hosts 0, 1, 2 and switches 3, 4 joined by a link; host 1 on switch 3 (a) or 4 (b).
    auto wire = [](uint32_t hostOneOn)
    {
        auto g = std::make_shared<FabricGraph>();
        for (uint32_t h = 0; h < 3; ++h)
        {
            g->AddNode(FabricRole::HOST, "h" + std::to_string(h), 0);
        }
        g->AddNode(FabricRole::SWITCH, "s0", 1);
        g->AddNode(FabricRole::SWITCH, "s1", 1);
        g->Connect(0, 3);
        g->Connect(1, hostOneOn);
        g->Connect(2, 4);
        g->Connect(3, 4);
        return g;
    };
    // The tables of the last graph are cached (process-wide): GetTableBuilds counts the misses.
    for (int round = 0; round < 2; ++round)
    {
        uint64_t builds = EcmpRouting::GetTableBuilds();
        auto a = Ecmp(wire(3), 1, true);
        EXPECT_EQ(a->GetDistance(0, 1), 2u);
        EXPECT_EQ(a->GetDistance(1, 2), 3u);
        if (round == 1)
        {
            // The cache holds b's wiring of round 0 (in round 0 it may hold an earlier test's).
            EXPECT_EQ(EcmpRouting::GetTableBuilds(), builds + 1) << "other wiring: a miss";
        }
        builds = EcmpRouting::GetTableBuilds();
        auto a2 = Ecmp(wire(3), 2, false); // another graph object, the same wiring
        EXPECT_EQ(EcmpRouting::GetTableBuilds(), builds) << "the same wiring: a hit";
        EXPECT_EQ(a2->GetDistance(0, 1), 2u);
        EXPECT_EQ(a2->GetCandidates(4, 1), a->GetCandidates(4, 1));
        auto b = Ecmp(wire(4), 1, true);
        EXPECT_EQ(EcmpRouting::GetTableBuilds(), builds + 1) << "other wiring: a miss";
        EXPECT_EQ(b->GetDistance(0, 1), 3u);
        EXPECT_EQ(b->GetDistance(1, 2), 2u);
        EXPECT_EQ(a->GetDistance(0, 1), 2u) << "a's tables are its own";
    }
    // The same graph object, changed between two routing objects: the wiring decides, not the
    // object.
    auto g = wire(3);
    const uint64_t builds = EcmpRouting::GetTableBuilds();
    auto before = Ecmp(g, 1, true);
    EXPECT_EQ(before->GetDistance(0, 2), 3u);
    g->Connect(0, 4); // host 0 gets a second NIC on switch 4
    auto after = Ecmp(g, 1, true);
    EXPECT_EQ(EcmpRouting::GetTableBuilds(), builds + 2) << "changed wiring: a miss each time";
    EXPECT_EQ(after->GetDistance(0, 2), 2u);
    EXPECT_EQ(before->GetDistance(0, 2), 3u);
    // Reseeded shares the tables without SetGraph; a routing object on the same unchanged
    // graph object hits.
    auto again = Ecmp(g, 5, true);
    auto reseeded = after->Reseeded(9);
    EXPECT_EQ(EcmpRouting::GetTableBuilds(), builds + 2);
    EXPECT_EQ(again->GetCandidates(0, 2), after->GetCandidates(0, 2));
    EXPECT_EQ(reseeded->GetDistance(0, 2), 2u);
}

// FabricRouting::CreateByTypeId gives what an ObjectFactory with the same TypeId and
// attributes gives: the given values, every other attribute at its initial value (including
// one Config::SetDefault changed), the subclass as its instance TypeId (so attributes can be
// set by name later), and the same paths; and it refuses what ObjectFactory refuses.
TEST(EcmpRouting, CreateByTypeIdEqualsObjectFactory)
{
    RoftLayout rl(64, 8, 4);
    auto g = rl.Build();
    const TypeId tid = EcmpRouting::GetTypeId();
    TypeId::AttributeInformation mixInfo;
    ASSERT_TRUE(tid.LookupAttributeByName("MixSwitchId", &mixInfo));
    const Ptr<const AttributeValue> mixDefault = mixInfo.initialValue; // restored below
    Config::SetDefault("ns3::EcmpRouting::MixSwitchId", BooleanValue(false));
    // A later setting of a name wins, as in an ObjectFactory.
    Ptr<FabricRouting> fast = FabricRouting::CreateByTypeId(
        tid, {{"Seed", Create<UintegerValue>(3)}, {"Seed", Create<UintegerValue>(11)}});
    ObjectFactory factory(tid.GetName());
    factory.Set("Seed", UintegerValue(11));
    Ptr<FabricRouting> slow = factory.Create<FabricRouting>();
    Config::SetDefault("ns3::EcmpRouting::MixSwitchId", *mixDefault);
    EXPECT_EQ(fast->GetInstanceTypeId(), tid);
    EXPECT_EQ(slow->GetInstanceTypeId(), tid);
    for (const std::string name : {"Seed", "MixSwitchId", "HostHashesPorts"})
    {
        StringValue a;
        StringValue b;
        fast->GetAttribute(name, a);
        slow->GetAttribute(name, b);
        EXPECT_EQ(a.Get(), b.Get()) << name;
    }
    BooleanValue mix;
    fast->GetAttribute("MixSwitchId", mix);
    EXPECT_FALSE(mix.Get());                       // the default as Config::SetDefault left it
    fast->SetAttribute("Seed", UintegerValue(11)); // by name, through the instance TypeId
    fast->SetGraph(g);
    slow->SetGraph(g);
    for (const auto& f : AllReduce(64))
    {
        EXPECT_EQ(TracePath(*fast, f.src, f.dst, f.Key()).nodes,
                  TracePath(*slow, f.src, f.dst, f.Key()).nodes);
    }
    EXPECT_THROW(FabricRouting::CreateByTypeId(tid, {{"NoSuch", Create<UintegerValue>(1)}}),
                 std::invalid_argument);
    EXPECT_THROW(
        FabricRouting::CreateByTypeId(tid, {{"MixSwitchId", Create<StringValue>("maybe")}}),
        std::invalid_argument);
    EXPECT_THROW(FabricRouting::CreateByTypeId(Object::GetTypeId(), {}), std::invalid_argument);
    EXPECT_THROW(FabricRouting::CreateByTypeId(FabricRouting::GetTypeId(), {}), // abstract
                 std::invalid_argument);
}
