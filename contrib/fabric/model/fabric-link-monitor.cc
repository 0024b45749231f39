// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-link-monitor.h"

#include "fabric-callback.h"

#include "ns3/abort.h"
#include "ns3/channel.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-ipv4-routing.h"
#include "ns3/fabric-link-device.h"
#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-network.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricLinkMonitor");
NS_OBJECT_ENSURE_REGISTERED(FabricLinkMonitor);

namespace
{
constexpr uint32_t PPP_HEADER = 2;

/// Connect a trace sink, failing loudly on a misspelt trace source name.
template<typename CB>
void
Connect(ObjectBase* obj, const std::string& name, const CB& cb)
{
    NS_ABORT_MSG_UNLESS(obj->TraceConnectWithoutContext(name, cb),
                        "FabricLinkMonitor: no trace source " << name);
}
} // namespace

TypeId
FabricLinkMonitor::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricLinkMonitor")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricLinkMonitor>();
    return tid;
}

FabricLinkMonitor::FabricLinkMonitor()
{
    NS_LOG_FUNCTION(this);
}

void
FabricLinkMonitor::CountDrop(const std::string& reason, bool inNetwork)
{
    ++m_drops[reason];
    m_networkDrops += inNetwork ? 1 : 0;
    m_lastPacketEvent = Simulator::Now();
}

FabricLinkMonitor::DeviceTotals
FabricLinkMonitor::SumDevices() const
{
    DeviceTotals t;
    for (const CountingDevice& c : m_counting)
    {
        const FastP2pNetDevice::FrameCounters& f = c.device->GetFrameCounters();
        t.wireTx += f.txFrames - c.base.txFrames;
        t.wireArrivals += f.rxFrames - c.base.rxFrames;
        if (c.host)
        {
            t.hostTx += f.macTxFrames - c.base.macTxFrames;
            t.hostRx += f.rxFrames - c.base.rxFrames;
        }
    }
    for (const CountingQueue& c : m_countingQueues)
    {
        t.wireTx += c.tx ? c.queue->GetCounters().dequeuedFrames : 0;
        t.hostTx += c.tx && c.host ? c.queue->GetCounters().enqueueCalls : 0;
    }
    return t;
}

void
FabricLinkMonitor::CollectLinks() const
{
    for (const CountingDevice& c : m_counting)
    {
        const FastP2pNetDevice::FrameCounters& f = c.device->GetFrameCounters();
        LinkCounters& l = m_links[c.out];
        l.txPackets = f.txFrames - c.base.txFrames;
        l.txBytes = (f.txBytes - c.base.txBytes) - PPP_HEADER * l.txPackets;
        l.txSmallPackets = f.txSmallFrames - c.base.txSmallFrames;
    }
    for (const CountingQueue& c : m_countingQueues)
    {
        const FabricDropTailQueue::Counters& q = c.queue->GetCounters();
        LinkCounters& l = m_links[c.out];
        if (c.tx)
        {
            l.txPackets = q.dequeuedFrames;
            l.txBytes = q.dequeuedBytes - PPP_HEADER * q.dequeuedFrames;
            l.txSmallPackets = q.dequeuedSmallFrames;
        }
        if (c.peak)
        {
            l.maxQueueBytes = q.peakBytes;
        }
    }
}

const std::vector<FabricLinkMonitor::LinkCounters>&
FabricLinkMonitor::GetLinks() const
{
    CollectLinks();
    return m_links;
}

Time
FabricLinkMonitor::GetLastPacketTime() const
{
    // The sinks' time is that of the last drop or host reception they saw (time only grows),
    // the devices' that of their last reception.
    Time last = m_lastPacketEvent;
    for (const CountingDevice& c : m_counting)
    {
        const FastP2pNetDevice::FrameCounters& f = c.device->GetFrameCounters();
        if (c.host && f.rxFrames != c.base.rxFrames)
        {
            last = std::max(last, f.lastRx);
        }
    }
    return last;
}

