// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_KEY_H
#define FLOW_KEY_H

#include "ns3/fabric-rng.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * The 5-tuple that routing functions hash. Addresses are IPv4 addresses in host byte order.
 */
struct FlowKey
{
    uint32_t srcAddr{0};
    uint32_t dstAddr{0};
    uint16_t srcPort{0}; //!< RoCEv2 uses the UDP source port as ECMP entropy
    uint16_t dstPort{0};
    uint8_t protocol{17};

    /// The key a host sees when it picks a NIC: transport ports are not known yet at
    /// route-output time in ns-3, so host-level choices hash addresses and protocol only.
    FlowKey WithoutPorts() const
    {
        FlowKey k = *this;
        k.srcPort = 0;
        k.dstPort = 0;
        return k;
    }

    bool operator==(const FlowKey& o) const
    {
        return srcAddr == o.srcAddr && dstAddr == o.dstAddr && srcPort == o.srcPort
            && dstPort == o.dstPort && protocol == o.protocol;
    }
};

/// RoCEv2's UDP destination port.
constexpr uint16_t ROCEV2_UDP_PORT = 4791;

/**
 * \ingroup fabric
 * Seeded flow hash. The same key and seed always give the same value on every platform;
 * changing only the seed re-draws every assignment ("rehash").
 */
uint64_t FlowHash(const FlowKey& key, uint64_t seed);

/**
 * Map a hash to [0, n) without the modulo bias of small n being noticeable
 * (multiply-high of the upper 32 bits).
 * \param hash a FlowHash value
 * \param n number of candidates, > 0
 */
inline uint32_t
HashToIndex(uint64_t hash, uint32_t n)
{
    return static_cast<uint32_t>(((hash >> 32) * static_cast<uint64_t>(n)) >> 32);
}

} // namespace ns3

#endif // FLOW_KEY_H
