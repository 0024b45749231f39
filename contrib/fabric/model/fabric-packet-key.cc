// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-packet-key.h"

namespace ns3
{

namespace
{

inline uint32_t
Be32(const uint8_t* b)
{
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
}

inline uint16_t
Be16(const uint8_t* b)
{
    return static_cast<uint16_t>((b[0] << 8) | b[1]);
}

inline bool
HasPorts(uint8_t protocol)
{
    return protocol == 17 || protocol == 6;
}

} // namespace

bool
ReadFlowKeyFromIpv4Packet(Ptr<const Packet> p, FlowKey& key, uint8_t* ecn, uint8_t* ttl)
{
    return ReadFlowKeyFromIpv4Packet(*p, key, ecn, ttl);
}

bool
ReadFlowKeyFromIpv4Packet(const Packet& packet, FlowKey& key, uint8_t* ecn, uint8_t* ttl)
{
    const Packet* p = &packet;
    uint8_t b[64];
    const uint32_t size = p->GetSize();
    if (size < 20)
    {
        return false;
    }
    p->CopyData(b, std::min<uint32_t>(size, 24));
    const uint32_t ihl = (b[0] & 0x0f) * 4u;
    if ((b[0] >> 4) != 4 || ihl < 20)
    {
        return false;
    }
    if (ecn)
    {
        *ecn = b[1] & 0x03;
    }
    if (ttl)
    {
        *ttl = b[8];
    }
    key.protocol = b[9];
    key.srcAddr = Be32(b + 12);
    key.dstAddr = Be32(b + 16);
    key.srcPort = 0;
    key.dstPort = 0;
    // Only a first fragment (offset 0) carries the transport ports.
    const bool firstFragment = ((b[6] & 0x1f) == 0) && b[7] == 0;
    if (HasPorts(key.protocol) && firstFragment && size >= ihl + 4)
    {
        if (ihl != 20)
        {
            p->CopyData(b, ihl + 4);
        }
        key.srcPort = Be16(b + ihl);
        key.dstPort = Be16(b + ihl + 2);
    }
    return true;
}

FlowKey
ReadFlowKey(Ptr<const Packet> payload, const Ipv4Header& header)
{
    FlowKey key;
    key.srcAddr = header.GetSource().Get();
    key.dstAddr = header.GetDestination().Get();
    key.protocol = header.GetProtocol();
    if (HasPorts(key.protocol) && payload->GetSize() >= 4)
    {
        uint8_t b[4];
        payload->CopyData(b, 4);
        key.srcPort = Be16(b);
        key.dstPort = Be16(b + 2);
    }
    return key;
}

} // namespace ns3
