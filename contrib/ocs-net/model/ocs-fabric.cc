// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-fabric.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/log.h"
#include "ns3/pfc-switch.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsFabric");
NS_OBJECT_ENSURE_REGISTERED(OcsFabric);

TypeId
OcsFabric::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OcsFabric")
              .SetParent<Object>()
              .SetGroupName("OcsNet")
              .AddConstructor<OcsFabric>()
              .AddAttribute("Policy",
                            "Traffic on circuits that change: drop (switch at once, what is "
                            "queued or on the fibre is lost), drain (withdraw the links from "
                            "routing, wait until they are empty, then switch) or pause (withdraw "
                            "them and stop their EG ports at once, hold what is queued over the "
                            "dark window, switch when the fibre is quiet, forward the held frames "
                            "once the new circuits are up)",
                            EnumValue(OcsFabric::DROP),
                            MakeEnumAccessor(&OcsFabric::m_policy),
                            MakeEnumChecker(OcsFabric::DROP,
                                            "drop",
                                            OcsFabric::DRAIN,
                                            "drain",
                                            OcsFabric::PAUSE,
                                            "pause"))
              .AddAttribute("DrainPollInterval",
                            "How often the drain policy checks that the withdrawn links are empty",
                            TimeValue(NanoSeconds(500)),
                            MakeTimeAccessor(&OcsFabric::m_drainPoll),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("DrainTimeout",
                            "The drain policy switches anyway after this long (what is left is "
                            "lost, ocs-dark)",
                            TimeValue(MilliSeconds(10)),
                            MakeTimeAccessor(&OcsFabric::m_drainTimeout),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("BatchRoutingUpdates",
                            "Links that change in one instant reach the routing as one update "
                            "(one table rebuild); false: one update per link (same routes, "
                            "slower; for measuring the difference)",
                            BooleanValue(true),
                            MakeBooleanAccessor(&OcsFabric::m_batchViews),
                            MakeBooleanChecker())
              .AddTraceSource("LinkState",
                              "A logical link went up or down: FabricGraph link id, up",
                              MakeTraceSourceAccessor(&OcsFabric::m_linkStateTrace),
                              "ns3::OcsFabric::LinkStateTracedCallback");
    return tid;
}

OcsFabric::OcsFabric()
{
    NS_LOG_FUNCTION(this);
}

OcsFabric::~OcsFabric()
{
    // Destroyed without Dispose while the network lives: its holder must not call back here.
    if (m_net && m_holderId != UINT32_MAX)
    {
        m_net->RemovePacketHolder(m_holderId);
    }
}

void
OcsFabric::DoDispose()
{
    m_pollEvent.Cancel();
    m_held.clear();
    if (m_net && m_holderId != UINT32_MAX)
    {
        m_net->RemovePacketHolder(m_holderId);
        m_holderId = UINT32_MAX;
    }
    m_done = MakeNullCallback<void, const OcsReconfigRecord&>();
    for (auto& s : m_switches)
    {
        s->Dispose();
    }
    m_switches.clear();
    m_channels.clear();
    m_net = nullptr;
    Object::DoDispose();
}

void
OcsFabric::Setup(const OcsWiring& wiring,
                 Ptr<FabricNetwork> net,
                 std::vector<OcsLogicalLink> links,
                 std::vector<Ptr<OcsSwitch>> switches,
                 std::shared_ptr<FabricState> view)
{
    NS_LOG_FUNCTION(this);
    if (switches.size() != wiring.GetNumOcs())
    {
        throw std::invalid_argument("OcsFabric: one OcsSwitch per OCS of the wiring needed");
    }
    m_wiring = wiring;
    if (m_net && m_holderId != UINT32_MAX)
    {
        m_net->RemovePacketHolder(m_holderId);
    }
    m_net = net;
    // Held frames and those scheduled for release are in flight, not lost.
    m_holderId = net->AddPacketHolder([this]() { return uint64_t(m_held.size()) + m_releasing; });
    m_truth = net->GetState();
    m_view = view;
    m_links = std::move(links);
    m_switches = std::move(switches);
    const FabricGraph& g = net->GetGraph();
    const uint32_t radix = wiring.GetRadix();
    m_egNode.assign(wiring.GetEgs(), UINT32_MAX);
    m_byTx.assign(size_t(wiring.GetNumOcs()) * radix, {});
    m_channels.clear();
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        const OcsLogicalLink& l = m_links[i];
        const FabricLink& fl = g.GetLink(l.link);
        m_egNode[l.end[0].eg] = fl.node[0];
        m_egNode[l.end[1].eg] = fl.node[1];
        for (const OcsCircuit& c : l.dir)
        {
            m_byTx[size_t(c.ocs) * radix + c.n].push_back(i);
        }
        // Replace the plain channel the network helper built by an OCS fibre, same delay.
        auto a = DynamicCast<PointToPointNetDevice>(net->GetDevice(fl.node[0], fl.port[0]));
        auto b = DynamicCast<PointToPointNetDevice>(net->GetDevice(fl.node[1], fl.port[1]));
        if (!a || !b)
        {
            throw std::invalid_argument("OcsFabric: OCS fibres are PointToPointChannels; build "
                                        "the network with ns3::FabricNetwork::LinkDevice=p2p");
        }
        TimeValue delay;
        a->GetChannel()->GetAttribute("Delay", delay);
        Ptr<OcsFibreChannel> ch = CreateObject<OcsFibreChannel>();
        ch->SetAttribute("Delay", delay);
        a->Attach(ch);
        b->Attach(ch);
        m_channels.push_back(ch);
    }
    for (uint32_t o = 0; o < m_switches.size(); ++o)
    {
        m_switches[o]->SetIndex(o);
        if (m_switches[o]->GetRadix() != radix)
        {
            m_switches[o]->SetRadix(radix);
        }
        m_switches[o]->SetJoinChangedCallback(
            Callback<void, uint32_t>([this, o](uint32_t n) { JoinChanged(o, n); }));
        m_switches[o]->SetJoinBatchCallback(
            Callback<void, bool>([this](bool begin) { ViewBatch(begin); }));
        m_switches[o]->TraceConnectWithoutContext(
            "ReconfigurationEnd",
            Callback<void, uint32_t>([this](uint32_t ocs) { SwitchEnded(ocs); }));
    }
    // Every logical link starts up in the truth and the view (FabricState starts all-up);
    // evaluating them against the dark OCSes takes them down.
    m_up.assign(m_links.size(), 1);
    m_viewUp.assign(m_links.size(), 1);
    // Checked before the batch opens: a throw must not leave the routing's batch open.
    if (m_policy == PAUSE)
    {
        CheckCanHold();
    }
    ViewBatch(true);
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        Evaluate(i);
    }
    ViewBatch(false);
}

