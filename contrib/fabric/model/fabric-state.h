// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_STATE_H
#define FABRIC_STATE_H

#include "ns3/fabric-graph.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * One change of a FabricState: an element went down or came back.
 */
struct FabricStateChange
{
    /// What changed.
    enum class Element : uint8_t
    {
        DIR_LINK, //!< one direction of a link (id = directed link id)
        NODE      //!< a host or switch (id = node id)
    };

    Element element;  //!< kind of element
    uint32_t id;      //!< directed link id or node id
    bool up;          //!< the element's state after the change
    uint64_t version; //!< the state's change counter after the change
};

/**
 * \ingroup fabric
 * Up/down state of every directed link and every node of a FabricGraph, kept apart from the
 * graph: the graph is immutable and shared, link ids never change when something fails.
 *
 * The same class serves two purposes:
 * - the physical truth of a packet-level run (FabricNetwork::GetState), which the devices obey;
 * - a routing view: what a routing scheme believes (FabricRouting::GetView), updated only by
 *   whatever detects a change (a local detector, a controller, a routing protocol).
 *
 * Failures may overlap: each element counts its failures, and is up again only when every
 * failure has been repaired. A directed link is usable when it is up and both its end nodes
 * are up. Listeners hear every change that flips an element's state, in order.
 */
class FabricState
{
  public:
    /// Listener of state changes.
    using Listener = std::function<void(const FabricStateChange&)>;

    /// Everything up.
    explicit FabricState(std::shared_ptr<const FabricGraph> graph);

    const FabricGraph& GetGraph() const { return *m_graph; }
    std::shared_ptr<const FabricGraph> GetGraphPtr() const { return m_graph; }

    /// Whether the directed link itself is up (its end nodes aside).
    bool IsDirLinkUp(uint32_t dirLink) const;
    /// Whether the node is up.
    bool IsNodeUp(uint32_t node) const;
    /// Whether a packet put on \p dirLink reaches its head: the link and both end nodes are up.
    bool IsDirLinkUsable(uint32_t dirLink) const { return m_usable[dirLink] != 0; }
    /// Whether a packet sent out of \p port of \p node reaches the peer.
    bool IsPortUsable(uint32_t node, uint32_t port) const
    {
        return m_usable[m_graph->GetEgressDirLink(node, port)] != 0;
    }

    /// Fail one direction of a link (a failure counts; see the class comment).
    void FailDirLink(uint32_t dirLink);
    /// Repair one earlier failure of one direction of a link.
    void RepairDirLink(uint32_t dirLink);
    /// Fail both directions of link \p link.
    void FailLink(uint32_t link);
    /// Repair both directions of link \p link.
    void RepairLink(uint32_t link);
    /// Fail a node (every link touching it becomes unusable).
    void FailNode(uint32_t node);
    /// Repair one earlier failure of a node.
    void RepairNode(uint32_t node);

    /**
     * Make this state equal to \p other (same graph), notifying a change for every element
     * that flips, in id order: directed links first, then nodes. A routing view that learns
     * everything at once does this.
     * \throws std::invalid_argument if \p other is over another graph
     */
    void CopyFrom(const FabricState& other);

    /// Whether \p other (of the same graph) believes the same directed links usable.
    bool SameUsable(const FabricState& other) const
    {
        return m_graph == other.m_graph && m_usable == other.m_usable;
    }

    /// Number of changes that flipped an element since construction.
    uint64_t GetVersion() const { return m_version; }
    uint32_t GetNDirLinksDown() const { return m_dirLinksDown; }
    uint32_t GetNNodesDown() const { return m_nodesDown; }

    /**
     * Register a listener.
     * \return an id for RemoveListener
     */
    uint32_t AddListener(Listener listener);
    /// Remove a listener (unknown ids are ignored).
    void RemoveListener(uint32_t id);

  private:
    void CheckDirLink(uint32_t dirLink) const;
    void CheckNode(uint32_t node) const;
    void AddDirLinkFailures(uint32_t dirLink, int delta);
    void AddNodeFailures(uint32_t node, int delta);
    void UpdateUsable(uint32_t dirLink);
    void Notify(FabricStateChange::Element element, uint32_t id, bool up);

    std::shared_ptr<const FabricGraph> m_graph;
    std::vector<uint32_t> m_dirLinkFailures; //!< failures in force per directed link
    std::vector<uint32_t> m_nodeFailures;    //!< failures in force per node
    std::vector<uint8_t> m_usable;           //!< per directed link
    uint32_t m_dirLinksDown{0};
    uint32_t m_nodesDown{0};
    uint64_t m_version{0};
    std::vector<std::pair<uint32_t, Listener>> m_listeners;
    uint32_t m_nextListener{0};
};

} // namespace ns3

#endif // FABRIC_STATE_H
