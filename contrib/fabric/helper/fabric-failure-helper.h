// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_FAILURE_HELPER_H
#define FABRIC_FAILURE_HELPER_H

#include "ns3/fabric-network.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-state.h"
#include "ns3/nstime.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * One scheduled failure or repair.
 */
struct FabricFailureEvent
{
    /// What fails.
    enum class Kind : uint8_t
    {
        LINK,     //!< both directions of link id
        DIR_LINK, //!< one directed link id (2L: end 0 to end 1, 2L+1: back)
        SWITCH,   //!< a switch (node id)
        NODE,     //!< any node, host or switch (node id)
        NIC       //!< port \c port of host \c id: both directions of its link
    };

    Kind kind{Kind::LINK};
    uint32_t id{0};     //!< link, directed link, node or host id
    uint32_t port{0};   //!< NIC only: the host's port
    bool repair{false}; //!< a repair of one earlier failure of the same element
    Time at;            //!< absolute simulation time

    /// The element in the spec grammar, e.g. "link:12", "nic:3/1" (no time, no "repair:").
    std::string Element() const;
    /// The whole event in the spec grammar, e.g. "repair:link:12@5ms".
    std::string ToString() const;
};

/**
 * \ingroup fabric
 * Schedules failures and repairs of links, directed links, switches, nodes and host NIC
 * ports of a FabricNetwork at given simulation times, on its physical truth
 * (FabricNetwork::GetState), which the devices obey (FabricLinkGuard). Failures may overlap:
 * an element is up again when every failure of it has been repaired.
 *
 * Routing views do not learn anything by default: a packet the routing still sends into a
 * dead element is dropped (link-down). Until the failover models exist, LearnAfter() lets a
 * routing view learn every change a fixed delay after it happened.
 *
 * From a program: Schedule(spec) with the grammar (no spaces)
 * \verbatim
 *   spec    := event ("," event)*
 *   event   := ["repair:"] element "@" time
 *   element := "link:" L | "dirlink:" D | "switch:" N | "node:" N | "nic:" H "/" P
 *   time    := ns-3 time with a unit: s, ms, us, ns, ps, fs (e.g. 50us, 1.5ms, 2e-3s)
 * \endverbatim
 * L is a link id, D a directed link id (2L leaves the link's end 0, 2L+1 its end 1), N a
 * node id (switch: must be a switch; node: a host or a switch), H a host and P one of its
 * ports (the NIC port's link fails in both directions). Example:
 * link:12@50us,switch:40@2ms,dirlink:25@1ms,nic:3/1@1ms,repair:link:12@5ms.
 * Events at the same time apply in the order given. Ids are checked against the graph, the
 * time must be representable at the simulator's resolution (no silent truncation), and each
 * repair must follow a failure of the same element, named with the same kind and id (a
 * link:L failure is repaired by repair:link:L, not by repairs of its directed links; a
 * switch:N failure by repair:switch:N, not repair:node:N); otherwise std::invalid_argument
 * names the token and what was expected.
 */
class FabricFailureHelper
{
  public:
    explicit FabricFailureHelper(Ptr<FabricNetwork> net);

    void FailLink(uint32_t link, Time at);
    void RepairLink(uint32_t link, Time at);
    void FailDirLink(uint32_t dirLink, Time at);
    void RepairDirLink(uint32_t dirLink, Time at);
    /// \throws std::invalid_argument if \p node is not a switch
    void FailSwitch(uint32_t node, Time at);
    void RepairSwitch(uint32_t node, Time at);
    void FailNode(uint32_t node, Time at);
    void RepairNode(uint32_t node, Time at);
    /// Fail port \p port of host \p host (both directions of its link).
    void FailNicPort(uint32_t host, uint32_t port, Time at);
    void RepairNicPort(uint32_t host, uint32_t port, Time at);

    /// Schedule every event of \p spec (grammar in the class comment).
    void Schedule(const std::string& spec);
    /// Schedule one event, checked against the plan as a spec event is (ids; a repair of an
    /// element that is down then, named as its failure named it: same kind and id). A repair
    /// must name a failure scheduled through this helper: an element failed directly on the
    /// state (FabricState::FailLink, or another helper) is repaired on the state too.
    void Schedule(const FabricFailureEvent& event);

    /**
     * Parse \p spec against \p graph, checking ids, times and that every repair follows a
     * failure of the same element, of the same kind and id.
     * \throws std::invalid_argument naming the token and what was expected
     */
    static std::vector<FabricFailureEvent> Parse(const std::string& spec, const FabricGraph& graph);

    /**
     * Make \p routing's view learn every failure and repair \p delay after it happens (a
     * stand-in for detection; default: views never learn). Call before the events happen.
     */
    void LearnAfter(Ptr<FabricRouting> routing, Time delay);

    /// Every event scheduled so far, in the order scheduled.
    const std::vector<FabricFailureEvent>& GetEvents() const { return m_events; }

    /// Apply \p event to \p state now (FailLink, RepairNode, ...).
    static void Apply(const FabricFailureEvent& event, FabricState& state);

  private:
    /// An event of a plan being checked, with its token as the user spelt it (for errors).
    struct PlannedEvent
    {
        FabricFailureEvent event;
        std::string token;
    };

    /**
     * Replay \p plan in time order (stable) on \p scratch, from the failures \p inForce
     * counts by FabricFailureEvent::Element(): every event must apply (a repair, to an element
     * that is down), and a repair must name a failure in force by its kind and id.
     * \throws std::invalid_argument naming the token of the first event that fails
     */
    static void ReplayPlan(std::vector<PlannedEvent> plan,
                           FabricState& scratch,
                           std::map<std::string, uint32_t> inForce);

    /**
     * Count \p event in the failures in force by FabricFailureEvent::Element(): a failure
     * adds one, a repair takes one away.
     * \return false for a repair with no failure of its element in force (nothing counted)
     */
    static bool CountInForce(const FabricFailureEvent& event,
                             std::map<std::string, uint32_t>& inForce);

    /// Check the event's ids against the graph (\p token: the event as the user spelt it).
    static void Check(const FabricFailureEvent& event,
                      const FabricGraph& graph,
                      const std::string& token = "");

    Ptr<FabricNetwork> m_net;
    std::shared_ptr<FabricState> m_truth;
    std::vector<FabricFailureEvent> m_events;
    struct Learner
    {
        std::shared_ptr<FabricState> view;
        Time delay;
    };
    std::shared_ptr<std::vector<Learner>> m_learners;
    /// Per event of m_events: whether it has been applied to the truth (set by the event; the
    /// plan check replays only the others, also at the instant of an event).
    std::shared_ptr<std::vector<uint8_t>> m_applied;
};

} // namespace ns3

#endif // FABRIC_FAILURE_HELPER_H
