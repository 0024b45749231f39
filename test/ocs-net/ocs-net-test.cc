// SPDX-License-Identifier: GPL-2.0-only
// OCS clusters at packet level: traffic crosses only established duplex circuits, one-way
// circuits bring nothing up, the drop and drain policies during reconfiguration, unchanged
// circuits carry traffic throughout, stall = switching + restoration, and the logical
// topology measured from the devices equals the configuration's realized matrix.
#include "../ns3-sim-fixture.h"
#include "../ocs/ocs-test-util.h"

#include "ns3/core-module.h"
#include "ns3/ecmp-routing.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-link-device.h"
#include "ns3/ocs-cluster-helper.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-controller.h"
#include "ns3/ocs-reconfig-run.h"
#include "ns3/pfc-helper.h"
#include "ns3/pfc-network.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"

#include <gtest/gtest.h>

#include <functional>
#include <iomanip>
#include <map>

using namespace ns3;

namespace
{

/// Uniform 4 EGs x 2 ports: OCS 0 joins EGs 0-1 and 2-3, OCS 1 joins 0-2 and 1-3 (a ring).
std::vector<OcsCircuit>
RingP2()
{
    return {{0, 0, 1}, {0, 1, 0}, {0, 2, 3}, {0, 3, 2}, {1, 0, 2}, {1, 2, 0}, {1, 1, 3}, {1, 3, 1}};
}

/// Uniform 4 EGs x 3 ports: the ring plus OCS 2 joining 0-3 and 1-2.
std::vector<OcsCircuit>
Ring()
{
    auto c = RingP2();
    c.insert(c.end(), {{2, 0, 3}, {2, 3, 0}, {2, 1, 2}, {2, 2, 1}});
    return c;
}

/// Ring() with OCS 1 changed to 0-3 and 1-2 (OCS 0 and 2 unchanged): the EGs stay connected
/// through the reconfiguration, and afterwards EG pairs 0-3 and 1-2 have two parallel links.
std::vector<OcsCircuit>
RingChanged()
{
    return {{0, 0, 1},
            {0, 1, 0},
            {0, 2, 3},
            {0, 3, 2},
            {1, 0, 3},
            {1, 3, 0},
            {1, 1, 2},
            {1, 2, 1},
            {2, 0, 3},
            {2, 3, 0},
            {2, 1, 2},
            {2, 2, 1}};
}

/// All-to-all flows among the 4 hosts of a 4-EG cluster, \p bytes each.
std::vector<FlowSpec>
FourHostAllToAll(uint64_t bytes)
{
    std::vector<FlowSpec> flows;
    for (uint32_t s = 0; s < 4; ++s)
    {
        for (uint32_t d = 0; d < 4; ++d)
        {
            if (s != d)
            {
                FlowSpec fl;
                fl.id = uint32_t(flows.size());
                fl.src = s;
                fl.dst = d;
                fl.bytes = bytes;
                flows.push_back(fl);
            }
        }
    }
    return flows;
}

uint64_t
Carried(Ptr<OcsFabric> f, uint32_t i)
{
    return f->GetChannel(i)->GetDelivered(0) + f->GetChannel(i)->GetDelivered(1);
}

class OcsNet : public Ns3SimTest
{
  protected:
    static Ptr<OcsFabric> Cluster(const OcsWiring& w,
                                  const std::string& policy = "drop",
                                  Time switching = MicroSeconds(10),
                                  Time restoration = MicroSeconds(5))
    {
        OcsClusterHelper helper;
        helper.SetSwitchAttribute("SwitchingDelay", TimeValue(switching));
        helper.SetSwitchAttribute("RestorationDelay", TimeValue(restoration));
        helper.SetFabricAttribute("Policy", StringValue(policy));
        return helper.Install(w);
    }

    static FlowSpec Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
    {
        FlowSpec f;
        f.id = id;
        f.src = src;
        f.dst = dst;
        f.bytes = bytes;
        return f;
    }

    /// Logical link index joining EG ports (a, x) and (b, y), or UINT32_MAX.
    static uint32_t LinkOf(Ptr<OcsFabric> f, uint32_t a, uint32_t x, uint32_t b, uint32_t y)
    {
        const auto& links = f->GetLogicalLinks();
        for (uint32_t i = 0; i < links.size(); ++i)
        {
            const auto& l = links[i];
            if ((l.end[0] == OcsEgPort{a, x} && l.end[1] == OcsEgPort{b, y})
                || (l.end[0] == OcsEgPort{b, y} && l.end[1] == OcsEgPort{a, x}))
            {
                return i;
            }
        }
        return UINT32_MAX;
    }

    static void ExpectAccounted(const FabricRoceRunResult& r)
    {
        EXPECT_EQ(r.Unaccounted(), 0) << "sent " << r.sentPackets << " delivered "
                                      << r.deliveredPackets << " dropped " << r.droppedPackets;
        EXPECT_EQ(r.incompleteFlows, 0u);
        EXPECT_EQ(r.inFlightPackets, 0);
    }

