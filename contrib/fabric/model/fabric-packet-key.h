// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_PACKET_KEY_H
#define FABRIC_PACKET_KEY_H

#include "ns3/flow-key.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"

namespace ns3
{

/**
 * \ingroup fabric
 * Read the 5-tuple of a packet that still starts with its IPv4 header (as a switch's
 * device-level handler sees it), without deserializing headers.
 * \param ecn if not null, receives the packet's two ECN bits
 * \param ttl if not null, receives the packet's TTL
 * \return false if the packet is too short to be IPv4
 */
bool ReadFlowKeyFromIpv4Packet(Ptr<const Packet> p,
                               FlowKey& key,
                               uint8_t* ecn = nullptr,
                               uint8_t* ttl = nullptr);

/// The same for a packet in hand (no Ptr copied per call).
bool ReadFlowKeyFromIpv4Packet(const Packet& p,
                               FlowKey& key,
                               uint8_t* ecn = nullptr,
                               uint8_t* ttl = nullptr);

/**
 * \ingroup fabric
 * The 5-tuple of a packet whose IPv4 header was already removed (as RouteInput sees it):
 * addresses from \p header, ports from the first four payload bytes (UDP and TCP alike).
 */
FlowKey ReadFlowKey(Ptr<const Packet> payload, const Ipv4Header& header);

} // namespace ns3

#endif // FABRIC_PACKET_KEY_H
