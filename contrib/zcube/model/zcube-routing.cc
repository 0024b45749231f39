// SPDX-License-Identifier: GPL-2.0-only
#include "zcube-routing.h"

#include "ns3/log.h"
#include "ns3/traffic-pattern.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ZCubeRouting");
NS_OBJECT_ENSURE_REGISTERED(ZCubeRouting);

TypeId
ZCubeRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ZCubeRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("ZCube")
                            .AddConstructor<ZCubeRouting>()
                            .AddAttribute("Seed",
                                          "Flow-hash seed for choosing among parallel core links.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&ZCubeRouting::m_seed),
                                          MakeUintegerChecker<uint64_t>());
    return tid;
}

ZCubeRouting::ZCubeRouting()
{
    NS_LOG_FUNCTION(this);
}

void
ZCubeRouting::DoSetGraph()
{
    if (m_graph->GetKind() != "zcube")
    {
        throw std::invalid_argument("ZCubeRouting: the graph was not built by ZCubeLayout (kind '"
                                    + m_graph->GetKind() + "')");
    }
    m_layout = ZCubeLayout(static_cast<uint32_t>(m_graph->GetParameter("n")),
                           static_cast<uint32_t>(m_graph->GetParameter("k")),
                           static_cast<uint32_t>(m_graph->GetParameter("parallel")));
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
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
    uint32_t port;
    if (node < n)
    {
        port = node == dstHost ? NO_PORT : 0; // Rule 1 side first
    }
    else if (node < n + m)
    {
        const uint32_t b = m_layout.EvenGroup(dstHost);
        const uint32_t par = m_layout.GetParallel();
        if (par == 1)
        {
            port = m_layout.OddCorePort(b, 0);
        }
        else
        {
            // Resilient: the all-up choice stands while its link works; otherwise rehash over
            // the parallel links the view believes usable.
            const uint64_t h = FlowHash(key, m_seed ^ node);
            const uint32_t first = m_layout.OddCorePort(b, HashToIndex(h, par));
            if (IsPortUp(node, first))
            {
                return first;
            }
            uint32_t nUp = 0;
            for (uint32_t r = 0; r < par; ++r)
            {
                nUp += IsPortUp(node, m_layout.OddCorePort(b, r)) ? 1 : 0;
            }
            if (nUp == 0)
            {
                return NO_PORT;
            }
            uint32_t pick = HashToIndex(FabricMix64(h), nUp);
            for (uint32_t r = 0; r < par; ++r)
            {
                if (IsPortUp(node, m_layout.OddCorePort(b, r)) && pick-- == 0)
                {
                    return m_layout.OddCorePort(b, r);
                }
            }
            return NO_PORT;
        }
    }
    else
    {
        const uint32_t b = node - n - m;
        // Not on the Eq. 1 path of this destination: no route.
        port = m_layout.EvenGroup(dstHost) != b ? NO_PORT : m_layout.EvenHostPort(dstHost);
    }
    return (port == NO_PORT || IsPortUp(node, port)) ? port : NO_PORT;
}

std::vector<uint32_t>
ZCubeRouting::Candidates(uint32_t node, uint32_t /*inPort*/, uint32_t dstHost) const
{
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
    std::vector<uint32_t> ports;
    if (node < n)
    {
        if (node != dstHost)
        {
            ports.push_back(0);
        }
    }
    else if (node < n + m)
    {
        for (uint32_t r = 0; r < m_layout.GetParallel(); ++r)
        {
            ports.push_back(m_layout.OddCorePort(m_layout.EvenGroup(dstHost), r));
        }
    }
    else if (m_layout.EvenGroup(dstHost) == node - n - m)
    {
        ports.push_back(m_layout.EvenHostPort(dstHost));
    }
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [this, node](uint32_t p) { return !IsPortUp(node, p); }),
                ports.end());
    return ports;
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

bool
ZCubeWalkMatchesEq3(const ZCubeLayout& layout,
                    const FabricGraph& graph,
                    const std::vector<FlowSpec>& flows,
                    const std::vector<double>& weight,
                    const std::vector<double>& walked)
{
    const auto L = ZCubeCoreLoadMatrix(layout, flows, weight);
    const uint32_t m = layout.GetM();
    for (uint32_t a = 0; a < m; ++a)
    {
        for (uint32_t b = 0; b < m; ++b)
        {
            double sum = 0;
            for (uint32_t r = 0; r < layout.GetParallel(); ++r)
            {
                sum += walked[graph.GetEgressDirLink(layout.OddNode(a), layout.OddCorePort(b, r))];
            }
            // Exact for one link per pair (the same additions); a tolerance for the split sum.
            const double tol = layout.GetParallel() == 1 ? 0 : 1e-9 * std::max(1.0, L[a * m + b]);
            if (std::fabs(sum - L[a * m + b]) > tol)
            {
                return false;
            }
        }
    }
    return true;
}

} // namespace ns3
