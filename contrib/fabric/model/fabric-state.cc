// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-state.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

FabricState::FabricState(std::shared_ptr<const FabricGraph> graph)
    : m_graph(std::move(graph))
{
    if (!m_graph)
    {
        throw std::invalid_argument("FabricState: graph must not be null");
    }
    m_dirLinkFailures.assign(2 * static_cast<size_t>(m_graph->GetNLinks()), 0);
    m_nodeFailures.assign(m_graph->GetNNodes(), 0);
    m_usable.assign(m_dirLinkFailures.size(), 1);
}

void
FabricState::CheckDirLink(uint32_t dirLink) const
{
    if (dirLink >= m_dirLinkFailures.size())
    {
        throw std::invalid_argument("FabricState: directed link " + std::to_string(dirLink)
                                    + " outside [0, " + std::to_string(m_dirLinkFailures.size())
                                    + ")");
    }
}

void
FabricState::CheckNode(uint32_t node) const
{
    if (node >= m_nodeFailures.size())
    {
        throw std::invalid_argument("FabricState: node " + std::to_string(node) + " outside [0, "
                                    + std::to_string(m_nodeFailures.size()) + ")");
    }
}

bool
FabricState::IsDirLinkUp(uint32_t dirLink) const
{
    CheckDirLink(dirLink);
    return m_dirLinkFailures[dirLink] == 0;
}

bool
FabricState::IsNodeUp(uint32_t node) const
{
    CheckNode(node);
    return m_nodeFailures[node] == 0;
}

void
FabricState::UpdateUsable(uint32_t dirLink)
{
    m_usable[dirLink] = m_dirLinkFailures[dirLink] == 0
                     && m_nodeFailures[m_graph->GetDirLinkTail(dirLink)] == 0
                     && m_nodeFailures[m_graph->GetDirLinkHead(dirLink)] == 0;
}

void
FabricState::Notify(FabricStateChange::Element element, uint32_t id, bool up)
{
    ++m_version;
    const FabricStateChange change{element, id, up, m_version};
    // A listener may add or remove listeners: iterate over a copy.
    auto listeners = m_listeners;
    for (auto& [lid, listener] : listeners)
    {
        listener(change);
    }
}

void
FabricState::AddDirLinkFailures(uint32_t dirLink, int delta)
{
    CheckDirLink(dirLink);
    uint32_t& f = m_dirLinkFailures[dirLink];
    if (delta < 0 && f < static_cast<uint32_t>(-delta))
    {
        throw std::invalid_argument("FabricState: repair of directed link "
                                    + std::to_string(dirLink) + ", which has not failed");
    }
    const bool wasUp = (f == 0);
    f += delta;
    const bool isUp = (f == 0);
    if (wasUp != isUp)
    {
        m_dirLinksDown += isUp ? -1 : 1;
        UpdateUsable(dirLink);
        Notify(FabricStateChange::Element::DIR_LINK, dirLink, isUp);
    }
}

void
FabricState::AddNodeFailures(uint32_t node, int delta)
{
    CheckNode(node);
    uint32_t& f = m_nodeFailures[node];
    if (delta < 0 && f < static_cast<uint32_t>(-delta))
    {
        throw std::invalid_argument("FabricState: repair of node " + std::to_string(node)
                                    + ", which has not failed");
    }
    const bool wasUp = (f == 0);
    f += delta;
    const bool isUp = (f == 0);
    if (wasUp != isUp)
    {
        m_nodesDown += isUp ? -1 : 1;
        for (uint32_t p = 0; p < m_graph->GetNPorts(node); ++p)
        {
            const uint32_t out = m_graph->GetEgressDirLink(node, p);
            UpdateUsable(out);
            UpdateUsable(out ^ 1u);
        }
        Notify(FabricStateChange::Element::NODE, node, isUp);
    }
}

void
FabricState::FailDirLink(uint32_t dirLink)
{
    AddDirLinkFailures(dirLink, 1);
}

void
FabricState::RepairDirLink(uint32_t dirLink)
{
    AddDirLinkFailures(dirLink, -1);
}

void
FabricState::FailLink(uint32_t link)
{
    CheckDirLink(2 * link);
    AddDirLinkFailures(2 * link, 1);
    AddDirLinkFailures(2 * link + 1, 1);
}

void
FabricState::RepairLink(uint32_t link)
{
    CheckDirLink(2 * link);
    if (m_dirLinkFailures[2 * link] == 0 || m_dirLinkFailures[2 * link + 1] == 0)
    {
        throw std::invalid_argument("FabricState: repair of link " + std::to_string(link)
                                    + ", whose two directions have not both failed");
    }
    AddDirLinkFailures(2 * link, -1);
    AddDirLinkFailures(2 * link + 1, -1);
}

void
FabricState::FailNode(uint32_t node)
{
    AddNodeFailures(node, 1);
}

void
FabricState::RepairNode(uint32_t node)
{
    AddNodeFailures(node, -1);
}

void
FabricState::CopyFrom(const FabricState& other)
{
    if (other.m_graph.get() != m_graph.get())
    {
        throw std::invalid_argument("FabricState::CopyFrom: states of different graphs");
    }
    for (uint32_t d = 0; d < m_dirLinkFailures.size(); ++d)
    {
        if (m_dirLinkFailures[d] != other.m_dirLinkFailures[d])
        {
            AddDirLinkFailures(d,
                               static_cast<int>(other.m_dirLinkFailures[d])
                                   - static_cast<int>(m_dirLinkFailures[d]));
        }
    }
    for (uint32_t v = 0; v < m_nodeFailures.size(); ++v)
    {
        if (m_nodeFailures[v] != other.m_nodeFailures[v])
        {
            AddNodeFailures(
                v, static_cast<int>(other.m_nodeFailures[v]) - static_cast<int>(m_nodeFailures[v]));
        }
    }
}

uint32_t
FabricState::AddListener(Listener listener)
{
    m_listeners.emplace_back(m_nextListener, std::move(listener));
    return m_nextListener++;
}

void
FabricState::RemoveListener(uint32_t id)
{
    m_listeners.erase(std::remove_if(m_listeners.begin(),
                                     m_listeners.end(),
                                     [id](const auto& l) { return l.first == id; }),
                      m_listeners.end());
}

} // namespace ns3
