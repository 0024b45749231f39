// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_GRAPH_H
#define FABRIC_GRAPH_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Role of a fabric node. Hosts (GPUs/NICs) originate and sink traffic and never forward;
 * switches forward.
 */
enum class FabricRole : uint8_t
{
    HOST,
    SWITCH
};

/**
 * \ingroup fabric
 * A duplex link between two ports. A link has two directions; the direction leaving
 * end 0 is directed link 2*id, the one leaving end 1 is 2*id+1.
 */
struct FabricLink
{
    uint32_t node[2]; //!< node at each end
    uint32_t port[2]; //!< port index at each end
    double rateBps;   //!< capacity per direction in bit/s (0: the network helper's default)
};

/**
 * \ingroup fabric
 * A plain C++ topology: nodes with numbered ports, duplex links between ports. No simulator
 * inside. Convention: hosts are added before any switch, so host h is node h.
 */
class FabricGraph
{
  public:
    /**
     * Add a node.
     * \param role host or switch
     * \param name printable name (e.g. "gpu7", "O3")
     * \param tier topology layer: 0 for hosts, 1 for the first switch layer, ...
     * \return the node id
     * \throws std::invalid_argument when a host is added after a switch
     */
    uint32_t AddNode(FabricRole role, const std::string& name, uint32_t tier);

    /**
     * Connect a new port of \p a to a new port of \p b.
     * \return the link id
     * \throws std::invalid_argument on an unknown node or a self-loop
     */
    uint32_t Connect(uint32_t a, uint32_t b, double rateBps = 0);

    uint32_t GetNNodes() const { return static_cast<uint32_t>(m_nodes.size()); }
    uint32_t GetNLinks() const { return static_cast<uint32_t>(m_links.size()); }
    uint32_t GetNHosts() const { return m_nHosts; }

    bool IsHost(uint32_t node) const { return node < m_nHosts; }
    FabricRole GetRole(uint32_t node) const;
    const std::string& GetName(uint32_t node) const;
    uint32_t GetTier(uint32_t node) const;

    uint32_t GetNPorts(uint32_t node) const;
    /// Link attached to a port.
    uint32_t GetPortLink(uint32_t node, uint32_t port) const
    {
        return m_nodes[node].portDirLink.at(port) / 2;
    }
    /// Node at the far end of a port.
    uint32_t GetPeer(uint32_t node, uint32_t port) const;
    /// Port index at the far end of a port.
    uint32_t GetPeerPort(uint32_t node, uint32_t port) const;
    /// Directed link that leaves \p node through \p port (inline: routing schemes ask it at
    /// every hop, through FabricState::IsPortUsable).
    uint32_t GetEgressDirLink(uint32_t node, uint32_t port) const
    {
        return m_nodes[node].portDirLink.at(port);
    }

    const FabricLink& GetLink(uint32_t link) const;
    /// Sending node of a directed link.
    uint32_t GetDirLinkTail(uint32_t dirLink) const;
    /// Receiving node of a directed link.
    uint32_t GetDirLinkHead(uint32_t dirLink) const;
    /// "name->name" label of a directed link.
    std::string GetDirLinkLabel(uint32_t dirLink) const;

    /**
     * Record what built the graph and with which parameters ("zcube" with n, k, parallel;
     * "rng" with s; ...), so that a routing scheme created by TypeId can bind to the graph
     * alone and check that it fits.
     */
    void SetKind(const std::string& kind) { m_kind = kind; }
    /// The builder's name ("" when none was recorded).
    const std::string& GetKind() const { return m_kind; }
    /// Record a builder parameter.
    void SetParameter(const std::string& name, double value) { m_params[name] = value; }
    bool HasParameter(const std::string& name) const { return m_params.count(name) != 0; }
    /// \throws std::invalid_argument when the builder did not record \p name
    double GetParameter(const std::string& name) const;

  private:
    struct Node
    {
        FabricRole role;
        uint32_t tier;
        std::string name;
        /// port -> the directed link leaving through it (link id * 2 + its direction)
        std::vector<uint32_t> portDirLink;
    };

    void CheckNode(uint32_t node) const;

    std::vector<Node> m_nodes;
    std::vector<FabricLink> m_links;
    uint32_t m_nHosts{0};
    std::string m_kind;
    std::map<std::string, double> m_params;
};

} // namespace ns3

#endif // FABRIC_GRAPH_H
