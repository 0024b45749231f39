// SPDX-License-Identifier: GPL-2.0-only
#include "zcube-routing.h"

#include "ns3/traffic-pattern.h"

#include <stdexcept>

namespace ns3
{

ZCubeRouting::ZCubeRouting(std::shared_ptr<const FabricGraph> graph,
                           const ZCubeLayout& layout,
                           uint64_t seed)
    : FabricRouting(std::move(graph)),
      m_layout(layout),
      m_seed(seed)
{
    const uint32_t n = layout.GetN();
    const uint32_t m = layout.GetM();
    if (m_graph->GetNHosts() != n || m_graph->GetNNodes() != n + 2 * m)
    {
        throw std::invalid_argument("ZCubeRouting: graph was not built by this ZCubeLayout");
    }
}

uint32_t
ZCubeRouting::SelectPort(uint32_t node,
                         uint32_t /*inPort*/,
                         uint32_t dstHost,
                         const FlowKey& key) const
{
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
    if (node < n)
    {
        return node == dstHost ? NO_PORT : 0; // Rule 1 side first
    }
    if (node < n + m)
    {
        const uint32_t b = m_layout.EvenGroup(dstHost);
        const uint32_t par = m_layout.GetParallel();
        const uint32_t r = par == 1 ? 0 : HashToIndex(FlowHash(key, m_seed ^ node), par);
        return m_layout.OddCorePort(b, r);
    }
    const uint32_t b = node - n - m;
    if (m_layout.EvenGroup(dstHost) != b)
    {
        return NO_PORT; // not on the Eq. 1 path of this destination
    }
    return m_layout.EvenHostPort(dstHost);
}

std::vector<double>
ZCubeCoreLoadMatrix(const ZCubeLayout& layout,
                    const std::vector<FlowSpec>& flows,
                    const std::vector<double>& weight)
{
    if (weight.size() != flows.size())
    {
        throw std::invalid_argument("ZCubeCoreLoadMatrix: one weight per flow expected");
    }
    const uint32_t m = layout.GetM();
    std::vector<double> L(static_cast<size_t>(m) * m, 0.0);
    for (size_t f = 0; f < flows.size(); ++f)
    {
        L[layout.OddGroup(flows[f].src) * m + layout.EvenGroup(flows[f].dst)] += weight[f];
    }
    return L;
}

} // namespace ns3
