// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-dependency.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

uint64_t
PfcXoffThreshold(double alpha, uint64_t xoffBytes, uint64_t pool, uint64_t sharedUsed)
{
    if (alpha <= 0)
    {
        return xoffBytes;
    }
    return static_cast<uint64_t>(alpha * double(pool - std::min(pool, sharedUsed)));
}

bool
PfcMayResume(uint64_t headroom, uint64_t shared, uint64_t xonOffset, uint64_t threshold)
{
    return headroom == 0 && (shared == 0 || shared + xonOffset <= threshold);
}

std::vector<bool>
PfcPortsHeldInXoff(const PfcSwitchBuffer& sw, const std::vector<uint64_t>& heldByIngress)
{
    const size_t n = sw.ports.size();
    if (heldByIngress.size() != n)
    {
        throw std::invalid_argument("PfcPortsHeldInXoff: " + std::to_string(heldByIngress.size())
                                    + " held byte counts for " + std::to_string(n) + " ports");
    }
    // What each port still holds once everything else has left: headroom drains first.
    std::vector<uint64_t> shared(n);
    std::vector<uint64_t> headroom(n);
    uint64_t sharedUsed = 0;
    for (size_t p = 0; p < n; ++p)
    {
        const PfcPortBuffer& port = sw.ports[p];
        const uint64_t total = port.shared + port.headroom;
        const uint64_t released = total - std::min(total, heldByIngress[p]);
        const uint64_t fromHeadroom = std::min(port.headroom, released);
        headroom[p] = port.headroom - fromHeadroom;
        shared[p] = port.shared - std::min(port.shared, released - fromHeadroom);
        sharedUsed += shared[p];
    }
    const uint64_t threshold = PfcXoffThreshold(sw.alpha, sw.xoffBytes, sw.pool, sharedUsed);
    std::vector<bool> out(n, false);
    for (size_t p = 0; p < n; ++p)
    {
        out[p] = sw.ports[p].xoff && !PfcMayResume(headroom[p], shared[p], sw.xonOffset, threshold);
    }
    return out;
}

std::vector<std::pair<uint32_t, uint32_t>>
PfcBufferDependencies(const std::vector<PfcSwitchBuffer>& switches,
                      const std::vector<PfcHeldQueue>& held)
{
    std::vector<std::vector<uint64_t>> heldBytes(switches.size());
    for (size_t s = 0; s < switches.size(); ++s)
    {
        heldBytes[s].assign(switches[s].ports.size(), 0);
    }
    for (const PfcHeldQueue& q : held)
    {
        if (q.sw >= switches.size() || q.bytesByIngress.size() > switches[q.sw].ports.size())
        {
            throw std::invalid_argument("PfcBufferDependencies: queue of directed link "
                                        + std::to_string(q.dirLink)
                                        + " names a switch or ports that do not exist");
        }
        for (size_t p = 0; p < q.bytesByIngress.size(); ++p)
        {
            heldBytes[q.sw][p] += q.bytesByIngress[p];
        }
    }
    std::vector<std::vector<bool>> stuck(switches.size());
    for (size_t s = 0; s < switches.size(); ++s)
    {
        stuck[s] = PfcPortsHeldInXoff(switches[s], heldBytes[s]);
    }
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (const PfcHeldQueue& q : held)
    {
        for (size_t p = 0; p < q.bytesByIngress.size(); ++p)
        {
            if (q.bytesByIngress[p] > 0 && stuck[q.sw][p])
            {
                edges.emplace_back(switches[q.sw].ports[p].inDirLink, q.dirLink);
            }
        }
    }
    return edges;
}

} // namespace ns3
