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
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Path lengths measured from the packets: every switch's Forward trace counts a hop for the
 * packet (by uid), and when the packet reaches a host (PhyRxEnd of a host port: the frame
 * passed the receive error model, as for MacRx, but no copy of it is needed) the number of
 * switches it crossed is binned. Retransmissions and every routing detour count as they
 * happened. An optional filter chooses which delivered packets are binned (e.g. transport
 * data, not ACKs); packets dropped on the way are not binned. Fast switch mode only (the
 * switches' FabricSwitchForwarder).
 */
class FabricHopCounter : public Object
{
  public:
    static TypeId GetTypeId();
    FabricHopCounter();

    /// Which delivered packets are binned (all when none is set).
    using Filter = std::function<bool(Ptr<const Packet>)>;
    void SetFilter(Filter filter) { m_state->filter = std::move(filter); }

    /**
     * Connect to every switch and host device of \p net.
     * \throws std::invalid_argument if a switch has no FabricSwitchForwarder (IPv4 mode)
     */
    void Install(Ptr<FabricNetwork> net);

    /// Delivered packets (that passed the filter) per number of switches crossed.
    const std::map<uint32_t, uint64_t>& GetHistogram() const { return m_state->hist; }
    /// Number of binned packets.
    uint64_t GetPackets() const;

    /**
     * Switches crossed so far by packets, by uid: a table indexed by the low bits of the uid
     * (packets in flight have nearby uids, so nearly all land in a slot of their own: one
     * array access per hop), and a hash map for a packet whose slot another one holds.
     * Exact: a packet is in its slot or in the map, never lost.
     */
    class HopTable
    {
      public:
        /// \p slotsLog2: the table has 2^slotsLog2 slots.
        explicit HopTable(uint32_t slotsLog2 = 11);
        /// One more switch crossed by packet \p uid.
        void Count(uint64_t uid);
        /// Remove packet \p uid and return its switches crossed; false if it has none.
        bool Take(uint64_t uid, uint32_t& hops);
        /// Packets with a count (in flight, or dropped on the way).
        std::size_t GetSize() const { return m_inSlots + m_overflow.size(); }

      private:
        struct Slot
        {
            uint64_t uidPlusOne{0}; //!< 0: free
            uint32_t hops{0};
        };

        std::vector<Slot> m_slots;
        uint64_t m_mask;
        std::size_t m_inSlots{0};
        std::unordered_map<uint64_t, uint32_t> m_overflow;
    };

  private:
    /// What the trace sinks share with this object (they outlive neither).
    struct State
    {
        Filter filter;
        HopTable hops;
        std::map<uint32_t, uint64_t> hist;
    };

    std::shared_ptr<State> m_state;
};

} // namespace ns3

#endif // FABRIC_HOP_COUNTER_H
