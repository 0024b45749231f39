// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-network-helper.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/dscp-priority-queue.h"
#include "ns3/ecn-marker.h"
#include "ns3/fabric-addressing.h"
#include "ns3/fabric-drop-tail-queue.h"
#include "ns3/fabric-ipv4-routing.h"
#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/fast-p2p-channel.h"
#include "ns3/fast-p2p-net-device.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/string.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <array>
#include <cctype>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetworkHelper");

namespace
{

/// Gives InternetStackHelper a FabricIpv4Routing per node; SetFabric binds it afterwards.
class FabricIpv4RoutingHelper : public Ipv4RoutingHelper
{
  public:
    FabricIpv4RoutingHelper* Copy() const override { return new FabricIpv4RoutingHelper(*this); }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        // Aggregated too, so that its traces have a Config path:
        // /NodeList/*/$ns3::FabricIpv4Routing/Forward (as ns-3's OLSR does).
        Ptr<FabricIpv4Routing> routing = CreateObject<FabricIpv4Routing>();
        node->AggregateObject(routing);
        return routing;
    }
};

void
AddInterfaces(Ptr<Node> node,
              const std::vector<Ptr<NetDevice>>& devs,
              const std::function<Ipv4Address(uint32_t)>& addressOf,
              Ipv4Mask mask)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t p = 0; p < devs.size(); ++p)
    {
        const int32_t ifIndex = ipv4->AddInterface(devs[p]);
        NS_ABORT_MSG_IF(ifIndex != static_cast<int32_t>(p + 1), "unexpected interface index");
        ipv4->AddAddress(ifIndex, Ipv4InterfaceAddress(addressOf(p), mask));
        ipv4->SetUp(ifIndex);
    }
}

} // namespace

namespace
{

/// A link attribute with a datacenter default (see the FabricNetworkHelper class description).
struct DatacenterDefault
{
    const char* typeId;
    const char* name;
    const char* value;
};

const char* const g_dropTailQueue = "ns3::DropTailQueue<Packet>";

const DatacenterDefault g_datacenterDefaults[] = {
    {"ns3::PointToPointNetDevice", "DataRate", "400Gbps"},
    {"ns3::PointToPointNetDevice", "Mtu", "4200"},
    {"ns3::PointToPointChannel", "Delay", "1us"},
    {"ns3::DropTailQueue<Packet>", "MaxSize", "2MB"},
};

/// Attribute \p name declared by \p tid itself (where Config::SetDefault records defaults).
TypeId::AttributeInformation
OwnAttribute(TypeId tid, const std::string& name)
{
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        if (tid.GetAttribute(i).name == name)
        {
            return tid.GetAttribute(i);
        }
    }
    throw std::invalid_argument("FabricNetworkHelper: " + tid.GetName() + " has no attribute "
                                + name);
}

/// Whether the program changed the ns-3 default of an attribute (Config::SetDefault,
/// --ns3::Type::Attribute=...): its default differs from ns-3's built-in one.
bool
IsNs3DefaultChanged(const TypeId::AttributeInformation& info)
{
    return info.initialValue->SerializeToString(info.checker)
        != info.originalInitialValue->SerializeToString(info.checker);
}

/// A fabric node name made safe for a file name.
std::string
FileSafe(const std::string& name)
{
    std::string out = name;
    for (char& c : out)
    {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        {
            c = '_';
        }
    }
    return out;
}

std::string
PortFileName(const std::string& prefix,
             const FabricGraph& g,
             uint32_t node,
             uint32_t port,
             const std::string& ext)
{
    return prefix + "-" + FileSafe(g.GetName(node)) + "-" + std::to_string(port) + ext;
}

