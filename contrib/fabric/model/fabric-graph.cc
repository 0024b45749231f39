// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-graph.h"

#include <stdexcept>

namespace ns3
{

uint32_t
FabricGraph::AddNode(FabricRole role, const std::string& name, uint32_t tier)
{
    if (role == FabricRole::HOST)
    {
        if (m_nHosts != m_nodes.size())
        {
            throw std::invalid_argument("FabricGraph: host '" + name
                                        + "' added after a switch; add all hosts first");
        }
        ++m_nHosts;
    }
    m_nodes.push_back(Node{role, tier, name, {}});
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

uint32_t
FabricGraph::Connect(uint32_t a, uint32_t b, double rateBps)
{
    CheckNode(a);
    CheckNode(b);
    if (a == b)
    {
        throw std::invalid_argument("FabricGraph: self-loop on node " + m_nodes[a].name);
    }
    if (rateBps < 0)
    {
        throw std::invalid_argument("FabricGraph: rateBps must be >= 0");
    }
    const auto id = static_cast<uint32_t>(m_links.size());
    FabricLink link{{a, b},
                    {static_cast<uint32_t>(m_nodes[a].portDirLink.size()),
                     static_cast<uint32_t>(m_nodes[b].portDirLink.size())},
                    rateBps};
    // Direction 0 leaves node[0] (a), direction 1 leaves node[1] (b): a != b.
    m_nodes[a].portDirLink.push_back(2 * id);
    m_nodes[b].portDirLink.push_back(2 * id + 1);
    m_links.push_back(link);
    return id;
}

void
FabricGraph::CheckNode(uint32_t node) const
{
    if (node >= m_nodes.size())
    {
        throw std::out_of_range("FabricGraph: node " + std::to_string(node) + " not in [0, "
                                + std::to_string(m_nodes.size()) + ")");
    }
}

FabricRole
FabricGraph::GetRole(uint32_t node) const
{
    CheckNode(node);
    return m_nodes[node].role;
}

const std::string&
FabricGraph::GetName(uint32_t node) const
{
    CheckNode(node);
    return m_nodes[node].name;
}

uint32_t
FabricGraph::GetTier(uint32_t node) const
{
    CheckNode(node);
    return m_nodes[node].tier;
}

uint32_t
FabricGraph::GetNPorts(uint32_t node) const
{
    CheckNode(node);
    return static_cast<uint32_t>(m_nodes[node].portDirLink.size());
}

uint32_t
FabricGraph::GetPeer(uint32_t node, uint32_t port) const
{
    const uint32_t d = GetEgressDirLink(node, port);
    return m_links[d / 2].node[1 - d % 2];
}

uint32_t
FabricGraph::GetPeerPort(uint32_t node, uint32_t port) const
{
    const uint32_t d = GetEgressDirLink(node, port);
    return m_links[d / 2].port[1 - d % 2];
}

const FabricLink&
FabricGraph::GetLink(uint32_t link) const
{
    return m_links.at(link);
}

uint32_t
FabricGraph::GetDirLinkTail(uint32_t dirLink) const
{
    return m_links.at(dirLink / 2).node[dirLink % 2];
}

uint32_t
FabricGraph::GetDirLinkHead(uint32_t dirLink) const
{
    return m_links.at(dirLink / 2).node[1 - dirLink % 2];
}

std::string
FabricGraph::GetDirLinkLabel(uint32_t dirLink) const
{
    return GetName(GetDirLinkTail(dirLink)) + "->" + GetName(GetDirLinkHead(dirLink));
}

double
FabricGraph::GetParameter(const std::string& name) const
{
    auto it = m_params.find(name);
    if (it == m_params.end())
    {
        throw std::invalid_argument("FabricGraph: the graph"
                                    + (m_kind.empty() ? std::string() : " (" + m_kind + ")")
                                    + " has no builder parameter '" + name + "'");
    }
    return it->second;
}

} // namespace ns3
