// SPDX-License-Identifier: GPL-2.0-only
#include "roce-failover-study.h"

#include "ns3/boolean.h"
#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-stats.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/gnuplot.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/ppp-header.h"
#include "ns3/roce-header.h"
#include "ns3/roce-sender.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFailoverStudy");

using json = nlohmann::json;

std::vector<FailoverEvent>
SequenceFailoverEvents(const std::vector<std::pair<std::string, FabricFailureEvent>>& elements,
                       Time start,
                       Time hold,
                       Time gap)
{
    std::vector<FailoverEvent> ev;
    for (const auto& [kind, fail] : elements)
    {
        FailoverEvent e;
        e.kind = kind;
        e.fail = fail;
        e.fail.repair = false;
        e.fail.at = start + (hold + gap) * int64_t(ev.size());
        e.repair = e.fail;
        e.repair.repair = true;
        e.repair.at = e.fail.at + hold;
        ev.push_back(e);
    }
    return ev;
}

Time
FailoverDelays::SettleTime() const
{
    return detect + std::max(controllerLatency, propagation * 4 + compute) + MicroSeconds(300);
}

json
FailoverDelays::ToJson() const
{
    return json{{"detect_us", detect.GetSeconds() * 1e6},
                {"controller_latency_us", controllerLatency.GetSeconds() * 1e6},
                {"propagation_us", propagation.GetSeconds() * 1e6},
                {"compute_us", compute.GetSeconds() * 1e6},
                {"bfd_interval_us", bfdInterval.GetSeconds() * 1e6},
                {"bfd_multiplier", bfdMultiplier}};
}

Ptr<FabricFailureDetector>
MakeFailoverDetector(const FailoverDelays& d)
{
    return CreateObjectWithAttributes<FabricFailureDetector>("LocalDetectionDelay",
                                                             TimeValue(d.detect),
                                                             "ControllerLatency",
                                                             TimeValue(d.controllerLatency),
                                                             "PropagationDelayPerHop",
                                                             TimeValue(d.propagation),
                                                             "BfdInterval",
                                                             TimeValue(d.bfdInterval),
                                                             "BfdMultiplier",
                                                             UintegerValue(d.bfdMultiplier),
                                                             "ComputeDelay",
                                                             TimeValue(d.compute),
                                                             "RoutingUpdates",
                                                             BooleanValue(d.routingUpdates));
}

// ---------------------------------------------------------------------------------------------
// RoceFailoverProbe

RoceFailoverProbe::RoceFailoverProbe(std::vector<Time> windows)
    : m_windows(std::move(windows))
{
}

uint32_t
RoceFailoverProbe::WindowOf(Time t) const
{
    uint32_t w = UINT32_MAX;
    for (uint32_t i = 0; i < m_windows.size() && m_windows[i] <= t; ++i)
    {
        w = i;
    }
    return w;
}

void
RoceFailoverProbe::OnTx(uint32_t flow, Ptr<const Packet> p, uint32_t psn, bool isRetx)
{
    const uint32_t w = WindowOf(Simulator::Now());
    m_sent[p->GetUid()] = Sent{flow, w, psn};
    if (isRetx && w != UINT32_MAX)
    {
        ++m_retx[{w, flow}];
    }
}

void
RoceFailoverProbe::OnArrival(Ptr<const Packet> p)
{
    auto it = m_sent.find(p->GetUid());
    if (it == m_sent.end())
    {
        return; // not a data packet of a queue pair
    }
    // The receiver's go-back-N: in order advances, below is a duplicate, beyond is discarded.
    uint32_t& expected = m_expected[it->second.flow];
    const uint32_t now = WindowOf(Simulator::Now());
    if (it->second.psn == expected)
    {
        ++expected;
    }
    else if (it->second.psn < expected)
    {
        ++m_dupTotal[it->second.flow];
        if (now != UINT32_MAX)
        {
            ++m_dup[{now, it->second.flow}];
        }
    }
    NS_LOG_LOGIC("flow " << it->second.flow << " psn " << it->second.psn << " arrives, expected "
                         << expected);
    if (it->second.window != UINT32_MAX && it->second.window == now)
    {
        m_firstArrival.emplace(std::make_pair(it->second.window, it->second.flow),
                               Simulator::Now());
    }
}

namespace
{

/**
 * The flow (queue pair) of a receiver's ACK/NACK/CNP as a drop trace hands it over, or
 * UINT32_MAX for anything else. A control packet has no payload, so its size tells the
 * layers it still carries: UDP + RoCE (IPv4 and traffic-control drops, the IP header apart),
 * IPv4 + UDP + RoCE (switches, link guards, a device refusing it), or PPP in front too (a
 * full device queue).
 */
uint32_t
ControlPacketFlow(Ptr<const Packet> p)
{
    constexpr uint32_t udpRoce = 8 + RoceHeader::SIZE;
    const uint32_t size = p->GetSize();
    if (size != udpRoce && size != 20 + udpRoce && size != 2 + 20 + udpRoce)
    {
        return UINT32_MAX;
    }
    Ptr<Packet> c = p->Copy();
    if (size == 2 + 20 + udpRoce)
    {
        PppHeader ppp;
        c->RemoveHeader(ppp);
        if (ppp.GetProtocol() != 0x0021) // IPv4
        {
            return UINT32_MAX;
        }
    }
    if (size != udpRoce)
    {
        Ipv4Header ip;
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
        {
            return UINT32_MAX;
        }
    }
    UdpHeader udp;
    RoceHeader rh;
    c->RemoveHeader(udp);
    if (udp.GetDestinationPort() != ROCEV2_UDP_PORT || c->GetSize() != RoceHeader::SIZE)
    {
        return UINT32_MAX;
    }
    c->RemoveHeader(rh);
    return rh.GetType() == RoceHeader::DATA ? UINT32_MAX : rh.GetQp();
}

} // namespace