    /// All-to-all flows between the 4 hosts of the 4-EG cluster.
    static std::vector<FlowSpec> AllToAll(uint64_t bytes) { return FourHostAllToAll(bytes); }
};

TEST_F(OcsNet, GraphHasOneLinkPerRealizablePortPair)
{
    std::vector<OcsLogicalLink> links;
    // Uniform: ports x of two EGs meet on OCS x only.
    OcsClusterHelper::BuildGraph(OcsWiring(OcsWiringType::UNIFORM, 4, 2), 1, &links);
    EXPECT_EQ(links.size(), 2u * 6u);
    for (const auto& l : links)
    {
        EXPECT_EQ(l.end[0].port, l.end[1].port);
    }
    // Cross: port 2j of one EG meets port 2j+1 of another.
    OcsClusterHelper::BuildGraph(OcsWiring(OcsWiringType::CROSS, 4, 2), 1, &links);
    EXPECT_EQ(links.size(), 12u); // ordered EG pairs (a, b), a != b: a's port 0 with b's port 1
    for (const auto& l : links)
    {
        EXPECT_NE(l.end[0].port, l.end[1].port);
        EXPECT_NE(l.dir[0].ocs, l.dir[1].ocs);
    }
    EXPECT_THROW(OcsClusterHelper::BuildGraph(OcsWiring(OcsWiringType::UNIFORM, 4, 2), 0, &links),
                 std::invalid_argument);
}

TEST_F(OcsNet, TrafficCrossesOnlyEstablishedDuplexCircuits)
{
    OcsWiring w(OcsWiringType::UNIFORM, 4, 2);
    Ptr<OcsFabric> f = Cluster(w);
    f->SetCircuits(RingP2());
    EXPECT_EQ(f->MeasureLogicalTopology(), RealizeCircuits(w, RingP2()).logical);
    const auto r = RunFabricRoce(f->GetNetwork(), AllToAll(200000), {});
    ExpectAccounted(r);
    EXPECT_EQ(r.droppedPackets, 0u);
    uint64_t carried = 0;
    for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
    {
        const uint64_t n = f->GetChannel(i)->GetDelivered(0) + f->GetChannel(i)->GetDelivered(1);
        if (f->IsLinkUp(i))
        {
            carried += n;
        }
        else
        {
            EXPECT_EQ(n, 0u) << "link " << i << " has no circuit but carried frames";
        }
        EXPECT_EQ(f->GetChannel(i)->GetDarkDrops(), 0u);
    }
    EXPECT_GT(carried, 0u);
    // EG 0 and EG 3 have no direct link: their flows went two hops.
    EXPECT_FALSE(f->IsLinkUp(LinkOf(f, 0, 0, 3, 0)));
    EXPECT_FALSE(f->IsLinkUp(LinkOf(f, 0, 1, 3, 1)));
    for (const auto& fl : r.flows)
    {
        if ((fl.spec.src == 0 && fl.spec.dst == 3) || (fl.spec.src == 3 && fl.spec.dst == 0))
        {
            EXPECT_EQ(fl.path.size(), 5u); // host, EG, EG, EG, host
        }
    }
}

TEST_F(OcsNet, OneWayCircuitNeverBringsALinkUp)
{
    OcsWiring w(OcsWiringType::UNIFORM, 4, 2);
    Ptr<OcsFabric> f = Cluster(w);
    f->SetCircuits({{0, 0, 1}}); // TX(EG0) -> RX(EG1) only
    const uint32_t l01 = LinkOf(f, 0, 0, 1, 0);
    ASSERT_NE(l01, UINT32_MAX);
    EXPECT_FALSE(f->IsLinkUp(l01));
    const auto& truth = f->GetNetwork()->GetState();
    EXPECT_FALSE(truth->IsDirLinkUsable(2 * f->GetLogicalLinks()[l01].link));
    EXPECT_FALSE(truth->IsDirLinkUsable(2 * f->GetLogicalLinks()[l01].link + 1));
    EXPECT_EQ(f->MeasureLogicalTopology().Total(), 0);
    EXPECT_EQ(RealizeCircuits(w, {{0, 0, 1}}).oneWayCircuits, 1u);
    // Add duplex links 0-2, 1-3 (OCS 1) and 2-3 (OCS 0): host 0 reaches host 1 over three EG
    // hops, never over the one-way circuit.
    const std::vector<OcsCircuit> c{
        {0, 0, 1}, {0, 2, 3}, {0, 3, 2}, {1, 0, 2}, {1, 2, 0}, {1, 1, 3}, {1, 3, 1}};
    f->SetCircuits(c);
    EXPECT_FALSE(f->IsLinkUp(l01));
    EXPECT_EQ(f->MeasureLogicalTopology(), RealizeCircuits(w, c).logical);
    const auto r
        = RunFabricRoce(f->GetNetwork(), {Flow(0, 0, 1, 100000), Flow(1, 1, 0, 100000)}, {});
    ExpectAccounted(r);
    for (const auto& fl : r.flows)
    {
        EXPECT_EQ(fl.path.size(), 6u); // host, EG, EG, EG, EG, host
    }
    EXPECT_EQ(Carried(f, l01), 0u);
    EXPECT_EQ(f->GetChannel(l01)->GetDarkDrops(), 0u);
    // The reverse circuit completes the duplex link.
    Ptr<OcsFabric> g = Cluster(w);
    g->SetCircuits({{0, 0, 1}, {0, 1, 0}});
    EXPECT_TRUE(g->IsLinkUp(LinkOf(g, 0, 0, 1, 0)));
}

/// What a reconfiguration of OCS 1 at 100 us under all-to-all traffic did.
struct WindowRun
{
    FabricRoceRunResult r;
    OcsReconfigRecord rec;
    bool done{false};
    uint64_t unchangedInWindow{0}; //!< frames the unchanged link carried inside the window
    bool unchangedWentDown{false};
    uint64_t newLinksCarried{0}; //!< frames the two new links carried
};

/// Reconfigure the ring (OCS 1 changes, OCS 0 does not) at 100 us while 12 flows of 4 MB run.
WindowRun
RunWindow(Ptr<OcsFabric> f)
{
    WindowRun out;
    const uint32_t unchanged = [f]()
    {
        const auto& links = f->GetLogicalLinks();
        for (uint32_t i = 0; i < links.size(); ++i)
        {
            if (links[i].end[0] == OcsEgPort{0, 0} && links[i].end[1] == OcsEgPort{1, 0})
            {
                return i;
            }
        }
        return UINT32_MAX;
    }();
    EXPECT_TRUE(f->IsLinkUp(unchanged));
    auto atStart = std::make_shared<uint64_t>(0);
    const uint32_t unchangedId = f->GetLogicalLinks()[unchanged].link;
    f->TraceConnectWithoutContext("LinkState",
                                  Callback<void, uint32_t, bool>(
                                      [&out, unchangedId](uint32_t link, bool up)
                                      {
                                          if (!up && link == unchangedId)
                                          {
                                              out.unchangedWentDown = true;
                                          }
                                      }));
    f->SetReconfigurationDoneCallback(Callback<void, const OcsReconfigRecord&>(
        [&out, atStart, f, unchanged](const OcsReconfigRecord& rec)
        {
            out.rec = rec;
            out.done = true;
            out.unchangedInWindow = Carried(f, unchanged) - *atStart;
        }));
    Simulator::Schedule(MicroSeconds(100),
                        [f, atStart, unchanged]()
                        {
                            *atStart = Carried(f, unchanged);
                            f->Reconfigure(RingChanged());
                        });
    const std::vector<FlowSpec> flows = FourHostAllToAll(4000000);
    FabricRoceRunOptions opt;
    opt.stopAt = MilliSeconds(100);
    out.r = RunFabricRoce(f->GetNetwork(), flows, opt);
    for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
    {
        const auto& l = f->GetLogicalLinks()[i];
        const bool isNew = (l.end[0] == OcsEgPort{0, 1} && l.end[1] == OcsEgPort{3, 1})
                        || (l.end[0] == OcsEgPort{1, 1} && l.end[1] == OcsEgPort{2, 1});
        if (isNew)
        {
            EXPECT_TRUE(f->IsLinkUp(i));
            out.newLinksCarried += Carried(f, i);
        }
    }
    return out;
}

TEST_F(OcsNet, DropPolicyLosesChangedCircuitsTrafficAsOcsDark)
{
    OcsWiring w(OcsWiringType::UNIFORM, 4, 3);
    Ptr<OcsFabric> f = Cluster(w, "drop");
    f->SetCircuits(Ring());
    const WindowRun run = RunWindow(f);
    ASSERT_TRUE(run.done);
    ExpectAccounted(run.r);
    // Everything lost was on the changed circuits, and reported as ocs-dark.
    EXPECT_GT(run.r.droppedPackets, 0u);
    ASSERT_EQ(run.r.drops.count(FabricDropReason::OCS_DARK), 1u);
    EXPECT_EQ(run.r.drops.at(FabricDropReason::OCS_DARK), run.r.droppedPackets);
    // The unchanged circuit carried traffic throughout the window and never went down.
    EXPECT_FALSE(run.unchangedWentDown);
    EXPECT_GT(run.unchangedInWindow, 0u);
    // Routes follow the new topology: the new links carried traffic.
    EXPECT_GT(run.newLinksCarried, 0u);
    EXPECT_EQ(f->MeasureLogicalTopology(), RealizeCircuits(w, RingChanged()).logical);
    EXPECT_EQ(run.rec.linksDown, 2u);
    EXPECT_EQ(run.rec.changedCircuits, 4u);
}

TEST_F(OcsNet, DrainPolicySendsNothingIntoChangedCircuits)
{
    OcsWiring w(OcsWiringType::UNIFORM, 4, 3);
    Ptr<OcsFabric> f = Cluster(w, "drain");
    f->SetCircuits(Ring());
    const WindowRun run = RunWindow(f);
    ASSERT_TRUE(run.done);
    ExpectAccounted(run.r);
    // Nothing was handed to a dark circuit, nothing was lost.
    EXPECT_EQ(run.r.droppedPackets, 0u);
    for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
    {
        EXPECT_EQ(f->GetChannel(i)->GetDarkDrops(), 0u) << "link " << i;
    }
    EXPECT_FALSE(run.unchangedWentDown);
    EXPECT_GT(run.unchangedInWindow, 0u);
    EXPECT_GT(run.newLinksCarried, 0u);
    // Draining took some time (traffic was in flight on the changed links), then the OCS
    // switched as with the drop policy.
    EXPECT_GT(run.rec.switchStart, run.rec.requested);
    EXPECT_EQ(run.rec.end - run.rec.switchStart, MicroSeconds(15));
}

/// What one policy did to two-host EGs whose traffic all crosses the circuits that change.
struct PolicyRun
{
    FabricRoceRunResult r;
    OcsReconfigRecord rec;
    bool done{false};
    uint64_t darkDrops{0};
};

/// Called by RunPolicy before the run is scheduled (lossless: the PfcNetwork, else null).
using PolicyProbe = std::function<void(Ptr<OcsFabric>, Ptr<PfcNetwork>)>;

/// Uniform 4 EGs x 3 ports, 2 hosts per EG, Ring(); the hosts of EG 0 and EG 2, and of EG 1
/// and EG 3, exchange 4 MB flows (two flows per direction on each of the two links OCS 1
/// carries, so their EG ports queue); OCS 1 changes at 100 us (RingChanged). \p probe can
/// schedule its own events (those at 100 us run before the request).
PolicyRun
RunPolicy(const std::string& policy, bool lossless, const PolicyProbe& probe = {})
{
    OcsWiring w(OcsWiringType::UNIFORM, 4, 3);
    OcsClusterHelper helper;
    helper.SetHostsPerEg(2);
    helper.SetSwitchAttribute("SwitchingDelay", TimeValue(MicroSeconds(10)));
    helper.SetSwitchAttribute("RestorationDelay", TimeValue(MicroSeconds(5)));
    helper.SetFabricAttribute("Policy", StringValue(policy));
    PfcHelper pfc;
    if (lossless)
    {
        pfc.ConfigureLinks(helper.GetLinkHelper());
    }
    Ptr<OcsFabric> f = helper.Install(w);
    Ptr<PfcNetwork> pfcNet;
    if (lossless)
    {
        pfcNet = pfc.Install(f->GetNetwork());
    }
    f->SetCircuits(Ring());
    if (probe)
    {
        probe(f, pfcNet);
    }
    PolicyRun out;
    f->SetReconfigurationDoneCallback(Callback<void, const OcsReconfigRecord&>(
        [&out](const OcsReconfigRecord& rec)
        {
            out.rec = rec;
            out.done = true;
        }));
    Simulator::Schedule(MicroSeconds(100), [f]() { f->Reconfigure(RingChanged()); });
    std::vector<FlowSpec> flows;
    for (const auto& [a, b] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 2}, {1, 3}})
    {
        for (uint32_t h = 0; h < 2; ++h)
        {
            for (const auto& [src, dst] :
                 {std::pair{2 * a + h, 2 * b + h}, std::pair{2 * b + h, 2 * a + h}})
            {
                FlowSpec fl;
                fl.id = uint32_t(flows.size());
                fl.src = src;
                fl.dst = dst;
                fl.bytes = 4000000;
                flows.push_back(fl);
            }
        }
    }
    FabricRoceRunOptions opt;
    opt.stopAt = MilliSeconds(100);
    out.r = RunFabricRoce(f->GetNetwork(), flows, opt);
    for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
    {
        out.darkDrops += f->GetChannel(i)->GetDarkDrops();
    }
    return out;
}

