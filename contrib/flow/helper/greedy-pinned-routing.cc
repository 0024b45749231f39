// SPDX-License-Identifier: GPL-2.0-only
#include "greedy-pinned-routing.h"

#include "ns3/log.h"

#include <limits>
#include <stdexcept>

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

void
GreedyPinnedRouting::PinLeastLoaded(const std::vector<FlowSpec>& flows)
{
    if (!HasGraph())
    {
        throw std::logic_error("GreedyPinnedRouting::PinLeastLoaded: SetGraph first");
    }
    const FabricGraph& g = GetGraph();
    const LeafSpineLayout& l = m_layout;
    // Port of spine sp towards leaf dl (the first, as the cost counts one link).
    auto downPort = [&](uint32_t sp, uint32_t dl)
    {
        for (uint32_t pt = 0; pt < g.GetNPorts(l.SpineNode(sp)); ++pt)
        {
            if (g.GetPeer(l.SpineNode(sp), pt) == l.LeafNode(dl))
            {
                return pt;
            }
        }
        return 0u;
    };
    std::map<uint32_t, double> load; // bytes per directed link
    for (const auto& f : flows)
    {
        const uint32_t sl = l.LeafOf(f.src);
        const uint32_t dl = l.LeafOf(f.dst);
        if (sl == dl)
        {
            continue;
        }
        uint32_t best = 0;
        double bestCost = std::numeric_limits<double>::infinity();
        for (uint32_t sp = 0; sp < l.GetSpines(); ++sp)
        {
            const uint32_t up = g.GetEgressDirLink(l.LeafNode(sl), l.GetK() + sp * l.GetParallel());
            const uint32_t down = g.GetEgressDirLink(l.SpineNode(sp), downPort(sp, dl));
            const double cost = std::max(load[up], load[down]) + f.bytes;
            if (cost < bestCost)
            {
                bestCost = cost;
                best = sp;
            }
        }
        load[g.GetEgressDirLink(l.LeafNode(sl), l.GetK() + best * l.GetParallel())] += f.bytes;
        for (uint32_t pt = 0; pt < g.GetNPorts(l.SpineNode(best)); ++pt)
        {
            if (g.GetPeer(l.SpineNode(best), pt) == l.LeafNode(dl))
            {
                load[g.GetEgressDirLink(l.SpineNode(best), pt)] += f.bytes;
            }
        }
        Pin(f.Key(), best);
    }
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
