// SPDX-License-Identifier: GPL-2.0-only
#ifndef KSP_ROUTING_H
#define KSP_ROUTING_H

#include "ns3/fabric-routing.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * k-shortest-paths routing over any FabricGraph whose hosts hang off one switch port each
 * (RNG meshes, leaf-spine trees, ...): for every ordered pair of switches, up to k shortest
 * simple switch paths (Yen's algorithm, each spur path a Boost.Graph BFS over the switch
 * graph with the root's nodes and used edges filtered out; switch-switch links in link-id
 * order, so ties break the same way on every run). The source host's switch picks one path
 * by seeded flow hash of the 5-tuple; every switch on it forwards along it, so the choice is
 * a pure function of the flow key (the source is read from the source address). A switch
 * reaches a neighbour switch through its lowest-numbered port to it. A destination host on
 * the current switch is delivered directly.
 *
 * View: the source picks among the paths whose every hop the view believes usable; no path
 * up -> NO_PORT.
 */
class KspRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();
    KspRouting();

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "ksp"; }

    /// The paths (switch indices, node id minus the number of hosts) from switch \p a to \p b.
    const std::vector<std::vector<uint32_t>>& GetPaths(uint32_t a, uint32_t b) const
    {
        return m_paths[static_cast<size_t>(a) * m_n + b];
    }

    /**
     * Up to k shortest simple paths from \p a to \p b in the undirected graph of \p n vertices
     * and \p edges (Yen; BFS spur paths; candidates ordered by length then vertex sequence).
     */
    static std::vector<std::vector<uint32_t>> ShortestPaths(
        uint32_t n,
        const std::vector<std::pair<uint32_t, uint32_t>>& edges,
        uint32_t a,
        uint32_t b,
        uint32_t k);

  protected:
    /// \throws std::invalid_argument unless every host has one port, to a switch
    void DoSetGraph() override;

  private:
    /// Whether the view believes every hop of \p path usable.
    bool PathUp(const std::vector<uint32_t>& path) const;
    /// The path a flow from switch \p a to switch \p b takes (null if none).
    const std::vector<uint32_t>* ChoosePath(uint32_t a, uint32_t b, const FlowKey& key) const;
    /// Port of switch \p r toward neighbour switch \p next.
    uint32_t PortTo(uint32_t r, uint32_t next) const;

    uint32_t m_k{4};
    uint32_t m_n{0};                    //!< switches
    uint32_t m_nHosts{0};               //!< hosts
    std::vector<uint32_t> m_hostSwitch; //!< host -> switch index
    std::vector<uint32_t> m_hostPort;   //!< host -> port of its switch facing it
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_nbr; //!< switch -> (peer, port)
    std::vector<std::vector<std::vector<uint32_t>>> m_paths;
    uint64_t m_seed{0};
};

} // namespace ns3

#endif // KSP_ROUTING_H