TEST_F(OcsNet, PausePolicyHoldsChangedCircuitsAndLosesNothingToDarkCircuits)
{
    // Pause: the changed links' EG ports stop at the request and hold what is queued; the
    // OCSes switch once the fibre is quiet (within one frame and the 1 us fibre, not after a
    // drain); the held frames go out over the new topology once it is up. Next to drop and
    // drain on the same traffic, lossy and lossless (PFC). Lossy, the rerouted traffic still
    // overflows queues (queue-overflow) under every policy; lossless, pause loses nothing.
    std::cout << "  policy  cluster   dropped  ocs-dark  held  drain_us  stall_us  last_us\n";
    for (const bool lossless : {false, true})
    {
        std::map<std::string, PolicyRun> runs;
        for (const std::string policy : {"drop", "drain", "pause"})
        {
            SCOPED_TRACE(policy + (lossless ? " lossless" : " lossy"));
            PolicyRun run = RunPolicy(policy, lossless);
            ASSERT_TRUE(run.done);
            ExpectAccounted(run.r);
            std::cout << "  " << std::left << std::setw(8) << policy << std::setw(10)
                      << (lossless ? "PFC" : "lossy") << std::right << std::setw(7)
                      << run.r.droppedPackets << std::setw(10) << run.darkDrops << std::setw(6)
                      << run.rec.heldPackets << std::setw(10)
                      << (run.rec.switchStart - run.rec.requested).GetMicroSeconds()
                      << std::setw(10) << run.rec.Stall().GetMicroSeconds() << std::setw(9)
                      << uint64_t(run.r.lastCompletionSeconds * 1e6);
            for (const auto& [reason, n] : run.r.drops)
            {
                std::cout << " " << reason << ":" << n;
            }
            std::cout << "\n";
            runs[policy] = std::move(run);
        }
        const PolicyRun& pause = runs.at("pause");
        EXPECT_EQ(pause.darkDrops, 0u) << "nothing sent into a dark circuit";
        EXPECT_EQ(pause.r.drops.count(FabricDropReason::OCS_DARK), 0u);
        if (lossless)
        {
            EXPECT_EQ(pause.r.droppedPackets, 0u) << "lossless: nothing lost at all";
        }
        EXPECT_GT(pause.rec.heldPackets, 0u) << "frames were waiting on the changed links";
        // Switching starts when the last frame on the fibre has arrived: within one 4 KB
        // frame time at 400 Gb/s and the 1 us fibre delay of the request.
        EXPECT_LE(pause.rec.switchStart - pause.rec.requested, NanoSeconds(1000 + 85));
        EXPECT_EQ(pause.rec.end - pause.rec.switchStart, MicroSeconds(15));
        // The other two on the same traffic: drop loses what was queued, drain waits for it.
        EXPECT_GT(runs.at("drop").darkDrops, 0u);
        EXPECT_EQ(runs.at("drain").darkDrops, 0u);
        EXPECT_GT(runs.at("drain").rec.Stall(), pause.rec.Stall());
    }
}