void
RoceFailoverProbe::OnDrop(Ptr<const Packet> p, bool queue)
{
    auto it = m_sent.find(p->GetUid());
    if (it == m_sent.end())
    {
        const uint32_t flow = ControlPacketFlow(p);
        const uint32_t w = WindowOf(Simulator::Now());
        if (flow != UINT32_MAX)
        {
            NS_LOG_LOGIC("flow " << flow << " control packet dropped"
                                 << (queue ? " in a queue" : ""));
        }
        if (flow != UINT32_MAX && w != UINT32_MAX)
        {
            ++m_controlLost[{w, flow}];
        }
        return;
    }
    const uint32_t w = WindowOf(Simulator::Now());
    if (it != m_sent.end())
    {
        NS_LOG_LOGIC("flow " << it->second.flow << " psn " << it->second.psn << " dropped"
                             << (queue ? " in a queue" : ""));
    }
    if (it != m_sent.end() && w != UINT32_MAX)
    {
        ++m_lost[{w, it->second.flow}];
        if (queue)
        {
            ++m_lostInQueue[{w, it->second.flow}];
        }
    }
}

void
RoceFailoverProbe::Watch(Ptr<FabricNetwork> net)
{
    const FabricGraph& g = net->GetGraph();
    auto drop = [this](Ptr<const Packet> p, const std::string&)
    {
        OnDrop(p, false);
    };
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        Ptr<Node> node = net->GetNode(v);
        if (g.IsHost(v))
        {
            for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
            {
                net->GetDevice(v, p)->TraceConnectWithoutContext(
                    "MacRx",
                    Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> pkt)
                                                      { OnArrival(pkt); }));
            }
        }
        // Drops in a device's transmit queue (queue-overflow) and, with no queue disc, at a
        // stopped host queue (host-queue-full): the same packets FabricLinkMonitor counts.
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            net->GetDevice(v, p)->TraceConnectWithoutContext(
                "MacTxDrop",
                Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> pkt)
                                                  { OnDrop(pkt, true); }));
        }
        if (auto tc = node->GetObject<TrafficControlLayer>())
        {
            tc->TraceConnectWithoutContext(
                "TcDrop",
                Callback<void, Ptr<const Packet>>([this](Ptr<const Packet> pkt)
                                                  { OnDrop(pkt, true); }));
        }
        if (auto guard = node->GetObject<FabricLinkGuard>())
        {
            guard->TraceConnectWithoutContext(
                "Drop", Callback<void, Ptr<const Packet>, const std::string&>(drop));
        }
        if (auto fw = node->GetObject<FabricSwitchForwarder>())
        {
            fw->TraceConnectWithoutContext(
                "Drop", Callback<void, Ptr<const Packet>, const std::string&>(drop));
        }
        if (auto ipv4 = node->GetObject<Ipv4L3Protocol>())
        {
            ipv4->TraceConnectWithoutContext(
                "Drop",
                Callback<void,
                         const Ipv4Header&,
                         Ptr<const Packet>,
                         Ipv4L3Protocol::DropReason,
                         Ptr<Ipv4>,
                         uint32_t>([this](const Ipv4Header&,
                                          Ptr<const Packet> p,
                                          Ipv4L3Protocol::DropReason,
                                          Ptr<Ipv4>,
                                          uint32_t) { OnDrop(p, false); }));
        }
    }
}

RoceTrafficHelper::SenderCreatedCallback
RoceFailoverProbe::OnSender()
{
    return [this](uint32_t flow, Ptr<RoceSender> s)
    {
        s->TraceConnectWithoutContext(
            "Tx",
            Callback<void, Ptr<const Packet>, uint32_t, bool>(
                [this, flow](Ptr<const Packet> p, uint32_t psn, bool isRetx)
                { OnTx(flow, p, psn, isRetx); }));
    };
}

Time
RoceFailoverProbe::FirstArrival(uint32_t w, uint32_t flow) const
{
    auto it = m_firstArrival.find({w, flow});
    return it == m_firstArrival.end() ? Time(-1) : it->second;
}

uint64_t
RoceFailoverProbe::Lost(uint32_t w, uint32_t flow) const
{
    auto it = m_lost.find({w, flow});
    return it == m_lost.end() ? 0 : it->second;
}

uint64_t
RoceFailoverProbe::LostInQueue(uint32_t w, uint32_t flow) const
{
    auto it = m_lostInQueue.find({w, flow});
    return it == m_lostInQueue.end() ? 0 : it->second;
}

uint64_t
RoceFailoverProbe::Retransmitted(uint32_t w, uint32_t flow) const
{
    auto it = m_retx.find({w, flow});
    return it == m_retx.end() ? 0 : it->second;
}

uint64_t
RoceFailoverProbe::ControlLost(uint32_t w, uint32_t flow) const
{
    auto it = m_controlLost.find({w, flow});
    return it == m_controlLost.end() ? 0 : it->second;
}

uint64_t
RoceFailoverProbe::DuplicatesReceivedTotal(uint32_t flow) const
{
    auto it = m_dupTotal.find(flow);
    return it == m_dupTotal.end() ? 0 : it->second;
}

uint64_t
RoceFailoverProbe::DuplicatesReceived(uint32_t w, uint32_t flow) const
{
    auto it = m_dup.find({w, flow});
    return it == m_dup.end() ? 0 : it->second;
}

// ---------------------------------------------------------------------------------------------
// Runs

