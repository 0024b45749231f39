// SPDX-License-Identifier: GPL-2.0-only
#include "roce-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/ppp-header.h"
#include "ns3/udp-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHeader);

TypeId
RoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("Roce")
                            .AddConstructor<RoceHeader>();
    return tid;
}

TypeId
RoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(m_type);
    i.WriteU8(m_flags);
    i.WriteHtonU16(m_round); // where the BTH has its partition key (not modelled)
    i.WriteHtonU32(m_qp);
    i.WriteHtonU32(m_psn);
}

void
RoceHeader::Write(uint8_t* out) const
{
    out[0] = m_type;
    out[1] = m_flags;
    out[2] = static_cast<uint8_t>(m_round >> 8);
    out[3] = static_cast<uint8_t>(m_round);
    out[4] = static_cast<uint8_t>(m_qp >> 24);
    out[5] = static_cast<uint8_t>(m_qp >> 16);
    out[6] = static_cast<uint8_t>(m_qp >> 8);
    out[7] = static_cast<uint8_t>(m_qp);
    out[8] = static_cast<uint8_t>(m_psn >> 24);
    out[9] = static_cast<uint8_t>(m_psn >> 16);
    out[10] = static_cast<uint8_t>(m_psn >> 8);
    out[11] = static_cast<uint8_t>(m_psn);
}

void
RoceHeader::Read(const uint8_t* in)
{
    m_type = static_cast<Type>(in[0]);
    m_flags = in[1];
    m_round = static_cast<uint16_t>((in[2] << 8) | in[3]);
    m_qp = (uint32_t(in[4]) << 24) | (uint32_t(in[5]) << 16) | (uint32_t(in[6]) << 8) | in[7];
    m_psn = (uint32_t(in[8]) << 24) | (uint32_t(in[9]) << 16) | (uint32_t(in[10]) << 8) | in[11];
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator i)
{
    m_type = static_cast<Type>(i.ReadU8());
    m_flags = i.ReadU8();
    m_round = i.ReadNtohU16();
    m_qp = i.ReadNtohU32();
    m_psn = i.ReadNtohU32();
    return SIZE;
}

void
RoceHeader::Print(std::ostream& os) const
{
    static const char* names[] = {"DATA", "ACK", "NACK", "CNP"};
    os << (m_type <= CNP ? names[m_type] : "?") << " qp=" << m_qp << " psn=" << m_psn
       << " round=" << m_round << ((m_flags & FLAG_LAST) ? " last" : "");
}

bool
IsRoceDataFrame(Ptr<const Packet> frame)
{
    Ptr<Packet> c = frame->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    RoceHeader roce;
    if (c->GetSize() < ppp.GetSerializedSize() + 20 + 8 + RoceHeader::SIZE)
    {
        return false;
    }
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != 17) // not UDP
    {
        return false;
    }
    c->RemoveHeader(udp);
    c->PeekHeader(roce);
    return roce.GetType() == RoceHeader::DATA;
}

} // namespace ns3
