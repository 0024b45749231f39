// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_HASH_ECMP_H
#define FLOW_HASH_ECMP_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup fabric
 * Shortest-path routing with seeded flow-hash ECMP: at every node the equal-cost egress ports
 * toward the destination host are found once (BFS over switches; hosts never transit), and a
 * flow picks one by FlowHash(key, seed'). With switch-id mixing, seed' mixes in the node id
 * so that consecutive stages do not choose alike (no polarization); without it, every node
 * hashes identically. Parallel links count as separate equal-cost ports.
 */
class FlowHashEcmp : public FabricRouting
{
  public:
    /**
     * \param graph the topology
     * \param seed the hash seed; changing it re-draws every choice
     * \param mixSwitchId whether each node mixes its id into the hash
     */
    FlowHashEcmp(std::shared_ptr<const FabricGraph> graph, uint64_t seed, bool mixSwitchId);

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::string GetName() const override { return "ecmp"; }

    /// Equal-cost egress ports at \p node toward \p dstHost (empty if none).
    std::vector<uint32_t> GetCandidates(uint32_t node, uint32_t dstHost) const;
    /// Hop count from \p node to host \p dstHost (UINT32_MAX if unreachable).
    uint32_t GetDistance(uint32_t node, uint32_t dstHost) const;

    uint64_t GetSeed() const { return m_seed; }

    /// The same routing with another seed; shares the equal-cost tables (O(1), no BFS).
    FlowHashEcmp Reseeded(uint64_t seed) const;

  private:
    struct Tables
    {
        uint32_t nHosts{0};
        // Candidate lists in CSR form, indexed by node * nHosts + dstHost.
        std::vector<uint32_t> offset;
        std::vector<uint32_t> ports;
        std::vector<uint32_t> dist;
    };

    uint64_t NodeSeed(uint32_t node) const;
    static std::shared_ptr<const Tables> BuildTables(const FabricGraph& g);

    uint64_t m_seed;
    bool m_mixSwitchId;
    std::shared_ptr<const Tables> m_tables;
};

} // namespace ns3

#endif // FLOW_HASH_ECMP_H