namespace
{

/// A network of (\p routing, \p graph) at \p lineBps and its routing instance.
Ptr<FabricNetwork>
MakeNetwork(const ObjectFactory& routing, std::shared_ptr<const FabricGraph> graph, double lineBps)
{
    ObjectFactory f = routing;
    Ptr<FabricRouting> r = f.Create<FabricRouting>();
    r->SetGraph(graph);
    FabricNetworkHelper links;
    links.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(lineBps))));
    return links.Install(graph, r);
}

/// Median and max of \p v, or nulls when empty.
json
MedianMax(const std::vector<double>& v)
{
    if (v.empty())
    {
        return json{{"median", nullptr}, {"max", nullptr}};
    }
    return json{{"median", Quantile(v, 0.5)}, {"max", *std::max_element(v.begin(), v.end())}};
}

/// Stall (us) of \p flow in window \p w of a failure at \p t repaired at \p repair: failure
/// to the first arrival of a packet sent after it, capped at the repair (a flow that waited
/// for the repair was cut for the whole hold, whatever the transport did next).
/// \p recovered: it arrived before the repair; \p inWindow: something arrived in the window.
double
StallOf(const RoceFailoverProbe& probe,
        uint32_t w,
        uint32_t flow,
        Time t,
        Time repair,
        bool* recovered,
        bool* inWindow)
{
    const Time at = probe.FirstArrival(w, flow);
    *inWindow = !at.IsNegative();
    *recovered = *inWindow && at < repair;
    return ((*recovered ? at : repair) - t).GetSeconds() * 1e6;
}

uint32_t
SwitchHops(const FabricPath& p)
{
    return p.nodes.size() < 2 ? 0 : static_cast<uint32_t>(p.nodes.size() - 2);
}

bool
Crosses(const FabricPath& p, const FabricState& state)
{
    for (uint32_t d : p.dirLinks)
    {
        if (!state.IsDirLinkUsable(d))
        {
            return true;
        }
    }
    return false;
}

} // namespace

FailoverRun
RunFailover(const ObjectFactory& routing,
            std::shared_ptr<const FabricGraph> graph,
            double lineBps,
            const FailoverDelays& delays,
            const std::vector<FailoverEvent>& events,
            const std::vector<FlowSpec>& flows,
            Time stopAt,
            Time bin,
            bool fail,
            Time queueSample)
{
    Ptr<FabricNetwork> net = MakeNetwork(routing, graph, lineBps);
    Ptr<FabricFailureDetector> det = MakeFailoverDetector(delays);
    det->Install(net);
    FabricFailureHelper failures(net);
    FailoverRun run;
    auto tableChanges = std::make_shared<std::vector<std::pair<Time, uint32_t>>>();
    net->GetRouting()->TraceConnectWithoutContext(
        "TableChange",
        Callback<void, uint32_t, uint32_t>(
            [tableChanges](uint32_t node, uint32_t)
            { tableChanges->emplace_back(Simulator::Now(), node); }));
    std::vector<Time> windows;
    for (const FailoverEvent& e : events)
    {
        // The report reads each event's paths at its failure instant and throughput up to its
        // repair: both must happen within the run.
        if (e.fail.at >= stopAt || e.repair.at > stopAt)
        {
            throw std::invalid_argument(
                "failover event at " + std::to_string(e.fail.at.GetMicroSeconds()) + " us (repair "
                + std::to_string(e.repair.at.GetMicroSeconds()) + " us) is not within the run's "
                + std::to_string(stopAt.GetMicroSeconds()) + " us");
        }
    }
    run.pathsAtFailure.resize(events.size());
    for (uint32_t w = 0; w < events.size(); ++w)
    {
        const FailoverEvent& e = events[w];
        if (fail)
        {
            failures.Schedule(e.fail);
            failures.Schedule(e.repair);
        }
        windows.push_back(e.fail.at);
        // The path each flow is on when the element fails (the previous event's reactions may
        // still be in force): read-only, it changes no result.
        auto* paths = &run.pathsAtFailure[w];
        Ptr<FabricRouting> rt = net->GetRouting();
        Simulator::Schedule(e.fail.at,
                            [paths, rt, &flows]()
                            {
                                for (const auto& f : flows)
                                {
                                    paths->push_back(
                                        TracePath(*rt, f.src, f.dst, f.Key()).dirLinks);
                                }
                            });
    }
    run.probe = std::make_shared<RoceFailoverProbe>(windows);
    FabricRoceRunOptions opt;
    opt.stopAt = stopAt;
    opt.throughputBin = bin;
    if (queueSample.IsStrictlyPositive())
    {
        opt.queueSampleInterval = queueSample;
        for (uint32_t d = 0; d < 2 * graph->GetNLinks(); ++d)
        {
            opt.queueSampleLinks.push_back(d);
        }
    }
    opt.senderCreated = run.probe->OnSender();
    RoceFailoverProbe* probe = run.probe.get();
    opt.beforeRun = [probe](Ptr<FabricNetwork> nw, const ApplicationContainer&)
    {
        probe->Watch(nw);
    };
    run.result = RunFabricRoce(net, flows, opt);
    run.learnings = det->GetLearnings();
    run.tableChanges = *tableChanges;
    run.queueSamples = run.result.queueSamples;
    return run;
}

Ptr<FabricRouting>
ConvergedRouting(const ObjectFactory& routing,
                 std::shared_ptr<const FabricGraph> graph,
                 const FabricState& state)
{
    ObjectFactory f = routing;
    Ptr<FabricRouting> r = f.Create<FabricRouting>();
    r->SetGraph(graph);
    auto view = std::make_shared<FabricState>(graph);
    view->CopyFrom(state);
    r->SetView(view);
    r->SetControllerView(view);
    for (uint32_t v = 0; v < graph->GetNNodes(); ++v)
    {
        r->SetNodeView(v, view); // every node knows and has recomputed (Spraypoint levels)
        r->NotifyNodeConverged(v);
    }
    return r;
}

