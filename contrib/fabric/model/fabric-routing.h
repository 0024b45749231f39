// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_ROUTING_H
#define FABRIC_ROUTING_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-state.h"
#include "ns3/flow-key.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * A routing scheme as a pure function over a FabricGraph and a view of its state: the egress
 * port at a node for a packet of a flow. The packet-level adapters, the analytic walks and the
 * flow level call the same object with the same key, so a flow takes the same path in all.
 *
 * Schemes are ns-3 Objects chosen by TypeId with their parameters as attributes (e.g.
 * ns3::EcmpRouting, ns3::ZCubeRouting, ns3::SpraypointRouting, ns3::KspRouting). Life cycle:
 * create (CreateObject or an ObjectFactory), set attributes, then SetGraph(), which builds the
 * scheme's tables; attributes changed after SetGraph() are not seen.
 *
 * The view is what the scheme believes about link and node state (FabricState), not the
 * truth: whoever detects a change updates it (a detector, a controller, a test). Each scheme
 * has its own all-up view until SetView() shares another one. A scheme decides only from its
 * view, so a packet sent into a failure the view has not learnt of goes into the hole.
 */
class FabricRouting : public Object
{
  public:
    static TypeId GetTypeId();
    static constexpr uint32_t NO_PORT = UINT32_MAX;

    FabricRouting();
    ~FabricRouting() override;

    /// An attribute of CreateByTypeId: its name and value.
    using AttributeSetting = std::pair<std::string, Ptr<const AttributeValue>>;

    /**
     * A routing scheme of type \p tid (a subclass of FabricRouting registered with a
     * constructor), its attributes from \p attributes (each name resolved as ObjectFactory::Set
     * resolves it; a later setting of a name wins) and otherwise at their initial values: what
     * an ObjectFactory with the same TypeId and attributes creates, without its string work per
     * attribute (a scenario that makes a scheme per run of a small experiment spent a sizeable
     * part of the run there). Object's own TypeId member stays Object's (only ObjectFactory may
     * set it); GetInstanceTypeId returns \p tid. Not bound to a graph yet (SetGraph).
     * \throws std::invalid_argument if \p tid is not such a subclass, or an attribute is
     *         unknown or refuses its value
     */
    static Ptr<FabricRouting> CreateByTypeId(TypeId tid,
                                             const std::vector<AttributeSetting>& attributes);

    /// The TypeId it was created as (by CreateByTypeId or as ns-3 creates objects).
    TypeId GetInstanceTypeId() const override;

    /**
     * Bind the scheme to a graph and build its tables. Call once.
     * \throws std::invalid_argument if the scheme cannot route this graph (wrong kind,
     *         parameters out of range), or if a graph is already set
     */
    void SetGraph(std::shared_ptr<const FabricGraph> graph);
    bool HasGraph() const { return m_graph != nullptr; }
    /// \throws std::logic_error before SetGraph
    const FabricGraph& GetGraph() const;
    std::shared_ptr<const FabricGraph> GetGraphPtr() const { return m_graph; }

    /**
     * Decide from \p view from now on (shared, e.g. with a detector that updates it).
     * The scheme reacts to the view's current state at once and to every later change.
     * \throws std::invalid_argument if the view is over another graph, std::logic_error
     *         before SetGraph
     */
    void SetView(std::shared_ptr<FabricState> view);
    /// The view the scheme decides from (its own all-up one by default).
    std::shared_ptr<FabricState> GetView() const { return m_view; }

    /**
     * Per-node knowledge: from now on the scheme decides at \p node from \p view (e.g. one
     * a FabricFailureDetector updates when that node learns a change) instead of the scheme's
     * view; nullptr gives the node back to the scheme's view. Nodes without a view of their
     * own cost nothing: with none set, the decision path is one branch longer.
     * \throws std::invalid_argument if the view is over another graph or \p node is out of
     *         range, std::logic_error before SetGraph
     */
    void SetNodeView(uint32_t node, std::shared_ptr<FabricState> view);
    /// The view the scheme decides from at \p node (its own, or the scheme's).
    std::shared_ptr<FabricState> GetNodeView(uint32_t node) const;

    /**
     * How many (node view, element) pairs differ from the physical truth, as counted by the
     * FabricFailureDetector that owns the node views (0 without one). While it is not 0,
     * nodes may still disagree and forward in a loop, even with everything up again after a
     * repair (FabricSwitchForwarder's Ttl while-down reads it per packet).
     */
    uint64_t GetViewDisagreements() const { return m_viewDisagreements; }
    /// Set by the detector whenever the count changes.
    void SetViewDisagreements(uint64_t n) { m_viewDisagreements = n; }

    /**
     * The view of a central controller, for schemes that have one (ZCube's detours, §6.2 of
     * the ZCube paper): the scheme recomputes its controller-installed state from it at every
     * change (DoControllerViewChanged). Schemes without a controller ignore it.
     * \throws std::invalid_argument if the view is over another graph
     */
    void SetControllerView(std::shared_ptr<FabricState> view);

