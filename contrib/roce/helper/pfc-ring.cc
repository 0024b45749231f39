// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-ring.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcRing");
NS_OBJECT_ENSURE_REGISTERED(ClockwiseRingRouting);

std::shared_ptr<FabricGraph>
MakePfcRingGraph(uint32_t switches)
{
    if (switches < 3 || switches > 64)
    {
        throw std::invalid_argument("MakePfcRingGraph: switches must be in [3, 64], got "
                                    + std::to_string(switches));
    }
    auto g = std::make_shared<FabricGraph>();
    for (uint32_t i = 0; i < switches; ++i)
    {
        g->AddNode(FabricRole::HOST, "gpu" + std::to_string(i), 0);
    }
    for (uint32_t i = 0; i < switches; ++i)
    {
        g->AddNode(FabricRole::SWITCH, "R" + std::to_string(i), 1);
    }
    // Port 0 of every switch: its host; then the ring links in order.
    for (uint32_t i = 0; i < switches; ++i)
    {
        g->Connect(i, switches + i);
    }
    for (uint32_t i = 0; i < switches; ++i)
    {
        g->Connect(switches + i, switches + (i + 1) % switches);
    }
    return g;
}

std::vector<FlowSpec>
MakePfcRingFlows(uint32_t switches, uint64_t bytes)
{
    if (switches < 3 || switches > 64)
    {
        throw std::invalid_argument("MakePfcRingFlows: switches must be in [3, 64], got "
                                    + std::to_string(switches));
    }
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < switches; ++i)
    {
        FlowSpec f;
        f.id = i;
        f.src = i;
        f.dst = (i + switches - 1) % switches;
        f.bytes = bytes;
        f.srcPort = static_cast<uint16_t>(49152 + i);
        flows.push_back(f);
    }
    return flows;
}

TypeId
ClockwiseRingRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ClockwiseRingRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("Roce")
                            .AddConstructor<ClockwiseRingRouting>();
    return tid;
}

void
ClockwiseRingRouting::DoSetGraph()
{
    const FabricGraph& g = GetGraph();
    const uint32_t n = g.GetNHosts();
    if (g.GetNNodes() != 2 * n)
    {
        throw std::invalid_argument("ClockwiseRingRouting: not a MakePfcRingGraph graph");
    }
    m_clockwise.assign(n, NO_PORT);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (g.GetNPorts(n + i) != 3 || g.GetPeer(n + i, 0) != i)
        {
            throw std::invalid_argument("ClockwiseRingRouting: not a MakePfcRingGraph graph");
        }
        for (uint32_t p = 1; p < 3; ++p)
        {
            if (g.GetPeer(n + i, p) == n + (i + 1) % n)
            {
                m_clockwise[i] = p;
            }
        }
        if (m_clockwise[i] == NO_PORT)
        {
            throw std::invalid_argument("ClockwiseRingRouting: not a MakePfcRingGraph graph");
        }
    }
}

uint32_t
ClockwiseRingRouting::SelectPort(uint32_t node,
                                 uint32_t /*inPort*/,
                                 uint32_t dstHost,
                                 const FlowKey& /*key*/) const
{
    const FabricGraph& g = GetGraph();
    const uint32_t n = g.GetNHosts();
    if (g.IsHost(node))
    {
        return node == dstHost ? NO_PORT : 0;
    }
    return node - n == dstHost ? 0 : m_clockwise[node - n];
}

std::vector<uint32_t>
ClockwiseRingRouting::Candidates(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    const uint32_t p = SelectPort(node, inPort, dstHost, FlowKey{});
    return p == NO_PORT ? std::vector<uint32_t>{} : std::vector<uint32_t>{p};
}

} // namespace ns3