TEST_F(OcsNet, PausePolicyKeepsHeldFramesInTheLosslessBufferOfTheirIngressPort)
{
    // Pause on a PFC cluster: the frames an EG holds over the dark window are in its buffer,
    // so they stay charged to the ports they came in on (which go on pausing their upstreams)
    // and are forwarded afterwards as frames arriving on those ports. The withdrawn ports
    // (whose links are dark) never get a charge: a pause they sent would reach no upstream.
    struct Sample
    {
        Time at;
        uint64_t charged{0};     //!< bytes charged to all ingress ports of the EGs
        uint64_t queued{0};      //!< data bytes in the EGs' egress queues
        uint64_t held{0};        //!< PfcSwitch::GetHeldBytes of the EGs
        uint64_t onWithdrawn{0}; //!< bytes charged to the withdrawn ports' ingress
    };

    auto samples = std::make_shared<std::vector<Sample>>();
    const PolicyProbe probe = [samples](Ptr<OcsFabric> f, Ptr<PfcNetwork> pfcNet)
    {
        const FabricGraph& g = f->GetNetwork()->GetGraph();
        // The EG ports of the links OCS 1 carries before the request (RingChanged withdraws
        // all of them and brings up other links).
        std::vector<std::pair<uint32_t, uint32_t>> withdrawn;
        for (uint32_t i = 0; i < f->GetLogicalLinks().size(); ++i)
        {
            const OcsLogicalLink& l = f->GetLogicalLinks()[i];
            if (l.dir[0].ocs == 1 && f->IsLinkUp(i))
            {
                const FabricLink& fl = g.GetLink(l.link);
                withdrawn.emplace_back(fl.node[0], fl.port[0]);
                withdrawn.emplace_back(fl.node[1], fl.port[1]);
            }
        }
        ASSERT_EQ(withdrawn.size(), 4u);
        auto take = [samples, f, pfcNet, withdrawn, &g]()
        {
            Sample s;
            s.at = Simulator::Now();
            for (uint32_t e = 0; e < 4; ++e)
            {
                const uint32_t node = f->GetEgNode(e);
                Ptr<PfcSwitch> sw = pfcNet->GetSwitch(node);
                s.held += sw->GetHeldBytes();
                for (uint32_t p = 0; p < g.GetNPorts(node); ++p)
                {
                    s.charged += sw->GetIngressBytes(p);
                    auto q = DynamicCast<PfcQueue>(
                        FabricLinkDevice::GetQueue(f->GetNetwork()->GetDevice(node, p)));
                    for (uint64_t b : q->GetBytesByIngress(PfcQueue::DATA))
                    {
                        s.queued += b;
                    }
                }
            }
            for (const auto& [node, port] : withdrawn)
            {
                s.onWithdrawn += pfcNet->GetSwitch(node)->GetIngressBytes(port);
            }
            samples->push_back(s);
        };
        // At 100 us just before the request, then in the same instant just after it (the
        // frames are taken into the hold, nothing has moved), then every 0.5 us to 200 us.
        Simulator::Schedule(MicroSeconds(100),
                            [take]()
                            {
                                take();
                                Simulator::ScheduleNow(take);
                            });
        for (uint32_t k = 1; k <= 200; ++k)
        {
            Simulator::Schedule(MicroSeconds(100) + NanoSeconds(500 * k), take);
        }
    };
    const PolicyRun run = RunPolicy("pause", true, probe);
    ASSERT_TRUE(run.done);
    ExpectAccounted(run.r);
    EXPECT_EQ(run.r.droppedPackets, 0u);
    ASSERT_GT(run.rec.heldPackets, 0u);
    ASSERT_EQ(samples->size(), 202u);
    const Sample& before = (*samples)[0];
    const Sample& after = (*samples)[1];
    EXPECT_GT(before.queued, 100000u) << "the EG ports queued before the request";
    EXPECT_EQ(after.charged, before.charged) << "holding takes no bytes out of the buffer";
    EXPECT_GT(after.held, 0u);
    uint64_t heldInWindow = 0;
    for (const Sample& s : *samples)
    {
        SCOPED_TRACE("at " + std::to_string(s.at.GetNanoSeconds()) + " ns");
        // Everything charged is queued or held: the held frames are in the buffer.
        EXPECT_EQ(s.charged, s.queued + s.held);
        EXPECT_EQ(s.onWithdrawn, 0u);
        if (s.at > run.rec.requested && s.at < run.rec.end)
        {
            EXPECT_GT(s.held, 0u) << "held over the whole dark window";
            heldInWindow = std::max(heldInWindow, s.held);
        }
    }
    EXPECT_GT(heldInWindow, 100000u);
    EXPECT_EQ(samples->back().held, 0u) << "all released";
}

