// SPDX-License-Identifier: GPL-2.0-only
#ifndef AIFABRIC_TEST_SPINE_LOSS_H
#define AIFABRIC_TEST_SPINE_LOSS_H

#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/fabric-network.h"
#include "ns3/string.h"

namespace ns3
{

/**
 * Corrupt \p rate of the packets arriving at \p host's leaf from the spines (a seeded
 * RateErrorModel per spine-facing port, stream 100 + port): every path to \p host through
 * a spine loses packets, none of the host-facing ports does.
 */
inline void
CorruptArrivalsFromSpines(const Ptr<FabricNetwork>& net, uint32_t host, double rate)
{
    const FabricGraph& g = net->GetGraph();
    const uint32_t leaf = g.GetPeer(host, 0);
    for (uint32_t p = 0; p < g.GetNPorts(leaf); ++p)
    {
        if (!g.IsHost(g.GetPeer(leaf, p)))
        {
            auto em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorRate", DoubleValue(rate));
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->AssignStreams(100 + p);
            FabricLinkDevice::SetReceiveErrorModel(net->GetDevice(leaf, p), em);
        }
    }
}

} // namespace ns3

#endif // AIFABRIC_TEST_SPINE_LOSS_H
