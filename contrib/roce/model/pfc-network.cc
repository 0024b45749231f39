// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-network.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/fabric-warning.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcNetwork");
NS_OBJECT_ENSURE_REGISTERED(PfcNetwork);

namespace
{

using CycleGraph = boost::adjacency_list<boost::vecS,
                                         boost::vecS,
                                         boost::directedS,
                                         boost::no_property,
                                         boost::property<boost::edge_index_t, uint32_t>>;

/// Records the tree edge into each vertex and the first back edge (which closes a cycle).
struct CycleVisitor : public boost::default_dfs_visitor
{
    std::vector<int64_t>* parentEdge;
    int64_t* backEdge;

    template<class Edge, class Graph>
    void tree_edge(Edge e, const Graph& g)
    {
        (*parentEdge)[boost::target(e, g)] = boost::get(boost::edge_index, g, e);
    }

    template<class Edge, class Graph>
    void back_edge(Edge e, const Graph& g)
    {
        if (*backEdge < 0)
        {
            *backEdge = boost::get(boost::edge_index, g, e);
        }
    }
};

} // namespace

std::vector<uint32_t>
FindDirectedCycle(uint32_t nNodes, const std::vector<std::pair<uint32_t, uint32_t>>& edges)
{
    CycleGraph g(nNodes);
    for (uint32_t i = 0; i < edges.size(); ++i)
    {
        if (edges[i].first >= nNodes || edges[i].second >= nNodes)
        {
            throw std::invalid_argument("FindDirectedCycle: edge " + std::to_string(i)
                                        + " names a node outside 0.." + std::to_string(nNodes));
        }
        boost::add_edge(edges[i].first, edges[i].second, i, g);
    }
    std::vector<int64_t> parentEdge(nNodes, -1);
    int64_t backEdge = -1;
    CycleVisitor vis;
    vis.parentEdge = &parentEdge;
    vis.backEdge = &backEdge;
    boost::depth_first_search(g, boost::visitor(vis));
    if (backEdge < 0)
    {
        return {};
    }
    // The back edge u -> v closes the tree path v -> ... -> u: walk it back from u.
    std::vector<uint32_t> cycle;
    const uint32_t v = edges[backEdge].second;
    uint32_t at = edges[backEdge].first;
    while (at != v)
    {
        const int64_t e = parentEdge[at];
        cycle.push_back(static_cast<uint32_t>(e));
        at = edges[e].first;
    }
    std::reverse(cycle.begin(), cycle.end());
    cycle.push_back(static_cast<uint32_t>(backEdge));
    return cycle;
}