void
OcsFabric::ViewBatch(bool begin)
{
    // Many links change at one instant: the routing rebuilds its tables once (EcmpRouting's
    // rebuild per link change made reconfigurations of 32+ EGs cost minutes).
    Ptr<FabricRouting> r = m_net ? m_net->GetRouting() : nullptr;
    if (!m_batchViews || !r || r->GetView() != m_view)
    {
        return;
    }
    if (begin)
    {
        r->BeginViewBatch();
    }
    else
    {
        r->EndViewBatch();
    }
}

bool
OcsFabric::CircuitReady(const OcsCircuit& c) const
{
    const Ptr<OcsSwitch>& sw = m_switches[c.ocs];
    return sw->IsReady(c.n) && sw->GetJoin(c.n) == c.s;
}

void
OcsFabric::JoinChanged(uint32_t ocs, uint32_t n)
{
    for (uint32_t i : m_byTx[size_t(ocs) * m_wiring->GetRadix() + n])
    {
        Evaluate(i);
    }
}

void
OcsFabric::Evaluate(uint32_t index)
{
    const OcsLogicalLink& l = m_links[index];
    const bool up = CircuitReady(l.dir[0]) && CircuitReady(l.dir[1]);
    if (up == bool(m_up[index]))
    {
        return;
    }
    m_up[index] = up;
    NS_LOG_LOGIC("logical link " << l.link << (up ? " up" : " down"));
    if (up)
    {
        m_channels[index]->SetCarrying(true);
        m_truth->RepairLink(l.link);
        if (!m_viewUp[index])
        {
            m_viewUp[index] = 1;
            m_view->RepairLink(l.link);
        }
    }
    else
    {
        // The channel drops what is queued first (ocs-dark), then the truth goes down.
        m_channels[index]->SetCarrying(false);
        m_truth->FailLink(l.link);
        if (m_viewUp[index])
        {
            m_viewUp[index] = 0;
            m_view->FailLink(l.link);
        }
    }
    m_linkStateTrace(l.link, up);
}

