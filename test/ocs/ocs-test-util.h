// SPDX-License-Identifier: GPL-2.0-only
// Random valid logical topologies for the OCS property tests.
#ifndef OCS_TEST_UTIL_H
#define OCS_TEST_UTIL_H

#include "ns3/ocs-matrix.h"
#include "ns3/traffic-pattern.h"

namespace ns3
{

/**
 * A random valid logical topology: symmetric, zero diagonal, rows <= ports. Links are added
 * one at a time between random EGs with a free port until \p fill of all ports are used or no
 * pair can take another; \p fill = 1 drives most rows to exactly ports.
 */
inline OcsMatrix
RandomLogical(FabricRng& rng, uint32_t egs, uint32_t ports, double fill)
{
    OcsMatrix l(egs);
    std::vector<uint32_t> freePorts(egs, ports);
    const uint64_t target = uint64_t(fill * egs * ports / 2);
    uint64_t links = 0;
    uint32_t misses = 0;
    while (links < target && misses < 200 && egs >= 2)
    {
        const auto a = uint32_t(rng.Below(egs));
        const auto b = uint32_t(rng.Below(egs));
        if (a == b || freePorts[a] == 0 || freePorts[b] == 0)
        {
            ++misses;
            continue;
        }
        misses = 0;
        l(a, b)++;
        l(b, a)++;
        freePorts[a]--;
        freePorts[b]--;
        ++links;
    }
    return l;
}

/// A random symmetric non-negative matrix with even diagonal (any row sums).
inline OcsMatrix
RandomSymmetric(FabricRng& rng, uint32_t n, uint32_t maxEntry)
{
    OcsMatrix l(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        l(i, i) = 2 * int64_t(rng.Below(maxEntry / 2 + 1));
        for (uint32_t j = i + 1; j < n; ++j)
        {
            l(i, j) = l(j, i) = int64_t(rng.Below(maxEntry + 1));
        }
    }
    return l;
}

} // namespace ns3

#endif // OCS_TEST_UTIL_H
