// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-configuration.h"

#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

std::string
Describe(const OcsCircuit& c)
{
    return "circuit {ocs " + std::to_string(c.ocs) + ", n " + std::to_string(c.n) + ", s "
         + std::to_string(c.s) + "}";
}

} // namespace

void
ValidateCircuits(const OcsWiring& wiring, const std::vector<OcsCircuit>& circuits)
{
    const size_t radix = wiring.GetRadix();
    std::vector<uint8_t> nUsed(size_t(wiring.GetNumOcs()) * radix, 0);
    std::vector<uint8_t> sUsed(nUsed.size(), 0);
    for (const OcsCircuit& c : circuits)
    {
        if (c.ocs >= wiring.GetNumOcs() || c.n >= radix || c.s >= radix)
        {
            throw std::invalid_argument(Describe(c) + " is out of range: ocs in [0, "
                                        + std::to_string(wiring.GetNumOcs() - 1)
                                        + "], n and s in [0, " + std::to_string(radix - 1) + "]");
        }
        if (nUsed[c.ocs * radix + c.n]++)
        {
            throw std::invalid_argument(Describe(c) + ": N half-port already carries a circuit");
        }
        if (sUsed[c.ocs * radix + c.s]++)
        {
            throw std::invalid_argument(Describe(c) + ": S half-port already carries a circuit");
        }
    }
}

OcsRealization
RealizeCircuits(const OcsWiring& wiring, const std::vector<OcsCircuit>& circuits)
{
    ValidateCircuits(wiring, circuits);
    const uint32_t p = wiring.GetPortsPerEg();
    const size_t ports = size_t(wiring.GetEgs()) * p;
    // dest[TX port] = RX port it reaches, or -1.
    std::vector<int64_t> dest(ports, -1);
    for (const OcsCircuit& c : circuits)
    {
        const OcsEgPort tx = wiring.GetNPort(c.ocs, c.n);
        const OcsEgPort rx = wiring.GetSPort(c.ocs, c.s);
        dest[size_t(tx.eg) * p + tx.port] = int64_t(rx.eg) * p + rx.port;
    }
    OcsRealization r{OcsMatrix(wiring.GetEgs()), 0};
    for (size_t a = 0; a < ports; ++a)
    {
        if (dest[a] < 0)
        {
            continue;
        }
        const auto b = size_t(dest[a]);
        if (dest[b] != int64_t(a))
        {
            r.oneWayCircuits++;
            continue;
        }
        if (b < a)
        {
            continue; // counted from the other end
        }
        const auto ea = uint32_t(a / p);
        const auto eb = uint32_t(b / p);
        r.logical(ea, eb)++;
        if (ea != eb)
        {
            r.logical(eb, ea)++;
        }
    }
    return r;
}

} // namespace ns3