TypeId
PfcNetwork::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PfcNetwork")
              .SetParent<Object>()
              .SetGroupName("Roce")
              .AddConstructor<PfcNetwork>()
              .AddAttribute("CheckInterval",
                            "How often the storm and deadlock detectors look while a port is "
                            "paused.",
                            TimeValue(MicroSeconds(20)),
                            MakeTimeAccessor(&PfcNetwork::m_checkInterval),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("DeadlockTime",
                            "A cycle of links each paused (data class, with packets waiting) "
                            "for at least this long is a deadlock.",
                            TimeValue(MicroSeconds(500)),
                            MakeTimeAccessor(&PfcNetwork::m_deadlockTime),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("StormTime",
                            "A port paused without a break for longer than this is a pause "
                            "storm (the switches' PFC watchdog timer).",
                            TimeValue(MilliSeconds(2)),
                            MakeTimeAccessor(&PfcNetwork::m_stormTime),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute(
                  "WatchdogPolicy",
                  "What a detected pause storm triggers on its port: none (report), "
                  "drop (drop the paused packets, pfc-watchdog, and ignore pauses "
                  "from then on), ignore (ignore pauses from then on).",
                  EnumValue(WATCHDOG_NONE),
                  MakeEnumAccessor(&PfcNetwork::m_policy),
                  MakeEnumChecker(
                      WATCHDOG_NONE, "none", WATCHDOG_DROP, "drop", WATCHDOG_IGNORE, "ignore"))
              .AddAttribute("StopOnDeadlock",
                            "End the simulation when a deadlock is detected.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&PfcNetwork::m_stopOnDeadlock),
                            MakeBooleanChecker())
              .AddAttribute("RecordPauseEvents",
                            "Keep every pause state change (for plots of pause over time).",
                            BooleanValue(true),
                            MakeBooleanAccessor(&PfcNetwork::m_recordEvents),
                            MakeBooleanChecker())
              .AddTraceSource("Deadlock",
                              "A cycle of paused links was found: its directed links.",
                              MakeTraceSourceAccessor(&PfcNetwork::m_deadlockTrace),
                              "ns3::PfcNetwork::DeadlockTracedCallback")
              .AddTraceSource("PauseStorm",
                              "A port was paused longer than StormTime: directed link, time.",
                              MakeTraceSourceAccessor(&PfcNetwork::m_stormTrace),
                              "ns3::PfcNetwork::StormTracedCallback");
    return tid;
}

PfcNetwork::PfcNetwork()
{
    NS_LOG_FUNCTION(this);
}

PfcNetwork::~PfcNetwork()
{
    *m_alive = false;
}

void
PfcNetwork::DoDispose()
{
    *m_alive = false;
    m_check.Cancel();
    m_net = nullptr;
    Object::DoDispose();
}

void
PfcNetwork::Install(Ptr<FabricNetwork> net, const ObjectFactory& switchFactory)
{
    NS_LOG_FUNCTION(this);
    m_net = net;
    const FabricGraph& g = net->GetGraph();
    m_queues.assign(2 * static_cast<size_t>(g.GetNLinks()), nullptr);
    m_stormReported.assign(m_queues.size(), false);
    m_switches.assign(g.GetNNodes(), nullptr);
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            Ptr<NetDevice> dev = net->GetDevice(v, p);
            auto q = DynamicCast<PfcQueue>(FabricLinkDevice::GetQueue(dev));
            if (!q)
            {
                throw std::invalid_argument(
                    "PfcNetwork: port " + std::to_string(p) + " of " + g.GetName(v)
                    + " has no ns3::PfcQueue (FabricNetworkHelper::SetQueueType)");
            }
            q->SetDevice(dev);
            if (g.IsHost(v))
            {
                q->SetAttribute("GateDequeue", BooleanValue(false));
            }
            const uint32_t d = g.GetEgressDirLink(v, p);
            m_queues[d] = q;
            q->TraceConnectWithoutContext("PauseState",
                                          Callback<void, uint8_t, bool>(
                                              [this, d, alive = m_alive](uint8_t cls, bool paused)
                                              {
                                                  if (*alive)
                                                  {
                                                      PauseChanged(d, cls, paused);
                                                  }
                                              }));
        }
    }
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        if (!g.IsHost(v))
        {
            Ptr<PfcSwitch> sw = switchFactory.Create<PfcSwitch>();
            sw->Install(net, v);
            net->GetNode(v)->AggregateObject(sw);
            m_switches[v] = sw;
        }
    }
}

Ptr<PfcSwitch>
PfcNetwork::GetSwitch(uint32_t fabricNode) const
{
    return fabricNode < m_switches.size() ? m_switches[fabricNode] : nullptr;
}

void
PfcNetwork::PauseDirLink(uint32_t dirLink, Time window)
{
    if (dirLink >= m_queues.size() || !window.IsStrictlyPositive())
    {
        throw std::invalid_argument(
            "PfcNetwork::PauseDirLink: directed link " + std::to_string(dirLink) + " (valid: 0.."
            + std::to_string(m_queues.size()) + ") for a window of "
            + std::to_string(window.GetNanoSeconds()) + " ns (must be positive)");
    }
    m_queues[dirLink]->ReceivePause(PfcQueue::DATA, window);
}

uint64_t
PfcNetwork::GetPauseFrames() const
{
    uint64_t n = 0;
    for (const auto& sw : m_switches)
    {
        if (sw)
        {
            for (uint32_t p = 0; p < m_net->GetGraph().GetNPorts(sw->GetFabricNode()); ++p)
            {
                n += sw->GetPauseFrames(p);
            }
        }
    }
    return n;
}

uint64_t
PfcNetwork::GetPauseEpisodes() const
{
    uint64_t n = 0;
    for (const auto& q : m_queues)
    {
        n += q->GetPauseCount(PfcQueue::DATA);
    }
    return n;
}

uint64_t
PfcNetwork::GetHeadroomDrops() const
{
    uint64_t n = 0;
    for (const auto& sw : m_switches)
    {
        n += sw ? sw->GetHeadroomDrops() : 0;
    }
    return n;
}

uint64_t
PfcNetwork::GetLostPauseFrames() const
{
    uint64_t n = 0;
    for (const auto& sw : m_switches)
    {
        n += sw ? sw->GetLostPauseFrames() : 0;
    }
    return n;
}

double
PfcNetwork::GetPausedSeconds(uint32_t dirLink) const
{
    return m_queues[dirLink]->GetPausedTime(PfcQueue::DATA).GetSeconds();
}

