// SPDX-License-Identifier: GPL-2.0-only
#ifndef SHUFFLE_BOX_H
#define SHUFFLE_BOX_H

#include "ns3/rng-topology.h"
#include "ns3/traffic-pattern.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup rng
 * One physical connection that changes during an expansion.
 */
struct ShuffleChange
{
    enum Kind
    {
        TRUNK_REMOVED,       //!< an inter-panel c-port trunk unplugged
        TRUNK_ADDED,         //!< an inter-panel c-port trunk plugged
        SHUFFLEBACK_REMOVED, //!< a ShuffleBack taken off a c-port or r-port
        SHUFFLEBACK_ADDED,   //!< a ShuffleBack put on a c-port or r-port
        ROUTER_CONNECTED,    //!< a router physical port plugged into an r-port
    };

    Kind kind;
    std::string what; //!< e.g. "P0.B3.c2 <-> P2.B1.c0"
};

/**
 * \ingroup rng
 * One logical router-router link of a ShuffleBox build: the two router uplink lanes that an
 * optical path joins. Endpoints are ordered, (routerA, laneA) < (routerB, laneB), so a link
 * has one spelling.
 */
struct ShuffleLaneLink
{
    uint32_t routerA{0};
    uint32_t laneA{0}; //!< uplink lane of routerA, in [0, d): physical port * 4 + breakout lane
    uint32_t routerB{0};
    uint32_t laneB{0};
    uint32_t connectors{0}; //!< connectors on the optical path (at most the limit)

    /// Order and equality by endpoints only (the optical route may differ).
    bool operator<(const ShuffleLaneLink& o) const
    {
        return std::tie(routerA, laneA, routerB, laneB)
             < std::tie(o.routerA, o.laneA, o.routerB, o.laneB);
    }

    bool operator==(const ShuffleLaneLink& o) const
    {
        return routerA == o.routerA && laneA == o.laneA && routerB == o.routerB && laneB == o.laneB;
    }
};

/**
 * \ingroup rng
 * What an incremental expansion changed: the physical connections a technician re-plugs and,
 * as a consequence, the logical router-router links (lane pairs) that disappear and appear.
 * A logical link whose two lanes still meet, possibly over a different optical route, is kept.
 */
struct ShuffleExpansion
{
    std::vector<ShuffleChange> physical;       //!< physical connections that change
    std::vector<ShuffleLaneLink> linksRemoved; //!< logical links of the old build now gone
    std::vector<ShuffleLaneLink> linksAdded;   //!< logical links the new build has in addition
    uint32_t linksKept{0};                     //!< logical links present before and after
};

/**
 * \ingroup rng
 * Physical and logical counts of a ShuffleBox build.
 */
struct ShuffleCounts
{
    uint32_t rooms{0};
    uint32_t routers{0};
    uint32_t boxes{0};
    uint32_t trunks{0}; //!< inter-room c-port trunk cables
    uint32_t connectedPanelPairs{0};
    uint32_t endpointPairs{0};        //!< routers + connected panel pairs
    uint32_t endpointPairsFormula{0}; //!< n + R(R-1)/2
    uint32_t cPortShuffleBacks{0};
    uint32_t rPortShuffleBacks{0};
    uint32_t lanes{0};              //!< router uplink lanes
    uint32_t links{0};              //!< logical router-router links made
    uint32_t overConnectorLimit{0}; //!< lane pairs whose optical path exceeds the limit
    uint32_t selfLoops{0};          //!< lane pairs joining a router to itself (unused)
    uint32_t multiEdgeLinks{0};     //!< links repeating a router pair (kept, as a bundle)
    uint32_t minDegree{0};
    uint32_t maxDegree{0};
    std::vector<uint32_t> connectorHistogram; //!< lane pairs by connector count
};

