// SPDX-License-Identifier: GPL-2.0-only
#include "leaf-spine-layout.h"

#include "ns3/fabric-addressing.h"
#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeafSpineLayout");

LeafSpineLayout::LeafSpineLayout(
    uint32_t n, uint32_t k, uint32_t spines, LeafAttachment attachment, uint32_t parallel)
    : m_n(n),
      m_k(k),
      m_leaves(0),
      m_spines(spines),
      m_attachment(attachment),
      m_parallel(parallel)
{
    if (n < 2 || n > FabricAddressing::MAX_HOSTS)
    {
        throw std::invalid_argument("leaf-spine: n (hosts) must be in [2, "
                                    + std::to_string(FabricAddressing::MAX_HOSTS) + "] (got "
                                    + std::to_string(n) + ")");
    }
    if (k < 1 || k > n)
    {
        throw std::invalid_argument("leaf-spine: k (hosts per leaf) must be in [1, n="
                                    + std::to_string(n) + "] (got " + std::to_string(k) + ")");
    }
    if (n % k != 0)
    {
        throw std::invalid_argument("leaf-spine: k (hosts per leaf) must divide n (hosts): n="
                                    + std::to_string(n) + ", k=" + std::to_string(k));
    }
    if (parallel < 1 || parallel > 64)
    {
        throw std::invalid_argument("leaf-spine: parallel links per switch pair must be in "
                                    "[1, 64] (got "
                                    + std::to_string(parallel) + ")");
    }
    m_leaves = n / k;
    if (m_spines < 1 || m_spines > 1024)
    {
        throw std::invalid_argument("leaf-spine: spines must be in [1, 1024] (got "
                                    + std::to_string(m_spines) + ")");
    }
    if (m_k + m_spines * m_parallel > FabricAddressing::MAX_SWITCH_PORTS
        || m_leaves * m_parallel > FabricAddressing::MAX_SWITCH_PORTS)
    {
        throw std::invalid_argument("leaf-spine: switch radix (k + spines*parallel, "
                                    "leaves*parallel) must be <= "
                                    + std::to_string(FabricAddressing::MAX_SWITCH_PORTS));
    }
}

uint32_t
LeafSpineLayout::LeafOf(uint32_t host) const
{
    return m_attachment == LeafAttachment::CONTIGUOUS ? host / m_k : host % m_leaves;
}

uint32_t
LeafSpineLayout::HostOn(uint32_t leaf, uint32_t j) const
{
    if (leaf >= m_leaves || j >= m_k)
    {
        throw std::invalid_argument("LeafSpineLayout::HostOn: leaf " + std::to_string(leaf)
                                    + " must be < " + std::to_string(m_leaves) + " and host "
                                    + std::to_string(j) + " < k=" + std::to_string(m_k));
    }
    return m_attachment == LeafAttachment::CONTIGUOUS ? leaf * m_k + j : leaf + j * m_leaves;
}

std::vector<FlowSpec>
LeafSpineLayout::LeafPairFlows(uint32_t pairs, uint32_t perPair, uint64_t bytes) const
{
    if (pairs < 1 || pairs > m_leaves / 2)
    {
        throw std::invalid_argument("leaf pairs=" + std::to_string(pairs) + " must be in [1, "
                                    + std::to_string(m_leaves / 2) + "] (leaves/2)");
    }
    if (perPair < 1 || perPair > m_k)
    {
        throw std::invalid_argument("flows per leaf pair=" + std::to_string(perPair)
                                    + " must be in [1, " + std::to_string(m_k) + "] (k)");
    }
    std::vector<FlowSpec> flows;
    for (uint32_t p = 0; p < pairs; ++p)
    {
        for (uint32_t j = 0; j < perPair; ++j)
        {
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = HostOn(p, j);
            f.dst = HostOn(p + m_leaves / 2, j);
            f.bytes = bytes;
            f.srcPort = static_cast<uint16_t>(49152 + f.id);
            flows.push_back(f);
        }
    }
    return flows;
}

std::shared_ptr<FabricGraph>
LeafSpineLayout::Build() const
{
    auto g = std::make_shared<FabricGraph>();
    g->SetKind("leaf-spine");
    g->SetParameter("n", m_n);
    g->SetParameter("k", m_k);
    g->SetParameter("spines", m_spines);
    g->SetParameter("parallel", m_parallel);
    g->SetParameter("rail", m_attachment == LeafAttachment::RAIL ? 1 : 0);
    for (uint32_t i = 0; i < m_n; ++i)
    {
        g->AddNode(FabricRole::HOST, "host" + std::to_string(i), 0);
    }
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        g->AddNode(FabricRole::SWITCH, "L" + std::to_string(l), 1);
    }
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        g->AddNode(FabricRole::SWITCH, "S" + std::to_string(s), 2);
    }
    for (uint32_t i = 0; i < m_n; ++i)
    {
        g->Connect(i, LeafNode(LeafOf(i)));
    }
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        for (uint32_t s = 0; s < m_spines; ++s)
        {
            for (uint32_t r = 0; r < m_parallel; ++r)
            {
                g->Connect(LeafNode(l), SpineNode(s));
            }
        }
    }
    return g;
}

std::vector<uint32_t>
LeafSpineLayout::FabricDirLinks(const FabricGraph& g) const
{
    std::vector<uint32_t> set;
    for (uint32_t l = 0; l < g.GetNLinks(); ++l)
    {
        const FabricLink& link = g.GetLink(l);
        if (!g.IsHost(link.node[0]) && !g.IsHost(link.node[1]))
        {
            set.push_back(2 * l);
            set.push_back(2 * l + 1);
        }
    }
    return set;
}

LeafAttachment
ParseLeafAttachment(const std::string& name)
{
    if (name == "contiguous")
    {
        return LeafAttachment::CONTIGUOUS;
    }
    if (name == "rail")
    {
        return LeafAttachment::RAIL;
    }
    throw std::invalid_argument("attachment '" + name + "' unknown; valid: contiguous|rail");
}

} // namespace ns3
