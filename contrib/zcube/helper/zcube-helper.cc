// SPDX-License-Identifier: GPL-2.0-only
#include "zcube-helper.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ZCubeHelper");

ZCubeHelper::ZCubeHelper(uint32_t n, uint32_t k, uint32_t parallelCoreLinks, uint64_t hashSeed)
    : m_layout(n, k, parallelCoreLinks),
      m_graph(m_layout.Build()),
      m_routing(CreateObjectWithAttributes<ZCubeRouting>("Seed", UintegerValue(hashSeed)))
{
    m_routing->SetGraph(m_graph);
    NS_LOG_FUNCTION(this << n << k << parallelCoreLinks);
}

Ptr<FabricNetwork>
ZCubeHelper::Install(FabricNetworkHelper& links) const
{
    return links.Install(m_graph, m_routing);
}

RoftHelper::RoftHelper(const RoftLayout& layout, uint64_t hashSeed, bool mixSwitchId)
    : m_layout(layout),
      m_graph(m_layout.Build()),
      m_routing(CreateObjectWithAttributes<EcmpRouting>(
          "Seed", UintegerValue(hashSeed), "MixSwitchId", BooleanValue(mixSwitchId)))
{
    m_routing->SetGraph(m_graph);
    NS_LOG_FUNCTION(this << hashSeed << mixSwitchId);
}

Ptr<FabricNetwork>
RoftHelper::Install(FabricNetworkHelper& links) const
{
    return links.Install(m_graph, m_routing);
}

} // namespace ns3
