// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-failure-detector.h"

#include "ns3/boolean.h"
#include "ns3/fabric-network.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFailureDetector");
NS_OBJECT_ENSURE_REGISTERED(FabricFailureDetector);

namespace
{
constexpr uint32_t UNREACHABLE = std::numeric_limits<uint32_t>::max();

uint64_t
ElementKey(const FabricStateChange& c)
{
    return (uint64_t(c.element == FabricStateChange::Element::NODE) << 32) | c.id;
}

std::string
Describe(const FabricStateChange& c)
{
    return std::string(c.element == FabricStateChange::Element::NODE ? "node " : "dirlink ")
         + std::to_string(c.id) + (c.up ? " up" : " down");
}
} // namespace

TypeId
FabricFailureDetector::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricFailureDetector")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricFailureDetector>()
              .AddAttribute("LocalDetectionDelay",
                            "Loss-of-signal detection at a node adjacent to the failed element "
                            "(hardware link-fault detection: microseconds).",
                            TimeValue(MicroSeconds(5)),
                            MakeTimeAccessor(&FabricFailureDetector::m_localDelay),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("BfdInterval",
                            "BFD transmit interval, for failures without loss of signal at the "
                            "detecting end (NPU-offloaded BFD: 3.3 ms).",
                            TimeValue(MicroSeconds(3300)),
                            MakeTimeAccessor(&FabricFailureDetector::m_bfdInterval),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("BfdMultiplier",
                            "Missed BFD packets before a session is declared down (usual: 3).",
                            UintegerValue(3),
                            MakeUintegerAccessor(&FabricFailureDetector::m_bfdMultiplier),
                            MakeUintegerChecker<uint32_t>(1, 255))
              .AddAttribute("ControllerLatency",
                            "From the first detection to the controller's rules being in force "
                            "(report + decision + install; SDN with precomputed backups: a few "
                            "ms).",
                            TimeValue(MilliSeconds(1)),
                            MakeTimeAccessor(&FabricFailureDetector::m_controllerLatency),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("PropagationDelayPerHop",
                            "Routing-update (or link-state flooding) delay per switch hop from "
                            "the nearest detecting node (our assumption: 50 us).",
                            TimeValue(MicroSeconds(50)),
                            MakeTimeAccessor(&FabricFailureDetector::m_propagationPerHop),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("ComputeDelay",
                            "Route computation at a node after it learnt a change, before its "
                            "tables are recomputed (until then it only avoids dead ports).",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&FabricFailureDetector::m_computeDelay),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("RoutingUpdates",
                            "Whether non-adjacent nodes learn through a distributed routing "
                            "protocol (ECMP/BGP, link state); false: only adjacent nodes and the "
                            "controller learn (ZCube).",
                            BooleanValue(true),
                            MakeBooleanAccessor(&FabricFailureDetector::m_routingUpdates),
                            MakeBooleanChecker())
              .AddTraceSource("TruthChange",
                              "The physical state changed (a failure or repair): (is a node, "
                              "directed link or node id, up).",
                              MakeTraceSourceAccessor(&FabricFailureDetector::m_truthChangeTrace),
                              "ns3::FabricFailureDetector::TruthChangeTracedCallback")
              .AddTraceSource("Learn",
                              "A node (or the controller, node = 2^32-1) learnt a change: a "
                              "detection (how 0 local, 1 BFD), a routing update (2) or the "
                              "controller (3).",
                              MakeTraceSourceAccessor(&FabricFailureDetector::m_learnTrace),
                              "ns3::FabricFailureDetector::LearnTracedCallback");
    return tid;
}

FabricFailureDetector::FabricFailureDetector()
{
    NS_LOG_FUNCTION(this);
}

FabricFailureDetector::~FabricFailureDetector()
{
    if (m_truth && m_truthListener != UINT32_MAX)
    {
        m_truth->RemoveListener(m_truthListener);
    }
    for (size_t v = 0; v < m_viewListeners.size() && v < m_nodeViews.size(); ++v)
    {
        m_nodeViews[v]->RemoveListener(m_viewListeners[v]);
    }
}

void
FabricFailureDetector::DoDispose()
{
    if (m_truth && m_truthListener != UINT32_MAX)
    {
        m_truth->RemoveListener(m_truthListener);
    }
    m_truthListener = UINT32_MAX;
    for (size_t v = 0; v < m_viewListeners.size() && v < m_nodeViews.size(); ++v)
    {
        m_nodeViews[v]->RemoveListener(m_viewListeners[v]);
    }
    m_viewListeners.clear();
    m_routing = nullptr;
    Object::DoDispose();
}

const char*
FabricFailureDetector::HowName(How how)
{
    switch (how)
    {
    case How::LOCAL:
        return "local";
    case How::BFD:
        return "bfd";
    case How::UPDATE:
        return "update";
    case How::CONTROLLER:
        return "controller";
    }
    return "?";
}

void
FabricFailureDetector::Install(Ptr<FabricNetwork> net)
{
    if (!net)
    {
        throw std::invalid_argument("FabricFailureDetector::Install: network must not be null");
    }
    // Views may disagree beyond what the truth shows (after a repair, until every node has
    // learnt it): the switches' Ttl while-down also reads the disagreement count this
    // detector publishes to the routing (FabricRouting::GetViewDisagreements).
    Install(net->GetState(), net->GetRouting());
}

void
FabricFailureDetector::Install(std::shared_ptr<FabricState> truth, Ptr<FabricRouting> routing)
{
    NS_LOG_FUNCTION(this);
    if (m_truth)
    {
        throw std::logic_error("FabricFailureDetector::Install: installed already");
    }
    if (!truth || !routing || !routing->HasGraph()
        || truth->GetGraphPtr().get() != routing->GetGraphPtr().get())
    {
        throw std::invalid_argument("FabricFailureDetector::Install: truth and routing must be "
                                    "non-null and over the same graph");
    }
    m_truth = std::move(truth);
    m_routing = routing;
    const FabricGraph& g = m_truth->GetGraph();
    const auto graph = m_truth->GetGraphPtr();
    m_nodeViews.resize(g.GetNNodes());
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        // Every node starts from what is true now (failures before the install are known).
        m_nodeViews[v] = std::make_shared<FabricState>(graph);
        m_nodeViews[v]->CopyFrom(*m_truth);
        m_routing->SetNodeView(v, m_nodeViews[v]);
    }
    m_controllerView = std::make_shared<FabricState>(graph);
    m_controllerView->CopyFrom(*m_truth);
    m_routing->SetControllerView(m_controllerView);
    m_learnt.assign(g.GetNNodes() + 1, {});

    // Switch-graph hop counts, for routing-update propagation.
    const uint32_t nHosts = g.GetNHosts();
    const uint32_t nSw = g.GetNNodes() - nHosts;
    using SwGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    SwGraph sw(nSw);
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        if (!g.IsHost(link.node[0]) && !g.IsHost(link.node[1]))
        {
            boost::add_edge(link.node[0] - nHosts, link.node[1] - nHosts, sw);
        }
    }
    m_swHops.assign(static_cast<size_t>(nSw) * nSw, UNREACHABLE);
    for (uint32_t s = 0; s < nSw; ++s)
    {
        uint32_t* d = &m_swHops[static_cast<size_t>(s) * nSw];
        d[s] = 0;
        boost::breadth_first_search(sw,
                                    boost::vertex(s, sw),
                                    boost::visitor(boost::make_bfs_visitor(
                                        boost::record_distances(d, boost::on_tree_edge()))));
    }
    m_truthListener
        = m_truth->AddListener([this](const FabricStateChange& c) { OnTruthChange(c); });
    // Every view starts equal to the truth; count the flips that make them differ.
    m_viewListeners.clear();
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        m_viewListeners.push_back(
            m_nodeViews[v]->AddListener([this](const FabricStateChange& c) { OnViewFlip(c); }));
    }
}