/// What PointToPointHelper::Install does for a device with flow control enabled: a
/// NetDeviceQueueInterface that watches the device's queue (stops and wakes its transmit
/// queue for the traffic-control layer).
void
AddFlowControl(Ptr<NetDevice> dev, Ptr<Queue<Packet>> queue)
{
    Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
    if (auto fabricQueue = DynamicCast<FabricDropTailQueue>(queue))
    {
        // The same decisions, made by the queue instead of three sinks on its traces.
        fabricQueue->SetFlowControl(ndqi->GetTxQueue(0), dev);
    }
    else
    {
        ndqi->GetTxQueue(0)->ConnectQueueTraces(queue);
    }
    dev->AggregateObject(ndqi);
}

NetDeviceContainer
InstallFastLink(const FastLinkFactories& f,
                Ptr<Node> a,
                Ptr<Node> b,
                double rateBps,
                std::array<bool, 2> switchPort,
                bool switchFlowControl)
{
    // As PointToPointHelper::Install does for its pair: devices with fresh MAC addresses,
    // a queue each with a NetDeviceQueueInterface watching it, one channel.
    NetDeviceContainer devs;
    Ptr<FastP2pChannel> channel = f.channel.Create<FastP2pChannel>();
    std::array<Ptr<FastP2pNetDevice>, 2> ends;
    for (uint32_t e = 0; e < 2; ++e)
    {
        Ptr<FastP2pNetDevice> dev = f.device.Create<FastP2pNetDevice>();
        if (rateBps > 0)
        {
            dev->SetDataRate(DataRate(static_cast<uint64_t>(rateBps)));
        }
        // A switch only sends what it receives: its ports may skip idle transmit-complete
        // events (FastP2pNetDevice::ArrivalDriven); a host's applications send any time.
        dev->SetAttribute("ArrivalDriven", BooleanValue(switchPort[e]));
        dev->SetAddress(Mac48Address::Allocate());
        (e == 0 ? a : b)->AddDevice(dev);
        Ptr<Queue<Packet>> queue = f.queue.Create<Queue<Packet>>();
        dev->SetQueue(queue);
        if (!switchPort[e] || switchFlowControl)
        {
            AddFlowControl(dev, queue);
        }
        ends[e] = dev;
        devs.Add(dev);
    }
    ends[0]->Attach(channel);
    ends[1]->Attach(channel);
    return devs;
}

} // namespace

FabricNetworkHelper::FabricNetworkHelper()
{
    m_networkFactory.SetTypeId(FabricNetwork::GetTypeId());
    m_routingFactory.SetTypeId("ns3::EcmpRouting");
}

void
FabricNetworkHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_linkAttributes["ns3::PointToPointNetDevice::" + name] = value.Copy();
}

void
FabricNetworkHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_linkAttributes["ns3::PointToPointChannel::" + name] = value.Copy();
}

void
FabricNetworkHelper::SetQueueAttribute(const std::string& name, const AttributeValue& value)
{
    m_linkAttributes["ns3::DropTailQueue<Packet>::" + name] = value.Copy();
}

void
FabricNetworkHelper::ForEachLinkAttribute(
    const std::string& queueType,
    const std::function<void(const std::string&, const std::string&, const AttributeValue&)>& apply)
    const
{
    const bool otherQueue = queueType != g_dropTailQueue;
    for (const DatacenterDefault& d : g_datacenterDefaults)
    {
        const std::string key = std::string(d.typeId) + "::" + d.name;
        if (m_linkAttributes.count(key) != 0)
        {
            continue; // applied below
        }
        const TypeId::AttributeInformation info
            = OwnAttribute(TypeId::LookupByName(d.typeId), d.name);
        const bool queueRow = d.typeId == g_dropTailQueue;
        if (!IsNs3DefaultChanged(info))
        {
            // Another queue type's own changed default (--ns3::DscpPriorityQueue<Packet>::
            // MaxSize=...) beats the datacenter default, as DropTailQueue's does.
            TypeId::AttributeInformation own;
            const bool ownChanged
                = queueRow && otherQueue
               && TypeId::LookupByName(queueType).LookupAttributeByName(d.name, &own)
               && IsNs3DefaultChanged(own);
            if (!ownChanged)
            {
                apply(d.typeId, d.name, StringValue(d.value));
            }
        }
        else if (queueRow && otherQueue)
        {
            // --ns3::DropTailQueue<Packet>::MaxSize=... is the device queue's size whatever
            // the queue type (a DropTailQueue reads it as its own default).
            apply(d.typeId, d.name, *info.initialValue);
        }
    }
    for (const auto& [key, value] : m_linkAttributes)
    {
        const auto sep = key.rfind("::");
        apply(key.substr(0, sep), key.substr(sep + 2), *value);
    }
}

