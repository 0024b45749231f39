// SPDX-License-Identifier: GPL-2.0-only
#include "roce-traffic-helper.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-link-device.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/pfc-queue.h"
#include "ns3/roce-header.h"
#include "ns3/roce-nic.h"
#include "ns3/roce-receiver.h"
#include "ns3/roce-sender.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTrafficHelper");

double
RoceFlowRecord::ThroughputBps() const
{
    const double fct = FctSeconds();
    return fct > 0 ? 8.0 * spec.bytes / fct : 0;
}

struct RoceTrafficHelper::State
{
    std::vector<RoceFlowRecord> records;
    std::vector<Ptr<RoceSender>> senders;
    std::vector<Ptr<RoceReceiver>> receivers;
    std::vector<uint32_t> waiting;                 //!< unmet start conditions per flow
    std::vector<std::vector<uint32_t>> dependents; //!< flow -> flows waiting on it
    std::vector<std::vector<uint32_t>> phaseFlows; //!< phase -> flows
    std::vector<uint32_t> phaseLeft;               //!< phase -> flows not complete
    double binSeconds{0};
    /// Phase p's predecessors completed: start its flows (through the gate if one is set).
    std::function<void(uint32_t)> openPhase;
    bool retracePending{false}; //!< a re-trace of the running flows' paths is scheduled
    std::function<void(uint32_t)> start;
    RoceTrafficHelper::SenderCreatedCallback senderCreated;
    RoceTrafficHelper::PhaseGateCallback phaseGate;
    bool independentPhases{false}; //!< phase p does not wait for phase p - 1
};

RoceTrafficHelper::RoceTrafficHelper(Ptr<FabricNetwork> net)
    : m_net(net),
      m_state(std::make_shared<State>())
{
    m_sender.SetTypeId(RoceSender::GetTypeId());
    m_receiver.SetTypeId(RoceReceiver::GetTypeId());
}

void
RoceTrafficHelper::SetSenderAttribute(const std::string& name, const AttributeValue& value)
{
    m_sender.Set(name, value);
}

void
RoceTrafficHelper::SetReceiverAttribute(const std::string& name, const AttributeValue& value)
{
    m_receiver.Set(name, value);
}

void
RoceTrafficHelper::EnableThroughputSeries(Time bin)
{
    m_bin = bin;
    m_state->binSeconds = bin.GetSeconds();
}

namespace
{

/// Base RTT and line rate of a path: propagation both ways plus one data packet and one ACK
/// serialized at every hop.
void
PathTiming(Ptr<FabricNetwork> net, const FabricPath& path, uint32_t dataWire, RoceFlowRecord& r)
{
    const uint32_t ackWire = RoceSender::WIRE_OVERHEAD;
    double rtt = 0;
    for (size_t i = 0; i < path.dirLinks.size(); ++i)
    {
        Ptr<NetDevice> dev = net->GetDirLinkDevice(path.dirLinks[i]);
        const double bps = double(FabricLinkDevice::GetDataRate(dev).GetBitRate());
        const Time delay = FabricLinkDevice::GetDelay(dev);
        // The ideal FCT streams the message at the slowest link of the path.
        r.lineBps = (i == 0) ? bps : std::min(r.lineBps, bps);
        rtt += 2 * delay.GetSeconds() + 8.0 * (dataWire + ackWire) / bps;
    }
    r.baseRttSeconds = rtt;
}

} // namespace

