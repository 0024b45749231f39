// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_WIRING_H
#define OCS_WIRING_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup ocs The physical wirings of the OCS paper (§3-§4).
enum class OcsWiringType
{
    SINGLE,      //!< one OCS of E*P ports a side (§3.1)
    UNIFORM,     //!< port k of every EG to OCS k, TX on N, RX on S (§3.2)
    TWO_UNIFORM, //!< ports 2k and 2k+1 of every EG to OCS k (§4.4)
    CROSS,       //!< Cross Wiring: TX(2j), RX(2j+1) to OCS 2j; TX(2j+1), RX(2j) to OCS 2j+1 (§4.6)
};

/// The wiring's name (the ns3::OcsSetup Wiring attribute's; OcsSetup::WiringByName goes back).
std::string OcsWiringTypeName(OcsWiringType type);

/// \ingroup ocs An EG port: EG index and port index within the EG.
struct OcsEgPort
{
    uint32_t eg;
    uint32_t port;
    bool operator==(const OcsEgPort& o) const { return eg == o.eg && port == o.port; }
};

/// \ingroup ocs A half-port of an OCS: OCS index and port index on its N or S side.
struct OcsHalfPort
{
    uint32_t ocs;
    uint32_t index;
    bool operator==(const OcsHalfPort& o) const { return ocs == o.ocs && index == o.index; }
};

/**
 * \ingroup ocs
 * A physical topology: E EGs with P OCS-facing duplex ports each, cabled to OCSes. Each OCS
 * has an N side (it receives light from the TX half of an EG port) and an S side (it sends
 * light into the RX half of an EG port), both with GetRadix() half-ports; a circuit joins one
 * N half-port to one S half-port of the same OCS.
 *
 * Cabling (o = OCS, i = half-port index):
 * - Single: 1 OCS, radix E*P; N i = TX(i / P, i mod P), S i = RX(i / P, i mod P).
 * - Uniform: P OCSes, radix E; on OCS k, N e = TX(e, k), S e = RX(e, k).
 * - 2-Uniform (P even): P/2 OCSes, radix 2E; on OCS k, N 2e+b = TX(e, 2k+b), S 2e+b =
 *   RX(e, 2k+b), b in {0, 1}.
 * - Cross Wiring (P even): P OCSes, radix E; on OCS 2j, N e = TX(e, 2j), S e = RX(e, 2j+1);
 *   on OCS 2j+1, N e = TX(e, 2j+1), S e = RX(e, 2j).
 */
class OcsWiring
{
  public:
    /**
     * \param type the wiring
     * \param egs number of EGs E, in [1, 65536]
     * \param portsPerEg OCS-facing ports per EG P, in [1, 4096]; even for 2-Uniform and Cross
     * \throws std::invalid_argument naming the parameter and its valid range
     */
    OcsWiring(OcsWiringType type, uint32_t egs, uint32_t portsPerEg);

    OcsWiringType GetType() const { return m_type; }
    uint32_t GetEgs() const { return m_egs; }
    uint32_t GetPortsPerEg() const { return m_ports; }
    /// Number of OCSes.
    uint32_t GetNumOcs() const { return m_numOcs; }
    /// Half-ports per side of every OCS.
    uint32_t GetRadix() const { return m_radix; }
    /// Whether the wiring is mirror-symmetric decomposable (§4.3): 2-Uniform and Cross.
    bool IsMirrorSymmetric() const;

    /// The EG port whose TX is cabled to N half-port \p index of OCS \p ocs.
    OcsEgPort GetNPort(uint32_t ocs, uint32_t index) const;
    /// The EG port whose RX is cabled to S half-port \p index of OCS \p ocs.
    OcsEgPort GetSPort(uint32_t ocs, uint32_t index) const;
    /// Where the TX half of an EG port is cabled (an N half-port).
    OcsHalfPort GetTxHalfPort(uint32_t eg, uint32_t port) const;
    /// Where the RX half of an EG port is cabled (an S half-port).
    OcsHalfPort GetRxHalfPort(uint32_t eg, uint32_t port) const;

  private:
    void CheckOcs(uint32_t ocs, uint32_t index) const;
    void CheckEgPort(uint32_t eg, uint32_t port) const;

    OcsWiringType m_type;
    uint32_t m_egs;
    uint32_t m_ports;
    uint32_t m_numOcs;
    uint32_t m_radix;
};

/**
 * \ingroup ocs
 * One fibre move of a rewiring: the RX fibre of an EG port is unplugged from one S half-port
 * and plugged into another (§5: TX fibres stay where they are).
 */
struct OcsFibreMove
{
    OcsEgPort egPort; //!< whose RX fibre moves
    OcsHalfPort from; //!< S half-port it leaves
    OcsHalfPort to;   //!< S half-port it goes to
};

/**
 * \ingroup ocs
 * The fibre moves that turn a Uniform cabling of \p egs EGs with \p portsPerEg ports into Cross
 * Wiring (§5, Fig. 6(a)): group OCSes in pairs (2j, 2j+1) and, for every EG, swap the RX fibres
 * of ports 2j and 2j+1. E*P moves; no OCS or EG changes, TX fibres untouched.
 * \throws std::invalid_argument if \p portsPerEg is odd (OCSes cannot be paired)
 */
std::vector<OcsFibreMove> UniformToCrossMoves(uint32_t egs, uint32_t portsPerEg);

} // namespace ns3

#endif // OCS_WIRING_H