std::vector<std::vector<uint32_t>>
OcsFabric::JoinsOf(const std::vector<OcsCircuit>& circuits) const
{
    ValidateCircuits(*m_wiring, circuits);
    std::vector<std::vector<uint32_t>> join(
        m_switches.size(), std::vector<uint32_t>(m_wiring->GetRadix(), OcsSwitch::NONE));
    for (const OcsCircuit& c : circuits)
    {
        join[c.ocs][c.n] = c.s;
    }
    return join;
}

void
OcsFabric::SetCircuits(const std::vector<OcsCircuit>& circuits)
{
    NS_LOG_FUNCTION(this << circuits.size());
    if (m_reconfiguring)
    {
        throw std::logic_error("OcsFabric: SetCircuits during a reconfiguration");
    }
    const auto join = JoinsOf(circuits);
    ViewBatch(true);
    for (uint32_t o = 0; o < m_switches.size(); ++o)
    {
        m_switches[o]->SetJoins(join[o]);
    }
    ViewBatch(false);
}

void
OcsFabric::Reconfigure(const std::vector<OcsCircuit>& circuits)
{
    NS_LOG_FUNCTION(this << circuits.size());
    if (m_reconfiguring)
    {
        throw std::logic_error("OcsFabric: a reconfiguration is already under way");
    }
    m_target = JoinsOf(circuits);
    if (m_policy == PAUSE)
    {
        CheckCanHold();
    }
    m_reconfiguring = true;
    m_current = OcsReconfigRecord{};
    m_current.requested = Simulator::Now();
    // Links whose circuits change: the controller withdraws them from routing at once.
    m_draining.clear();
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        if (!m_up[i])
        {
            continue;
        }
        for (const OcsCircuit& c : m_links[i].dir)
        {
            if (m_target[c.ocs][c.n] != c.s)
            {
                m_draining.push_back(i);
                break;
            }
        }
    }
    m_current.linksDown = static_cast<uint32_t>(m_draining.size());
    ViewBatch(true);
    for (uint32_t i : m_draining)
    {
        if (m_viewUp[i])
        {
            m_viewUp[i] = 0;
            m_view->FailLink(m_links[i].link);
        }
    }
    ViewBatch(false);
    if (m_policy == DRAIN)
    {
        PollDrain();
    }
    else if (m_policy == PAUSE)
    {
        // Stop the EG ports now; switch once the frames already on the fibre have arrived.
        HoldChanged();
        Time quiet = Simulator::Now();
        for (uint32_t i : m_draining)
        {
            quiet = std::max(quiet, m_channels[i]->GetBusyUntil());
        }
        m_pollEvent = Simulator::Schedule(quiet - Simulator::Now(),
                                          [this]()
                                          {
                                              HoldChanged(); // nothing new: routing withdrew them
                                              StartSwitching();
                                          });
    }
    else
    {
        StartSwitching();
    }
}

