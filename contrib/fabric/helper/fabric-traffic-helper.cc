// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-traffic-helper.h"

#include "ns3/application-container.h"
#include "ns3/enum.h"
#include "ns3/fabric-host-path.h"
#include "ns3/fabric-warning.h"
#include "ns3/inet-socket-address.h"
#include "ns3/nstime.h"
#include "ns3/packet-sink.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/udp-flow-sender.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

double
FlowRecord::ThroughputBps() const
{
    if (rxBytes == 0 || lastRx <= firstTx)
    {
        return 0;
    }
    return 8.0 * rxBytes / (lastRx - firstTx).GetSeconds();
}

void
WarnUnreachable(Ptr<FabricNetwork> net,
                const std::vector<FlowSpec>& flows,
                const std::string& component)
{
    Ptr<FabricRouting> routing = net->GetRouting();
    if (!routing)
    {
        return; // ns-3's global routing: no routing function to walk
    }
    const FabricGraph& g = net->GetGraph();
    uint32_t unreachable = 0;
    std::string examples;
    for (const FlowSpec& fs : flows)
    {
        if (!TracePath(*routing, fs.src, fs.dst, fs.Key()).delivered)
        {
            if (++unreachable <= 3)
            {
                examples += (examples.empty() ? "" : ", ") + std::string("flow ")
                          + std::to_string(fs.id) + " " + g.GetName(fs.src) + " -> "
                          + g.GetName(fs.dst);
            }
        }
    }
    if (unreachable > 0)
    {
        FabricWarn(component,
                   std::to_string(unreachable) + " of " + std::to_string(flows.size())
                       + " flows have no route at install (their packets will be dropped): "
                       + examples + (unreachable > 3 ? ", ..." : ""));
    }
}

struct FabricTrafficHelper::State
{
    std::vector<FlowRecord> records;
    // Per destination host, (source host << 16 | source port, flow index) sorted by key: a
    // fraction of a hash map's memory per flow, which counts with n^2 flows.
    std::vector<std::vector<std::pair<uint64_t, uint32_t>>> byDst;
    // Per source host, the source ports its flows use (a bit per port, sized on first use).
    std::vector<std::vector<bool>> srcPorts;
    std::vector<Ptr<UdpFlowSender>> senders; //!< per flow, as records
    uint64_t rx{0};

    /// A packet of \p bytes payload from \p srcHost:\p srcPort arrived at host \p h.
    void OnRx(uint32_t h, uint32_t srcHost, uint16_t srcPort, uint32_t bytes)
    {
        const uint64_t key = (uint64_t(srcHost) << 16) | srcPort;
        ++rx;
        const auto& index = byDst[h];
        auto it = std::lower_bound(index.begin(), index.end(), std::make_pair(key, uint32_t(0)));
        if (it == index.end() || it->first != key)
        {
            return; // not one of ours
        }
        FlowRecord& r = records[it->second];
        r.rxBytes += bytes;
        ++r.rxPackets;
        r.lastRx = Simulator::Now();
    }

    /// Copy the senders' counters into the records.
    void Refresh()
    {
        for (size_t f = 0; f < senders.size(); ++f)
        {
            FlowRecord& r = records[f];
            r.txPackets = senders[f]->GetSentPackets();
            r.txBytes = senders[f]->GetSentBytes();
            r.firstTx = senders[f]->GetFirstTxTime();
        }
    }
};

FabricTrafficHelper::FabricTrafficHelper(Ptr<FabricNetwork> net)
    : m_net(net),
      m_state(std::make_shared<State>())
{
    m_state->byDst.resize(net->GetGraph().GetNHosts());
    m_state->srcPorts.resize(net->GetGraph().GetNHosts());
    std::shared_ptr<State> st = m_state;
    // A raw pointer: the network outlives its simulation, and a Ptr here would make a
    // reference cycle (network -> nodes -> sink -> callback -> network).
    const FabricNetwork* netp = PeekPointer(net);
    // The receive side takes the host path UdpFlowSender::HostPath defaults to.
    TypeId::AttributeInformation info;
    UdpFlowSender::GetTypeId().LookupAttributeByName("HostPath", &info);
    const auto hostPath = DynamicCast<const EnumValue>(info.initialValue);
    const bool fast = hostPath && hostPath->Get() == UdpFlowSender::HOST_PATH_FAST;
    for (uint32_t h = 0; h < net->GetGraph().GetNHosts(); ++h)
    {
        Ptr<PacketSink> sink = CreateObject<PacketSink>();
        sink->SetAttribute("Protocol", TypeIdValue(UdpSocketFactory::GetTypeId()));
        sink->SetAttribute("Local",
                           AddressValue(InetSocketAddress(Ipv4Address::GetAny(), ROCEV2_UDP_PORT)));
        net->GetNode(h)->AddApplication(sink);
        m_apps.Add(sink);
        sink->SetStartTime(Seconds(0));
        sink->TraceConnectWithoutContext(
            "RxWithAddresses",
            Callback<void, Ptr<const Packet>, const Address&, const Address&>(
                [st, h, netp](Ptr<const Packet> p, const Address& from, const Address&)
                {
                    const InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
                    st->OnRx(h, netp->GetHostOfAddress(a.GetIpv4()), a.GetPort(), p->GetSize());
                }));
        if (fast)
        {
            // What the sink's socket would get, without IPv4: taken while the sink runs. It
            // has its socket from its start, and keeps it after its stop (closed): the stop is
            // the StopTime Application::DoInitialize scheduled, read at the first packet (a
            // sink stopped another way, e.g. by calling StopApplication, is not seen). A
            // 0-byte datagram ends PacketSink::HandleRead uncounted: minPayload 1 leaves it
            // to IPv4 and the socket.
            PacketSink* sinkp = PeekPointer(sink);
            auto stopAt = std::make_shared<Time>(-1);
            // A port already bound (another FabricTrafficHelper or RoCE on this network) is
            // left to it: running both fails anyway when the second socket on 4791 binds
            // (PacketSink or RoceReceiver abort), and RoceNic aborts on its own bind.
            FabricHostPath::Get(net->GetNode(h))
                ->BindUdpInPlace(
                    ROCEV2_UDP_PORT,
                    // In place: the sink counts the payload's length only.
                    FabricHostPath::UdpInPlaceHandler(
                        [st, h, netp, sinkp, stopAt](Ptr<const Packet>,
                                                     uint32_t,
                                                     uint32_t size,
                                                     const Ipv4Header& ip,
                                                     uint16_t sport)
                        {
                            if (!sinkp->GetListeningSocket())
                            {
                                return false; // not started
                            }
                            if (stopAt->IsNegative())
                            {
                                TimeValue stop;
                                sinkp->GetAttribute("StopTime", stop);
                                *stopAt = stop.Get().IsZero() ? Time::Max() : stop.Get();
                            }
                            if (Simulator::Now() >= *stopAt)
                            {
                                return false; // stopped: its socket is closed
                            }
                            st->OnRx(h, netp->GetHostOfAddress(ip.GetSource()), sport, size);
                            return true;
                        }),
                    1);
        }
    }
}