void
RoceTrafficHelper::Install(const std::vector<FlowSpec>& flows)
{
    const FabricGraph& g = m_net->GetGraph();
    auto st = m_state;
    if (!st->records.empty())
    {
        throw std::invalid_argument("RoceTrafficHelper::Install: call once per helper");
    }
    const size_t n = flows.size();
    std::map<int64_t, uint32_t> byId;
    uint32_t phases = 0;
    for (size_t f = 0; f < n; ++f)
    {
        try
        {
            flows[f].Validate(g.GetNHosts());
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("RoceTrafficHelper: ") + e.what());
        }
        if (!byId.emplace(flows[f].id, static_cast<uint32_t>(f)).second)
        {
            throw std::invalid_argument(
                "RoceTrafficHelper: flow id " + std::to_string(flows[f].id)
                + " appears twice; ids must be unique ('after' names them)");
        }
        phases = std::max(phases, flows[f].phase + 1);
    }
    // A lossless host port whose queue pairs could queue more frames than the switches'
    // headroom budgets would drop: refuse it now rather than report drops after the run.
    {
        std::vector<uint32_t> qps(g.GetNHosts(), 0);
        for (const FlowSpec& fs : flows)
        {
            ++qps[fs.src];
        }
        for (uint32_t h = 0; h < g.GetNHosts(); ++h)
        {
            if (qps[h] < 2)
            {
                continue;
            }
            bool lossless = false;
            for (uint32_t p = 0; p < g.GetNPorts(h); ++p)
            {
                lossless
                    = lossless
                   || DynamicCast<PfcQueue>(FabricLinkDevice::GetQueue(m_net->GetDevice(h, p)));
            }
            if (lossless)
            {
                RoceNic::CheckLosslessDepth(
                    RoceNic::DepthOf(m_net->GetNode(h)), qps[h], g.GetName(h));
            }
        }
    }
    st->records.resize(n);
    st->senders.resize(n);
    st->waiting.assign(n, 0);
    st->dependents.assign(n, {});
    st->phaseFlows.assign(phases, {});
    st->phaseLeft.assign(phases, 0);
    for (size_t f = 0; f < n; ++f)
    {
        const FlowSpec& fs = flows[f];
        st->phaseFlows[fs.phase].push_back(f);
        st->phaseLeft[fs.phase]++;
        if (fs.after >= 0)
        {
            auto it = byId.find(fs.after);
            if (it == byId.end() || it->second == f)
            {
                throw std::invalid_argument("RoceTrafficHelper: flow " + std::to_string(fs.id)
                                            + " waits for unknown flow "
                                            + std::to_string(fs.after));
            }
            st->dependents[it->second].push_back(f);
            st->waiting[f]++;
        }
        st->waiting[f] += fs.phase > 0 ? 1 : 0;
    }
    for (uint32_t p = 0; p < phases; ++p)
    {
        // A chained phase without flows would never complete, so the next would never open;
        // an independent one is harmless (its gate opens nothing).
        if (st->phaseFlows[p].empty() && !m_independentPhases)
        {
            throw std::invalid_argument(
                "RoceTrafficHelper: phase " + std::to_string(p)
                + " has no flow (phases must be 0, 1, 2, ... without gaps)");
        }
    }
    // A dependency cycle would leave flows waiting forever: reject it (Kahn's algorithm over
    // 'after' edges and phase order).
    {
        std::vector<uint32_t> w = st->waiting;
        std::vector<uint32_t> ready;
        std::vector<uint32_t> left = st->phaseLeft;
        for (size_t f = 0; f < n; ++f)
        {
            if (m_independentPhases && flows[f].phase > 0)
            {
                --w[f]; // its gate is called at the start, not after the previous phase
            }
            if (w[f] == 0)
            {
                ready.push_back(f);
            }
        }
        size_t done = 0;
        while (!ready.empty())
        {
            const uint32_t f = ready.back();
            ready.pop_back();
            ++done;
            for (uint32_t d : st->dependents[f])
            {
                if (--w[d] == 0)
                {
                    ready.push_back(d);
                }
            }
            const uint32_t p = flows[f].phase;
            if (--left[p] == 0 && p + 1 < phases && !m_independentPhases)
            {
                for (uint32_t d : st->phaseFlows[p + 1])
                {
                    if (--w[d] == 0)
                    {
                        ready.push_back(d);
                    }
                }
            }
        }
        if (done != n)
        {
            throw std::invalid_argument("RoceTrafficHelper: flow dependencies ('after', phases) "
                                        "form a cycle; "
                                        + std::to_string(n - done) + " flows could never start");
        }
    }

    // One receiver per host. Callbacks hold the state weakly: the state holds the
    // applications, and a strong reference back would be a cycle that is never freed.
    std::weak_ptr<State> weak = st;
    st->receivers.assign(g.GetNHosts(), nullptr);
    for (uint32_t h = 0; h < g.GetNHosts(); ++h)
    {
        Ptr<RoceReceiver> rx = m_receiver.Create<RoceReceiver>();
        m_net->GetNode(h)->AddApplication(rx);
        rx->SetStartTime(Seconds(0));
        st->receivers[h] = rx;
        rx->TraceConnectWithoutContext(
            "Deliver",
            Callback<void, uint32_t, uint32_t>(
                [weak](uint32_t qp, uint32_t bytes)
                {
                    auto s = weak.lock();
                    if (!s)
                    {
                        return; // the helper is gone; nothing left to record into
                    }
                    RoceFlowRecord& r = s->records.at(qp);
                    r.rxBytes += bytes;
                    if (s->binSeconds > 0)
                    {
                        const auto bin = static_cast<size_t>(
                            (Simulator::Now() - s->senders[qp]->GetStartTime()).GetSeconds()
                            / s->binSeconds);
                        if (r.rxBins.size() <= bin)
                        {
                            r.rxBins.resize(bin + 1, 0);
                        }
                        r.rxBins[bin] += bytes;
                    }
                }));
        rx->TraceConnectWithoutContext("Complete",
                                       Callback<void, uint32_t, uint64_t>(
                                           [weak](uint32_t qp, uint64_t)
                                           {
                                               auto s = weak.lock();
                                               if (!s)
                                               {
                                                   return;
                                               }
                                               RoceFlowRecord& r = s->records.at(qp);
                                               r.delivered = true;
                                               r.rxComplete = Simulator::Now();
                                           }));
    }

    auto routing = m_net->GetRouting();
    ObjectFactory senderFactory = m_sender;
    Ptr<FabricNetwork> net = m_net;
    // Raw network pointer inside the closure: it is stored in State, which the senders'
    // callbacks hold, and a Ptr would keep the network alive in a cycle.
    FabricNetwork* netp = PeekPointer(net);
    st->start = [weak, netp, senderFactory](uint32_t f) mutable
    {
        auto s = weak.lock();
        if (!s)
        {
            return;
        }
        RoceFlowRecord& r = s->records[f];
        const FlowSpec& fs = r.spec;
        Ptr<RoceSender> app = senderFactory.Create<RoceSender>();
        app->SetAttribute(
            "Remote",
            AddressValue(InetSocketAddress(netp->GetHostAddress(fs.dst), RoceReceiver::PORT)));
        app->SetAttribute("LocalPort", UintegerValue(fs.SourcePort()));
        app->SetAttribute("FlowId", UintegerValue(f));
        app->SetAttribute("MessageBytes", UintegerValue(fs.bytes));
        app->SetStartTime(Seconds(fs.startS));
        s->senders[f] = app;
        r.started = true;
        app->TraceConnectWithoutContext("Stall",
                                        Callback<void, uint32_t, const std::string&>(
                                            [weak](uint32_t qp, const std::string&)
                                            {
                                                if (auto s3 = weak.lock())
                                                {
                                                    s3->records[qp].stalls++;
                                                }
                                            }));
        app->TraceConnectWithoutContext("Complete",
                                        Callback<void, uint32_t>(
                                            [weak](uint32_t qp)
                                            {
                                                auto s2 = weak.lock();
                                                if (!s2)
                                                {
                                                    return;
                                                }
                                                s2->records[qp].complete = true;
                                                for (uint32_t d : s2->dependents[qp])
                                                {
                                                    if (--s2->waiting[d] == 0)
                                                    {
                                                        s2->start(d);
                                                    }
                                                }
                                                const uint32_t p = s2->records[qp].spec.phase;
                                                if (--s2->phaseLeft[p] == 0
                                                    && p + 1 < s2->phaseFlows.size()
                                                    && !s2->independentPhases)
                                                {
                                                    s2->openPhase(p + 1);
                                                }
                                            }));
        netp->GetNode(fs.src)->AddApplication(app);
        if (s->senderCreated)
        {
            s->senderCreated(f, app);
        }
    };

    st->openPhase = [weak](uint32_t phase)
    {
        auto s = weak.lock();
        if (!s)
        {
            return;
        }
        auto opened = std::make_shared<bool>(false);
        std::function<void()> open = [weak, phase, opened]()
        {
            auto s2 = weak.lock();
            if (!s2 || *opened)
            {
                return;
            }
            *opened = true;
            for (uint32_t d : s2->phaseFlows[phase])
            {
                if (--s2->waiting[d] == 0)
                {
                    s2->start(d);
                }
            }
        };
        if (s->phaseGate)
        {
            s->phaseGate(phase, open);
        }
        else
        {
            open();
        }
    };
    st->senderCreated = m_senderCreated;
    st->phaseGate = m_phaseGate;
    st->independentPhases = m_independentPhases;
    WarnUnreachable(m_net, flows, "RoceTrafficHelper");
    UintegerValue payloadValue;
    m_sender.Create<RoceSender>()->GetAttribute("PacketSize", payloadValue);
    const auto payload = static_cast<uint32_t>(payloadValue.Get());
    for (size_t f = 0; f < n; ++f)
    {
        RoceFlowRecord& r = st->records[f];
        r.spec = flows[f];
        if (routing)
        {
            const FabricPath path = TracePath(*routing, flows[f].src, flows[f].dst, flows[f].Key());
            r.path = path.nodes;
            const uint64_t pkts = (flows[f].bytes + payload - 1) / payload;
            const uint32_t dataWire
                = static_cast<uint32_t>(std::min<uint64_t>(payload, flows[f].bytes))
                + RoceSender::WIRE_OVERHEAD;
            PathTiming(m_net, path, dataWire, r);
            const double wire = double(flows[f].bytes) + double(pkts) * RoceSender::WIRE_OVERHEAD;
            // The first packet's serialization at the source is in both wire/line rate and the
            // base RTT; count it once, so that ideal is what an empty network achieves.
            r.idealSeconds
                = r.lineBps > 0 ? (wire - dataWire) * 8 / r.lineBps + r.baseRttSeconds : 0;
        }
    }
    if (routing)
    {
        // Record path changes: whenever the routing's decisions may have changed, trace every
        // running flow again (once per instant, after all changes of that instant).
        Ptr<FabricRouting> rp = routing;
        FabricRouting* raw = PeekPointer(rp); // the network owns the routing; no cycle
        auto retrace = [weak, raw]()
        {
            auto s = weak.lock();
            if (!s)
            {
                return;
            }
            s->retracePending = false;
            for (RoceFlowRecord& r : s->records)
            {
                if (!r.started || r.complete)
                {
                    continue;
                }
                auto nodes = TracePath(*raw, r.spec.src, r.spec.dst, r.spec.Key()).nodes;
                const auto& last = r.pathChanges.empty() ? r.path : r.pathChanges.back().second;
                if (nodes != last)
                {
                    r.pathChanges.emplace_back(Simulator::Now(), std::move(nodes));
                }
            }
        };
        routing->TraceConnectWithoutContext("RoutesChanged",
                                            Callback<void, uint32_t>(
                                                [weak, retrace](uint32_t)
                                                {
                                                    auto s = weak.lock();
                                                    if (s && !s->retracePending)
                                                    {
                                                        s->retracePending = true;
                                                        Simulator::ScheduleNow(retrace);
                                                    }
                                                }));
    }
    for (size_t f = 0; f < n; ++f)
    {
        if (st->waiting[f] == 0)
        {
            st->start(f);
        }
    }
    if (m_independentPhases)
    {
        // Every later phase goes to its gate when the simulation starts.
        for (uint32_t p = 1; p < st->phaseFlows.size(); ++p)
        {
            Simulator::ScheduleNow(
                [weak, p]()
                {
                    if (auto s = weak.lock())
                    {
                        s->openPhase(p);
                    }
                });
        }
    }
}

