// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_UDP_IPV4_HEADER_H
#define FABRIC_UDP_IPV4_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * The IPv4 and UDP headers of a datagram as one 28-byte header, for FabricHostPath's send path:
 * one Packet::AddHeader instead of two (each costs a buffer growth, a virtual serialization
 * and a metadata record). Set() writes the bytes Ipv4Header (20 bytes: no options, checksum
 * field 0) followed by UdpHeader (checksum 0) serialize for the same fields, so the packet is
 * byte for byte what the two headers give, and readers (Ipv4Header, UdpHeader, the switches)
 * see no difference. Only for checksums off and with packet metadata disabled (its records
 * would name this header, and a later RemoveHeader(Ipv4Header) would not match them): callers
 * check both (FabricHostPath does). The first bytes of the UDP payload (a transport header
 * such as RoCE's) may be written with it too (SetPrefix).
 */
class FabricUdpIpv4Header : public Header
{
  public:
    /// IPv4 (20 bytes, no options) then UDP (8): the size without a prefix.
    static constexpr uint32_t SIZE = 28;
    /// The longest prefix (SetPrefix).
    static constexpr uint32_t MAX_PREFIX = 16;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    /**
     * Write the fields (no checksums, may-fragment, fragment offset 0).
     * \param payloadSize UDP payload bytes, a prefix included (IPv4 total length payloadSize
     *        + 28)
     */
    void Set(Ipv4Address src,
             Ipv4Address dst,
             uint8_t tos,
             uint8_t ttl,
             uint16_t id,
             uint16_t sport,
             uint16_t dport,
             uint32_t payloadSize);

    /**
     * Write \p size bytes (at most MAX_PREFIX) after the UDP header: the start of the UDP
     * payload, counted in Set's payloadSize. Deserialize reads SIZE + the prefix size set.
     */
    void SetPrefix(const uint8_t* bytes, uint32_t size);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    uint8_t m_bytes[SIZE + MAX_PREFIX]{}; //!< the wire bytes
    uint32_t m_prefix{0};                 //!< prefix bytes after the UDP header
};

} // namespace ns3

#endif // FABRIC_UDP_IPV4_HEADER_H