void
FabricFailureDetector::OnViewFlip(const FabricStateChange& c)
{
    const bool truthUp = c.element == FabricStateChange::Element::NODE ? m_truth->IsNodeUp(c.id)
                                                                       : m_truth->IsDirLinkUp(c.id);
    const uint64_t key = ElementKey(c);
    if (c.up == truthUp)
    {
        auto it = m_disagree.find(key);
        // A view that agrees again must have disagreed: anything else is a bookkeeping bug.
        NS_ABORT_MSG_IF(it == m_disagree.end() || it->second == 0,
                        "FabricFailureDetector: a view agreed again without having disagreed");
        if (--it->second == 0)
        {
            m_disagree.erase(it);
        }
        --m_disagreeTotal;
    }
    else
    {
        ++m_disagree[key];
        ++m_disagreeTotal;
    }
    if (m_routing)
    {
        m_routing->SetViewDisagreements(m_disagreeTotal);
    }
}

std::shared_ptr<FabricState>
FabricFailureDetector::GetNodeView(uint32_t node) const
{
    if (node >= m_nodeViews.size())
    {
        throw std::invalid_argument("FabricFailureDetector::GetNodeView: node "
                                    + std::to_string(node) + " outside [0, "
                                    + std::to_string(m_nodeViews.size()) + ") (installed?)");
    }
    return m_nodeViews[node];
}

