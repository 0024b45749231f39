// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_SIM_HELPER_H
#define FLOW_SIM_HELPER_H

#include "ns3/attribute-construction-list.h"
#include "ns3/flow-simulator.h"
#include "ns3/object-factory.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * Runs a flow list at the flow level over a routing object, with FlowSimulator attributes
 * set once:
 * \code
 *   FlowSimHelper flow;
 *   flow.SetAttribute("Ramp", BooleanValue(true));
 *   Ptr<FlowSimulator> sim = flow.Run(routing, flows);
 *   json j = FlowSimFlowsToJson(sim->GetRecords());
 * \endcode
 */
class FlowSimHelper
{
  public:
    FlowSimHelper();

    /// Set a FlowSimulator attribute for every run (aborts, as ObjectFactory::Set does, on an
    /// unknown name or a value its checker rejects).
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Create a simulator, give it \p routing, \p flows and \p events, run it to the end (or
     * \p stopS) and return it with its records.
     */
    Ptr<FlowSimulator> Run(Ptr<FabricRouting> routing,
                           const std::vector<FlowSpec>& flows,
                           const std::vector<FlowSimLinkEvent>& events = {},
                           double stopS = std::numeric_limits<double>::infinity()) const;

  private:
    AttributeConstructionList m_attributes; //!< values given to SetAttribute, validated
};

/**
 * Per-flow results as JSON objects in the packet level's schema (RoceFlowsToJson's keys:
 * id, src, dst, bytes, src_port, complete, start_us, fct_us, ideal_us, slowdown,
 * throughput_gbps, path) plus stalled_us and reroutes.
 */
nlohmann::json FlowSimFlowsToJson(const std::vector<FlowSimRecord>& flows);

/**
 * Per directed link: label, bytes, capacity, mean utilization over [0, endS] and, when a
 * utilization bin was set, the utilization per bin. Links that carried nothing are left out.
 */
nlohmann::json FlowSimLinksToJson(const FlowSimulator& sim, const FabricGraph& graph);

} // namespace ns3

#endif // FLOW_SIM_HELPER_H