ApplicationContainer
RoceTrafficHelper::GetApplications() const
{
    ApplicationContainer apps;
    for (const auto& r : m_state->receivers)
    {
        apps.Add(r);
    }
    for (const auto& s : m_state->senders)
    {
        if (s)
        {
            apps.Add(s);
        }
    }
    return apps;
}

const std::vector<RoceFlowRecord>&
RoceTrafficHelper::GetRecords() const
{
    auto& st = *m_state;
    for (size_t f = 0; f < st.records.size(); ++f)
    {
        const Ptr<RoceSender>& s = st.senders[f];
        RoceFlowRecord& r = st.records[f];
        if (!s)
        {
            continue;
        }
        r.start = s->GetStartTime();
        r.finish = s->GetCompleteTime();
        r.txPackets = s->GetTxPackets();
        r.retxPackets = s->GetRetxPackets();
        r.cnps = s->GetCnps();
        r.nacks = s->GetNacks();
        r.repeatedNacks = s->GetRepeatedNacks();
        r.timeouts = s->GetTimeouts();
    }
    for (const auto& rx : st.receivers)
    {
        if (!rx)
        {
            continue;
        }
        for (const auto& [key, fs] : rx->GetFlows())
        {
            if (fs.qp < st.records.size())
            {
                st.records[fs.qp].duplicatesReceived = fs.duplicates;
            }
        }
    }
    return st.records;
}