std::vector<uint32_t>
FabricFailureDetector::HopsFrom(const std::vector<uint32_t>& sources) const
{
    const FabricGraph& g = m_truth->GetGraph();
    const uint32_t nHosts = g.GetNHosts();
    const uint32_t nSw = g.GetNNodes() - nHosts;
    // Each source enters the switch graph at itself (a switch) or at its switches (a host).
    std::vector<uint32_t> entry(nSw, UNREACHABLE); // hops from the nearest source to a switch
    for (uint32_t src : sources)
    {
        if (!g.IsHost(src))
        {
            entry[src - nHosts] = 0;
            continue;
        }
        for (uint32_t p = 0; p < g.GetNPorts(src); ++p)
        {
            const uint32_t a = g.GetPeer(src, p);
            if (!g.IsHost(a))
            {
                entry[a - nHosts] = std::min(entry[a - nHosts], 1u);
            }
        }
    }
    std::vector<uint32_t> hops(g.GetNNodes(), UNREACHABLE);
    for (uint32_t s = 0; s < nSw; ++s)
    {
        for (uint32_t e = 0; e < nSw; ++e)
        {
            const uint32_t d = m_swHops[static_cast<size_t>(e) * nSw + s];
            if (entry[e] != UNREACHABLE && d != UNREACHABLE)
            {
                hops[s + nHosts] = std::min(hops[s + nHosts], entry[e] + d);
            }
        }
    }
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        for (uint32_t p = 0; p < g.GetNPorts(h); ++p)
        {
            const uint32_t a = g.GetPeer(h, p);
            if (!g.IsHost(a) && hops[a] != UNREACHABLE)
            {
                hops[h] = std::min(hops[h], hops[a] + 1);
            }
        }
    }
    for (uint32_t src : sources)
    {
        hops[src] = 0;
    }
    return hops;
}