std::string
FabricNetworkHelper::QueueTypeFor(const FabricNetwork& net, bool stock) const
{
    std::string queueType = m_queueType;
    QueueBase::AppendItemTypeIfNotPresent(queueType, "Packet");
    if (!net.GetControlPriority() || queueType == "ns3::PfcQueue<Packet>")
    {
        // PfcQueue has its own control class. The default drop-tail queue may be the
        // fabric's equivalent (ns3::FabricNetwork::FastQueue), but not on the stock network
        // that measurements compare the fabric's paths with.
        return queueType == g_dropTailQueue && net.GetFastQueue() && !stock
                 ? FabricDropTailQueue::GetTypeId().GetName()
                 : queueType;
    }
    const std::string prio = DscpPriorityQueue::GetTypeId().GetName();
    if (queueType != g_dropTailQueue && queueType != prio)
    {
        throw std::invalid_argument("ns3::FabricNetwork::ControlPriority=true replaces the "
                                    "device queue by "
                                    + prio
                                    + "; the queue type set with "
                                      "FabricNetworkHelper::SetQueueType ("
                                    + queueType + ") must be ns3::DropTailQueue<Packet>, " + prio
                                    + " or ns3::PfcQueue");
    }
    return prio;
}

PointToPointHelper
FabricNetworkHelper::MakeLinkHelper(const std::string& queueType) const
{
    PointToPointHelper p2p;
    p2p.SetQueue(queueType);
    ForEachLinkAttribute(queueType,
                         [&p2p, &queueType](const std::string& typeId,
                                            const std::string& name,
                                            const AttributeValue& v)
                         {
                             if (typeId == "ns3::PointToPointNetDevice")
                             {
                                 p2p.SetDeviceAttribute(name, v);
                             }
                             else if (typeId == "ns3::PointToPointChannel")
                             {
                                 p2p.SetChannelAttribute(name, v);
                             }
                             else
                             {
                                 p2p.SetQueue(queueType, name, v);
                             }
                         });
    return p2p;
}

FastLinkFactories
FabricNetworkHelper::MakeFastLinkFactories(const std::string& queueType) const
{
    FastLinkFactories f;
    f.device.SetTypeId(FastP2pNetDevice::GetTypeId());
    f.channel.SetTypeId(FastP2pChannel::GetTypeId());
    f.queue.SetTypeId(queueType);
    // ns-3's defaults of PointToPointNetDevice and PointToPointChannel (as changed by the
    // program) first, so that --ns3::PointToPointNetDevice::DataRate=... means the same here.
    const std::pair<TypeId, ObjectFactory*> own[]
        = {{PointToPointNetDevice::GetTypeId(), &f.device},
           {PointToPointChannel::GetTypeId(), &f.channel}};
    for (const auto& [tid, factory] : own)
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            TypeId::AttributeInformation fastInfo;
            if (IsNs3DefaultChanged(info)
                && factory->GetTypeId().LookupAttributeByName(info.name, &fastInfo))
            {
                factory->Set(info.name, *info.initialValue);
            }
        }
    }
    ForEachLinkAttribute(
        queueType,
        [&f](const std::string& typeId, const std::string& name, const AttributeValue& v)
        {
            if (typeId == "ns3::PointToPointNetDevice")
            {
                f.device.Set(name, v);
            }
            else if (typeId == "ns3::PointToPointChannel")
            {
                f.channel.Set(name, v);
            }
            else
            {
                f.queue.Set(name, v);
            }
        });
    // A program may also name the fast pair itself (--ns3::FastP2pNetDevice::DataRate=...):
    // such a changed default beats the datacenter defaults, as a PointToPoint* one does, but
    // not what the helper was told (SetDeviceAttribute / SetChannelAttribute).
    const std::tuple<TypeId, ObjectFactory*, std::string> fast[]
        = {{FastP2pNetDevice::GetTypeId(), &f.device, "ns3::PointToPointNetDevice::"},
           {FastP2pChannel::GetTypeId(), &f.channel, "ns3::PointToPointChannel::"}};
    for (const auto& [tid, factory, helperPrefix] : fast)
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            if (IsNs3DefaultChanged(info) && m_linkAttributes.count(helperPrefix + info.name) == 0)
            {
                factory->Set(info.name, *info.initialValue);
            }
        }
    }
    return f;
}