json
AnalyzeFailoverEvents(const FailoverAnalysisSettings& s,
                      const std::vector<FailoverEvent>& events,
                      const std::vector<FlowSpec>& flows,
                      const FailoverRun& run)
{
    if (!s.graph)
    {
        throw std::invalid_argument("AnalyzeFailoverEvents: graph is not set");
    }
    if (s.routing.GetTypeId().GetUid() == 0)
    {
        throw std::invalid_argument("AnalyzeFailoverEvents: routing is not set");
    }
    if (!s.bin.IsStrictlyPositive())
    {
        throw std::invalid_argument("AnalyzeFailoverEvents: bin must be positive");
    }
    if (!(s.goodputDipFraction >= 0 && s.goodputDipFraction <= 1))
    {
        throw std::invalid_argument("AnalyzeFailoverEvents: goodputDipFraction must be in [0, 1]");
    }
    const std::shared_ptr<const FabricGraph>& graph = s.graph;
    const Time bin = s.bin;
    const FailoverRun* noFailure = s.noFailure;
    const FabricRoceRunResult& r = run.result;
    json out = json::array();
    Ptr<FabricRouting> allUp = ConvergedRouting(s.routing, graph, FabricState(graph));
    for (uint32_t w = 0; w < events.size(); ++w)
    {
        const FailoverEvent& e = events[w];
        const Time windowEnd = w + 1 < events.size() ? events[w + 1].fail.at : s.horizon;
        FabricState during(graph);
        FabricFailureHelper::Apply(e.fail, during);
        Ptr<FabricRouting> conv = ConvergedRouting(s.routing, graph, during);
        std::vector<uint32_t> affected;
        std::vector<uint32_t> unaffected;
        std::set<std::pair<uint32_t, uint32_t>> pairs;
        std::vector<double> hb;
        std::vector<double> hd;
        std::vector<double> ha; // measured: the path each flow was on at the window's end
        // Directed links the affected flows use: up to the failure (where a sender keeps
        // sending into the hole until it learns), on their path when it failed, and on
        // their converged detour.
        std::set<uint32_t> affectedLinks;
        std::vector<std::vector<uint32_t>> unaffectedLinks;
        uint32_t inactiveCrossing = 0;         // would be affected, but not running at the failure
        std::vector<uint32_t> ackPathCrossing; // unaffected, active, all-up ACK path crosses it
        for (uint32_t f = 0; f < flows.size(); ++f)
        {
            const RoceFlowRecord& rec = r.flows[f];
            const bool active = rec.started && rec.start <= e.fail.at
                             && !(rec.complete && rec.finish <= e.fail.at);
            const FabricPath before = TracePath(*allUp, flows[f].src, flows[f].dst, flows[f].Key());
            // Affected: the all-up path or the path in force when the element failed (a
            // reaction to an earlier event may still be installed) crosses it.
            const std::vector<uint32_t>& atFailure = run.pathsAtFailure.at(w).at(f);
            bool hit = Crosses(before, during);
            for (uint32_t d : atFailure)
            {
                hit = hit || !during.IsDirLinkUsable(d);
            }
            if (hit && !active)
            {
                ++inactiveCrossing; // neither affected nor unaffected: it had nothing to send
                continue;
            }
            if (!hit)
            {
                // The way back: the receiver answers from the flow's UDP source port to 4791
                // (RoceReceiver), over its own all-up path. A path property only: such a
                // flow's ACKs/NACKs/CNPs may die in the hole (then it times out and resends
                // what arrived), but whether they did is not measured here. Counted, like
                // the affected flows, only if the flow was running at the failure.
                if (active)
                {
                    FlowKey back = flows[f].Key();
                    std::swap(back.srcAddr, back.dstAddr);
                    back.dstPort = ROCEV2_UDP_PORT;
                    if (Crosses(TracePath(*allUp, flows[f].dst, flows[f].src, back), during))
                    {
                        ackPathCrossing.push_back(f);
                    }
                }
                unaffected.push_back(f);
                unaffectedLinks.push_back(before.dirLinks);
                unaffectedLinks.back().insert(
                    unaffectedLinks.back().end(), atFailure.begin(), atFailure.end());
                continue;
            }
            affected.push_back(f);
            affectedLinks.insert(before.dirLinks.begin(), before.dirLinks.end());
            affectedLinks.insert(atFailure.begin(), atFailure.end());
            pairs.insert({flows[f].src, flows[f].dst});
            hb.push_back(SwitchHops(before));
            const FabricPath dp = TracePath(*conv, flows[f].src, flows[f].dst, flows[f].Key());
            if (dp.delivered)
            {
                hd.push_back(SwitchHops(dp));
            }
            affectedLinks.insert(dp.dirLinks.begin(), dp.dirLinks.end());
            // After the repair: the path in force just before the next event (or the end),
            // from the flow's recorded path changes.
            const std::vector<uint32_t>* now = &rec.path;
            for (const auto& [at, nodes] : rec.pathChanges)
            {
                now = at < windowEnd ? &nodes : now;
            }
            if (!rec.complete || rec.finish >= windowEnd)
            {
                ha.push_back(now->size() < 2 ? 0.0 : double(now->size() - 2));
            }
        }
        // Stall per affected flow, capped at the repair; a pair recovered before the repair
        // if each of its affected flows did.
        uint32_t notRecovered = 0;
        std::vector<double> stalls;
        std::vector<double> uncapped; // failure to first arrival, also after the repair
        std::map<std::pair<uint32_t, uint32_t>, bool> pairRecovered;
        for (uint32_t f : affected)
        {
            bool recovered = false;
            bool inWindow = false;
            stalls.push_back(
                StallOf(*run.probe, w, f, e.fail.at, e.repair.at, &recovered, &inWindow));
            if (inWindow)
            {
                uncapped.push_back((run.probe->FirstArrival(w, f) - e.fail.at).GetSeconds() * 1e6);
            }
            notRecovered += inWindow ? 0 : 1;
            auto it = pairRecovered.emplace(std::make_pair(flows[f].src, flows[f].dst), true).first;
            it->second = it->second && recovered;
        }
        uint32_t pairsRecovered = 0;
        for (const auto& [pair, ok] : pairRecovered)
        {
            pairsRecovered += ok ? 1 : 0;
        }
        const json stall = MedianMax(stalls);
        uint64_t lost = 0;
        uint64_t lostInQueue = 0;
        uint64_t retx = 0;
        uint64_t dup = 0;
        uint64_t unLost = 0;
        uint64_t unLostInQueue = 0;
        uint64_t unRetx = 0;
        uint64_t unDup = 0;
        uint64_t unControlLost = 0;
        uint32_t crossingControlLost = 0;
        for (uint32_t f : ackPathCrossing)
        {
            crossingControlLost += run.probe->ControlLost(w, f) > 0 ? 1 : 0;
        }
        for (uint32_t f : affected)
        {
            lost += run.probe->Lost(w, f);
            lostInQueue += run.probe->LostInQueue(w, f);
            retx += run.probe->Retransmitted(w, f);
            dup += run.probe->DuplicatesReceived(w, f);
        }
        for (uint32_t f : unaffected)
        {
            unLost += run.probe->Lost(w, f);
            unLostInQueue += run.probe->LostInQueue(w, f);
            unRetx += run.probe->Retransmitted(w, f);
            unDup += run.probe->DuplicatesReceived(w, f);
            unControlLost += run.probe->ControlLost(w, f);
        }
        // Detection (first node to learn) and reaction (the last node, or the controller).
        double tDetect = -1;
        double tReact = -1;
        Time reaction(-1);
        for (const auto& l : run.learnings)
        {
            if (l.changedAt == e.fail.at && !l.up)
            {
                const double t = l.at.GetSeconds() * 1e6;
                tDetect = tDetect < 0 ? t : std::min(tDetect, t);
                const bool byController = l.how == FabricFailureDetector::How::CONTROLLER;
                if (byController == s.reactionIsController)
                {
                    tReact = std::max(tReact, t);
                    reaction = std::max(reaction, l.at);
                }
            }
        }
        // Unaffected flows' aggregate throughput, before and during the failure, and during
        // the same window of the run without failures; also split into the flows that share
        // a directed link with an affected flow (its retransmissions into the hole, its
        // detour) and those that share none.
        std::vector<uint32_t> sharing;
        std::vector<uint32_t> disjoint;
        for (uint32_t i = 0; i < unaffected.size(); ++i)
        {
            bool shares = false;
            for (uint32_t d : unaffectedLinks[i])
            {
                shares = shares || affectedLinks.count(d) > 0;
            }
            (shares ? sharing : disjoint).push_back(unaffected[i]);
        }
        auto gbpsOf
            = [&](const FabricRoceRunResult& res, const std::vector<uint32_t>& set, Time a, Time b)
        {
            const size_t b0 = size_t(a.GetSeconds() / bin.GetSeconds());
            const size_t b1 = size_t(b.GetSeconds() / bin.GetSeconds());
            double bytes = 0;
            for (uint32_t f : set)
            {
                const auto& bins = res.flows[f].rxBins;
                for (size_t i = b0; i < b1 && i < bins.size(); ++i)
                {
                    bytes += bins[i];
                }
            }
            return b1 > b0 ? 8 * bytes / ((b1 - b0) * bin.GetSeconds()) / 1e9 : 0.0;
        };
        auto unaffectedGbps = [&](Time a, Time b)
        {
            return gbpsOf(r, unaffected, a, b);
        };
        const Time beforeFrom = std::max(Time(0), e.fail.at - s.preFailureWindow);
        json gbps{{"before", unaffectedGbps(beforeFrom, e.fail.at)},
                  {"during", unaffectedGbps(e.fail.at, e.repair.at)}};
        // The window split at the reaction (detours installed, last update): before it the
        // affected senders time out and resend into the hole; after it they use their new
        // paths (on ZCube, detours over links of unaffected flows).
        const bool split = reaction > e.fail.at && reaction < e.repair.at;
        if (split)
        {
            gbps["to_reaction"] = unaffectedGbps(e.fail.at, reaction);
            gbps["from_reaction"] = unaffectedGbps(reaction, e.repair.at);
        }
        if (noFailure)
        {
            const FabricRoceRunResult& nf = noFailure->result;
            if (split)
            {
                gbps["to_reaction_no_failure"] = gbpsOf(nf, unaffected, e.fail.at, reaction);
                gbps["from_reaction_no_failure"] = gbpsOf(nf, unaffected, reaction, e.repair.at);
            }
            uint64_t nfLost = 0;
            for (uint32_t f : unaffected)
            {
                nfLost += noFailure->probe->Lost(w, f);
            }
            gbps["lost_packets_no_failure"] = nfLost;
            gbps["during_no_failure"] = gbpsOf(nf, unaffected, e.fail.at, e.repair.at);
            for (const auto& [name, set] :
                 {std::make_pair("sharing_links", &sharing), std::make_pair("disjoint", &disjoint)})
            {
                gbps[name] = {{"flows", set->size()},
                              {"during", gbpsOf(r, *set, e.fail.at, e.repair.at)},
                              {"during_no_failure", gbpsOf(nf, *set, e.fail.at, e.repair.at)}};
            }
        }
        auto meanOf = [](const std::vector<double>& v)
        {
            return v.empty() ? 0.0 : Mean(v);
        };
        json je{{"fabric", s.fabric},
                {"kind", e.kind},
                {"element", e.fail.Element()},
                {"t_fail_us", e.fail.at.GetSeconds() * 1e6},
                {"t_repair_us", e.repair.at.GetSeconds() * 1e6},
                {"t_first_detection_us", tDetect},
                {"t_reaction_us", tReact},
                {"affected_pairs", pairs.size()},
                {"affected_flows", affected.size()},
                {"affected_not_recovered_in_window", notRecovered},
                {"crossing_inactive_flows", inactiveCrossing},
                {"stall_us", stall},
                {"stall_uncapped_us", MedianMax(uncapped)},
                {"recovered_before_repair",
                 {{"pairs", pairsRecovered},
                  {"fraction",
                   pairs.empty() ? json(nullptr) : json(double(pairsRecovered) / pairs.size())}}},
                {"lost_packets", lost},
                {"retransmitted_packets", retx},
                {"lost_in_queue_packets", lostInQueue},
                {"unaffected_lost_packets", unLost},
                {"unaffected_lost_in_queue_packets", unLostInQueue},
                {"duplicates_received", dup},
                {"unaffected_retransmitted_packets", unRetx},
                {"unaffected_duplicates_received", unDup},
                {"unaffected_ack_path_crossing_flows", ackPathCrossing.size()},
                {"unaffected_ack_path_crossing_flows_control_lost", crossingControlLost},
                {"unaffected_control_lost_packets", unControlLost},
                {"unaffected_gbps", gbps},
                {"switch_hops",
                 {{"before", meanOf(hb)}, {"during", meanOf(hd)}, {"after", meanOf(ha)}}}};
        if (s.goodputDipFraction > 0)
        {
            // Per affected flow: time, in whole bins from the failure to the repair, its
            // delivered (in-order) rate stays below the fraction of its rate in the window
            // before the failure, until the repair or the flow's completion. Flows that
            // delivered nothing before are left out (counted in flows_excluded).
            const size_t p0 = size_t(std::ceil(beforeFrom.GetSeconds() / bin.GetSeconds()));
            const size_t p1 = size_t(e.fail.at.GetSeconds() / bin.GetSeconds());
            const size_t d0 = size_t(std::ceil(e.fail.at.GetSeconds() / bin.GetSeconds()));
            const size_t d1 = size_t(e.repair.at.GetSeconds() / bin.GetSeconds());
            std::vector<double> dips;
            uint32_t excluded = 0;
            for (uint32_t f : affected)
            {
                const auto& bins = r.flows[f].rxBins;
                // A flow that completed has no rate afterwards: that is no dip.
                const size_t end
                    = r.flows[f].complete
                        ? std::min(d1, size_t(r.flows[f].finish.GetSeconds() / bin.GetSeconds()))
                        : d1;
                double pre = 0;
                for (size_t i = p0; i < p1 && i < bins.size(); ++i)
                {
                    pre += bins[i];
                }
                if (p1 <= p0 || pre <= 0)
                {
                    ++excluded;
                    continue;
                }
                pre /= double(p1 - p0);
                uint32_t below = 0;
                for (size_t i = d0; i < end; ++i)
                {
                    below += (i < bins.size() ? bins[i] : 0) < s.goodputDipFraction * pre ? 1 : 0;
                }
                dips.push_back(below * bin.GetSeconds() * 1e6);
            }
            je["goodput_dip_fraction"] = s.goodputDipFraction;
            je["goodput_dip_us"] = MedianMax(dips);
            je["goodput_dip_us"]["flows"] = dips.size();
            je["goodput_dip_us"]["flows_excluded"] = excluded;
        }
        if (s.blastRadius)
        {
            // Routers whose tables changed because of this failure, and when the last did.
            std::set<uint32_t> routers;
            double last = -1;
            for (const auto& [t, node] : run.tableChanges)
            {
                if (t >= e.fail.at && t < e.repair.at)
                {
                    routers.insert(node);
                    last = std::max(last, (t - e.fail.at).GetSeconds() * 1e6);
                }
            }
            je["blast_radius_routers"] = routers.size();
            je["convergence_us"] = last;
        }
        out.push_back(je);
    }
    return out;
}

