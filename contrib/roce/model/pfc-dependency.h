// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_DEPENDENCY_H
#define PFC_DEPENDENCY_H

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * The XOFF threshold of a PFC switch (bytes of shared buffer one ingress port may hold):
 * \p alpha x (free shared pool) with the dynamic threshold, or \p xoffBytes when \p alpha
 * is 0. Plain C++, shared by PfcSwitch and the deadlock analysis.
 */
uint64_t PfcXoffThreshold(double alpha, uint64_t xoffBytes, uint64_t pool, uint64_t sharedUsed);

/**
 * \ingroup roce
 * Whether a paused ingress port may send its resume (XON): its headroom is empty and its
 * shared bytes are \p xonOffset below \p threshold, or zero.
 */
bool PfcMayResume(uint64_t headroom, uint64_t shared, uint64_t xonOffset, uint64_t threshold);

/// \ingroup roce The PFC accounting of one ingress port (data class).
struct PfcPortBuffer
{
    bool xoff{false};      //!< the port has paused its upstream
    uint64_t shared{0};    //!< bytes charged to the shared pool
    uint64_t headroom{0};  //!< bytes charged to the port's headroom
    uint32_t inDirLink{0}; //!< the directed link into this port (its upstream's egress)
};

/// \ingroup roce The buffer of one PFC switch, as PfcSwitch::GetBufferState reads it.
struct PfcSwitchBuffer
{
    std::vector<PfcPortBuffer> ports; //!< by port
    uint64_t pool{0};                 //!< shared pool (buffer less reserved headroom)
    double alpha{0};                  //!< dynamic threshold alpha (0: static xoffBytes)
    uint64_t xoffBytes{0};            //!< static threshold
    uint64_t xonOffset{0};            //!< resume this far below the threshold
};

/**
 * \ingroup roce
 * A paused egress queue of a switch that holds data packets: its directed link, the switch
 * (index into the switch list) and the bytes it holds by ingress port of that switch.
 */
struct PfcHeldQueue
{
    uint32_t dirLink{0};
    uint32_t sw{0};
    std::vector<uint64_t> bytesByIngress;
};

/**
 * \ingroup roce
 * The ports of \p sw that stay in XOFF even if every byte of the switch leaves except
 * \p heldByIngress[p] of each port p (the bytes that wait in paused queues): the ports that
 * cannot resume before those queues move. Best case for a resume: the shared pool is
 * assumed free of every released byte, and headroom drains first as in PfcSwitch.
 * \throws std::invalid_argument if \p heldByIngress is not one entry per port
 */
std::vector<bool> PfcPortsHeldInXoff(const PfcSwitchBuffer& sw,
                                     const std::vector<uint64_t>& heldByIngress);

/**
 * \ingroup roce
 * The buffer dependency (wait-for) graph of a lossless fabric, over directed links: an edge
 * (a, b) says that paused link a cannot resume before queue b moves: a enters switch X at a
 * port that X keeps in XOFF because of bytes that wait in X's paused queue b
 * (PfcPortsHeldInXoff with every held queue's bytes), and b holds bytes of that port. A PFC
 * deadlock is a cycle of this graph (FindDirectedCycle); a link paused in both directions
 * whose packets do not depend on each other gives no cycle.
 * \throws std::invalid_argument on a queue naming a switch or port that does not exist
 */
std::vector<std::pair<uint32_t, uint32_t>> PfcBufferDependencies(
    const std::vector<PfcSwitchBuffer>& switches, const std::vector<PfcHeldQueue>& held);

} // namespace ns3

#endif // PFC_DEPENDENCY_H