TEST_F(OcsNet, StallIsSwitchingPlusRestorationForTwoSettings)
{
    struct Setting
    {
        Time switching;
        Time restoration;
    };
    for (const Setting& s :
         {Setting{MicroSeconds(10), MicroSeconds(5)}, Setting{MilliSeconds(1), MicroSeconds(20)}})
    {
        OcsWiring w(OcsWiringType::UNIFORM, 4, 3);
        Ptr<OcsFabric> f = Cluster(w, "drop", s.switching, s.restoration);
        f->SetCircuits(Ring());
        // The stall measured from the links: first changed link down to last new link up.
        auto firstDown = std::make_shared<Time>(Time::Max());
        auto lastUp = std::make_shared<Time>(0);
        f->TraceConnectWithoutContext("LinkState",
                                      Callback<void, uint32_t, bool>(
                                          [firstDown, lastUp](uint32_t, bool up)
                                          {
                                              if (up)
                                              {
                                                  *lastUp = Simulator::Now();
                                              }
                                              else
                                              {
                                                  *firstDown
                                                      = std::min(*firstDown, Simulator::Now());
                                              }
                                          }));
        const WindowRun run = RunWindow(f);
        ASSERT_TRUE(run.done);
        ExpectAccounted(run.r);
        const Time expected = s.switching + s.restoration;
        EXPECT_NEAR(run.rec.Stall().GetSeconds(), expected.GetSeconds(), 1e-9);
        EXPECT_NEAR((*lastUp - *firstDown).GetSeconds(), expected.GetSeconds(), 1e-9);
        EXPECT_EQ(*firstDown, MicroSeconds(100));
    }
}

TEST_F(OcsNet, MeasuredTopologyEqualsRealizedForEveryWiringAndAlgorithm)
{
    FabricRng rng(11);
    const uint32_t egs = 6;
    const uint32_t ports = 4;
    for (OcsWiringType type : {OcsWiringType::SINGLE,
                               OcsWiringType::UNIFORM,
                               OcsWiringType::TWO_UNIFORM,
                               OcsWiringType::CROSS})
    {
        const OcsWiring w(type, egs, ports);
        OcsConfigurator conf(w);
        for (OcsAlgorithm a : {OcsAlgorithm::EXACT,
                               OcsAlgorithm::GREEDY,
                               OcsAlgorithm::BVN,
                               OcsAlgorithm::DFS,
                               OcsAlgorithm::ILP})
        {
            if (type == OcsWiringType::UNIFORM && a == OcsAlgorithm::EXACT)
            {
                continue; // refused: no exact algorithm on Uniform
            }
            SCOPED_TRACE(OcsWiringTypeName(type) + " " + OcsAlgorithmName(a));
            Ptr<OcsFabric> f = Cluster(w, "drop", MicroSeconds(3), MicroSeconds(2));
            const OcsConfigResult first
                = conf.Configure(RandomLogical(rng, egs, ports, 1.0), a, 200);
            f->SetCircuits(first.circuits);
            EXPECT_EQ(f->MeasureLogicalTopology(), first.realized);
            EXPECT_EQ(f->GetReadyCircuits(), first.circuits);
            // And after a reconfiguration to another topology.
            const OcsConfigResult second
                = conf.Configure(RandomLogical(rng, egs, ports, 1.0), a, 200);
            Simulator::Schedule(MicroSeconds(1),
                                [f, &second]() { f->Reconfigure(second.circuits); });
            Simulator::Run();
            EXPECT_FALSE(f->IsReconfiguring());
            EXPECT_EQ(f->MeasureLogicalTopology(), second.realized);
            EXPECT_EQ(f->GetReadyCircuits(), second.circuits);
            Simulator::Destroy();
        }
    }
}

TEST_F(OcsNet, BadCircuitsAreRefused)
{
    OcsWiring w(OcsWiringType::UNIFORM, 4, 3);
    Ptr<OcsFabric> f = Cluster(w);
    EXPECT_THROW(f->SetCircuits({{3, 0, 1}}), std::invalid_argument);            // no OCS 3
    EXPECT_THROW(f->SetCircuits({{0, 0, 1}, {0, 2, 1}}), std::invalid_argument); // S 1 twice
    f->SetCircuits(Ring());
    f->Reconfigure(RingChanged());
    EXPECT_THROW(f->Reconfigure(Ring()), std::logic_error);
    Simulator::Run();
    EXPECT_FALSE(f->IsReconfiguring());
}