std::string
FabricNetworkHelper::GetLinkAttribute(const std::string& typeId, const std::string& name) const
{
    const TypeId::AttributeInformation info = OwnAttribute(TypeId::LookupByName(typeId), name);
    auto it = m_linkAttributes.find(typeId + "::" + name);
    if (it != m_linkAttributes.end())
    {
        return it->second->SerializeToString(info.checker);
    }
    if (!IsNs3DefaultChanged(info))
    {
        for (const DatacenterDefault& d : g_datacenterDefaults)
        {
            if (typeId == d.typeId && name == d.name)
            {
                // Normalised through the attribute's checker, as the device will hold it.
                Ptr<AttributeValue> v = info.checker->Create();
                v->DeserializeFromString(d.value, info.checker);
                return v->SerializeToString(info.checker);
            }
        }
    }
    return info.initialValue->SerializeToString(info.checker);
}

void
FabricNetworkHelper::EnablePcap(const std::string& prefix, Ptr<FabricNetwork> net, bool hostsOnly)
{
    const FabricGraph& g = net->GetGraph();
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        if (hostsOnly && !g.IsHost(v))
        {
            continue;
        }
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            EnablePcap(prefix, net, v, p);
        }
    }
}

void
FabricNetworkHelper::EnablePcap(const std::string& prefix,
                                Ptr<FabricNetwork> net,
                                uint32_t fabricNode,
                                uint32_t port)
{
    const FabricGraph& g = net->GetGraph();
    if (fabricNode >= g.GetNNodes() || port >= g.GetNPorts(fabricNode))
    {
        throw std::invalid_argument("FabricNetworkHelper::EnablePcap: no port "
                                    + std::to_string(port) + " on fabric node "
                                    + std::to_string(fabricNode));
    }
    const std::string file = PortFileName(prefix, g, fabricNode, port, ".pcap");
    if (auto dev = DynamicCast<FastP2pNetDevice>(net->GetDevice(fabricNode, port)))
    {
        // What PointToPointHelper does for its devices: PPP frames from PromiscSniffer.
        PcapHelper pcap;
        pcap.HookDefaultSink<FastP2pNetDevice>(
            dev, "PromiscSniffer", pcap.CreateFile(file, std::ios::out, PcapHelper::DLT_PPP));
        return;
    }
    m_p2p.EnablePcap(file, net->GetDevice(fabricNode, port), false, true);
}

void
FabricNetworkHelper::EnableAscii(const std::string& prefix, Ptr<FabricNetwork> net, bool hostsOnly)
{
    if (net->GetLinkDevice() != FabricLinkDeviceType::P2P)
    {
        throw std::invalid_argument("FabricNetworkHelper::EnableAscii: ASCII traces need "
                                    "ns3::FabricNetwork::LinkDevice=p2p (pcap works with both)");
    }
    const FabricGraph& g = net->GetGraph();
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        if (hostsOnly && !g.IsHost(v))
        {
            continue;
        }
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            m_p2p.EnableAscii(PortFileName(prefix, g, v, p, ".tr"), net->GetDevice(v, p), true);
        }
    }
}

void
FabricNetworkHelper::SetNetworkAttribute(const std::string& name, const AttributeValue& value)
{
    m_networkFactory.Set(name, value);
}

