// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_HEADER_H
#define ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/packet.h"

namespace ns3
{

/**
 * \ingroup roce
 * A 12-byte transport header after UDP, sized like RoCEv2's Base Transport Header: packet type,
 * flags, retransmission round, queue pair (flow) number and packet sequence number. Data
 * packets carry their PSN; ACKs carry the highest PSN received in order; NACKs the PSN the
 * receiver expects; CNPs only the flow.
 *
 * The round (16 bits where the BTH has its partition key, which is not modelled) counts the
 * sender's go-back-N rewinds, modulo 2^16: data packets carry the sender's round when they were
 * sent, and a NACK echoes the round of the out-of-order packet that triggered it. A NACK in the
 * sender's current round was triggered by a packet sent after the latest rewind, so the rewound
 * PSN itself was lost (doc/roce.md, "Go-back-N").
 */
class RoceHeader : public Header
{
  public:
    enum Type : uint8_t
    {
        DATA = 0,
        ACK = 1,
        NACK = 2,
        CNP = 3,
    };

    static constexpr uint8_t FLAG_LAST = 0x01; //!< last packet of the message
    static constexpr uint32_t SIZE = 12;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    Type GetType() const { return m_type; }
    void SetType(Type t) { m_type = t; }
    uint8_t GetFlags() const { return m_flags; }
    void SetFlags(uint8_t f) { m_flags = f; }
    uint32_t GetQp() const { return m_qp; }
    void SetQp(uint32_t qp) { m_qp = qp; }
    uint32_t GetPsn() const { return m_psn; }
    void SetPsn(uint32_t psn) { m_psn = psn; }
    /// DATA: the sender's retransmission round; NACK: the round of the packet that triggered it.
    uint16_t GetRound() const { return m_round; }
    void SetRound(uint16_t round) { m_round = round; }

    /// Write the SIZE bytes Serialize writes to \p out (for a header built with others).
    void Write(uint8_t* out) const;
    /// Read the SIZE bytes at \p in as Deserialize reads them.
    void Read(const uint8_t* in);

    /// Whether round \p a is later than round \p b (serial-number arithmetic modulo 2^16).
    static bool RoundAfter(uint16_t a, uint16_t b) { return static_cast<int16_t>(a - b) > 0; }

  private:
    Type m_type{DATA};
    uint8_t m_flags{0};
    uint16_t m_round{0};
    uint32_t m_qp{0};
    uint32_t m_psn{0};
};

/**
 * \ingroup roce
 * Whether \p frame, as a host's point-to-point device receives it (PPP, IPv4, UDP and RoCE
 * headers), is a RoCE DATA packet (not an ACK, NACK or CNP, nor another protocol).
 */
bool IsRoceDataFrame(Ptr<const Packet> frame);

} // namespace ns3

#endif // ROCE_HEADER_H