/// A demand where EG a sends to EGs a+1 .. a+k (mod E), weight w.
std::vector<double>
ShiftDemand(uint32_t egs, uint32_t k, uint32_t shift)
{
    std::vector<double> d(size_t(egs) * egs, 0.0);
    for (uint32_t a = 0; a < egs; ++a)
    {
        for (uint32_t j = 1; j <= k; ++j)
        {
            d[size_t(a) * egs + (a + j * shift) % egs] = 1.0 + j;
        }
    }
    return d;
}

/// EG hops between \p a and \p b over the links of \p l (BFS), UINT32_MAX if unreachable.
uint32_t
EgDistance(const OcsMatrix& l, uint32_t a, uint32_t b)
{
    std::vector<uint32_t> dist(l.GetN(), UINT32_MAX);
    std::vector<uint32_t> queue{a};
    dist[a] = 0;
    for (size_t i = 0; i < queue.size(); ++i)
    {
        const uint32_t u = queue[i];
        for (uint32_t v = 0; v < l.GetN(); ++v)
        {
            if (v != u && l(u, v) > 0 && dist[v] == UINT32_MAX)
            {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return dist[b];
}

TEST_F(OcsNet, ControllerReconfiguresAndRoutesFollowForEveryWiring)
{
    for (auto [type, algo] : {std::pair{OcsWiringType::CROSS, "exact"},
                              std::pair{OcsWiringType::UNIFORM, "greedy"},
                              std::pair{OcsWiringType::UNIFORM, "bvn"}})
    {
        SCOPED_TRACE(OcsWiringTypeName(type) + std::string(" ") + algo);
        const uint32_t egs = 6;
        const OcsWiring w(type, egs, 4);
        Ptr<OcsFabric> f = Cluster(w, "drain", MicroSeconds(10), MicroSeconds(5));
        auto ctl = CreateObjectWithAttributes<OcsController>("Algorithm",
                                                             StringValue(algo),
                                                             "SolveTime",
                                                             TimeValue(MicroSeconds(20)),
                                                             "Overlap",
                                                             TimeValue(MicroSeconds(8)));
        ctl->SetFabric(f);
        const OcsControllerStep first = ctl->Install(ShiftDemand(egs, 2, 1));
        EXPECT_EQ(f->MeasureLogicalTopology(), first.realized);
        // Phase 0: every EG to its two successors (the installed demand). Phase 1, after a
        // reconfiguration for a demand on pairs {0,3}, {1,4}, {2,5} (heavy) and {0,1}, {2,3},
        // {4,5}: flows on those pairs and on pairs {0,4}, {1,5}, {2,0} that may need two hops.
        std::vector<double> second(egs * egs, 0.0);
        for (auto [a, b, w] : {std::tuple{0, 3, 3.0},
                               {1, 4, 3.0},
                               {2, 5, 3.0},
                               {0, 1, 1.0},
                               {2, 3, 1.0},
                               {4, 5, 1.0}})
        {
            second[a * egs + b] = second[b * egs + a] = w;
        }
        std::vector<FlowSpec> flows;
        for (uint32_t a = 0; a < egs; ++a)
        {
            for (uint32_t j = 1; j <= 2; ++j)
            {
                flows.push_back(Flow(uint32_t(flows.size()), a, (a + j) % egs, 300000));
            }
        }
        const size_t phase0 = flows.size();
        for (auto [a, b] : {std::pair{0u, 3u},
                            {1u, 4u},
                            {2u, 5u},
                            {0u, 1u},
                            {3u, 2u},
                            {4u, 5u},
                            {0u, 4u},
                            {1u, 5u},
                            {2u, 0u}})
        {
            FlowSpec fl = Flow(uint32_t(flows.size()), a, b, 100000);
            fl.phase = 1;
            fl.startS = 60e-6; // after the reconfiguration (12 + 15 us, drain aside)
            flows.push_back(fl);
        }
        bool done = false;
        bool applied = false;
        uint32_t wrongPaths = 0;
        uint32_t checkedPaths = 0;
        OcsControllerStep step;
        FabricRoceRunOptions opt;
        opt.senderCreated = [&](uint32_t flow, Ptr<RoceSender>)
        {
            if (flow < phase0 || applied)
            {
                return;
            }
            applied = true;
            ctl->Apply(second,
                       Callback<void, const OcsControllerStep&>(
                           [&](const OcsControllerStep& s)
                           {
                               done = true;
                               step = s;
                               // Routes follow the new logical topology: direct where it has a
                               // link, two EG hops otherwise.
                               const Ptr<FabricRouting> routing = f->GetNetwork()->GetRouting();
                               for (size_t i = phase0; i < flows.size(); ++i)
                               {
                                   const FlowSpec& fl = flows[i];
                                   const FabricPath p
                                       = TracePath(*routing, fl.src, fl.dst, fl.Key());
                                   // Hosts + EGs on a shortest EG path of the realized topology.
                                   const uint32_t expected
                                       = 2 + 1 + EgDistance(s.realized, fl.src, fl.dst);
                                   ++checkedPaths;
                                   if (!p.delivered || p.nodes.size() != expected)
                                   {
                                       ++wrongPaths;
                                   }
                               }
                           }));
        };
        const auto r = RunFabricRoce(f->GetNetwork(), flows, opt);
        ASSERT_TRUE(done);
        ExpectAccounted(r);
        EXPECT_EQ(r.droppedPackets, 0u); // drain policy
        EXPECT_EQ(checkedPaths, flows.size() - phase0);
        EXPECT_EQ(wrongPaths, 0u);
        EXPECT_EQ(f->MeasureLogicalTopology(), step.realized);
        for (auto [a, b] : {std::pair{0u, 3u}, {1u, 4u}, {2u, 5u}})
        {
            EXPECT_GT(step.realized(a, b), 0) << a << "-" << b; // the heavy pairs are linked
        }
        EXPECT_EQ(step.unhiddenSolve, MicroSeconds(12));
        // Stall = unhidden solve + drain + switching + restoration.
        EXPECT_EQ(step.reconfig.switchStart - step.reconfig.requested + MicroSeconds(15),
                  step.reconfig.Stall());
        EXPECT_EQ(step.Stall(), MicroSeconds(12) + step.reconfig.Stall());
        EXPECT_EQ(step.reconfig.requested - step.requested, MicroSeconds(12));
    }
}

} // namespace

namespace
{

/// A small MoE run of the experiment helper: 6 EGs x 4 ports, 3 layers, drain.
OcsReconfigRunConfig
SmallMoe(Time solve, Time overlap)
{
    OcsReconfigRunConfig c;
    c.wiring = "cross";
    c.algorithm = "exact";
    c.policy = "drain";
    c.switchingUs = 25;
    c.egs = 6;
    c.ports = 4;
    c.hostsPerEg = 1;
    c.moe = true;
    c.bytesPerUnit = 64000;
    c.solve = solve;
    c.overlap = overlap;
    c.restoration = MicroSeconds(10);
    c.stopAt = MilliSeconds(100);
    return c;
}

TEST(OcsReconfigRun, MoeLayersStartWhenTheControllerReportsTheReconfigurationDone)
{
    UseFabricTimeResolution(); // the run drivers refuse 1 ns with 400 Gb/s links
    struct Case
    {
        Time solve;
        Time overlap;
        double unhiddenUs;
    };
    // Solve partly hidden by the computation, and wholly hidden.
    for (const Case& k : {Case{MicroSeconds(50), MicroSeconds(20), 30},
                          Case{MicroSeconds(50), MicroSeconds(80), 0}})
    {
        const OcsPhasedWorkload load = OcsMoeWorkload(6, 3, 4, 1);
        const OcsReconfigRunResult r = RunOcsReconfig(SmallMoe(k.solve, k.overlap), load);
        EXPECT_EQ(r.roce.Unaccounted(), 0);
        EXPECT_EQ(r.roce.incompleteFlows, 0u);
        EXPECT_EQ(r.roce.droppedPackets, 0u); // drain, and nothing in flight between layers
        ASSERT_EQ(r.phases.size(), 3u);
        EXPECT_EQ(r.phases[0].flowsStartUs, 0.0);
        uint32_t changed = 0;
        for (uint32_t s = 1; s < 3; ++s)
        {
            SCOPED_TRACE("layer " + std::to_string(s));
            const OcsPhaseRecord& ph = r.phases[s];
            const OcsPhaseRecord& prev = r.phases[s - 1];
            ASSERT_GT(ph.flows, 0u);
            // Requested when the previous layer's last flow completed.
            EXPECT_NEAR(ph.startUs, prev.startUs + prev.completionUs, 1e-6);
            // The layer started when its reconfiguration ended: not before, not later.
            EXPECT_GT(ph.reconfigEndUs, ph.startUs);
            EXPECT_NEAR(ph.flowsStartUs, ph.reconfigEndUs, 1e-6);
            EXPECT_NEAR(ph.stallUs, ph.reconfigEndUs - ph.startUs, 1e-6);
            // Stall: the solve the overlap did not hide, + drain, switching and restoration
            // when circuits change.
            const double expected
                = k.unhiddenUs + (ph.changedCircuits > 0 ? ph.drainUs + 25 + 10 : 0.0);
            EXPECT_NEAR(ph.stallUs, expected, 1e-6);
            EXPECT_LT(ph.drainUs, 1.0); // nothing to drain between layers
            changed += ph.changedCircuits;
        }
        EXPECT_GT(changed, 0u); // the demand changes: the check above saw real switching
    }
}

/// Job trace on 12 EGs x 4 ports x 2 hosts, 5 steps every 200 us, 4 MB units (jobs run through
/// the reconfigurations), solve 50 us with \p overlap hidden, switching and restoration 10 us.
OcsReconfigRunResult
RunSmallJobTrace(const std::string& policy, Time overlap)
{
    OcsReconfigRunConfig c = SmallMoe(MicroSeconds(50), overlap);
    c.moe = false;
    c.policy = policy;
    c.egs = 12;
    c.hostsPerEg = 2;
    c.bytesPerUnit = 4096000;
    c.switchingUs = 10;
    c.stepPeriod = MicroSeconds(200);
    return RunOcsReconfig(c, OcsJobTraceWorkload(12, 2, 5, 3));
}

TEST(OcsReconfigRun, DropPolicyCountsLostAndRetransmittedBytesPerPhase)
{
    UseFabricTimeResolution(); // the run drivers refuse 1 ns with 400 Gb/s links
    // Job trace: reconfigurations while jobs run, drop policy, so packets are lost.
    const OcsReconfigRunResult r = RunSmallJobTrace("drop", MicroSeconds(0));
    EXPECT_EQ(r.roce.Unaccounted(), 0);
    uint64_t lost = 0;
    uint64_t lostBytes = 0;
    uint64_t retx = 0;
    uint64_t retxBytes = 0;
    for (const OcsPhaseRecord& ph : r.phases)
    {
        // A lost packet is at least its headers; a resent data packet carries at most 4 KB.
        EXPECT_GE(ph.lostBytes, ph.lostPackets * 40);
        EXPECT_LE(ph.retxBytes, ph.retxPackets * 4096);
        EXPECT_EQ(ph.retxBytes > 0, ph.retxPackets > 0);
        lost += ph.lostPackets;
        lostBytes += ph.lostBytes;
        retx += ph.retxPackets;
        retxBytes += ph.retxBytes;
    }
    EXPECT_GT(lost, 0u);
    EXPECT_GT(retx, 0u);
    EXPECT_EQ(lost, r.roce.droppedPackets); // every drop falls into some phase
    const nlohmann::json j = OcsReconfigRunToJson(r);
    EXPECT_EQ(j["lost_bytes"].get<uint64_t>(), lostBytes);
    EXPECT_EQ(j["retransmitted_bytes"].get<uint64_t>(), retxBytes);
    EXPECT_TRUE(j["phases"][0].contains("lost_bytes"));
    EXPECT_TRUE(j["phases"][0].contains("retransmitted_bytes"));
}

TEST(OcsReconfigRun, JobStepsStartWhenTheControllerReportsTheReconfigurationDone)
{
    UseFabricTimeResolution(); // the run drivers refuse 1 ns with 400 Gb/s links
    // Job trace: step s arrives at s x 200 us while earlier jobs' flows are in flight; the
    // controller reconfigures for the new job mix and the step's flows start when it reports
    // the reconfiguration done (a start before it ended would be a logic_error), under each
    // policy for the circuits that change.
    for (const std::string policy : {"drop", "drain", "pause"})
    {
        SCOPED_TRACE("policy " + policy);
        const OcsReconfigRunResult r = RunSmallJobTrace(policy, MicroSeconds(20));
        EXPECT_EQ(r.roce.Unaccounted(), 0);
        EXPECT_EQ(r.roce.incompleteFlows, 0u);
        ASSERT_EQ(r.phases.size(), 5u);
        uint32_t changed = 0;
        uint32_t stepsWithFlows = 0;
        for (uint32_t s = 1; s < 5; ++s)
        {
            SCOPED_TRACE("step " + std::to_string(s));
            const OcsPhaseRecord& ph = r.phases[s];
            // Arrival on the step clock, whatever still runs.
            EXPECT_NEAR(ph.startUs, 200.0 * s, 1e-6);
            EXPECT_NEAR(ph.stallUs, ph.reconfigEndUs - ph.startUs, 1e-6);
            // Solve not hidden (30 us), then drain (drain policy, at most the 50 us timeout),
            // switching (10 us) and restoration (10 us) when circuits change.
            const double fixed = 30 + (ph.changedCircuits > 0 ? 20.0 : 0.0);
            EXPECT_NEAR(ph.stallUs, fixed + ph.drainUs, 1e-6);
            // Pause: the last frame on the fibre (one frame time + fibre delay).
            EXPECT_LE(ph.drainUs, (policy == "drain" ? 50 : policy == "pause" ? 2 : 0) + 1e-6);
            if (ph.flows > 0)
            {
                ++stepsWithFlows;
                // Not before the reconfiguration ended, and not later either.
                EXPECT_NEAR(ph.flowsStartUs, ph.reconfigEndUs, 1e-6);
            }
            changed += ph.changedCircuits;
        }
        EXPECT_GT(changed, 0u);
        EXPECT_GT(stepsWithFlows, 1u);
        const auto dark = r.roce.drops.find("ocs-dark");
        const uint64_t darkDrops = dark == r.roce.drops.end() ? 0 : dark->second;
        if (policy == "drop")
        {
            EXPECT_GT(darkDrops, 0u); // flows were in flight on changed circuits
        }
        else if (policy == "pause")
        {
            EXPECT_EQ(r.roce.droppedPackets, 0u);
        }
        else
        {
            // Drain: what the drain did not empty before its timeout is lost; a step whose
            // drain finished early loses nothing.
            uint64_t lostEarly = 0;
            for (const OcsPhaseRecord& ph : r.phases)
            {
                lostEarly += ph.drainUs < 50 - 1e-6 ? ph.lostPackets : 0;
            }
            EXPECT_EQ(lostEarly, 0u);
        }
    }
}

/// Runs the drop-policy window of RunWindow with routing updates batched or not.
struct BatchRun
{
    FabricRoceRunResult r;
    uint32_t routeChanges{0};
};

BatchRun
RunWithBatching(bool batch)
{
    OcsClusterHelper helper;
    helper.SetSwitchAttribute("SwitchingDelay", TimeValue(MicroSeconds(10)));
    helper.SetSwitchAttribute("RestorationDelay", TimeValue(MicroSeconds(5)));
    helper.SetFabricAttribute("Policy", StringValue("drop"));
    helper.SetFabricAttribute("BatchRoutingUpdates", BooleanValue(batch));
    Ptr<OcsFabric> f = helper.Install(OcsWiring(OcsWiringType::UNIFORM, 4, 3));
    f->SetCircuits(Ring());
    BatchRun out;
    f->GetNetwork()->GetRouting()->TraceConnectWithoutContext(
        "RoutesChanged", Callback<void, uint32_t>([&out](uint32_t) { ++out.routeChanges; }));
    Simulator::Schedule(MicroSeconds(100), [f]() { f->Reconfigure(RingChanged()); });
    const std::vector<FlowSpec> flows = FourHostAllToAll(2000000);
    FabricRoceRunOptions opt;
    opt.stopAt = MilliSeconds(100);
    out.r = RunFabricRoce(f->GetNetwork(), flows, opt);
    f->Dispose();
    return out;
}

TEST(OcsReconfigRun, BatchedRoutingUpdatesGiveTheSameRunWithFewerRebuilds)
{
    UseFabricTimeResolution(); // the run drivers refuse 1 ns with 400 Gb/s links
    const BatchRun batched = RunWithBatching(true);
    const BatchRun single = RunWithBatching(false);
    // One reaction per instant instead of one per link: the reconfiguration withdraws 2
    // links (2 changes), tears down and restores 2 new ones.
    EXPECT_LT(batched.routeChanges, single.routeChanges);
    EXPECT_GT(batched.routeChanges, 0u);
    // Same routes at every decision: the same packets, drops and completion times.
    EXPECT_EQ(batched.r.sentPackets, single.r.sentPackets);
    EXPECT_EQ(batched.r.droppedPackets, single.r.droppedPackets);
    EXPECT_EQ(batched.r.drops, single.r.drops);
    ASSERT_EQ(batched.r.flows.size(), single.r.flows.size());
    for (size_t i = 0; i < batched.r.flows.size(); ++i)
    {
        EXPECT_EQ(batched.r.flows[i].finish, single.r.flows[i].finish) << "flow " << i;
    }
}

TEST(OcsReconfigRun, ClusterHelperTakesTheRoutingScheme)
{
    OcsClusterHelper helper;
    helper.SetRouting("ns3::EcmpRouting", "Seed", UintegerValue(7));
    Ptr<OcsFabric> f = helper.Install(OcsWiring(OcsWiringType::UNIFORM, 4, 2));
    Ptr<EcmpRouting> ecmp = DynamicCast<EcmpRouting>(f->GetNetwork()->GetRouting());
    ASSERT_TRUE(ecmp);
    EXPECT_EQ(ecmp->GetSeed(), 7u);
    EXPECT_EQ(ecmp->GetView(), f->GetView()); // it decides from the view the fabric maintains
    f->Dispose();
    OcsClusterHelper wrong;
    wrong.SetRouting("ns3::OcsSwitch");
    EXPECT_THROW(wrong.Install(OcsWiring(OcsWiringType::UNIFORM, 4, 2)), std::invalid_argument);
    Simulator::Destroy();
}

} // namespace