Ptr<FabricRouting>
FabricNetworkHelper::CreateRouting(std::shared_ptr<const FabricGraph> graph) const
{
    if (!m_routingFactory.GetTypeId().IsChildOf(FabricRouting::GetTypeId()))
    {
        throw std::invalid_argument(
            "FabricNetworkHelper::SetRouting: " + m_routingFactory.GetTypeId().GetName()
            + " is not a routing scheme (a subclass of ns3::FabricRouting)");
    }
    Ptr<FabricRouting> routing = m_routingFactory.Create<FabricRouting>();
    routing->SetGraph(std::move(graph));
    return routing;
}

Ptr<FabricNetwork>
FabricNetworkHelper::Install(std::shared_ptr<const FabricGraph> graph)
{
    return Install(graph, CreateRouting(graph));
}

Ptr<FabricNetwork>
FabricNetworkHelper::BuildLinks(std::shared_ptr<const FabricGraph> graph, bool stockSwitches)
{
    const FabricGraph& g = *graph;
    Ptr<FabricNetwork> net = m_networkFactory.Create<FabricNetwork>();
    net->m_graph = graph;
    net->m_state = std::make_shared<FabricState>(graph);
    net->m_nodes.Create(g.GetNNodes());
    net->m_devices.resize(g.GetNNodes());
    const bool fast = net->m_linkDevice == FabricLinkDeviceType::FAST;
    // A FabricSwitchForwarder sends straight to its devices and never asks their transmit
    // queues whether they are stopped; only switches with an IPv4 stack (traffic-control
    // layer) do. Without the interface on those ports, the two queue traces it adds to every
    // enqueue and dequeue (about 5% of the instructions of a RoCE run) are gone.
    const bool switchFlowControl = stockSwitches || net->m_switchMode == FabricSwitchMode::IPV4;
    const std::string queueType = QueueTypeFor(*net, stockSwitches);
    const PointToPointHelper links = fast ? PointToPointHelper() : MakeLinkHelper(queueType);
    const FastLinkFactories fastLinks
        = fast ? MakeFastLinkFactories(queueType) : FastLinkFactories();
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        const Ptr<Node> a = net->m_nodes.Get(link.node[0]);
        const Ptr<Node> b = net->m_nodes.Get(link.node[1]);
        NetDeviceContainer devs;
        if (fast)
        {
            devs = InstallFastLink(fastLinks,
                                   a,
                                   b,
                                   link.rateBps,
                                   {!g.IsHost(link.node[0]), !g.IsHost(link.node[1])},
                                   switchFlowControl);
        }
        else
        {
            PointToPointHelper p2p = links;
            if (link.rateBps > 0)
            {
                p2p.SetDeviceAttribute(
                    "DataRate", DataRateValue(DataRate(static_cast<uint64_t>(link.rateBps))));
            }
            if (!switchFlowControl)
            {
                p2p.DisableFlowControl();
            }
            devs = p2p.Install(a, b);
            for (uint32_t e = 0; e < 2 && !switchFlowControl; ++e)
            {
                if (g.IsHost(link.node[e]))
                {
                    auto dev = DynamicCast<PointToPointNetDevice>(devs.Get(e));
                    AddFlowControl(dev, dev->GetQueue());
                }
            }
        }
        for (uint32_t e = 0; e < 2; ++e)
        {
            auto& ports = net->m_devices[link.node[e]];
            NS_ABORT_MSG_IF(ports.size() != link.port[e], "links must be created in port order");
            ports.push_back(devs.Get(e));
        }
    }
    // Every device obeys the physical truth from now on.
    net->m_stateListener = FabricLinkGuard::InstallAll(net);
    return net;
}