std::string
FailoverEventTable(const json& events)
{
    auto num = [](const json& v)
    {
        return v.is_null() ? std::string("-") : FormatNumber(v.get<double>(), 4);
    };
    std::ostringstream t;
    t << std::left << std::setw(12) << "event" << std::setw(12) << "element" << std::right
      << std::setw(9) << "t_us" << std::setw(9) << "pairs" << std::setw(9) << "domain"
      << std::setw(11) << "stall_med" << std::setw(11) << "stall_max" << std::setw(7) << "recov"
      << std::setw(9) << "dip_med" << std::setw(8) << "lost" << std::setw(8) << "retx"
      << std::setw(10) << "unaf_lost" << std::setw(8) << "in_q" << std::setw(14) << "hops b/d/a"
      << std::setw(26) << "unaf_Gbps b>d (no fail)"
      << "\n";
    for (const json& e : events)
    {
        const json& h = e["switch_hops"];
        const json& g = e["unaffected_gbps"];
        t << std::left << std::setw(12) << e["kind"].get<std::string>() << std::setw(12)
          << e["element"].get<std::string>() << std::right << std::setw(9)
          << FormatNumber(e["t_fail_us"].get<double>(), 5) << std::setw(9)
          << e["affected_pairs"].get<uint64_t>() << std::setw(9)
          << (e.contains("fault_domain_pairs")
                  ? std::to_string(e["fault_domain_pairs"].get<int64_t>())
                  : std::string("-"))
          << std::setw(11) << num(e["stall_us"]["median"]) << std::setw(11)
          << num(e["stall_us"]["max"]) << std::setw(7)
          << e["recovered_before_repair"]["pairs"].get<uint64_t>() << std::setw(9)
          << (e.contains("goodput_dip_us") ? num(e["goodput_dip_us"]["median"]) : std::string("-"))
          << std::setw(8) << e["lost_packets"].get<uint64_t>() << std::setw(8)
          << e["retransmitted_packets"].get<uint64_t>() << std::setw(10)
          << e["unaffected_lost_packets"].get<uint64_t>() << std::setw(8)
          << e["unaffected_lost_in_queue_packets"].get<uint64_t>() << std::setw(14)
          << (FormatNumber(h["before"].get<double>(), 2) + "/"
              + FormatNumber(h["during"].get<double>(), 2) + "/"
              + FormatNumber(h["after"].get<double>(), 2))
          << std::setw(26)
          << (FormatNumber(g["before"].get<double>(), 4) + ">"
              + FormatNumber(g["during"].get<double>(), 4)
              + (g.contains("during_no_failure")
                     ? " (" + FormatNumber(g["during_no_failure"].get<double>(), 4) + ")"
                     : std::string()))
          << "\n";
    }
    return t.str();
}