void
OcsFabric::CheckCanHold() const
{
    for (uint32_t node : m_egNode)
    {
        if (node != UINT32_MAX && !m_net->GetNode(node)->GetObject<FabricSwitchForwarder>())
        {
            throw std::invalid_argument(
                "OcsFabric: Policy pause needs the device-level switch mode (EG "
                + m_net->GetGraph().GetName(node)
                + " has no FabricSwitchForwarder to hold and "
                  "forward frames with)");
        }
    }
}

void
OcsFabric::HoldChanged()
{
    const FabricGraph& g = m_net->GetGraph();
    for (uint32_t i : m_draining)
    {
        const FabricLink& fl = g.GetLink(m_links[i].link);
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t node = fl.node[end];
            const uint32_t port = fl.port[end];
            // On a lossless EG the frames stay in its buffer, charged to the ports they came
            // in on, so those ports go on pausing their upstreams over the dark window.
            if (Ptr<PfcSwitch> pfc = m_net->GetNode(node)->GetObject<PfcSwitch>())
            {
                for (PfcSwitch::HeldFrame& h : pfc->HoldQueued(port))
                {
                    m_held.push_back({node, port, h.inPort, h.ipv4});
                    ++m_current.heldPackets;
                }
                continue;
            }
            Ptr<Queue<Packet>> q = FabricLinkDevice::GetQueue(m_net->GetDevice(node, port));
            while (q && !q->IsEmpty())
            {
                Ptr<Packet> p = q->Remove();
                PppHeader ppp;
                p->RemoveHeader(ppp);
                m_held.push_back({node, port, PfcQueue::NO_INGRESS, p});
                ++m_current.heldPackets;
            }
        }
    }
}

void
OcsFabric::ReleaseHeld()
{
    // Each port lets its held frames go at its line rate, in their order (as its queue
    // would send them over the new circuit), not as one burst into the forwarder.
    std::map<std::pair<uint32_t, uint32_t>, Time> nextAt;
    for (const HeldFrame& h : m_held)
    {
        Time& at = nextAt[{h.node, h.port}];
        ++m_releasing;
        Simulator::Schedule(at, &OcsFabric::ForwardHeld, Ptr<OcsFabric>(this), h);
        DataRateValue rate;
        m_net->GetDevice(h.node, h.port)->GetAttribute("DataRate", rate);
        at += rate.Get().CalculateBytesTxTime(h.packet->GetSize() + 2); // + the PPP header
    }
    m_held.clear();
}

void
OcsFabric::ForwardHeld(const HeldFrame& h)
{
    --m_releasing;
    Ptr<Node> node = m_net->GetNode(h.node);
    if (h.inPort != PfcQueue::NO_INGRESS)
    {
        node->GetObject<PfcSwitch>()->ForwardHeld(h.packet, h.inPort);
        return;
    }
    // Not charged to an ingress port (no PFC, or the control class): the port it came in on
    // is not recorded, and the frame is routed as one arriving on the withdrawn port (ECMP
    // and KSP, the routing schemes for an OCS cluster's graph, do not read the ingress port).
    node->GetObject<FabricSwitchForwarder>()->Forward(h.packet, h.port);
}

bool
OcsFabric::Drained(uint32_t index) const
{
    const Ptr<OcsFibreChannel>& ch = m_channels[index];
    if (Simulator::Now() < ch->GetBusyUntil())
    {
        return false;
    }
    for (uint32_t d = 0; d < ch->GetNDevices(); ++d)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(ch->GetDevice(d));
        if (dev->GetQueue() && !dev->GetQueue()->IsEmpty())
        {
            return false;
        }
    }
    return true;
}

void
OcsFabric::PollDrain()
{
    const bool timedOut = Simulator::Now() - m_current.requested >= m_drainTimeout;
    bool drained = true;
    for (uint32_t i : m_draining)
    {
        if (!Drained(i))
        {
            drained = false;
            break;
        }
    }
    if (drained || timedOut)
    {
        NS_LOG_LOGIC("drained after " << (Simulator::Now() - m_current.requested).As(Time::US)
                                      << (timedOut && !drained ? " (timeout)" : ""));
        StartSwitching();
        return;
    }
    m_pollEvent = Simulator::Schedule(m_drainPoll, &OcsFabric::PollDrain, this);
}

