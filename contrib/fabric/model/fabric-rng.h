// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_RNG_H
#define FABRIC_RNG_H

#include <cstdint>

namespace ns3
{

/// A 64-bit avalanche mix (bijective; every input bit affects every output bit): the finalizer
/// with the published SplitMix64 constants.
inline uint64_t
FabricMix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/**
 * \ingroup fabric
 * A small deterministic RNG (SplitMix64 sequence) whose draws are the same on every
 * platform and standard library, for patterns that must reproduce from a seed.
 * Header-only, so modules that need only this (the ocs algorithms) do not link the packet stack.
 */
class FabricRng
{
  public:
    explicit FabricRng(uint64_t seed)
        : m_state(seed)
    {
    }

    uint64_t Next()
    {
        m_state += 0x9e3779b97f4a7c15ULL;
        return FabricMix64(m_state);
    }

    /// Uniform in [0, n) by rejection (no modulo bias). n > 0.
    uint64_t Below(uint64_t n)
    {
        const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        uint64_t x;
        do
        {
            x = Next();
        } while (x >= limit);
        return x % n;
    }

  private:
    uint64_t m_state;
};

} // namespace ns3

#endif // FABRIC_RNG_H