void
FabricTrafficHelper::Install(const std::vector<FlowSpec>& flows, const std::vector<double>& rateBps)
{
    if (rateBps.size() != flows.size())
    {
        throw std::invalid_argument("FabricTrafficHelper::Install: one rate per flow expected");
    }
    std::shared_ptr<State> st = m_state;
    const uint32_t nHosts = m_net->GetGraph().GetNHosts();
    for (size_t f = 0; f < flows.size(); ++f)
    {
        flows[f].Validate(nHosts);
        if (!(rateBps[f] > 0))
        {
            throw std::invalid_argument("FabricTrafficHelper: flow " + std::to_string(flows[f].id)
                                        + ": rate must be > 0 bit/s");
        }
    }
    {
        // Checked before anything is installed, so a refused list leaves nothing behind.
        std::vector<uint64_t> marked;
        for (const FlowSpec& fs : flows)
        {
            auto& used = st->srcPorts[fs.src];
            used.resize(65536, false);
            const uint16_t port = fs.SourcePort();
            if (used[port])
            {
                for (const uint64_t m : marked)
                {
                    st->srcPorts[m >> 16][m & 0xffff] = false;
                }
                throw std::invalid_argument(
                    "FabricTrafficHelper: flow " + std::to_string(fs.id) + " uses source port "
                    + std::to_string(port) + " of host " + std::to_string(fs.src)
                    + ", which another flow of that host already uses (srcPort must differ "
                      "between the flows of a host)");
            }
            used[port] = true;
            marked.push_back((uint64_t(fs.src) << 16) | port);
        }
    }
    WarnUnreachable(m_net, flows, "FabricTrafficHelper");
    for (size_t f = 0; f < flows.size(); ++f)
    {
        const FlowSpec& fs = flows[f];
        const uint16_t srcPort = fs.SourcePort();
        const uint32_t idx = static_cast<uint32_t>(st->records.size());
        st->records.emplace_back();
        const uint64_t key = (uint64_t(fs.src) << 16) | srcPort;
        st->byDst[fs.dst].emplace_back(key, idx);

        Ptr<UdpFlowSender> app = CreateObject<UdpFlowSender>();
        app->SetAttribute(
            "Remote", AddressValue(InetSocketAddress(m_net->GetHostAddress(fs.dst), fs.dstPort)));
        app->SetAttribute("LocalPort", UintegerValue(srcPort));
        app->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(rateBps[f]))));
        app->SetAttribute("PacketSize", UintegerValue(m_packetSize));
        app->SetAttribute("MaxBytes", UintegerValue(fs.bytes));
        app->SetStartTime(Seconds(fs.startS));
        m_net->GetNode(fs.src)->AddApplication(app);
        m_apps.Add(app);
        // The sender's own counters, read when the records are: no per-flow trace
        // connections (two callbacks per flow, a few hundred bytes with n^2 flows).
        st->senders.push_back(app);
    }
    for (auto& index : st->byDst)
    {
        std::sort(index.begin(), index.end());
    }
}

const std::vector<FlowRecord>&
FabricTrafficHelper::GetRecords() const
{
    m_state->Refresh();
    return m_state->records;
}

uint64_t
FabricTrafficHelper::GetTxPackets() const
{
    uint64_t n = 0;
    for (const auto& s : m_state->senders)
    {
        n += s->GetSentPackets();
    }
    return n;
}

uint64_t
FabricTrafficHelper::GetRxPackets() const
{
    return m_state->rx;
}

uint64_t
FabricTrafficHelper::GetRefusedPackets() const
{
    uint64_t n = 0;
    for (const auto& s : m_state->senders)
    {
        n += s->GetRefusedPackets();
    }
    return n;
}

} // namespace ns3
