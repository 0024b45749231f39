// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-link-guard.h"

#include "fabric-drop-reason.h"
#include "fabric-network.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-link-device.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricLinkGuard");
NS_OBJECT_ENSURE_REGISTERED(FabricLinkErrorModel);
NS_OBJECT_ENSURE_REGISTERED(FabricLinkGuard);

TypeId
FabricLinkErrorModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricLinkErrorModel")
                            .SetParent<ErrorModel>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricLinkErrorModel>();
    return tid;
}

FabricLinkErrorModel::FabricLinkErrorModel()
{
    NS_LOG_FUNCTION(this);
}

void
FabricLinkErrorModel::Bind(FabricLinkGuard* guard, uint32_t port)
{
    m_guard = guard;
    m_port = port;
}

void
FabricLinkErrorModel::DoDispose()
{
    m_guard = nullptr;
    m_inner = nullptr;
    ErrorModel::DoDispose();
}

bool
FabricLinkErrorModel::DoCorrupt(Ptr<Packet> p)
{
    if (m_guard && m_guard->RxBlocked(m_port, p))
    {
        return true;
    }
    return m_inner && m_inner->IsCorrupt(p);
}

void
FabricLinkErrorModel::DoReset()
{
    if (m_inner)
    {
        m_inner->Reset();
    }
}

TypeId
FabricLinkGuard::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricLinkGuard")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddConstructor<FabricLinkGuard>()
              .AddTraceSource("StateChange",
                              "The physical state of this node, or of a directed link leaving "
                              "it, changed (every change is reported once, by one node).",
                              MakeTraceSourceAccessor(&FabricLinkGuard::m_stateChangeTrace),
                              "ns3::FabricLinkGuard::StateChangeTracedCallback")
              .AddTraceSource("PortState",
                              "A port of this node changed: (port, egress usable, ingress "
                              "usable), as a loss-of-signal detector at the node sees it.",
                              MakeTraceSourceAccessor(&FabricLinkGuard::m_portStateTrace),
                              "ns3::FabricLinkGuard::PortStateTracedCallback")
              .AddTraceSource("Drop",
                              "A packet was dropped because of a failure (queued on a port "
                              "whose link went down, or arriving over a failed link).",
                              MakeTraceSourceAccessor(&FabricLinkGuard::m_dropTrace),
                              "ns3::FabricLinkGuard::DropTracedCallback");
    return tid;
}

FabricLinkGuard::FabricLinkGuard()
{
    NS_LOG_FUNCTION(this);
}

FabricLinkGuard::~FabricLinkGuard()
{
    NS_LOG_FUNCTION(this);
}

void
FabricLinkGuard::DoDispose()
{
    m_disposed = true;
    for (auto& em : m_errorModels)
    {
        em->Bind(nullptr, 0);
    }
    m_errorModels.clear();
    m_devices.clear();
    m_node = nullptr;
    m_ipv4 = nullptr;
    Object::DoDispose();
}

uint32_t
FabricLinkGuard::InstallAll(Ptr<FabricNetwork> net)
{
    NS_LOG_FUNCTION(net);
    const std::shared_ptr<const FabricGraph> graph = net->GetGraphPtr();
    const FabricGraph& g = *graph;
    auto guards = std::make_shared<std::vector<Ptr<FabricLinkGuard>>>();
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        std::vector<Ptr<NetDevice>> devs;
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            devs.push_back(net->GetDevice(v, p));
        }
        auto guard = CreateObject<FabricLinkGuard>();
        net->GetNode(v)->AggregateObject(guard);
        guard->Bind(net->GetNode(v), v, net->GetState(), devs);
        guards->push_back(guard);
    }
    // One listener for the whole network dispatches each change to the ports it touches.
    return net->GetState()->AddListener(
        [guards, graph](const FabricStateChange& c)
        {
            const FabricGraph& gr = *graph;
            auto& gs = *guards;
            if (c.element == FabricStateChange::Element::DIR_LINK)
            {
                const FabricLink& l = gr.GetLink(c.id / 2);
                const uint32_t e = c.id % 2;
                gs[l.node[1 - e]]->IngressChanged(l.port[1 - e]);
                gs[l.node[e]]->EgressChanged(l.port[e]);
                gs[l.node[e]]->ReportChange(c);
                return;
            }
            const uint32_t v = c.id;
            for (uint32_t p = 0; p < gr.GetNPorts(v); ++p)
            {
                const uint32_t peer = gr.GetPeer(v, p);
                const uint32_t pp = gr.GetPeerPort(v, p);
                gs[v]->IngressChanged(p);
                gs[peer]->IngressChanged(pp);
                gs[v]->EgressChanged(p);
                gs[peer]->EgressChanged(pp);
            }
            gs[v]->ReportChange(c);
        });
}