void
PfcNetwork::PauseChanged(uint32_t dirLink, uint8_t cls, bool paused)
{
    if (cls != PfcQueue::DATA)
    {
        return;
    }
    if (m_recordEvents)
    {
        m_events.push_back({Simulator::Now().GetSeconds(), dirLink, paused});
    }
    if (paused)
    {
        ++m_nPaused;
        m_stormReported[dirLink] = false;
        if (!m_check.IsRunning())
        {
            m_check = Simulator::Schedule(m_checkInterval, &PfcNetwork::Check, this);
        }
    }
    else
    {
        m_nPaused -= m_nPaused > 0 ? 1 : 0;
    }
}

void
PfcNetwork::Check()
{
    const FabricGraph& g = m_net->GetGraph();
    const Time now = Simulator::Now();
    // Deadlock: paused switch queues that hold data packets, and the buffer dependencies
    // between them (PfcBufferDependencies); a cycle of those never resumes by itself.
    std::vector<PfcHeldQueue> held;
    std::vector<uint32_t> bufferNodes;
    std::vector<uint32_t> bufferOf(g.GetNNodes(), UINT32_MAX);
    for (uint32_t d = 0; d < m_queues.size(); ++d)
    {
        const Ptr<PfcQueue>& q = m_queues[d];
        if (!q->IsPaused(PfcQueue::DATA))
        {
            continue;
        }
        const Time pausedFor = now - q->GetPausedSince(PfcQueue::DATA);
        const uint32_t tail = g.GetDirLinkTail(d);
        if (pausedFor > m_stormTime && !m_stormReported[d])
        {
            m_stormReported[d] = true;
            m_storms.push_back({now.GetSeconds(), d, g.GetDirLinkLabel(d), pausedFor.GetSeconds()});
            m_stormTrace(d, pausedFor);
            FabricWarn("PfcNetwork",
                       "pause storm: " + g.GetDirLinkLabel(d) + " paused for "
                           + std::to_string(pausedFor.GetMicroSeconds()) + " us");
            Ptr<FabricSwitchForwarder> fw
                = m_net->GetNode(tail)->GetObject<FabricSwitchForwarder>();
            // A host's queue holds at most the NIC's few packets, already counted as sent by
            // the host: it only stops ignoring pauses; a switch drops what waits.
            if (m_policy == WATCHDOG_DROP && fw)
            {
                for (const Ptr<Packet>& p : q->FlushClass(PfcQueue::DATA))
                {
                    ++m_watchdogDrops;
                    fw->ReportDrop(p, FabricDropReason::PFC_WATCHDOG);
                }
            }
            if (m_policy != WATCHDOG_NONE)
            {
                q->SetIgnorePause(true);
            }
        }
        // After the watchdog: a queue it flushed or released holds nothing back.
        if (q->IsPaused(PfcQueue::DATA) && pausedFor >= m_deadlockTime
            && q->GetNPacketsOf(PfcQueue::DATA) > 0 && m_switches[tail])
        {
            if (bufferOf[tail] == UINT32_MAX)
            {
                bufferOf[tail] = bufferNodes.size();
                bufferNodes.push_back(tail);
            }
            held.push_back({d, bufferOf[tail], q->GetBytesByIngress(PfcQueue::DATA)});
        }
    }
    std::vector<PfcSwitchBuffer> buffers;
    for (uint32_t v : bufferNodes)
    {
        buffers.push_back(m_switches[v]->GetBufferState());
    }
    const auto edges = PfcBufferDependencies(buffers, held);
    const std::vector<uint32_t> cycle = FindDirectedCycle(m_queues.size(), edges);
    if (!cycle.empty())
    {
        DeadlockReport r;
        r.t = now.GetSeconds();
        for (uint32_t e : cycle)
        {
            r.dirLinks.push_back(edges[e].first); // waits for the next link of the cycle
            r.labels.push_back(g.GetDirLinkLabel(edges[e].first));
        }
        bool known = false;
        for (const auto& old : m_deadlocks)
        {
            auto a = old.dirLinks;
            auto b = r.dirLinks;
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            known = known || a == b;
        }
        if (!known)
        {
            std::string text;
            for (const auto& l : r.labels)
            {
                text += (text.empty() ? "" : ", ") + l;
            }
            FabricWarn("PfcNetwork", "PFC deadlock: cycle of paused links " + text);
            m_deadlockTrace(r.dirLinks);
            m_deadlocks.push_back(std::move(r));
            if (m_stopOnDeadlock)
            {
                Simulator::Stop();
                return;
            }
        }
    }
    if (m_nPaused > 0)
    {
        m_check = Simulator::Schedule(m_checkInterval, &PfcNetwork::Check, this);
    }
}

} // namespace ns3