void
FabricFailureDetector::OnTruthChange(const FabricStateChange& change)
{
    {
        // The truth flipped: every view that agreed on this element now differs, and back.
        const uint32_t views = static_cast<uint32_t>(m_nodeViews.size());
        const uint64_t key = ElementKey(change);
        auto it = m_disagree.find(key);
        const uint32_t before = it == m_disagree.end() ? 0 : it->second;
        const uint32_t after = views - before;
        m_disagreeTotal = m_disagreeTotal - before + after;
        if (after == 0)
        {
            if (it != m_disagree.end())
            {
                m_disagree.erase(it);
            }
        }
        else
        {
            m_disagree[key] = after;
        }
        if (m_routing)
        {
            m_routing->SetViewDisagreements(m_disagreeTotal);
        }
    }
    const FabricGraph& g = m_truth->GetGraph();
    const Time now = Simulator::Now();
    const bool isNode = change.element == FabricStateChange::Element::NODE;
    NS_LOG_INFO(now.As(Time::US) << " truth: " << Describe(change));
    m_truthChangeTrace(isNode, change.id, change.up);

    // Adjacent nodes: they detect it themselves.
    if (isNode)
    {
        std::vector<uint32_t> adjacent{change.id};
        for (uint32_t p = 0; p < g.GetNPorts(change.id); ++p)
        {
            adjacent.push_back(g.GetPeer(change.id, p));
        }
        std::sort(adjacent.begin(), adjacent.end());
        adjacent.erase(std::unique(adjacent.begin(), adjacent.end()), adjacent.end());
        for (uint32_t v : adjacent)
        {
            Simulator::Schedule(m_localDelay,
                                &FabricFailureDetector::Learn,
                                Ptr<FabricFailureDetector>(this),
                                v,
                                change,
                                now,
                                How::LOCAL);
        }
        ScheduleUpdates(adjacent, change, now, m_localDelay);
    }
    else
    {
        // Who sees loss of signal is known only when it fires (the other direction of a
        // link failure is a separate change at the same instant).
        Simulator::Schedule(m_localDelay,
                            &FabricFailureDetector::DetectDirLink,
                            Ptr<FabricFailureDetector>(this),
                            change,
                            now);
    }
    Simulator::Schedule(m_localDelay + m_controllerLatency,
                        &FabricFailureDetector::ControllerLearn,
                        Ptr<FabricFailureDetector>(this),
                        change,
                        now);
}

void
FabricFailureDetector::ScheduleUpdates(const std::vector<uint32_t>& detectors,
                                       FabricStateChange change,
                                       Time changedAt,
                                       Time after)
{
    if (!m_routingUpdates)
    {
        return;
    }
    // Every other node learns from the nearest node that detected by loss of signal.
    const FabricGraph& g = m_truth->GetGraph();
    const std::vector<uint32_t> hops = HopsFrom(detectors);
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        if (hops[v] == 0 || hops[v] == UNREACHABLE)
        {
            continue; // a detector itself, or no path for updates
        }
        Simulator::Schedule(after + m_propagationPerHop * int64_t(hops[v]),
                            &FabricFailureDetector::Learn,
                            Ptr<FabricFailureDetector>(this),
                            v,
                            change,
                            changedAt,
                            How::UPDATE);
    }
}

void
FabricFailureDetector::DetectDirLink(FabricStateChange change, Time changedAt)
{
    if (!m_routing)
    {
        return; // disposed: the run is over
    }
    const FabricGraph& g = m_truth->GetGraph();
    const uint32_t tail = g.GetDirLinkTail(change.id);
    const uint32_t head = g.GetDirLinkHead(change.id);
    // The receiving end loses the signal (or sees it again).
    Learn(head, change, changedAt, How::LOCAL);
    // The sending end sees it on its own receiver only if the other direction died too (or
    // for a repair); a one-way failure leaves its receiver lit: BFD tells it, or the head's
    // routing update (over the working reverse direction), whichever comes first.
    const bool tailSees = change.up || !m_truth->IsDirLinkUp(change.id ^ 1u);
    std::vector<uint32_t> detectors{head};
    if (tailSees)
    {
        Learn(tail, change, changedAt, How::LOCAL);
        detectors.push_back(tail);
    }
    else
    {
        LearnTailOfDirLink(tail, change, changedAt);
    }
    ScheduleUpdates(detectors, change, changedAt, Time(0));
}