void
FabricLinkGuard::Bind(Ptr<Node> node,
                      uint32_t fabricNode,
                      std::shared_ptr<const FabricState> truth,
                      const std::vector<Ptr<NetDevice>>& devices)
{
    NS_LOG_FUNCTION(this << node << fabricNode);
    m_node = node;
    m_fabricNode = fabricNode;
    m_truth = std::move(truth);
    m_devices = devices;
    const FabricGraph& g = m_truth->GetGraph();
    const size_t n = devices.size();
    m_egress.resize(n);
    m_ingress.resize(n);
    m_egressUp.resize(n);
    m_ingressUp.resize(n);
    m_wentDown.assign(n, 0);
    m_ingressDownAt.assign(n, Time(0));
    m_ingressUpAt.assign(n, Time(0));
    m_ingressDelay.resize(n);
    m_ingressRate.resize(n);
    m_rxClaim.assign(n, 0);
    for (uint32_t p = 0; p < n; ++p)
    {
        m_egress[p] = g.GetEgressDirLink(fabricNode, p);
        m_ingress[p] = m_egress[p] ^ 1u;
        m_egressUp[p] = m_truth->IsDirLinkUsable(m_egress[p]);
        m_ingressUp[p] = m_truth->IsDirLinkUsable(m_ingress[p]);
        m_ingressDelay[p] = FabricLinkDevice::GetDelay(devices[p]);
        // The peer's device serializes what arrives here.
        Ptr<NetDevice> peer = FabricLinkDevice::GetPeer(devices[p]);
        m_ingressRate[p] = peer ? FabricLinkDevice::GetDataRate(peer) : DataRate();
        auto em = CreateObject<FabricLinkErrorModel>();
        em->Bind(this, p);
        m_errorModels.push_back(em);
        // On the device from the moment its ingress is first unusable (IngressChanged), not
        // before: until then it would drop nothing, and a device without a receive error model
        // skips a call per frame (ErrorModel::IsCorrupt, about 136 instructions).
        if (!m_ingressUp[p])
        {
            EnsureErrorModel(p);
        }
    }
}

void
FabricLinkGuard::EnsureErrorModel(uint32_t port)
{
    // A user may have replaced the model after Install (SetReceiveErrorModel): keep theirs
    // as the inner model, so failures are still obeyed.
    PointerValue current;
    m_devices[port]->GetAttribute("ReceiveErrorModel", current);
    Ptr<ErrorModel> em = current.Get<ErrorModel>();
    if (em != m_errorModels[port])
    {
        m_errorModels[port]->SetInner(em);
        FabricLinkDevice::SetReceiveErrorModel(m_devices[port], m_errorModels[port]);
    }
}

void
FabricLinkGuard::SetInterface(uint32_t port, bool up)
{
    Ptr<Ipv4> ipv4 = m_node->GetObject<Ipv4>();
    if (!ipv4)
    {
        return;
    }
    const int32_t i = ipv4->GetInterfaceForDevice(m_devices[port]);
    if (i < 0 || ipv4->IsUp(i) == up)
    {
        return;
    }
    if (!up && !m_ipv4)
    {
        // ns-3.37's Ipv4L3Protocol::SendRealOut discards a packet for a down interface
        // without any trace: count those from the traces that precede it (connected at the
        // first failure only, so failure-free runs pay nothing).
        m_ipv4 = ipv4;
        ipv4->TraceConnectWithoutContext("SendOutgoing",
                                         MakeCallback(&FabricLinkGuard::Ipv4Out, this));
        ipv4->TraceConnectWithoutContext("UnicastForward",
                                         MakeCallback(&FabricLinkGuard::Ipv4Out, this));
    }
    if (up)
    {
        ipv4->SetUp(i);
    }
    else
    {
        ipv4->SetDown(i);
    }
}