uint64_t
RoceTrafficHelper::GetSentPackets() const
{
    uint64_t n = 0;
    for (const auto& s : m_state->senders)
    {
        n += s ? s->GetTxPackets() : 0;
    }
    for (const auto& r : m_state->receivers)
    {
        n += r->GetTxControlPackets();
    }
    return n;
}

uint64_t
RoceTrafficHelper::GetReceivedPackets() const
{
    uint64_t n = 0;
    for (const auto& r : m_state->receivers)
    {
        n += r->GetRxDataPackets() + r->GetRxControlPackets();
    }
    return n;
}

FabricRoceRunResult
RunFabricRoce(Ptr<FabricNetwork> net,
              const std::vector<FlowSpec>& flows,
              const FabricRoceRunOptions& options)
{
    // A full data packet: the senders' PacketSize (the run's, else the default) + the headers
    // (RoCE, UDP, IPv4, point-to-point).
    uint64_t wire = RoceDataWireBytes();
    auto size = options.senderAttributes.find("PacketSize");
    if (size != options.senderAttributes.end())
    {
        if (auto v = dynamic_cast<const UintegerValue*>(size->second.get()))
        {
            wire = v->Get() + RoceSender::WIRE_OVERHEAD;
        }
    }
    CheckNetworkSerializationResolution(net, wire, "RunFabricRoce");
    auto monitor = CreateObject<FabricLinkMonitor>();
    if (options.queueSampleInterval.IsStrictlyPositive())
    {
        monitor->EnableQueueSampling(options.queueSampleInterval, options.queueSampleLinks);
    }
    monitor->Install(net);
    RoceTrafficHelper roce(net);
    for (const auto& [name, value] : options.senderAttributes)
    {
        roce.SetSenderAttribute(name, *value);
    }
    for (const auto& [name, value] : options.receiverAttributes)
    {
        roce.SetReceiverAttribute(name, *value);
    }
    if (options.throughputBin.IsStrictlyPositive())
    {
        roce.EnableThroughputSeries(options.throughputBin);
    }
    if (options.senderCreated)
    {
        roce.SetSenderCreatedCallback(options.senderCreated);
    }
    if (options.phaseGate)
    {
        roce.SetPhaseGate(options.phaseGate);
    }
    roce.SetIndependentPhases(options.independentPhases);
    roce.Install(flows);
    Simulator::Stop(options.stopAt);
    if (options.beforeRun)
    {
        options.beforeRun(net, roce.GetApplications());
    }
    const uint64_t events0 = Simulator::GetEventCount();
    const auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto t1 = std::chrono::steady_clock::now();

    FabricRoceRunResult r;
    r.wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    r.events = Simulator::GetEventCount() - events0;
    r.simSeconds = Simulator::Now().GetSeconds();
    r.flows = roce.GetRecords();
    r.inFlightPackets = monitor->GetInFlightPackets();
    r.measuredInFlightPackets = monitor->GetMeasuredInFlightPackets();
    r.lastPacketSeconds = monitor->GetLastPacketTime().GetSeconds();
    for (const auto& f : r.flows)
    {
        r.incompleteFlows += f.complete ? 0 : 1;
        r.lastCompletionSeconds
            = std::max(r.lastCompletionSeconds, f.complete ? f.finish.GetSeconds() : 0.0);
    }
    r.links = monitor->GetLinks();
    for (uint32_t d : options.queueSampleLinks)
    {
        r.queueSamples[d] = monitor->GetQueueSamples(d);
    }
    r.drops = monitor->GetDrops();
    r.sentPackets = roce.GetSentPackets();
    r.deliveredPackets = roce.GetReceivedPackets();
    for (const auto& [reason, count] : r.drops)
    {
        r.droppedPackets += count;
    }
    r.hopPackets = monitor->GetTotalTxPackets();
    r.hopControlPackets = monitor->GetTotalTxSmallPackets();
    r.throughputBin = options.throughputBin;
    if (options.afterRun)
    {
        options.afterRun(net, roce.GetApplications());
    }
    Simulator::Destroy();
    return r;
}

