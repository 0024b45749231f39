// SPDX-License-Identifier: GPL-2.0-only
#include "greedy-pinned-routing.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GreedyPinnedRouting");
NS_OBJECT_ENSURE_REGISTERED(GreedyPinnedRouting);

TypeId
GreedyPinnedRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::GreedyPinnedRouting").SetParent<FabricRouting>().SetGroupName("Flow");
    return tid;
}

GreedyPinnedRouting::GreedyPinnedRouting(Ptr<FabricRouting> inner, const LeafSpineLayout& layout)
    : m_inner(inner),
      m_layout(layout)
{
}

void
GreedyPinnedRouting::Pin(const FlowKey& key, uint32_t spine)
{
    m_pin[Id(key)] = spine;
}

uint32_t
GreedyPinnedRouting::SelectPort(uint32_t node,
                                uint32_t inPort,
                                uint32_t dstHost,
                                const FlowKey& key) const
{
    const auto it = m_pin.find(Id(key));
    if (it != m_pin.end() && node >= m_layout.GetN()
        && node < m_layout.GetN() + m_layout.GetLeaves()
        && m_layout.LeafNode(m_layout.LeafOf(dstHost)) != node)
    {
        return m_layout.GetK() + it->second * m_layout.GetParallel();
    }
    return m_inner->SelectPort(node, inPort, dstHost, key);
}

std::vector<uint32_t>
GreedyPinnedRouting::Candidates(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    return m_inner->Candidates(node, inPort, dstHost);
}

} // namespace ns3