void
FabricFailureDetector::LearnTailOfDirLink(uint32_t tail, FabricStateChange change, Time changedAt)
{
    // One-way failure: BFD tells the tail, BfdMultiplier intervals after the failure.
    const Time bfd = m_bfdInterval * int64_t(m_bfdMultiplier);
    const Time left = changedAt + bfd - Simulator::Now();
    Simulator::Schedule(left.IsStrictlyPositive() ? left : Time(0),
                        &FabricFailureDetector::Learn,
                        Ptr<FabricFailureDetector>(this),
                        tail,
                        change,
                        changedAt,
                        How::BFD);
}

void
FabricFailureDetector::Apply(FabricState& view, const FabricStateChange& c)
{
    if (c.element == FabricStateChange::Element::NODE)
    {
        if (c.up != view.IsNodeUp(c.id))
        {
            c.up ? view.RepairNode(c.id) : view.FailNode(c.id);
        }
    }
    else if (c.up != view.IsDirLinkUp(c.id))
    {
        c.up ? view.RepairDirLink(c.id) : view.FailDirLink(c.id);
    }
}

void
FabricFailureDetector::Learn(uint32_t node, FabricStateChange change, Time changedAt, How how)
{
    if (!m_routing)
    {
        return; // disposed: the run is over
    }
    auto& seen = m_learnt[node];
    auto it = seen.find(ElementKey(change));
    if (it != seen.end() && it->second >= change.version)
    {
        return; // already knows this change or a later one of the same element
    }
    seen[ElementKey(change)] = change.version;
    const Time now = Simulator::Now();
    NS_LOG_INFO(now.As(Time::US) << " node " << node << " learns " << Describe(change) << " by "
                                 << HowName(how) << " after " << (now - changedAt).As(Time::US));
    m_learnings.push_back(Learning{now,
                                   changedAt,
                                   node,
                                   change.element == FabricStateChange::Element::NODE,
                                   change.id,
                                   change.up,
                                   how});
    m_learnTrace(node,
                 change.element == FabricStateChange::Element::NODE,
                 change.id,
                 change.up,
                 static_cast<int>(how),
                 now - changedAt);
    Apply(*m_nodeViews[node], change); // the routing reacts at this node (NodeViewChange)
    if (m_routingUpdates)
    {
        // The node's routing protocol recomputes its tables over what it now knows.
        Simulator::Schedule(m_computeDelay,
                            &FabricFailureDetector::Converge,
                            Ptr<FabricFailureDetector>(this),
                            node);
    }
}

void
FabricFailureDetector::Converge(uint32_t node)
{
    if (!m_routing)
    {
        return; // disposed: the run is over
    }
    if (m_routing)
    {
        NS_LOG_INFO(Simulator::Now().As(Time::US) << " node " << node << " recomputes its tables");
        m_routing->NotifyNodeConverged(node);
    }
}

void
FabricFailureDetector::ControllerLearn(FabricStateChange change, Time changedAt)
{
    if (!m_routing)
    {
        return; // disposed: the run is over
    }
    auto& seen = m_learnt.back();
    auto it = seen.find(ElementKey(change));
    if (it != seen.end() && it->second >= change.version)
    {
        return;
    }
    seen[ElementKey(change)] = change.version;
    const Time now = Simulator::Now();
    NS_LOG_INFO(now.As(Time::US) << " controller learns " << Describe(change) << " after "
                                 << (now - changedAt).As(Time::US));
    m_learnings.push_back(Learning{now,
                                   changedAt,
                                   UINT32_MAX,
                                   change.element == FabricStateChange::Element::NODE,
                                   change.id,
                                   change.up,
                                   How::CONTROLLER});
    m_learnTrace(UINT32_MAX,
                 change.element == FabricStateChange::Element::NODE,
                 change.id,
                 change.up,
                 static_cast<int>(How::CONTROLLER),
                 now - changedAt);
    Apply(*m_controllerView, change);
}

} // namespace ns3