Ptr<FabricNetwork>
FabricNetworkHelper::Install(std::shared_ptr<const FabricGraph> graph, Ptr<FabricRouting> routing)
{
    NS_LOG_FUNCTION(this);
    if (!graph || !routing || routing->GetGraphPtr().get() != graph.get())
    {
        throw std::invalid_argument("FabricNetworkHelper::Install: routing must be built on "
                                    "the same graph");
    }
    const FabricGraph& g = *graph;
    if (g.GetNHosts() > FabricAddressing::MAX_HOSTS
        || g.GetNNodes() - g.GetNHosts() > FabricAddressing::MAX_SWITCHES)
    {
        throw std::invalid_argument("FabricNetworkHelper: at most "
                                    + std::to_string(FabricAddressing::MAX_HOSTS) + " hosts and "
                                    + std::to_string(FabricAddressing::MAX_SWITCHES) + " switches");
    }
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        const uint32_t limit
            = g.IsHost(v) ? FabricAddressing::MAX_HOST_PORTS : FabricAddressing::MAX_SWITCH_PORTS;
        if (g.GetNPorts(v) > limit)
        {
            throw std::invalid_argument("FabricNetworkHelper: node " + g.GetName(v) + " has "
                                        + std::to_string(g.GetNPorts(v)) + " ports, at most "
                                        + std::to_string(limit) + " supported");
        }
    }
    Ptr<FabricNetwork> net = BuildLinks(graph, false);
    net->m_routing = routing;

    FabricIpv4RoutingHelper routingHelper;
    InternetStackHelper stack;
    stack.SetRoutingHelper(routingHelper);
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        Ptr<Node> node = net->m_nodes.Get(v);
        if (!g.IsHost(v))
        {
            node->AggregateObject(CreateObject<EcnMarker>());
        }
        if (g.IsHost(v) || net->m_switchMode == FabricSwitchMode::IPV4)
        {
            stack.Install(node);
            const uint32_t sw = v - g.GetNHosts();
            auto addressOf = [&](uint32_t p)
            {
                return Ipv4Address(g.IsHost(v) ? FabricAddressing::HostAddress(v, p)
                                               : FabricAddressing::SwitchAddress(sw, p));
            };
            AddInterfaces(node, net->m_devices[v], addressOf, Ipv4Mask("255.255.255.248"));
            auto proto
                = DynamicCast<FabricIpv4Routing>(node->GetObject<Ipv4>()->GetRoutingProtocol());
            proto->SetFabric(v, routing, Ipv4Address(FabricAddressing::HostAddress(v)));
        }
        else
        {
            auto fw = CreateObject<FabricSwitchForwarder>();
            node->AggregateObject(fw);
            fw->Install(node, v, routing);
        }
    }
    for (uint32_t h = 0; h < g.GetNHosts(); ++h)
    {
        net->m_hostAddress.emplace_back(FabricAddressing::HostAddress(h));
    }
    net->AssignStreams(m_streamBase);
    return net;
}

Ptr<FabricNetwork>
FabricNetworkHelper::InstallGlobalRouting(std::shared_ptr<const FabricGraph> graph)
{
    NS_LOG_FUNCTION(this);
    const FabricGraph& g = *graph;
    if (g.GetNLinks() >= (1u << 22))
    {
        throw std::invalid_argument("InstallGlobalRouting: at most 2^22 links");
    }
    Ptr<FabricNetwork> net = BuildLinks(graph, true);
    net->m_globalRouting = true;
    InternetStackHelper stack;
    stack.Install(net->m_nodes);
    // 12.0.0.0/8 carved into one /30 per link; interfaces added in port order.
    const uint32_t base = 0x0C000000;
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        auto addressOf = [&](uint32_t p)
        {
            const FabricLink& l = g.GetLink(g.GetPortLink(v, p));
            const uint32_t end = (l.node[0] == v && l.port[0] == p) ? 1 : 2;
            return Ipv4Address(base + 4 * g.GetPortLink(v, p) + end);
        };
        AddInterfaces(
            net->m_nodes.Get(v), net->m_devices[v], addressOf, Ipv4Mask("255.255.255.252"));
        if (g.IsHost(v))
        {
            net->m_hostAddress.push_back(addressOf(0));
            for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
            {
                net->m_globalHostOf[addressOf(p).Get()] = v;
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return net;
}

} // namespace ns3
