// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_FAILURE_DETECTOR_H
#define FABRIC_FAILURE_DETECTOR_H

#include "ns3/fabric-routing.h"
#include "ns3/fabric-state.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricNetwork;

/**
 * \ingroup fabric
 * Failure detection as a model (ns3::FabricFailureDetector): it listens to the physical truth
 * (FabricNetwork::GetState) and gives every node of a routing scheme a view of its own
 * (FabricRouting::SetNodeView), which learns each change only when that node's detector
 * fires. Nothing reacts before then; there is no instant global recompute.
 *
 * - Adjacent nodes (the two ends of a failed link, the neighbours of a failed node, the
 *   node itself) detect after LocalDetectionDelay (loss of signal). The sending end of a
 *   one-way failure sees no loss of signal: it detects by BFD after BfdInterval x
 *   BfdMultiplier (unless the other direction died too, then by loss of signal), or by the
 *   routing update of the receiving end, whichever comes first.
 * - With RoutingUpdates (distributed routing: ECMP/BGP, link-state), every other node learns
 *   at the first detection + hops x PropagationDelayPerHop, hops counted over the switch
 *   graph from the nearest node that detected by loss of signal (hosts do not relay
 *   updates; the tail of a one-way failure is not a source). Every node that
 *   learnt a change recomputes its tables ComputeDelay later
 *   (FabricRouting::NotifyNodeConverged); until then it only avoids the ports it believes
 *   dead (local fast failover).
 * - A controller view (FabricRouting::SetControllerView) learns at the first detection +
 *   ControllerLatency (report, decision and rule installation).
 *
 * Repairs are detected the same way. A node never goes back to an older state: a change it
 * learns late (by BFD) is ignored if it has already learnt a later change of the same element.
 * Defaults and their sources: doc/failures.md.
 */
class FabricFailureDetector : public Object
{
  public:
    static TypeId GetTypeId();
    FabricFailureDetector();
    ~FabricFailureDetector() override;

    /**
     * Watch \p truth and give every node of \p routing a view of its own, and the routing a
     * controller view. Call once, before the failures happen.
     * \throws std::invalid_argument if \p truth and \p routing are over different graphs
     *         (or null), std::logic_error if called twice
     */
    void Install(std::shared_ptr<FabricState> truth, Ptr<FabricRouting> routing);
    /// Install on a network's truth and routing.
    void Install(Ptr<FabricNetwork> net);

    /// The view node \p node decides from.
    std::shared_ptr<FabricState> GetNodeView(uint32_t node) const;
    /// The controller's view.
    std::shared_ptr<FabricState> GetControllerView() const { return m_controllerView; }

    /// How a node learnt a change.
    enum class How : uint8_t
    {
        LOCAL,      //!< loss of signal at an adjacent node
        BFD,        //!< BFD timeout at an adjacent node
        UPDATE,     //!< a routing update (flooding) reached the node
        CONTROLLER, //!< the controller (not a node)
    };
    static const char* HowName(How how);

    /// One learning event, kept for reports and tests.
    struct Learning
    {
        Time at;        //!< when the node learnt it
        Time changedAt; //!< when the truth changed
        uint32_t node;  //!< node id, UINT32_MAX for the controller
        bool isNode;    //!< the element is a node (else a directed link)
        uint32_t id;    //!< directed link or node id
        bool up;        //!< the element's new state
        How how;        //!< how it was learnt
    };
    /// Every learning event so far, in time order.
    const std::vector<Learning>& GetLearnings() const { return m_learnings; }

    /// Signature of the TruthChange trace.
    typedef void (*TruthChangeTracedCallback)(bool isNode, uint32_t id, bool up);
    /// Signature of the Learn trace: (node or UINT32_MAX for the controller, is a node,
    /// id, up, how (How as int), delay since the change).
    typedef void (*LearnTracedCallback)(
        uint32_t node, bool isNode, uint32_t id, bool up, int how, Time delay);

  protected:
    void DoDispose() override;

  private:
    void OnTruthChange(const FabricStateChange& change);
    /// A node's view flipped an element: count whether it now agrees with the truth.
    void OnViewFlip(const FabricStateChange& change);

    void Learn(uint32_t node, FabricStateChange change, Time changedAt, How how);
    /// Loss of signal of a directed link fires: who detects it, then the updates from them.
    void DetectDirLink(FabricStateChange change, Time changedAt);
    /// The tail of a one-way failure: BFD.
    void LearnTailOfDirLink(uint32_t tail, FabricStateChange change, Time changedAt);
    /// Routing updates from \p detectors to every other node, \p after from now + per hop.
    void ScheduleUpdates(const std::vector<uint32_t>& detectors,
                         FabricStateChange change,
                         Time changedAt,
                         Time after);
    void ControllerLearn(FabricStateChange change, Time changedAt);
    void Converge(uint32_t node);
    /// Bring \p view's belief about the changed element to \p change.up.
    static void Apply(FabricState& view, const FabricStateChange& change);
    /// Switch-graph hops from every node to the nearest of \p sources.
    std::vector<uint32_t> HopsFrom(const std::vector<uint32_t>& sources) const;

    Time m_localDelay;
    Time m_bfdInterval;
    uint32_t m_bfdMultiplier{3};
    Time m_controllerLatency;
    Time m_propagationPerHop;
    Time m_computeDelay;
    bool m_routingUpdates{true};

    std::shared_ptr<FabricState> m_truth;
    Ptr<FabricRouting> m_routing;
    uint32_t m_truthListener{UINT32_MAX};
    std::vector<std::shared_ptr<FabricState>> m_nodeViews;
    std::vector<uint32_t> m_viewListeners; //!< per node view (OnViewFlip)
    /// Per element that some view has wrong: how many node views differ from the truth.
    std::unordered_map<uint64_t, uint32_t> m_disagree;
    uint64_t m_disagreeTotal{0}; //!< sum of m_disagree (published to the routing)
    std::shared_ptr<FabricState> m_controllerView;
    /// Per node (controller last): element key -> truth version of the last change learnt.
    std::vector<std::unordered_map<uint64_t, uint64_t>> m_learnt;
    /// Switch-switch hop counts, row-major over switches (UINT32_MAX: unreachable).
    std::vector<uint32_t> m_swHops;
    std::vector<Learning> m_learnings;

    TracedCallback<bool, uint32_t, bool> m_truthChangeTrace;
    TracedCallback<uint32_t, bool, uint32_t, bool, int, Time> m_learnTrace;
};

} // namespace ns3

#endif // FABRIC_FAILURE_DETECTOR_H
