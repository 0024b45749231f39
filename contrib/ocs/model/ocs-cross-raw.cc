// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-cross-raw.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ns3
{

OcsConfigResult
ConfigureCrossRawGreedy(const OcsWiring& wiring, const OcsMatrix& logical)
{
    if (wiring.GetType() != OcsWiringType::CROSS)
    {
        throw std::invalid_argument("ConfigureCrossRawGreedy: the wiring must be Cross Wiring");
    }
    const uint32_t egs = wiring.GetEgs();
    const uint32_t pairs = wiring.GetPortsPerEg() / 2;
    ValidateLogicalTopology(logical, egs, wiring.GetPortsPerEg());
    const auto t0 = std::chrono::steady_clock::now();
    // used[e * P + port]: port of EG e taken.
    std::vector<uint8_t> used(size_t(egs) * wiring.GetPortsPerEg(), 0);
    auto port = [&](uint32_t e, uint32_t p) -> uint8_t&
    {
        return used[size_t(e) * wiring.GetPortsPerEg() + p];
    };
    OcsConfigResult r;
    for (uint32_t a = 0; a < egs; ++a)
    {
        for (uint32_t b = a + 1; b < egs; ++b)
        {
            for (int64_t k = 0; k < logical(a, b); ++k)
            {
                for (uint32_t j = 0; j < pairs; ++j)
                {
                    // Orientation: (x at 2j, y at 2j+1), a first.
                    uint32_t x = egs;
                    uint32_t y = egs;
                    if (!port(a, 2 * j) && !port(b, 2 * j + 1))
                    {
                        x = a;
                        y = b;
                    }
                    else if (!port(b, 2 * j) && !port(a, 2 * j + 1))
                    {
                        x = b;
                        y = a;
                    }
                    if (x == egs)
                    {
                        continue;
                    }
                    port(x, 2 * j) = 1;
                    port(y, 2 * j + 1) = 1;
                    r.circuits.push_back({2 * j, x, y});     // TX(x, 2j) -> RX(y, 2j+1)
                    r.circuits.push_back({2 * j + 1, y, x}); // TX(y, 2j+1) -> RX(x, 2j)
                    break;
                }
            }
        }
    }
    r.solveUs
        = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::sort(r.circuits.begin(), r.circuits.end());
    const OcsRealization real = RealizeCircuits(wiring, r.circuits);
    if (real.oneWayCircuits != 0)
    {
        throw std::logic_error("ConfigureCrossRawGreedy: emitted a one-way circuit (a bug)");
    }
    r.realized = real.logical;
    r.ltcr = ComputeLtcr(logical, r.realized);
    r.note = "greedy, raw Cross Wiring reading (orientation chosen with the colour)";
    return r;
}

} // namespace ns3
