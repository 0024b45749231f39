// SPDX-License-Identifier: GPL-2.0-only
#ifndef LEAF_SPINE_LAYOUT_H
#define LEAF_SPINE_LAYOUT_H

#include "ns3/fabric-graph.h"
#include "ns3/traffic-pattern.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// Host attachment of a leaf-spine tree.
enum class LeafAttachment
{
    CONTIGUOUS, //!< host i on leaf floor(i / k) (ZCube paper §7.2, RNG paper's fat tree)
    RAIL,       //!< server-major numbering, GPU j of every server on rail leaf j: leaf i mod L
};

/**
 * \ingroup fabric
 * A two-tier fat tree (leaf-spine; rail-optimized with RAIL attachment): n hosts with one
 * NIC port each, L = n / k leaves of k hosts, S spines, every leaf linked to every spine by
 * \c parallel links. The one leaf-spine builder of the project (zcube's ROFT, rng's fat tree).
 *
 * Node ids: hosts, then leaves 0..L-1, then spines 0..S-1. Leaf ports 0..k-1 face hosts (in
 * host order), then port k + s*parallel + r is its r-th uplink to spine s. The graph records
 * kind "leaf-spine" with parameters n, k, spines, parallel, rail (0/1).
 */
class LeafSpineLayout
{
  public:
    /**
     * \param n hosts, in [2, FabricAddressing::MAX_HOSTS]
     * \param k hosts per leaf, in [1, n] and dividing n
     * \param spines number of spines S, in [1, 1024]
     * \param parallel links per leaf-spine pair, in [1, 64]
     * \throws std::invalid_argument naming the parameter and its valid range
     */
    LeafSpineLayout(uint32_t n,
                    uint32_t k,
                    uint32_t spines,
                    LeafAttachment attachment = LeafAttachment::CONTIGUOUS,
                    uint32_t parallel = 1);

    uint32_t GetN() const { return m_n; }
    uint32_t GetK() const { return m_k; }
    uint32_t GetLeaves() const { return m_leaves; }
    uint32_t GetSpines() const { return m_spines; }
    uint32_t GetParallel() const { return m_parallel; }
    LeafAttachment GetAttachment() const { return m_attachment; }
    /// Leaf of host i.
    uint32_t LeafOf(uint32_t host) const;
    /// The \p j-th host (in host order) of \p leaf. \throws std::invalid_argument if out of range
    uint32_t HostOn(uint32_t leaf, uint32_t j) const;
    /**
     * Flows between leaf pairs, each leaf's flows sharing its uplinks: for leaf pair p <
     * \p pairs (source leaf p, destination leaf p + L/2), host j of the source leaf sends
     * \p bytes to host j of the destination leaf, j < \p perPair. Ids 0, 1, ... in that order,
     * source port 49152 + id.
     * \throws std::invalid_argument if \p pairs is not in [1, L/2] or \p perPair not in [1, k]
     */
    std::vector<FlowSpec> LeafPairFlows(uint32_t pairs, uint32_t perPair, uint64_t bytes) const;
    uint32_t LeafNode(uint32_t leaf) const { return m_n + leaf; }
    uint32_t SpineNode(uint32_t spine) const { return m_n + m_leaves + spine; }
    /// Leaf port of the r-th uplink to \p spine.
    uint32_t UplinkPort(uint32_t spine, uint32_t r = 0) const
    {
        return m_k + spine * m_parallel + r;
    }
    /// Number of switch ports (hosts' ports not counted).
    uint32_t SwitchPorts() const { return m_leaves * (m_k + 2 * m_spines * m_parallel); }

    std::shared_ptr<FabricGraph> Build() const;
    /// All directed leaf<->spine links (up and down) of \p g.
    std::vector<uint32_t> FabricDirLinks(const FabricGraph& g) const;
    /// The link id of the r-th link between \p leaf and \p spine in \p g (a graph query).
    uint32_t LeafSpineLink(const FabricGraph& g,
                           uint32_t leaf,
                           uint32_t spine,
                           uint32_t r = 0) const
    {
        return g.GetPortLink(LeafNode(leaf), UplinkPort(spine, r));
    }

  private:
    uint32_t m_n;
    uint32_t m_k;
    uint32_t m_leaves;
    uint32_t m_spines;
    LeafAttachment m_attachment;
    uint32_t m_parallel;
};

/// Parse "contiguous|rail". \throws std::invalid_argument
LeafAttachment ParseLeafAttachment(const std::string& name);

} // namespace ns3

#endif // LEAF_SPINE_LAYOUT_H
