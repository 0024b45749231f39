// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_DROP_REASON_H
#define FABRIC_DROP_REASON_H

namespace ns3
{

/**
 * \ingroup fabric
 * Why a packet was dropped: the reason strings of every Drop trace source of the fabric
 * (FabricSwitchForwarder, FabricIpv4Routing, FabricLinkGuard) and the keys of
 * FabricLinkMonitor::GetDrops(), in one place (as traffic-control's QueueDisc::*_DROP names).
 * Compare with these constants, never with string literals.
 */
namespace FabricDropReason
{
/// The routing function has no port for the packet (FabricRouting::NO_PORT).
inline constexpr const char* NO_ROUTE = "no-route";
/**
 * The packet met a failed element: it was queued on a port whose link went down, was on the
 * wire or arrived while the link was down, was sent into a dead port by a switch or host
 * whose routing view still believed it up, or was held by a node that failed. IPv4's own
 * interface-down drops count here too.
 */
inline constexpr const char* LINK_DOWN = "link-down";
/// A device's egress queue was full (PointToPointNetDevice MacTxDrop).
inline constexpr const char* QUEUE_OVERFLOW = "queue-overflow";
/// A receive error model (not a failure) corrupted the packet (PhyRxDrop).
inline constexpr const char* PHY_RX_ERROR = "phy-rx-error";
/// A node with IPv4 found its device queue stopped (traffic-control TcDrop).
inline constexpr const char* HOST_QUEUE_FULL = "host-queue-full";
/// A host received a packet addressed to another host (hosts never forward).
inline constexpr const char* HOST_NOT_FORWARDING = "host-not-forwarding";
/// The switch fast path received something that is not an IPv4 packet.
inline constexpr const char* NOT_IPV4 = "not-ipv4";
/// The packet's TTL reached 0 (a forwarding loop ends here).
inline constexpr const char* TTL_EXPIRED = "ttl-expired";
/// Any other drop inside ns-3's IPv4 layer.
inline constexpr const char* IPV4_OTHER = "ipv4-other";
/**
 * An optical circuit switch had no established circuit for the packet: it was sent into a
 * fibre whose circuit is torn down, switching or restoring, or was on the fibre when its
 * circuit changed (OcsFibreChannel, module ocs-net).
 */
inline constexpr const char* OCS_DARK = "ocs-dark";
/// A sender's socket refused the packet: the source had no route (counted by the run).
inline constexpr const char* REFUSED_AT_SOURCE = "refused-at-source";
/**
 * A lossless (PFC) switch port received more bytes of a paused class than its headroom
 * holds: the headroom is smaller than what arrives in the pause's round trip.
 */
inline constexpr const char* HEADROOM_OVERFLOW = "headroom-overflow";
/// The PFC watchdog's drop policy flushed a queue paused longer than its threshold.
inline constexpr const char* PFC_WATCHDOG = "pfc-watchdog";
} // namespace FabricDropReason

} // namespace ns3

#endif // FABRIC_DROP_REASON_H
