// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-cluster-helper.h"

#include "ns3/log.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsClusterHelper");

OcsClusterHelper::OcsClusterHelper()
{
    m_switchFactory.SetTypeId("ns3::OcsSwitch");
    m_fabricFactory.SetTypeId("ns3::OcsFabric");
}

void
OcsClusterHelper::SetHostsPerEg(uint32_t hosts)
{
    if (hosts == 0 || hosts > 1024)
    {
        throw std::invalid_argument("OcsClusterHelper: hosts per EG must be in [1, 1024], got "
                                    + std::to_string(hosts));
    }
    m_hostsPerEg = hosts;
}

void
OcsClusterHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
OcsClusterHelper::SetFabricAttribute(const std::string& name, const AttributeValue& value)
{
    m_fabricFactory.Set(name, value);
}

std::shared_ptr<FabricGraph>
OcsClusterHelper::BuildGraph(const OcsWiring& wiring,
                             uint32_t hostsPerEg,
                             std::vector<OcsLogicalLink>* links)
{
    if (hostsPerEg == 0 || hostsPerEg > 1024)
    {
        throw std::invalid_argument("OcsClusterHelper: hosts per EG must be in [1, 1024], got "
                                    + std::to_string(hostsPerEg));
    }
    const uint32_t egs = wiring.GetEgs();
    const uint32_t ports = wiring.GetPortsPerEg();
    auto g = std::make_shared<FabricGraph>();
    for (uint32_t h = 0; h < egs * hostsPerEg; ++h)
    {
        g->AddNode(FabricRole::HOST, "h" + std::to_string(h), 0);
    }
    const uint32_t eg0 = egs * hostsPerEg;
    for (uint32_t e = 0; e < egs; ++e)
    {
        g->AddNode(FabricRole::SWITCH, "eg" + std::to_string(e), 1);
    }
    for (uint32_t h = 0; h < egs * hostsPerEg; ++h)
    {
        g->Connect(h, eg0 + h / hostsPerEg);
    }
    if (links)
    {
        links->clear();
    }
    for (uint32_t a = 0; a < egs; ++a)
    {
        for (uint32_t x = 0; x < ports; ++x)
        {
            const OcsHalfPort txA = wiring.GetTxHalfPort(a, x);
            const OcsHalfPort rxA = wiring.GetRxHalfPort(a, x);
            for (uint32_t b = a + 1; b < egs; ++b)
            {
                for (uint32_t y = 0; y < ports; ++y)
                {
                    const OcsHalfPort txB = wiring.GetTxHalfPort(b, y);
                    const OcsHalfPort rxB = wiring.GetRxHalfPort(b, y);
                    if (txA.ocs != rxB.ocs || txB.ocs != rxA.ocs)
                    {
                        continue;
                    }
                    OcsLogicalLink l;
                    l.link = g->Connect(eg0 + a, eg0 + b);
                    l.end[0] = {a, x};
                    l.end[1] = {b, y};
                    l.dir[0] = {txA.ocs, txA.index, rxB.index};
                    l.dir[1] = {txB.ocs, txB.index, rxA.index};
                    if (links)
                    {
                        links->push_back(l);
                    }
                }
            }
        }
    }
    g->SetKind("ocs");
    g->SetParameter("egs", egs);
    g->SetParameter("ports", ports);
    g->SetParameter("hostsPerEg", hostsPerEg);
    return g;
}

Ptr<OcsFabric>
OcsClusterHelper::Install(const OcsWiring& wiring)
{
    NS_LOG_FUNCTION(this);
    std::vector<OcsLogicalLink> links;
    std::shared_ptr<const FabricGraph> graph = BuildGraph(wiring, m_hostsPerEg, &links);
    Ptr<FabricRouting> routing = m_links.CreateRouting(graph);
    auto view = std::make_shared<FabricState>(graph);
    routing->SetView(view);
    Ptr<FabricNetwork> net = m_links.Install(graph, routing);
    std::vector<Ptr<OcsSwitch>> switches;
    for (uint32_t o = 0; o < wiring.GetNumOcs(); ++o)
    {
        Ptr<OcsSwitch> sw = m_switchFactory.Create<OcsSwitch>();
        sw->SetRadix(wiring.GetRadix());
        switches.push_back(sw);
    }
    Ptr<OcsFabric> fabric = m_fabricFactory.Create<OcsFabric>();
    fabric->Setup(wiring, net, std::move(links), std::move(switches), view);
    return fabric;
}

} // namespace ns3
