// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-udp-ipv4-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/udp-l4-protocol.h"

#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricUdpIpv4Header");
NS_OBJECT_ENSURE_REGISTERED(FabricUdpIpv4Header);

TypeId
FabricUdpIpv4Header::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricUdpIpv4Header")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricUdpIpv4Header>();
    return tid;
}

TypeId
FabricUdpIpv4Header::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
FabricUdpIpv4Header::Set(Ipv4Address src,
                         Ipv4Address dst,
                         uint8_t tos,
                         uint8_t ttl,
                         uint16_t id,
                         uint16_t sport,
                         uint16_t dport,
                         uint32_t payloadSize)
{
    // As Ipv4Header::Serialize and UdpHeader::Serialize write them (network byte order).
    const uint32_t total = payloadSize + SIZE;
    const uint32_t udpLen = payloadSize + 8;
    const uint32_t s = src.Get();
    const uint32_t d = dst.Get();
    uint8_t* b = m_bytes;
    b[0] = 0x45; // version 4, 5 words
    b[1] = tos;
    b[2] = static_cast<uint8_t>(total >> 8);
    b[3] = static_cast<uint8_t>(total);
    b[4] = static_cast<uint8_t>(id >> 8);
    b[5] = static_cast<uint8_t>(id);
    b[6] = 0; // may fragment, no more fragments, offset 0
    b[7] = 0;
    b[8] = ttl;
    b[9] = UdpL4Protocol::PROT_NUMBER;
    b[10] = 0; // checksum off
    b[11] = 0;
    b[12] = static_cast<uint8_t>(s >> 24);
    b[13] = static_cast<uint8_t>(s >> 16);
    b[14] = static_cast<uint8_t>(s >> 8);
    b[15] = static_cast<uint8_t>(s);
    b[16] = static_cast<uint8_t>(d >> 24);
    b[17] = static_cast<uint8_t>(d >> 16);
    b[18] = static_cast<uint8_t>(d >> 8);
    b[19] = static_cast<uint8_t>(d);
    b[20] = static_cast<uint8_t>(sport >> 8);
    b[21] = static_cast<uint8_t>(sport);
    b[22] = static_cast<uint8_t>(dport >> 8);
    b[23] = static_cast<uint8_t>(dport);
    b[24] = static_cast<uint8_t>(udpLen >> 8);
    b[25] = static_cast<uint8_t>(udpLen);
    b[26] = 0; // checksum off
    b[27] = 0;
}

void
FabricUdpIpv4Header::SetPrefix(const uint8_t* bytes, uint32_t size)
{
    NS_ABORT_MSG_IF(size > MAX_PREFIX,
                    "FabricUdpIpv4Header: prefix of " << size << " bytes, at most " << MAX_PREFIX);
    std::copy(bytes, bytes + size, m_bytes + SIZE);
    m_prefix = size;
}

uint32_t
FabricUdpIpv4Header::GetSerializedSize() const
{
    return SIZE + m_prefix;
}

void
FabricUdpIpv4Header::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes, SIZE + m_prefix);
}

uint32_t
FabricUdpIpv4Header::Deserialize(Buffer::Iterator start)
{
    start.Read(m_bytes, SIZE + m_prefix);
    return SIZE + m_prefix;
}

void
FabricUdpIpv4Header::Print(std::ostream& os) const
{
    os << "IPv4 "
       << Ipv4Address((uint32_t(m_bytes[12]) << 24) | (uint32_t(m_bytes[13]) << 16)
                      | (uint32_t(m_bytes[14]) << 8) | m_bytes[15])
       << " > "
       << Ipv4Address((uint32_t(m_bytes[16]) << 24) | (uint32_t(m_bytes[17]) << 16)
                      | (uint32_t(m_bytes[18]) << 8) | m_bytes[19])
       << " tos " << uint32_t(m_bytes[1]) << " ttl " << uint32_t(m_bytes[8]) << " UDP "
       << ((uint32_t(m_bytes[20]) << 8) | m_bytes[21]) << " > "
       << ((uint32_t(m_bytes[22]) << 8) | m_bytes[23]) << " length "
       << ((uint32_t(m_bytes[24]) << 8) | m_bytes[25]);
    if (m_prefix > 0)
    {
        os << " prefix " << m_prefix << " bytes";
    }
}

} // namespace ns3