void
OcsFabric::StartSwitching()
{
    NS_LOG_FUNCTION(this);
    m_current.switchStart = Simulator::Now();
    m_pendingSwitches = 0;
    ViewBatch(true);
    for (uint32_t o = 0; o < m_switches.size(); ++o)
    {
        const uint32_t changed = m_switches[o]->Reconfigure(m_target[o]);
        m_current.changedCircuits += changed;
        m_pendingSwitches += changed > 0 ? 1 : 0;
    }
    ViewBatch(false);
    if (m_pendingSwitches == 0)
    {
        SwitchEnded(UINT32_MAX);
    }
}

void
OcsFabric::SwitchEnded(uint32_t ocs)
{
    NS_LOG_FUNCTION(this << ocs);
    if (m_pendingSwitches > 0)
    {
        --m_pendingSwitches;
    }
    if (m_pendingSwitches > 0)
    {
        return;
    }
    m_reconfiguring = false;
    m_current.end = Simulator::Now();
    m_records.push_back(m_current);
    ReleaseHeld(); // the new circuits are up and in the routing view
    if (!m_done.IsNull())
    {
        m_done(m_current);
    }
}

std::vector<OcsCircuit>
OcsFabric::GetReadyCircuits() const
{
    std::vector<OcsCircuit> out;
    for (uint32_t o = 0; o < m_switches.size(); ++o)
    {
        for (uint32_t n = 0; n < m_switches[o]->GetRadix(); ++n)
        {
            if (m_switches[o]->IsReady(n))
            {
                out.push_back({o, n, m_switches[o]->GetJoin(n)});
            }
        }
    }
    return out;
}

OcsMatrix
OcsFabric::MeasureLogicalTopology() const
{
    const FabricGraph& g = m_net->GetGraph();
    const uint32_t egs = m_wiring->GetEgs();
    OcsMatrix m(egs);
    std::vector<uint32_t> egOfNode(g.GetNNodes(), UINT32_MAX);
    for (uint32_t e = 0; e < egs; ++e)
    {
        if (m_egNode[e] != UINT32_MAX)
        {
            egOfNode[m_egNode[e]] = e;
        }
    }
    for (const OcsLogicalLink& l : m_links)
    {
        if (m_truth->IsDirLinkUsable(2 * l.link) && m_truth->IsDirLinkUsable(2 * l.link + 1))
        {
            const FabricLink& fl = g.GetLink(l.link);
            const uint32_t a = egOfNode[fl.node[0]];
            const uint32_t b = egOfNode[fl.node[1]];
            ++m(a, b);
            ++m(b, a);
        }
    }
    // Self-links (two ports of one EG joined both ways) have no device: read the OCSes.
    for (uint32_t e = 0; e < egs; ++e)
    {
        for (uint32_t x = 0; x < m_wiring->GetPortsPerEg(); ++x)
        {
            for (uint32_t y = x; y < m_wiring->GetPortsPerEg(); ++y)
            {
                const OcsHalfPort tx = m_wiring->GetTxHalfPort(e, x);
                const OcsHalfPort rx = m_wiring->GetRxHalfPort(e, y);
                const OcsHalfPort tx2 = m_wiring->GetTxHalfPort(e, y);
                const OcsHalfPort rx2 = m_wiring->GetRxHalfPort(e, x);
                if (tx.ocs != rx.ocs || tx2.ocs != rx2.ocs)
                {
                    continue;
                }
                if (CircuitReady({tx.ocs, tx.index, rx.index})
                    && CircuitReady({tx2.ocs, tx2.index, rx2.index}))
                {
                    ++m(e, e);
                }
            }
        }
    }
    return m;
}

} // namespace ns3
