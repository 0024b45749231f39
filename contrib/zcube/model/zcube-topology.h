// SPDX-License-Identifier: GPL-2.0-only
#ifndef ZCUBE_TOPOLOGY_H
#define ZCUBE_TOPOLOGY_H

#include "ns3/fabric-graph.h"
#include "ns3/leaf-spine-layout.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup zcube
 * The ZCube wiring of the ZCube paper §2.1, 0-based: GPU i (paper's i+1) has two NIC ports;
 * port 0 goes to odd switch O_{o(i)} with o(i) = i mod m (Rule 1), port 1 to even switch
 * E_{e(i)} with e(i) = floor(i / k) (Rule 2), m = n / k. Every O_a links to every E_b
 * (K_{m,m} core), with \c parallel links per pair.
 *
 * Node ids: GPUs 0..n-1, then O_0..O_{m-1}, then E_0..E_{m-1}. Ports: a GPU's port 0 is its
 * O side and port 1 its E side; O_a's ports 0..k-1 are its GPUs in increasing order and port
 * k + b*parallel + r is its r-th link to E_b; E_b's port t is GPU b*k + t and port
 * k + a*parallel + r its r-th link to O_a.
 */
class ZCubeLayout
{
  public:
    /**
     * \param n number of GPUs, >= 2
     * \param k GPUs per switch, in [1, n] and dividing n
     * \param parallel links per (O_a, E_b) pair, >= 1
     * \throws std::invalid_argument naming the parameter and its valid range
     */
    ZCubeLayout(uint32_t n, uint32_t k, uint32_t parallel = 1);

    uint32_t GetN() const { return m_n; }
    uint32_t GetK() const { return m_k; }
    uint32_t GetM() const { return m_m; }
    uint32_t GetParallel() const { return m_parallel; }

    /// Odd group of GPU i (Rule 1).
    uint32_t OddGroup(uint32_t gpu) const { return gpu % m_m; }
    /// Even group of GPU i (Rule 2).
    uint32_t EvenGroup(uint32_t gpu) const { return gpu / m_k; }
    uint32_t OddNode(uint32_t a) const { return m_n + a; }
    uint32_t EvenNode(uint32_t b) const { return m_n + m_m + b; }
    /// Port of O_a carrying its r-th link to E_b.
    uint32_t OddCorePort(uint32_t b, uint32_t r = 0) const { return m_k + b * m_parallel + r; }
    /// Port of E_b that leads to GPU j (j must be in E_b).
    uint32_t EvenHostPort(uint32_t gpu) const { return gpu - EvenGroup(gpu) * m_k; }
    /// |S_ab| = |O_a ∩ E_b|.
    uint32_t CellSize(uint32_t a, uint32_t b) const;
    /// Whether all cells have the same size (m divides k).
    bool CellsUniform() const { return m_k % m_m == 0; }

    /// Build the graph. Link rates are left to the network helper.
    std::shared_ptr<FabricGraph> Build() const;

    /// Directed core links O_a -> E_b (all parallel copies), the set the §7.2 metric uses.
    std::vector<uint32_t> CoreDirLinks(const FabricGraph& g) const;

  private:
    uint32_t m_n;
    uint32_t m_k;
    uint32_t m_m;
    uint32_t m_parallel;
};

/// The rail-optimized fat tree of the ZCube paper §7.2 is the generic leaf-spine builder.
using RoftAttachment = LeafAttachment;
/// \copydoc LeafSpineLayout
using RoftLayout = LeafSpineLayout;

} // namespace ns3

#endif // ZCUBE_TOPOLOGY_H