    /**
     * \p node's routing protocol has finished computing over what its view now holds (a
     * detector calls this ComputeDelay after the node learnt a change): schemes with
     * computed tables (ECMP groups, Spraypoint levels) recompute them for that node here;
     * until then the node only avoids the ports it believes dead.
     */
    void NotifyNodeConverged(uint32_t node);
    std::shared_ptr<FabricState> GetControllerView() const { return m_controllerView; }

    /**
     * Hold the scheme's reaction to changes of its view until the matching EndViewBatch:
     * for whoever changes many links of the view in one instant (an OCS reconfiguration), so
     * that tables are rebuilt once, not once per link. Changes are still recorded and traced
     * (ViewChange) one by one; decisions are not taken in between, so the result is the same
     * as reacting to each. Batches nest.
     */
    void BeginViewBatch();
    /**
     * End a batch: if the view changed during it, the scheme reacts once (as to SetView) and
     * RoutesChanged fires once.
     * \throws std::logic_error without a matching BeginViewBatch
     */
    void EndViewBatch();

    /**
     * \param node the node holding the packet
     * \param inPort the port it arrived on, or NO_PORT when the node originated it
     * \param dstHost destination host (node id)
     * \param key the flow's 5-tuple
     * \return the egress port, or NO_PORT when the node has no route (the packet is dropped
     *         with reason "no-route") or \p node is \p dstHost
     */
    virtual uint32_t SelectPort(uint32_t node,
                                uint32_t inPort,
                                uint32_t dstHost,
                                const FlowKey& key) const = 0;

    /**
     * The ports SelectPort chooses from at \p node for packets to \p dstHost that arrived on
     * \p inPort, whatever the flow key; every key's choice is one of them. Empty when the node
     * has no route. For analyses (path enumeration, fluid splits, max-flow) that must follow
     * the same rule as the packets.
     */
    virtual std::vector<uint32_t> Candidates(uint32_t node,
                                             uint32_t inPort,
                                             uint32_t dstHost) const = 0;

    /// Short name for tables and traces ("zcube", "ecmp", ...).
    virtual std::string GetName() const = 0;

    /// A per-node view-change listener: (node, is a node, directed link or node id, up).
    typedef Callback<void, uint32_t, bool, uint32_t, bool> NodeViewListener;
    /**
     * Call \p cb after every change the view of \p node learns, once the scheme reacted at
     * that node (right after the NodeViewChange trace). Unlike a NodeViewChange subscription,
     * which every change at any node calls, a change at a node calls only that node's
     * listeners: a host's queue pairs re-resolve their routes in O(queue pairs of the host),
     * not O(flows) per learning node. A scheme also calls them, with id UINT32_MAX, when it
     * changed the node's decisions without a change of its view (NotifyNodeListeners).
     * \return an id for RemoveNodeViewListener
     * \throws std::invalid_argument if \p node is outside the graph or \p cb is null,
     *         std::logic_error before SetGraph
     */
    uint64_t AddNodeViewListener(uint32_t node, NodeViewListener cb);
    /// Remove a listener added by AddNodeViewListener (unknown ids are ignored).
    void RemoveNodeViewListener(uint32_t node, uint64_t id);

    /// Signature of the ViewChange trace.
    typedef void (*ViewChangeTracedCallback)(bool isNode, uint32_t id, bool up);
    /// Signature of the NodeViewChange trace (a reaction at one node).
    typedef void (*NodeViewChangeTracedCallback)(uint32_t node, bool isNode, uint32_t id, bool up);
    /// Signature of the RoutesChanged trace: the node whose decisions may have changed, or
    /// UINT32_MAX for every node.
    typedef void (*RoutesChangedTracedCallback)(uint32_t node);

  protected:
    /// Build the tables for m_graph (called once by SetGraph).
    virtual void DoSetGraph() = 0;
    /// React to a change of the view (the default reads the view at decision time only).
    virtual void DoViewChanged(const FabricStateChange& change);
    /// React to a change of \p node's own view (the default reads it at decision time only).
    virtual void DoNodeViewChanged(uint32_t node, const FabricStateChange& change);
    /// Recompute \p node's tables over its view (default: nothing, no tables).
    virtual void DoNodeConverged(uint32_t node);
    /// React to a change of the controller's view (default: nothing, no controller).
    virtual void DoControllerViewChanged(const FabricStateChange& change);
    void DoDispose() override;

    /// The view deciding at \p node: its own if it has one, else the scheme's.
    const FabricState& ViewAt(uint32_t node) const
    {
        return (m_nodeViews.empty() || !m_nodeViews[node]) ? *m_view : *m_nodeViews[node];
    }
    /// Whether \p node's view believes a packet out of \p port of \p node reaches the peer.
    bool IsPortUp(uint32_t node, uint32_t port) const
    {
        return ViewAt(node).IsPortUsable(node, port);
    }
    /// Whether the scheme's view believes everything is up.
    bool ViewAllUp() const
    {
        return m_view->GetNDirLinksDown() == 0 && m_view->GetNNodesDown() == 0;
    }
    /// Whether \p node's view believes everything is up.
    bool ViewAllUpAt(uint32_t node) const
    {
        const FabricState& v = ViewAt(node);
        return v.GetNDirLinksDown() == 0 && v.GetNNodesDown() == 0;
    }
    /// Whether some node has a view of its own.
    bool HasNodeViews() const { return !m_nodeViews.empty(); }
    /**
     * Call \p node's node-view listeners (AddNodeViewListener) with (node, false, UINT32_MAX,
     * true) although its view did not change: the scheme changed \p node's own decisions
     * otherwise (a controller installed or removed per-pair rules at a host), so whoever
     * cached a route there asks again. Nothing when the node has no listener.
     */
    void NotifyNodeListeners(uint32_t node)
    {
        CallNodeViewListeners(node, false, UINT32_MAX, true);
    }

