// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_RING_H
#define PFC_RING_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/traffic-pattern.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup roce
 * A ring of switches, one host on each (host i on switch i, port 0 of the switch; port 1
 * and the two ring links are ports 1 and 2). The textbook cyclic buffer
 * dependency of a lossless fabric: with ClockwiseRingRouting, flows that cross several ring
 * links make every ring link wait for the next one.
 * \throws std::invalid_argument unless 3 <= switches <= 64
 */
std::shared_ptr<FabricGraph> MakePfcRingGraph(uint32_t switches);

/**
 * \ingroup roce
 * The flows of the cyclic buffer dependency on MakePfcRingGraph(\p switches): host i sends
 * \p bytes to host i - 1 (modulo), switches - 1 hops clockwise, so every ring link carries
 * switches - 1 flows. Flow i, source port 49152 + i.
 * \throws std::invalid_argument unless 3 <= switches <= 64
 */
std::vector<FlowSpec> MakePfcRingFlows(uint32_t switches, uint64_t bytes);

/**
 * \ingroup roce
 * Routing of MakePfcRingGraph that always goes clockwise: down to the host on its own switch,
 * else to the next switch. (Shortest-path routing on a ring also creates the dependency
 * once flows go more than halfway round; clockwise makes every ring link part of it.)
 */
class ClockwiseRingRouting : public FabricRouting
{
  public:
    static TypeId GetTypeId();

    uint32_t SelectPort(uint32_t node,
                        uint32_t inPort,
                        uint32_t dstHost,
                        const FlowKey& key) const override;
    std::vector<uint32_t> Candidates(uint32_t node,
                                     uint32_t inPort,
                                     uint32_t dstHost) const override;
    std::string GetName() const override { return "clockwise-ring"; }

  protected:
    void DoSetGraph() override;

  private:
    std::vector<uint32_t> m_clockwise; //!< per switch, the port to the next switch
};

} // namespace ns3

#endif // PFC_RING_H
