// SPDX-License-Identifier: GPL-2.0-only
#include "failure-mask-routing.h"

#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FailureMaskRouting");
NS_OBJECT_ENSURE_REGISTERED(FailureMaskRouting);

namespace
{
std::shared_ptr<const FabricState>
StateOf(const Ptr<FabricRouting>& inner,
        const std::set<uint32_t>& failedLinks,
        const std::set<uint32_t>& failedNodes)
{
    auto state = std::make_shared<FabricState>(inner->GetGraphPtr());
    for (uint32_t l : failedLinks)
    {
        state->FailLink(l);
    }
    for (uint32_t v : failedNodes)
    {
        state->FailNode(v);
    }
    return state;
}
} // namespace

TypeId
FailureMaskRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FailureMaskRouting").SetParent<FabricRouting>().SetGroupName("Fabric");
    return tid;
}

FailureMaskRouting::FailureMaskRouting(Ptr<FabricRouting> inner,
                                       std::shared_ptr<const FabricState> failed)
    : m_inner(std::move(inner)),
      m_failed(std::move(failed))
{
    NS_LOG_FUNCTION(this);
    if (!m_failed || m_failed->GetGraphPtr() != m_inner->GetGraphPtr())
    {
        throw std::invalid_argument("FailureMaskRouting: the failed state must be over the "
                                    "inner routing's graph");
    }
    SetGraph(m_inner->GetGraphPtr());
}

FailureMaskRouting::FailureMaskRouting(Ptr<FabricRouting> inner,
                                       const std::set<uint32_t>& failedLinks,
                                       const std::set<uint32_t>& failedNodes)
    : FailureMaskRouting(inner, StateOf(inner, failedLinks, failedNodes))
{
}

void
FailureMaskRouting::DoSetGraph()
{
}

void
FailureMaskRouting::DoDispose()
{
    m_inner = nullptr;
    FabricRouting::DoDispose();
}

uint32_t
FailureMaskRouting::SelectPort(uint32_t node,
                               uint32_t inPort,
                               uint32_t dstHost,
                               const FlowKey& key) const
{
    if (!m_failed->IsNodeUp(node))
    {
        return NO_PORT;
    }
    const uint32_t port = m_inner->SelectPort(node, inPort, dstHost, key);
    return (port == NO_PORT || Masked(node, port)) ? NO_PORT : port;
}

std::vector<uint32_t>
FailureMaskRouting::Candidates(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    // The inner choice stands even when masked (the packet is then dropped), so the masked
    // ports stay out of the set.
    if (!m_failed->IsNodeUp(node))
    {
        return {};
    }
    auto ports = m_inner->Candidates(node, inPort, dstHost);
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [this, node](uint32_t p) { return Masked(node, p); }),
                ports.end());
    return ports;
}

} // namespace ns3
