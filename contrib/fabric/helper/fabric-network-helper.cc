// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-network-helper.h"

#include "ns3/data-rate.h"
#include "ns3/ecn-marker.h"
#include "ns3/fabric-addressing.h"
#include "ns3/fabric-ipv4-routing.h"
#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <stdexcept>

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
        // Aggregated too, so Config paths reach its traces: /NodeList/*/$ns3::FabricIpv4Routing/
        auto routing = CreateObject<FabricIpv4Routing>();
        node->AggregateObject(routing);
        return routing;
    }
};

void
AddInterfaces(Ptr<Node> node,
              const std::vector<Ptr<PointToPointNetDevice>>& devs,
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

FabricNetworkHelper::FabricNetworkHelper()
{
    m_networkFactory.SetTypeId(FabricNetwork::GetTypeId());
    m_routingFactory.SetTypeId("ns3::EcmpRouting");
    m_p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate("400Gbps")));
    m_p2p.SetDeviceAttribute("Mtu", UintegerValue(4200));
    m_p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    m_p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("2MB")));
}

void
FabricNetworkHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_p2p.SetDeviceAttribute(name, value);
}

void
FabricNetworkHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_p2p.SetChannelAttribute(name, value);
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

void
FabricNetworkHelper::SetQueueAttribute(const std::string& name, const AttributeValue& value)
{
    m_p2p.SetQueue("ns3::DropTailQueue<Packet>", name, value);
}

Ptr<FabricNetwork>
FabricNetworkHelper::BuildLinks(std::shared_ptr<const FabricGraph> graph)
{
    const FabricGraph& g = *graph;
    Ptr<FabricNetwork> net = m_networkFactory.Create<FabricNetwork>();
    net->m_graph = graph;
    net->m_state = std::make_shared<FabricState>(graph);
    net->m_nodes.Create(g.GetNNodes());
    net->m_devices.resize(g.GetNNodes());
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        PointToPointHelper p2p = m_p2p;
        if (link.rateBps > 0)
        {
            p2p.SetDeviceAttribute("DataRate",
                                   DataRateValue(DataRate(static_cast<uint64_t>(link.rateBps))));
        }
        NetDeviceContainer devs
            = p2p.Install(net->m_nodes.Get(link.node[0]), net->m_nodes.Get(link.node[1]));
        for (uint32_t e = 0; e < 2; ++e)
        {
            auto& ports = net->m_devices[link.node[e]];
            NS_ABORT_MSG_IF(ports.size() != link.port[e], "links must be created in port order");
            ports.push_back(DynamicCast<PointToPointNetDevice>(devs.Get(e)));
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
    Ptr<FabricNetwork> net = BuildLinks(graph);
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
    Ptr<FabricNetwork> net = BuildLinks(graph);
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