    /**
     * Pick one of \p n ports (\p portOf(i), i < n) by \p hash among those the view believes
     * usable, resiliently: the all-up choice portOf(HashToIndex(hash, n)) stands while its port
     * is usable (so a view that has learnt nothing, or a failure elsewhere, changes no choice);
     * only flows whose port died are rehashed over the survivors. NO_PORT when none is usable.
     */
    template<typename PortOf>
    uint32_t PickUsable(uint32_t node, uint32_t n, PortOf portOf, uint64_t hash) const
    {
        if (n == 0)
        {
            return NO_PORT;
        }
        const uint32_t first = portOf(n == 1 ? 0 : HashToIndex(hash, n));
        if (ViewAllUpAt(node) || IsPortUp(node, first))
        {
            return first; // resilient: a flow keeps its all-up choice while that port works
        }
        uint32_t nUp = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            nUp += IsPortUp(node, portOf(i)) ? 1 : 0;
        }
        if (nUp == 0)
        {
            return NO_PORT;
        }
        uint32_t pick = nUp == 1 ? 0 : HashToIndex(FabricMix64(hash), nUp);
        for (uint32_t i = 0; i < n; ++i)
        {
            if (IsPortUp(node, portOf(i)) && pick-- == 0)
            {
                return portOf(i);
            }
        }
        return NO_PORT;
    }

    std::shared_ptr<const FabricGraph> m_graph;
    std::shared_ptr<FabricState> m_view;
    /// Per node: its own view, or null (empty while no node has one: the fast path).
    std::vector<std::shared_ptr<FabricState>> m_nodeViews;
    std::shared_ptr<FabricState> m_controllerView;

  private:
    void Listen();
    void Unlisten();
    void CheckView(const std::shared_ptr<FabricState>& view, const char* what) const;
    void CallNodeViewListeners(uint32_t node, bool isNode, uint32_t id, bool up);

    /// Set by CreateByTypeId (which cannot set Object's own, as ObjectFactory does).
    std::optional<TypeId> m_createdAs;
    uint64_t m_viewDisagreements{0}; //!< see GetViewDisagreements
    uint32_t m_listener{UINT32_MAX};
    uint32_t m_batchDepth{0};              //!< open BeginViewBatch calls
    bool m_batchChanged{false};            //!< the view changed during the open batch
    std::vector<uint32_t> m_nodeListeners; //!< per node with a view of its own
    uint32_t m_controllerListener{UINT32_MAX};
    TracedCallback<bool, uint32_t, bool> m_viewChangeTrace;
    TracedCallback<uint32_t, bool, uint32_t, bool> m_nodeViewChangeTrace;
    /// Per node: listener id -> callback (ids grow: the map keeps the order of addition).
    std::unordered_map<uint32_t, std::map<uint64_t, NodeViewListener>> m_nodeViewListeners;
    uint64_t m_nextListenerId{0};
    TracedCallback<uint32_t> m_routesChangedTrace;
};

/**
 * \ingroup fabric
 * Create a routing scheme of type \p T with attributes (name, value pairs) and bind it to
 * \p graph, the code equivalent of an ObjectFactory with the same TypeId and attributes:
 * \code
 *   Ptr<EcmpRouting> ecmp = MakeRouting<EcmpRouting>(graph, "Seed", UintegerValue(7));
 * \endcode
 */
template<typename T, typename... Args>
Ptr<T>
MakeRouting(std::shared_ptr<const FabricGraph> graph, Args&&... attributes)
{
    Ptr<T> routing = CreateObjectWithAttributes<T>(std::forward<Args>(attributes)...);
    routing->SetGraph(std::move(graph));
    return routing;
}

/**
 * \ingroup fabric
 * The route a flow takes, found by asking the routing function hop by hop.
 */
struct FabricPath
{
    std::vector<uint32_t> nodes;    //!< node ids from source to the last node reached
    std::vector<uint32_t> dirLinks; //!< directed links traversed
    bool delivered{false};          //!< reached the destination host
};

/**
 * Walk a flow's route from \p srcHost to \p dstHost.
 * \param maxHops a packet still travelling after this many hops is reported undelivered
 *        (a loop in a routing function shows up as an undelivered path, never a hang)
 */
FabricPath TracePath(const FabricRouting& routing,
                     uint32_t srcHost,
                     uint32_t dstHost,
                     const FlowKey& key,
                     uint32_t maxHops = 64);

} // namespace ns3

#endif // FABRIC_ROUTING_H
