// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_HOP_COUNTER_H
#define FABRIC_HOP_COUNTER_H

#include "ns3/fabric-network.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

namespace ns3
{

/**
 * \ingroup fabric
 * Path lengths measured from the packets: every switch's Forward trace counts a hop for the
 * packet (by uid), and when the packet reaches a host the number of switches it crossed is
 * binned. Retransmissions and every routing detour count as they happened. An optional filter
 * chooses which delivered packets are binned (e.g. transport data, not ACKs); packets dropped
 * on the way are not binned. Fast switch mode only (the switches' FabricSwitchForwarder).
 */
class FabricHopCounter : public Object
{
  public:
    static TypeId GetTypeId();
    FabricHopCounter();

    /// Which delivered packets are binned (all when none is set).
    using Filter = std::function<bool(Ptr<const Packet>)>;
    void SetFilter(Filter filter) { *m_filter = std::move(filter); }

    /**
     * Connect to every switch and host device of \p net.
     * \throws std::invalid_argument if a switch has no FabricSwitchForwarder (IPv4 mode)
     */
    void Install(Ptr<FabricNetwork> net);

    /// Delivered packets (that passed the filter) per number of switches crossed.
    const std::map<uint32_t, uint64_t>& GetHistogram() const { return *m_hist; }
    /// Number of binned packets.
    uint64_t GetPackets() const;

  private:
    std::shared_ptr<Filter> m_filter;                               //!< shared with the trace sinks
    std::shared_ptr<std::unordered_map<uint64_t, uint32_t>> m_hops; //!< uid -> switches so far
    std::shared_ptr<std::map<uint32_t, uint64_t>> m_hist;
};

} // namespace ns3

#endif // FABRIC_HOP_COUNTER_H
