// SPDX-License-Identifier: GPL-2.0-only
#include "flow-key.h"

namespace ns3
{

uint64_t
FlowHash(const FlowKey& key, uint64_t seed)
{
    const uint64_t addrs = (static_cast<uint64_t>(key.srcAddr) << 32) | key.dstAddr;
    const uint64_t rest = (static_cast<uint64_t>(key.srcPort) << 24)
                        | (static_cast<uint64_t>(key.dstPort) << 8) | key.protocol;
    uint64_t h = FabricMix64(seed + 0x9e3779b97f4a7c15ULL);
    h = FabricMix64(h ^ addrs);
    h = FabricMix64(h ^ rest);
    return h;
}

} // namespace ns3
