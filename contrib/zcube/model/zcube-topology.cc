// SPDX-License-Identifier: GPL-2.0-only
#include "zcube-topology.h"

#include "ns3/fabric-addressing.h"

#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

void
CheckSizes(const char* what, uint32_t n, uint32_t k, uint32_t parallel)
{
    const std::string w(what);
    if (n < 2 || n > FabricAddressing::MAX_HOSTS)
    {
        throw std::invalid_argument(w + ": n (GPUs) must be in [2, "
                                    + std::to_string(FabricAddressing::MAX_HOSTS) + "] (got "
                                    + std::to_string(n) + ")");
    }
    if (k < 1 || k > n)
    {
        throw std::invalid_argument(w + ": k (GPUs per switch) must be in [1, n="
                                    + std::to_string(n) + "] (got " + std::to_string(k) + ")");
    }
    if (n % k != 0)
    {
        throw std::invalid_argument(w + ": k (GPUs per switch) must divide n (GPUs): n="
                                    + std::to_string(n) + ", k=" + std::to_string(k));
    }
    if (parallel < 1 || parallel > 64)
    {
        throw std::invalid_argument(w + ": parallel links per switch pair must be in [1, 64] (got "
                                    + std::to_string(parallel) + ")");
    }
}

} // namespace

ZCubeLayout::ZCubeLayout(uint32_t n, uint32_t k, uint32_t parallel)
    : m_n(n),
      m_k(k),
      m_m(0),
      m_parallel(parallel)
{
    CheckSizes("ZCube", n, k, parallel);
    m_m = n / k;
    if (m_k + m_m * m_parallel > FabricAddressing::MAX_SWITCH_PORTS)
    {
        throw std::invalid_argument("ZCube: switch radix k + m*parallel must be <= "
                                    + std::to_string(FabricAddressing::MAX_SWITCH_PORTS));
    }
}

uint32_t
ZCubeLayout::CellSize(uint32_t a, uint32_t b) const
{
    uint32_t c = 0;
    for (uint32_t i = b * m_k; i < (b + 1) * m_k; ++i)
    {
        c += (OddGroup(i) == a) ? 1 : 0;
    }
    return c;
}

std::shared_ptr<FabricGraph>
ZCubeLayout::Build() const
{
    auto g = std::make_shared<FabricGraph>();
    g->SetKind("zcube");
    g->SetParameter("n", m_n);
    g->SetParameter("k", m_k);
    g->SetParameter("parallel", m_parallel);
    for (uint32_t i = 0; i < m_n; ++i)
    {
        g->AddNode(FabricRole::HOST, "gpu" + std::to_string(i), 0);
    }
    for (uint32_t a = 0; a < m_m; ++a)
    {
        g->AddNode(FabricRole::SWITCH, "O" + std::to_string(a), 1);
    }
    for (uint32_t b = 0; b < m_m; ++b)
    {
        g->AddNode(FabricRole::SWITCH, "E" + std::to_string(b), 1);
    }
    // Rule 1, then Rule 2: GPU port 0 is the O side, port 1 the E side.
    for (uint32_t i = 0; i < m_n; ++i)
    {
        g->Connect(i, OddNode(OddGroup(i)));
    }
    for (uint32_t i = 0; i < m_n; ++i)
    {
        g->Connect(i, EvenNode(EvenGroup(i)));
    }
    // K_{m,m} core, ordered so that O_a's port k + b*parallel + r and E_b's port
    // k + a*parallel + r are the two ends of the same link.
    for (uint32_t a = 0; a < m_m; ++a)
    {
        for (uint32_t b = 0; b < m_m; ++b)
        {
            for (uint32_t r = 0; r < m_parallel; ++r)
            {
                (void) r;
                g->Connect(OddNode(a), EvenNode(b));
            }
        }
    }
    return g;
}

std::vector<uint32_t>
ZCubeLayout::CoreDirLinks(const FabricGraph& g) const
{
    std::vector<uint32_t> set;
    for (uint32_t a = 0; a < m_m; ++a)
    {
        for (uint32_t b = 0; b < m_m; ++b)
        {
            for (uint32_t r = 0; r < m_parallel; ++r)
            {
                set.push_back(g.GetEgressDirLink(OddNode(a), OddCorePort(b, r)));
            }
        }
    }
    return set;
}

} // namespace ns3