/**
 * \ingroup rng
 * The ShuffleBox construction of RNG paper §6. A ShuffleBox has d_r = 32 r-ports of f_r = 4
 * fibre pairs (FPs) and d_c = 4 c-ports of f_c = 32 FPs, shuffled as a full bipartite: FP j of
 * r-port i <-> FP i of c-port j. Each room has a shuffle panel of C boxes; a router's uplinks
 * are d / 4 physical ports (4 breakout lanes each) plugged into random r-ports of its room's
 * panel. Each pair of panels is joined by floor(C d_c / R) c-port trunks (FP i <-> FP i),
 * chosen at random; every other c-port and every r-port without a router carries a
 * ShuffleBack, which bridges FP 2k <-> 2k+1. Following FPs from a router lane through boxes,
 * trunks and ShuffleBacks ends at another router lane: that is a logical link, unless the path
 * has more than the connector limit (router-r-port and ShuffleBack count 1, a trunk 2: the
 * three patterns of Fig. 6 have 3, 4 and 7), in which case both lanes stay dark.
 */
class ShuffleBoxFabric
{
  public:
    static constexpr uint32_t FR = 4;  //!< FPs per r-port (breakout lanes per router port)
    static constexpr uint32_t DC = 4;  //!< c-ports per box
    static constexpr uint32_t FC = 32; //!< FPs per c-port
    static constexpr uint32_t DR = 32; //!< r-ports per box

    /**
     * \param routersPerRoom routers in each room (R = its size, >= 1)
     * \param d uplink lanes per router, a multiple of 4
     * \param boxesPerPanel C (0: the fewest that hold the largest room's router ports)
     * \param maxConnectors optical path limit (7 in the paper)
     * \throws std::invalid_argument naming the parameter and its valid range
     */
    ShuffleBoxFabric(const std::vector<uint32_t>& routersPerRoom,
                     uint32_t d,
                     uint32_t boxesPerPanel,
                     uint64_t seed,
                     uint32_t maxConnectors = 7);

    /**
     * \p routers spread evenly over \p rooms (the first routers % rooms rooms hold one more):
     * the routersPerRoom of a cluster built room by room.
     * \throws std::invalid_argument if \p rooms is 0
     */
    static std::vector<uint32_t> EvenRooms(uint32_t routers, uint32_t rooms);

    /// The logical router graph (self-loops and over-limit paths dropped).
    RouterGraph GetRouterGraph() const;
    /// The logical links lane by lane, sorted (self-loops and over-limit paths dropped).
    std::vector<ShuffleLaneLink> GetLaneLinks() const;
    /// Counts of the current build.
    ShuffleCounts GetCounts() const;
    uint32_t GetNRouters() const { return static_cast<uint32_t>(m_routerRoom.size()); }
    uint32_t GetRooms() const { return static_cast<uint32_t>(m_rooms.size()); }

    /**
     * Incremental expansion (§6, §A): add a room with a new panel of C boxes, rebalance
     * inter-panel trunks to floor(C d_c / (R+1)) per pair by unplugging random trunks, plug
     * freed or ShuffleBacked c-ports of the old panels into the new one, then plug the new
     * routers into random r-ports of the new panel.
     * \param routers routers of the new room (>= 1)
     * \return the physical connections that changed and the logical router-router links
     *         (lane pairs) they remove and add; old links not listed are kept
     * \throws std::invalid_argument if routers is 0 or the new routers do not fit the panel
     *         (the fabric is then unchanged)
     */
    ShuffleExpansion AddRoom(uint32_t routers);

  private:
    struct CPort
    {
        int32_t peerPanel{-1}; //!< -1: ShuffleBack
        uint32_t peerIndex{0};
    };

    struct Panel
    {
        std::vector<int32_t> rportRouter; //!< router on each r-port (box*32+i), -1: ShuffleBack
        std::vector<uint32_t> rportPhys;  //!< which physical port of that router
        std::vector<CPort> cports;        //!< box*4+j
    };

    void PlugRouters(uint32_t panel,
                     uint32_t firstRouter,
                     uint32_t count,
                     std::vector<ShuffleChange>* changes);
    void Trace(std::vector<ShuffleLaneLink>* links, ShuffleCounts* c) const;
    std::string CName(uint32_t panel, uint32_t idx) const;

    uint32_t m_d;
    uint32_t m_c;
    uint32_t m_maxConnectors;
    FabricRng m_rng;
    std::vector<Panel> m_rooms;
    std::vector<uint32_t> m_routerRoom;
    std::vector<std::vector<uint32_t>> m_routerRPorts; //!< per router, per physical port
};

} // namespace ns3

#endif // SHUFFLE_BOX_H