void
WriteFailoverThroughput(const FabricResults& out,
                        const FabricRoceRunResult& run,
                        const json& events,
                        Time bin,
                        const std::string& title)
{
    CsvWriter csv(out.Path("throughput.csv"), {"t_us", "aggregate_gbps"});
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 1000,500");
    plot.SetTitle(title);
    plot.SetLegend("time (us)", "throughput (Gb/s)");
    Gnuplot2dDataset ds("all flows");
    ds.SetStyle(Gnuplot2dDataset::LINES);
    size_t nb = 0;
    for (const auto& f : run.flows)
    {
        nb = std::max(nb, f.rxBins.size());
    }
    const double binUs = bin.GetSeconds() * 1e6;
    for (size_t b = 0; b < nb; ++b)
    {
        double bytes = 0;
        for (const auto& f : run.flows)
        {
            bytes += b < f.rxBins.size() ? f.rxBins[b] : 0;
        }
        const double gbps = 8 * bytes / bin.GetSeconds() / 1e9;
        ds.Add((b + 0.5) * binUs, gbps);
        csv.Row({FormatNumber((b + 0.5) * binUs), FormatNumber(gbps)});
    }
    plot.AddDataset(ds);
    auto mark = [&plot](double t, const std::string& colour)
    {
        plot.AppendExtra("set arrow from " + FormatNumber(t) + ", graph 0 to " + FormatNumber(t)
                         + ", graph 1 nohead lc rgb '" + colour + "' dt 2");
    };
    for (const json& e : events)
    {
        mark(e["t_fail_us"].get<double>(), "red");
        if (e["t_first_detection_us"].get<double>() >= 0)
        {
            mark(e["t_first_detection_us"].get<double>(), "orange");
        }
        if (e["t_reaction_us"].get<double>() >= 0)
        {
            mark(e["t_reaction_us"].get<double>(), "dark-green");
        }
        mark(e["t_repair_us"].get<double>(), "blue");
    }
    plot.AppendExtra("set label 'red: failure, orange: first detection, green: reaction "
                     "(controller / last update), blue: repair' at graph 0.01, graph 0.04");
    csv.Close();
    out.WritePng("throughput.png", plot);
}