void
FabricLinkGuard::EgressChanged(uint32_t port)
{
    if (m_disposed)
    {
        return;
    }
    const bool up = m_truth->IsDirLinkUsable(m_egress[port]);
    if (up == bool(m_egressUp[port]))
    {
        return;
    }
    m_egressUp[port] = up;
    NS_LOG_LOGIC("node " << m_fabricNode << " port " << port << (up ? " up" : " down"));
    if (!up)
    {
        // What waits on the port never leaves: flush and count it. The packet being
        // serialized is already on the wire; the receiver drops it.
        Ptr<Queue<Packet>> q = FabricLinkDevice::GetQueue(m_devices[port]);
        while (q && !q->IsEmpty())
        {
            Ptr<Packet> p = q->Remove();
            ++m_linkDownDrops;
            m_dropTrace(p, FabricDropReason::LINK_DOWN);
        }
    }
    // The IPv4 interface goes down only when neither direction works: a host whose outgoing
    // direction alone failed still receives (what it sends is dropped link-down at the far end).
    SetInterface(port, up || m_ingressUp[port] != 0);
    m_portStateTrace(port, up, m_ingressUp[port] != 0);
}

void
FabricLinkGuard::IngressChanged(uint32_t port)
{
    if (m_disposed)
    {
        return;
    }
    const bool up = m_truth->IsDirLinkUsable(m_ingress[port]);
    if (up == bool(m_ingressUp[port]))
    {
        return;
    }
    m_ingressUp[port] = up;
    if (!up)
    {
        m_wentDown[port] = 1;
        m_ingressDownAt[port] = Simulator::Now();
        EnsureErrorModel(port);
    }
    else
    {
        m_ingressUpAt[port] = Simulator::Now();
    }
    SetInterface(port, up || m_egressUp[port] != 0);
    m_portStateTrace(port, m_egressUp[port] != 0, up);
}

void
FabricLinkGuard::ReportChange(const FabricStateChange& change)
{
    NS_LOG_INFO("t=" << Simulator::Now().As(Time::US) << " "
                     << (change.element == FabricStateChange::Element::NODE ? "node " : "dirlink ")
                     << change.id << (change.up ? " up" : " down"));
    m_stateChangeTrace(change);
}

bool
FabricLinkGuard::RxBlocked(uint32_t port, Ptr<const Packet> p)
{
    bool blocked = !m_truth->IsDirLinkUsable(m_ingress[port]);
    if (!blocked && m_wentDown[port])
    {
        // Repaired since: a packet whose first bit left before the repair went (at least in
        // part) into a dead link and is lost, whether it left before the link went down or
        // while it was down (a host whose egress alone failed keeps sending: its interface
        // stays up).
        const Time inFlight
            = m_ingressDelay[port] + m_ingressRate[port].CalculateBytesTxTime(p->GetSize());
        const Time txStart = Simulator::Now() - inFlight;
        blocked = txStart <= m_ingressDownAt[port] || txStart < m_ingressUpAt[port];
    }
    if (blocked)
    {
        m_rxClaim[port] = 1;
        ++m_linkDownDrops;
        m_dropTrace(p, FabricDropReason::LINK_DOWN);
    }
    return blocked;
}

void
FabricLinkGuard::Ipv4Out(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t interface)
{
    // ICMP errors are made by the network, not sent by a transport: not a counted drop.
    if (m_disposed || m_ipv4->IsUp(interface) || header.GetProtocol() == 1)
    {
        return;
    }
    ++m_linkDownDrops;
    m_dropBeforeDevice = true;
    m_dropTrace(packet, FabricDropReason::LINK_DOWN);
    m_dropBeforeDevice = false;
}

bool
FabricLinkGuard::TakeRxClaim(uint32_t port)
{
    const bool claimed = m_rxClaim[port] != 0;
    m_rxClaim[port] = 0;
    return claimed;
}

} // namespace ns3