int64_t
FabricLinkMonitor::GetInFlightPackets() const
{
    const DeviceTotals d = SumDevices();
    return int64_t(m_hostTx + d.hostTx) - int64_t(m_hostRx + d.hostRx) - int64_t(m_networkDrops);
}

int64_t
FabricLinkMonitor::GetMeasuredInFlightPackets() const
{
    const DeviceTotals d = SumDevices();
    int64_t n = int64_t(m_wireTx + d.wireTx) - int64_t(m_wireArrivals + d.wireArrivals)
              - int64_t(m_channelDrops);
    for (const auto& q : m_queues)
    {
        n += q->GetNPackets();
    }
    return n + (m_net ? int64_t(m_net->GetHeldPackets()) : 0);
}

void
FabricLinkMonitor::DoDispose()
{
    // Keep what the devices counted, then let them go.
    CollectLinks();
    const DeviceTotals d = SumDevices();
    m_lastPacketEvent = GetLastPacketTime();
    m_wireTx += d.wireTx;
    m_wireArrivals += d.wireArrivals;
    m_hostTx += d.hostTx;
    m_hostRx += d.hostRx;
    m_counting.clear();
    m_countingQueues.clear();
    m_queues.clear();
    m_net = nullptr;
    Object::DoDispose();
}

void
FabricLinkMonitor::Install(Ptr<FabricNetwork> net)
{
    NS_LOG_FUNCTION(this << net);
    // A second Install would connect the sinks again and count every frame twice.
    NS_ABORT_MSG_IF(m_net,
                    "FabricLinkMonitor::Install: already installed; use one monitor per "
                    "network (create another FabricLinkMonitor)");
    const FabricGraph& g = net->GetGraph();
    m_net = net;
    m_links.assign(2 * static_cast<size_t>(g.GetNLinks()), LinkCounters{});
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        // Failures: queues flushed and packets arriving over a failed link (link-down).
        Ptr<FabricLinkGuard> guard = net->GetNode(v)->GetObject<FabricLinkGuard>();
        if (guard)
        {
            // In the network unless a host's IPv4 sent into its own dead port.
            const bool host = g.IsHost(v);
            FabricLinkGuard* gd = PeekPointer(guard);
            Connect(PeekPointer(guard),
                    "Drop",
                    Callback<void, Ptr<const Packet>, const std::string&>(
                        [this, host, gd](Ptr<const Packet>, const std::string& reason)
                        { CountDrop(reason, !(host && gd->IsDropBeforeDevice())); }));
        }
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            const uint32_t out = g.GetEgressDirLink(v, p);
            const uint32_t in = out ^ 1u; // the same link's other direction arrives here
            Ptr<NetDevice> dev = net->GetDevice(v, p);
            const Ptr<Queue<Packet>> queue = FabricLinkDevice::GetQueue(dev);
            // A channel that drops packets itself (an OCS fibre with no circuit) reports them
            // through a Drop source of its own; each channel is connected once, from end 0.
            if (Ptr<Channel> ch = dev->GetChannel(); ch && (out & 1u) == 0)
            {
                ch->TraceConnectWithoutContext(
                    "Drop",
                    Callback<void, Ptr<const Packet>, const std::string&>(
                        [this](Ptr<const Packet>, const std::string& reason)
                        { CountDrop(reason, true); }));
                // Of those, the ones that had started transmission (a channel may also drop
                // what waits in its devices' queues).
                ch->TraceConnectWithoutContext(
                    "WireLoss",
                    Callback<void, Ptr<const Packet>>([this](Ptr<const Packet>)
                                                      { ++m_channelDrops; }));
            }
            m_queues.push_back(queue);
            const Ptr<FastP2pNetDevice> fast = DynamicCast<FastP2pNetDevice>(dev);
            // A FabricDropTailQueue counts what the queue's BytesInQueue sink (the peak, on
            // links not sampled) and, on ns-3's device, the PhyTxBegin and MacTx sinks count:
            // that device fires PhyTxBegin for exactly the frames it dequeues and MacTx for
            // exactly the frames it offers to the queue (one reader per queue; others, and
            // other devices, use sinks).
            const auto sampled = m_samples.find(out);
            bool queueCountsTx = false;
            bool queueCountsPeak = false;
            if (auto fq = DynamicCast<FabricDropTailQueue>(queue);
                fq && fq->EnableCounters(SMALL_PACKET + PPP_HEADER))
            {
                queueCountsTx = DynamicCast<PointToPointNetDevice>(dev) != nullptr;
                queueCountsPeak = sampled == m_samples.end();
                m_countingQueues.push_back({fq, out, queueCountsTx, queueCountsPeak, g.IsHost(v)});
            }
            if (fast)
            {
                // The device counts what the PhyRxEnd, PhyTxBegin and MacTx sinks below count.
                fast->EnableFrameCounters(SMALL_PACKET + PPP_HEADER, g.IsHost(v));
                m_counting.push_back({fast, out, g.IsHost(v), fast->GetFrameCounters()});
            }
            else if (g.IsHost(v))
            {
                // A host's device receives (MacRx) every frame that ends its reception
                // (PhyRxEnd) at the same instant, in both link devices: counted here, so that
                // no MacRx sink makes the device copy each frame for it.
                // Per packet: the inline form reads one object fewer per call.
                Connect(PeekPointer(dev),
                        "PhyRxEnd",
                        FabricLambdaCallback<void, Ptr<const Packet>>(
                            [this](Ptr<const Packet>)
                            {
                                ++m_wireArrivals;
                                ++m_hostRx;
                                m_lastPacketEvent = Simulator::Now();
                            }));
            }
            else
            {
                Connect(PeekPointer(dev),
                        "PhyRxEnd",
                        FabricLambdaCallback<void, Ptr<const Packet>>([this](Ptr<const Packet>)
                                                                      { ++m_wireArrivals; }));
            }
            if (!fast && !queueCountsTx)
            {
                Connect(PeekPointer(dev),
                        "PhyTxBegin",
                        Callback<void, Ptr<const Packet>>(
                            [this, out](Ptr<const Packet> pkt)
                            {
                                ++m_wireTx;
                                LinkCounters& c = m_links[out];
                                const uint32_t size = pkt->GetSize() - PPP_HEADER;
                                c.txBytes += size;
                                ++c.txPackets;
                                c.txSmallPackets += (size <= SMALL_PACKET) ? 1 : 0;
                            }));
            }
            Connect(PeekPointer(dev),
                    "MacTxDrop",
                    Callback<void, Ptr<const Packet>>(
                        [this, out](Ptr<const Packet>)
                        {
                            ++m_links[out].queueDrops;
                            CountDrop(FabricDropReason::QUEUE_OVERFLOW, true);
                        }));
            FabricLinkGuard* gp = PeekPointer(guard);
            Connect(PeekPointer(dev),
                    "PhyRxDrop",
                    Callback<void, Ptr<const Packet>>(
                        [this, in, gp, p](Ptr<const Packet>)
                        {
                            ++m_wireArrivals;
                            // The guard's error model claims the link-down drops (counted
                            // from its Drop trace); the rest is a user's error model.
                            if (gp && gp->TakeRxClaim(p))
                            {
                                return;
                            }
                            ++m_links[in].rxErrorDrops;
                            CountDrop(FabricDropReason::PHY_RX_ERROR, true);
                        }));
            if (g.IsHost(v) && !fast && !queueCountsTx)
            {
                Connect(
                    PeekPointer(dev),
                    "MacTx",
                    Callback<void, Ptr<const Packet>>([this](Ptr<const Packet>) { ++m_hostTx; }));
            }
            if (queueCountsPeak)
            {
                continue;
            }
            if (sampled == m_samples.end())
            {
                // The peak only (every enqueue and dequeue of every port: no sampling test).
                Connect(PeekPointer(queue),
                        "BytesInQueue",
                        Callback<void, uint32_t, uint32_t>(
                            [this, out](uint32_t, uint32_t now)
                            {
                                LinkCounters& c = m_links[out];
                                c.maxQueueBytes = std::max<uint64_t>(c.maxQueueBytes, now);
                            }));
                continue;
            }
            std::vector<QueueSample>* series = &sampled->second;
            const double interval = m_sampleInterval.GetSeconds();
            Connect(PeekPointer(queue),
                    "BytesInQueue",
                    Callback<void, uint32_t, uint32_t>(
                        [this, out, series, interval](uint32_t, uint32_t now)
                        {
                            LinkCounters& c = m_links[out];
                            c.maxQueueBytes = std::max<uint64_t>(c.maxQueueBytes, now);
                            const double t = Simulator::Now().GetSeconds();
                            // At most one sample per interval, plus the moment it empties.
                            if (series->empty() || t - series->back().t >= interval
                                || (now == 0 && series->back().bytes != 0))
                            {
                                series->push_back({t, now});
                            }
                        }));
        }
        Ptr<Node> node = net->GetNode(v);
        // Drops at a switch are inside the network; drops in a host's stack are not (the
        // packet never left, or already arrived): see GetInFlightPackets.
        const bool sw = !g.IsHost(v);
        const FabricGraph* gp = &g; // the network, and so its graph, outlives the run
        auto markOn = [this, v, gp](uint32_t port)
        {
            ++m_links[gp->GetEgressDirLink(v, port)].ecnMarks;
        };
        if (auto fw = node->GetObject<FabricSwitchForwarder>())
        {
            Connect(PeekPointer(fw),
                    "EcnMark",
                    Callback<void, Ptr<const Packet>, uint32_t>(
                        [markOn](Ptr<const Packet>, uint32_t port) { markOn(port); }));
            Connect(PeekPointer(fw),
                    "Drop",
                    Callback<void, Ptr<const Packet>, const std::string&>(
                        [this](Ptr<const Packet>, const std::string& reason)
                        { CountDrop(reason, true); }));
        }
        if (auto tc = node->GetObject<TrafficControlLayer>())
        {
            // With no queue disc, a packet that meets a stopped (full) device queue is dropped
            // by the traffic-control layer, before the device sees it.
            Connect(PeekPointer(tc),
                    "TcDrop",
                    Callback<void, Ptr<const Packet>>(
                        [this, sw](Ptr<const Packet>)
                        { CountDrop(FabricDropReason::HOST_QUEUE_FULL, sw); }));
        }
        if (auto ipv4 = node->GetObject<Ipv4>())
        {
            if (auto r = DynamicCast<FabricIpv4Routing>(ipv4->GetRoutingProtocol()))
            {
                Connect(PeekPointer(r),
                        "EcnMark",
                        Callback<void, Ptr<const Packet>, uint32_t>(
                            [markOn](Ptr<const Packet>, uint32_t port) { markOn(port); }));
                Connect(PeekPointer(r),
                        "Drop",
                        Callback<void, Ptr<const Packet>, const std::string&>(
                            [this, sw](Ptr<const Packet>, const std::string& reason)
                            { CountDrop(reason, sw); }));
            }
            // Drops inside IPv4 itself (TTL, interface down = a failed port, ...). Route errors are
            // already counted by FabricIpv4Routing's own Drop trace, with a more precise reason.
            const bool fabricRouting
                = DynamicCast<FabricIpv4Routing>(ipv4->GetRoutingProtocol()) != nullptr;
            if (auto l3 = DynamicCast<Ipv4L3Protocol>(ipv4))
            {
                Connect(PeekPointer(l3),
                        "Drop",
                        Callback<void,
                                 const Ipv4Header&,
                                 Ptr<const Packet>,
                                 Ipv4L3Protocol::DropReason,
                                 Ptr<Ipv4>,
                                 uint32_t>(
                            [this, fabricRouting, sw](const Ipv4Header& h,
                                                      Ptr<const Packet>,
                                                      Ipv4L3Protocol::DropReason why,
                                                      Ptr<Ipv4>,
                                                      uint32_t)
                            {
                                // ICMP errors (e.g. time exceeded, made by an IPv4 switch)
                                // were never sent by a transport: not in the accounting.
                                if (h.GetProtocol() == 1)
                                {
                                    return;
                                }
                                switch (why)
                                {
                                case Ipv4L3Protocol::DROP_TTL_EXPIRED:
                                    CountDrop(FabricDropReason::TTL_EXPIRED, sw);
                                    break;
                                case Ipv4L3Protocol::DROP_INTERFACE_DOWN:
                                    CountDrop(FabricDropReason::LINK_DOWN, sw);
                                    break;
                                case Ipv4L3Protocol::DROP_NO_ROUTE:
                                    // Send() found no route for a packet a transport
                                    // handed down without one (RoceSender with no route):
                                    // FabricIpv4Routing::RouteOutput does not count it.
                                    CountDrop(FabricDropReason::NO_ROUTE, sw);
                                    break;
                                case Ipv4L3Protocol::DROP_ROUTE_ERROR:
                                    if (!fabricRouting)
                                    {
                                        CountDrop(FabricDropReason::NO_ROUTE, sw);
                                    }
                                    break;
                                default:
                                    CountDrop(FabricDropReason::IPV4_OTHER, sw);
                                    break;
                                }
                            }));
                // ns-3.37's SendRealOut drops a packet whose outgoing interface is down
                // without its Drop trace (an interface set down through Ipv4::SetDown while
                // the device's link is up). It is about to, if the interface is down when the
                // packet is handed to it: sent by this node (SendOutgoing) or forwarded (an
                // IPv4 switch, UnicastForward).
                // A FabricLinkGuard that set a port down counts these itself (its own Drop).
                Ipv4L3Protocol* ip = PeekPointer(l3);
                Node* at = PeekPointer(node);
                auto downOut =
                    [this, ip, at, sw](const Ipv4Header& h, Ptr<const Packet>, uint32_t i)
                {
                    if (h.GetProtocol() != 1 && i < ip->GetNInterfaces() && !ip->IsUp(i))
                    {
                        Ptr<FabricLinkGuard> guard = at->GetObject<FabricLinkGuard>();
                        if (!guard || !guard->CountsIpv4Discards())
                        {
                            CountDrop(FabricDropReason::LINK_DOWN, sw);
                        }
                    }
                };
                using OutCallback = Callback<void, const Ipv4Header&, Ptr<const Packet>, uint32_t>;
                Connect(ip, sw ? "UnicastForward" : "SendOutgoing", OutCallback(downOut));
            }
        }
    }
}

void
FabricLinkMonitor::EnableQueueSampling(Time interval, const std::vector<uint32_t>& dirLinks)
{
    m_sampleInterval = interval;
    for (uint32_t d : dirLinks)
    {
        m_samples[d];
    }
}

const std::vector<FabricLinkMonitor::QueueSample>&
FabricLinkMonitor::GetQueueSamples(uint32_t dirLink) const
{
    static const std::vector<QueueSample> none;
    auto it = m_samples.find(dirLink);
    return it == m_samples.end() ? none : it->second;
}

uint64_t
FabricLinkMonitor::GetTotalDrops() const
{
    uint64_t n = 0;
    for (const auto& [reason, count] : m_drops)
    {
        n += count;
    }
    return n;
}

uint64_t
FabricLinkMonitor::GetTotalTxSmallPackets() const
{
    CollectLinks();
    uint64_t n = 0;
    for (const auto& c : m_links)
    {
        n += c.txSmallPackets;
    }
    return n;
}

uint64_t
FabricLinkMonitor::GetTotalTxPackets() const
{
    CollectLinks();
    uint64_t n = 0;
    for (const auto& c : m_links)
    {
        n += c.txPackets;
    }
    return n;
}

} // namespace ns3