json
FailoverStallRun(const ObjectFactory& routing,
                 std::shared_ptr<const FabricGraph> graph,
                 const FabricFailureEvent& failure,
                 double lineBps,
                 const FailoverDelays& delays,
                 uint64_t bytes)
{
    Ptr<FabricNetwork> nw = MakeNetwork(routing, graph, lineBps);
    FabricState during(graph);
    FabricFailureHelper::Apply(failure, during);
    // One flow per ordered pair whose all-up path crosses the failed element.
    const uint32_t n = graph->GetNHosts();
    std::vector<FlowSpec> sf;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            FlowSpec fl;
            fl.id = static_cast<uint32_t>(sf.size());
            fl.src = i;
            fl.dst = j;
            fl.bytes = bytes;
            fl.srcPort = 49152;
            if (i != j && Crosses(TracePath(*nw->GetRouting(), i, j, fl.Key()), during))
            {
                sf.push_back(fl);
            }
        }
    }
    Ptr<FabricFailureDetector> d = MakeFailoverDetector(delays);
    d->Install(nw);
    FabricFailureHelper fh(nw);
    fh.Schedule(failure);
    RoceFailoverProbe pr({failure.at});
    FabricRoceRunOptions o;
    o.stopAt = failure.at + delays.controllerLatency + MilliSeconds(50) + delays.controllerLatency;
    o.senderCreated = pr.OnSender();
    o.beforeRun = [&pr](Ptr<FabricNetwork> x, const ApplicationContainer&)
    {
        pr.Watch(x);
    };
    const FabricRoceRunResult rr = RunFabricRoce(nw, sf, o);
    // Never repaired: a flow with no arrival counts until the run stops.
    uint32_t nr = 0;
    std::vector<double> stalls;
    for (uint32_t i = 0; i < sf.size(); ++i)
    {
        bool recovered = false;
        bool inWindow = false;
        stalls.push_back(StallOf(pr, 0, i, failure.at, o.stopAt, &recovered, &inWindow));
        nr += inWindow ? 0 : 1;
    }
    json st = MedianMax(stalls);
    st["flows"] = sf.size();
    st["not_recovered"] = nr;
    st["unaccounted_packets"] = rr.Unaccounted();
    return st;
}

