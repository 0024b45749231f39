// SPDX-License-Identifier: GPL-2.0-only
// The old scenario-local names of the packet-vs-flow comparison, kept for bench-flow.cc; the
// comparison itself lives in the compare module (ns3/packet-flow-compare.h). New code uses
// the module's names.
#ifndef SCENARIOS_PACKET_FLOW_COMPARE_H
#define SCENARIOS_PACKET_FLOW_COMPARE_H

#include "ns3/core-module.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-stats.h"
#include "ns3/packet-flow-compare.h"
#include "ns3/queue-size.h"
#include "ns3/rng-topology.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-topology.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <set>

namespace ns3
{
namespace compare
{

using json = nlohmann::json;
using FabricSize = PacketFlowFabricSize;
using FabricKind = PacketFlowFabricKind;
using Options = PacketFlowOptions;
using Result = PacketFlowResult;

inline const std::map<std::string, FabricKind>&
FabricKinds()
{
    return PacketFlowFabricKinds();
}

inline Ptr<FabricRouting>
MakeRoutingByTypeId(const std::string& typeId, uint64_t seed, std::shared_ptr<const FabricGraph> g)
{
    return MakeSeededRouting(typeId, seed, g);
}

inline FlowSimHelper
FlowHelper(const Options& o, bool ramp)
{
    return PacketFlowFlowHelper(o, ramp);
}

inline double
CpuSeconds()
{
    return ProcessCpuSeconds();
}

using ns3::WallSeconds;

inline Result
Compare(const std::string& fabric,
        const std::string& pattern,
        std::shared_ptr<const FabricGraph> graph,
        const std::string& routing,
        const std::vector<FlowSpec>& flows,
        const Options& o)
{
    return ComparePacketAndFlow(fabric, pattern, graph, routing, flows, o);
}

} // namespace compare
} // namespace ns3

#endif // SCENARIOS_PACKET_FLOW_COMPARE_H