nlohmann::json
RoceFlowsToJson(const std::vector<RoceFlowRecord>& flows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : flows)
    {
        out.push_back({{"id", r.spec.id},
                       {"src", r.spec.src},
                       {"dst", r.spec.dst},
                       {"bytes", r.spec.bytes},
                       {"src_port", r.spec.SourcePort()},
                       {"complete", r.complete},
                       {"start_us", r.start.GetSeconds() * 1e6},
                       {"fct_us", r.complete ? r.FctSeconds() * 1e6 : -1.0},
                       {"ideal_us", r.idealSeconds * 1e6},
                       {"slowdown", r.Slowdown()},
                       {"throughput_gbps", r.ThroughputBps() / 1e9},
                       {"rx_bytes", r.rxBytes},
                       {"tx_packets", r.txPackets},
                       {"retx_packets", r.retxPackets},
                       {"cnps", r.cnps},
                       {"nacks", r.nacks},
                       {"repeated_nacks", r.repeatedNacks},
                       {"timeouts", r.timeouts},
                       {"duplicates_received", r.duplicatesReceived},
                       {"stalls", r.stalls},
                       {"path", r.path}});
        if (!r.pathChanges.empty())
        {
            nlohmann::json changes = nlohmann::json::array();
            for (const auto& [at, nodes] : r.pathChanges)
            {
                changes.push_back({{"t_us", at.GetSeconds() * 1e6}, {"path", nodes}});
            }
            out.back()["path_changes"] = changes;
        }
    }
    return out;
}

} // namespace ns3