uint64_t
SizeSteadyFailoverFlows(std::vector<FlowSpec>& flows, uint32_t hosts, double lineBps, Time horizon)
{
    const uint64_t bytes
        = HostBudgetFlowBytes(flows, hosts, uint64_t(lineBps / 8 * horizon.GetSeconds() * 2), 4096);
    for (auto& f : flows)
    {
        f.bytes = bytes;
    }
    return bytes;
}

std::string
FailoverEventLegend()
{
    return "stall: failure to the first packet sent after it that arrives (affected flows, us; "
           "capped at the repair); recov: affected pairs recovered before the repair; dip_med: "
           "median goodput dip (us the in-order rate stayed below the dip fraction of its rate "
           "before); domain: ZCube §6.2 fault domain (allreduce); "
           "lost: every drop reason; in_q: of unaf_lost, in transmit queues (queue-overflow); "
           "hops: mean switch hops of the affected flows before/during/after; unaf_Gbps: "
           "unaffected flows' aggregate before > during (during, same run without failures, "
           "--no-failure-run)\n";
}

std::vector<Time>
ParseFailoverLatencies(const std::vector<std::string>& items, const std::string& what)
{
    std::vector<Time> latencies;
    for (const std::string& v : items)
    {
        double us = 0;
        try
        {
            size_t used = 0;
            us = std::stod(v, &used);
            if (used != v.size() || !(us >= 0 && us <= 1e6))
            {
                throw std::invalid_argument(v);
            }
        }
        catch (const std::exception&)
        {
            throw std::invalid_argument(what + ": '" + v + "' is not a latency in [0, 1e6] us");
        }
        latencies.push_back(NanoSeconds(int64_t(us * 1000)));
    }
    return latencies;
}

json
RunFailoverLatencySweep(const FailoverSweepFabric& zcube,
                        const FailoverSweepFabric& roft,
                        const FailoverDelays& delays,
                        const std::vector<Time>& latencies,
                        double lineBps,
                        uint64_t bytes)
{
    auto stall = [&](const FailoverSweepFabric& f, Time latency, bool routingUpdates)
    {
        FailoverDelays d = delays;
        d.controllerLatency = latency;
        d.routingUpdates = routingUpdates;
        FabricFailureEvent e = f.coreLink;
        e.at = MicroSeconds(20);
        return FailoverStallRun(f.routing, f.graph, e, lineBps, d, bytes);
    };
    json sweep = json::array();
    if (latencies.empty())
    {
        return sweep;
    }
    const json roftPoint = stall(roft, Time(0), true);
    for (Time latency : latencies)
    {
        sweep.push_back({{"controller_latency_us", latency.GetSeconds() * 1e6},
                         {"zcube", stall(zcube, latency, false)},
                         {"roft", roftPoint}});
    }
    return sweep;
}

std::string
WriteFailoverLatencySweep(const FabricResults& out, const json& sweep)
{
    std::ostringstream table;
    table << std::right << std::setw(14) << "latency_us" << std::setw(16) << "zcube_stall_med"
          << std::setw(16) << "zcube_stall_max" << std::setw(15) << "roft_stall_med"
          << std::setw(15) << "roft_stall_max"
          << "\n";
    CsvWriter csv(out.Path("latency-sweep.csv"),
                  {"controller_latency_us",
                   "zcube_stall_median_us",
                   "zcube_stall_max_us",
                   "roft_stall_median_us",
                   "roft_stall_max_us"});
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 800,500");
    plot.SetTitle("Stall after a core-link failure vs controller latency");
    plot.SetLegend("controller latency (us)", "stall (us)");
    plot.AppendExtra("set logscale xy");
    plot.AppendExtra("set key top left");
    Gnuplot2dDataset zmed("ZCube median");
    Gnuplot2dDataset zmax("ZCube max");
    Gnuplot2dDataset rmed("ROFT local rehash + updates (median)");
    zmed.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    zmax.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    rmed.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    for (const json& p : sweep)
    {
        const double lus = p["controller_latency_us"].get<double>();
        const double zm = p["zcube"]["median"].get<double>();
        const double zx = p["zcube"]["max"].get<double>();
        const double rm = p["roft"]["median"].get<double>();
        const double rx = p["roft"]["max"].get<double>();
        table << std::setw(14) << FormatNumber(lus) << std::setw(16) << FormatNumber(zm, 5)
              << std::setw(16) << FormatNumber(zx, 5) << std::setw(15) << FormatNumber(rm, 4)
              << std::setw(15) << FormatNumber(rx, 4) << "\n";
        csv.Row({FormatNumber(lus),
                 FormatNumber(zm),
                 FormatNumber(zx),
                 FormatNumber(rm),
                 FormatNumber(rx)});
        const double x = std::max(lus, 1.0);
        zmed.Add(x, std::max(zm, 0.1));
        zmax.Add(x, std::max(zx, 0.1));
        rmed.Add(x, std::max(rm, 0.1));
    }
    csv.Close();
    plot.AddDataset(zmed);
    plot.AddDataset(zmax);
    plot.AddDataset(rmed);
    out.WritePng("latency-sweep.png", plot);
    return table.str();
}

} // namespace ns3
