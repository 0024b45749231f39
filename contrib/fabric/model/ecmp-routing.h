// SPDX-License-Identifier: GPL-2.0-only
#ifndef ECMP_ROUTING_H
#define ECMP_ROUTING_H

#include "ns3/fabric-routing.h"

namespace ns3
{

/**
 * \ingroup fabric
 * Shortest-path routing with seeded flow-hash ECMP (ns3::EcmpRouting): at every node the
 * equal-cost egress ports toward the destination host are found once (BFS over switches;
 * hosts never transit), and a flow picks one by FlowHash(key, seed'). With switch-id mixing,
 * seed' mixes in the node id so that consecutive stages do not choose alike (no
 * polarization); without it, every node hashes identically. Parallel links count as separate
 * equal-cost ports. A multi-NIC host hashes the addresses only (one NIC per host pair) unless
 * HostHashesPorts is set.
 *
 * View: the equal-cost sets are recomputed over the links the view believes usable (a link
 * counts only while both its directions are usable) whenever the view changes. Hashing is
 * resilient: a flow keeps the port it would take with everything up while that port is still
 * in its equal-cost set, and only flows whose port left the set (or died before the node
 * recomputed its sets: local fast failover) move, each to the survivor of highest random weight
 * (rendezvous hashing of the flow hash and the port), as switches with resilient ECMP groups do:
 * the fast failover's choice is the one the recomputed set keeps, and a later failure of another
 * member moves no displaced flow again.
 */
class EcmpRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    EcmpRouting();

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "ecmp"; }

    /// Equal-cost egress ports at \p node toward \p dstHost (empty if none).
    std::vector<uint32_t> GetCandidates(uint32_t node, uint32_t dstHost) const;
    /// Hop count from \p node to host \p dstHost (UINT32_MAX if unreachable).
    uint32_t GetDistance(uint32_t node, uint32_t dstHost) const;

    uint64_t GetSeed() const { return m_seed; }

    /**
     * The same routing with another seed; shares the equal-cost tables (O(1), no BFS) and
     * the view. For analytic sweeps over many seeds.
     */
    Ptr<EcmpRouting> Reseeded(uint64_t seed) const;

    /**
     * How many times SetGraph built the all-up tables (BFS over the graph) in this process,
     * that is, missed the cache of the last graph's tables (see DoSetGraph). Tables rebuilt
     * for a view (DoViewChanged, DoNodeConverged) are not counted. For tests and benchmarks.
     */
    static uint64_t GetTableBuilds();

  protected:
    void DoSetGraph() override;
    void DoViewChanged(const FabricStateChange& change) override;
    /// A node with its own view: its equal-cost sets over what that node believes (a local
    /// rehash at a node that detected a failure, or a routing update that reached it).
    void DoNodeViewChanged(uint32_t node, const FabricStateChange& change) override;
    /// Recompute the node's equal-cost sets over its view.
    void DoNodeConverged(uint32_t node) override;

  private:
    /// An equal-cost set: \p n ports from \p ports.
    struct PortSet
    {
        const uint32_t* ports;
        uint32_t n;
    };

    /**
     * The equal-cost sets of every (node, destination host). A fabric has few distinct sets
     * (a leaf's uplinks, one down port each), so each is stored once and an entry is the
     * index of its set in 1, 2 or 4 bytes: SelectPort reads one byte of a dense table (64
     * destinations per cache line) and a set list small enough to stay in cache, not a
     * 4-byte offset pair and a port list per entry, which at 1024 GPUs cost two cache misses.
     */
    struct Tables
    {
        uint32_t nHosts{0};
        uint8_t indexBytes{1}; //!< bytes per entry of setIndex: 1, 2 or 4
        /// Per node * nHosts + dstHost, the set's number (indexBytes bytes, little end first).
        std::vector<uint8_t> setIndex;
        /// The distinct sets in CSR form (set 0 is the empty one).
        std::vector<uint32_t> setOffset;
        std::vector<uint32_t> setPorts;
        std::vector<uint32_t> dist;

        /// The equal-cost set of entry \p idx (node * nHosts + dstHost).
        PortSet At(size_t idx) const
        {
            uint32_t set;
            switch (indexBytes)
            {
            case 1:
                set = setIndex[idx];
                break;
            case 2:
                set = uint32_t(setIndex[2 * idx]) | (uint32_t(setIndex[2 * idx + 1]) << 8);
                break;
            default:
                set = uint32_t(setIndex[4 * idx]) | (uint32_t(setIndex[4 * idx + 1]) << 8)
                    | (uint32_t(setIndex[4 * idx + 2]) << 16)
                    | (uint32_t(setIndex[4 * idx + 3]) << 24);
                break;
            }
            const uint32_t begin = setOffset[set];
            return PortSet{setPorts.data() + begin, setOffset[set + 1] - begin};
        }

        /// Bytes of the tables (for the cache of the last graph's tables).
        size_t Bytes() const
        {
            return setIndex.size() + 4 * (setOffset.size() + setPorts.size() + dist.size());
        }
    };

    uint64_t NodeSeed(uint32_t node) const;
    /// The tables deciding at \p node.
    const Tables& TablesAt(uint32_t node) const
    {
        return (m_nodeTables.empty() || !m_nodeTables[node]) ? *m_tables : *m_nodeTables[node];
    }
    static std::shared_ptr<const Tables> BuildTables(const FabricGraph& g, const FabricState& view);

    static uint64_t s_tableBuilds; //!< see GetTableBuilds

    uint64_t m_seed{0};
    bool m_mixSwitchId{true};
    bool m_hostHashesPorts{false};
    std::shared_ptr<const Tables> m_baseTables; //!< everything up
    std::shared_ptr<const Tables> m_tables;     //!< over what the view believes usable
    /// Per node with a view of its own: tables over that view (only its row is read).
    std::vector<std::shared_ptr<const Tables>> m_nodeTables;
    /// Per node: the belief its tables were built from (to share tables between nodes).
    std::vector<std::shared_ptr<const FabricState>> m_nodeTableViews;
};

} // namespace ns3

#endif // ECMP_ROUTING_H
