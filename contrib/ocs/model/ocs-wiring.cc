// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-wiring.h"

#include <stdexcept>

namespace ns3
{

std::string
OcsWiringTypeName(OcsWiringType type)
{
    switch (type)
    {
    case OcsWiringType::SINGLE:
        return "single";
    case OcsWiringType::UNIFORM:
        return "uniform";
    case OcsWiringType::TWO_UNIFORM:
        return "2uniform";
    case OcsWiringType::CROSS:
        return "cross";
    }
    return "?";
}

OcsWiring::OcsWiring(OcsWiringType type, uint32_t egs, uint32_t portsPerEg)
    : m_type(type),
      m_egs(egs),
      m_ports(portsPerEg)
{
    if (egs < 1 || egs > 65536)
    {
        throw std::invalid_argument("OCS wiring: egs=" + std::to_string(egs)
                                    + " is out of range [1, 65536]");
    }
    if (portsPerEg < 1 || portsPerEg > 4096)
    {
        throw std::invalid_argument("OCS wiring: ports per EG=" + std::to_string(portsPerEg)
                                    + " is out of range [1, 4096]");
    }
    switch (type)
    {
    case OcsWiringType::SINGLE:
        m_numOcs = 1;
        m_radix = egs * portsPerEg;
        break;
    case OcsWiringType::UNIFORM:
        m_numOcs = portsPerEg;
        m_radix = egs;
        break;
    case OcsWiringType::TWO_UNIFORM:
    case OcsWiringType::CROSS:
        if (portsPerEg % 2 != 0)
        {
            throw std::invalid_argument("OCS wiring: " + OcsWiringTypeName(type)
                                        + " needs an even number of ports per "
                                          "EG (ports are used in pairs 2j, 2j+1), got ports="
                                        + std::to_string(portsPerEg));
        }
        m_numOcs = type == OcsWiringType::CROSS ? portsPerEg : portsPerEg / 2;
        m_radix = type == OcsWiringType::CROSS ? egs : 2 * egs;
        break;
    default:
        throw std::invalid_argument("OCS wiring: unknown type");
    }
}

bool
OcsWiring::IsMirrorSymmetric() const
{
    return m_type == OcsWiringType::TWO_UNIFORM || m_type == OcsWiringType::CROSS;
}

void
OcsWiring::CheckOcs(uint32_t ocs, uint32_t index) const
{
    if (ocs >= m_numOcs || index >= m_radix)
    {
        throw std::invalid_argument("OCS half-port (ocs " + std::to_string(ocs) + ", port "
                                    + std::to_string(index) + ") is out of range: ocs in [0, "
                                    + std::to_string(m_numOcs - 1) + "], port in [0, "
                                    + std::to_string(m_radix - 1) + "]");
    }
}

void
OcsWiring::CheckEgPort(uint32_t eg, uint32_t port) const
{
    if (eg >= m_egs || port >= m_ports)
    {
        throw std::invalid_argument("EG port (eg " + std::to_string(eg) + ", port "
                                    + std::to_string(port) + ") is out of range: eg in [0, "
                                    + std::to_string(m_egs - 1) + "], port in [0, "
                                    + std::to_string(m_ports - 1) + "]");
    }
}

OcsEgPort
OcsWiring::GetNPort(uint32_t ocs, uint32_t index) const
{
    CheckOcs(ocs, index);
    switch (m_type)
    {
    case OcsWiringType::SINGLE:
        return {index / m_ports, index % m_ports};
    case OcsWiringType::UNIFORM:
    case OcsWiringType::CROSS:
        return {index, ocs};
    case OcsWiringType::TWO_UNIFORM:
        return {index / 2, 2 * ocs + index % 2};
    }
    return {0, 0};
}

OcsEgPort
OcsWiring::GetSPort(uint32_t ocs, uint32_t index) const
{
    CheckOcs(ocs, index);
    switch (m_type)
    {
    case OcsWiringType::SINGLE:
        return {index / m_ports, index % m_ports};
    case OcsWiringType::UNIFORM:
        return {index, ocs};
    case OcsWiringType::CROSS:
        return {index, ocs ^ 1u};
    case OcsWiringType::TWO_UNIFORM:
        return {index / 2, 2 * ocs + index % 2};
    }
    return {0, 0};
}

OcsHalfPort
OcsWiring::GetTxHalfPort(uint32_t eg, uint32_t port) const
{
    CheckEgPort(eg, port);
    switch (m_type)
    {
    case OcsWiringType::SINGLE:
        return {0, eg * m_ports + port};
    case OcsWiringType::UNIFORM:
    case OcsWiringType::CROSS:
        return {port, eg};
    case OcsWiringType::TWO_UNIFORM:
        return {port / 2, 2 * eg + port % 2};
    }
    return {0, 0};
}

OcsHalfPort
OcsWiring::GetRxHalfPort(uint32_t eg, uint32_t port) const
{
    CheckEgPort(eg, port);
    switch (m_type)
    {
    case OcsWiringType::SINGLE:
        return {0, eg * m_ports + port};
    case OcsWiringType::UNIFORM:
        return {port, eg};
    case OcsWiringType::CROSS:
        return {port ^ 1u, eg};
    case OcsWiringType::TWO_UNIFORM:
        return {port / 2, 2 * eg + port % 2};
    }
    return {0, 0};
}

std::vector<OcsFibreMove>
UniformToCrossMoves(uint32_t egs, uint32_t portsPerEg)
{
    if (portsPerEg % 2 != 0)
    {
        throw std::invalid_argument("Uniform -> Cross Wiring: ports per EG must be even to pair "
                                    "OCSes (2j, 2j+1), got "
                                    + std::to_string(portsPerEg));
    }
    const OcsWiring uniform(OcsWiringType::UNIFORM, egs, portsPerEg);
    const OcsWiring cross(OcsWiringType::CROSS, egs, portsPerEg);
    std::vector<OcsFibreMove> moves;
    for (uint32_t j = 0; j < portsPerEg / 2; ++j)
    {
        for (uint32_t e = 0; e < egs; ++e)
        {
            for (uint32_t p : {2 * j, 2 * j + 1})
            {
                moves.push_back({{e, p}, uniform.GetRxHalfPort(e, p), cross.GetRxHalfPort(e, p)});
            }
        }
    }
    return moves;
}

} // namespace ns3
