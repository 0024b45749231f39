// SPDX-License-Identifier: GPL-2.0-only
// Small fabrics and flows shared by the RoCE tests that run one scenario twice and compare
// (roce-host-path-test.cc: two host paths; link-device-test.cc: two link devices) and the
// transport tests.
#ifndef ROCE_TEST_FABRICS_H
#define ROCE_TEST_FABRICS_H

#include "ns3/fabric-network-helper.h"
#include "ns3/queue-size.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <string>

namespace ns3
{

/// A RoCE flow of \p bytes from GPU \p src to \p dst, source port 49152 + \p id.
inline FlowSpec
Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
{
    FlowSpec f;
    f.id = id;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.srcPort = static_cast<uint16_t>(49152 + id);
    return f;
}

/// 16 GPUs, 4 leaves of 4, 4 spines, every queue \p queue deep.
inline Ptr<FabricNetwork>
Roft16(const std::string& queue = "8MB")
{
    RoftHelper roft(RoftLayout(16, 4, 4), 1);
    FabricNetworkHelper links;
    links.SetQueueAttribute("MaxSize", QueueSizeValue(QueueSize(queue)));
    return roft.Install(links);
}

} // namespace ns3

#endif // ROCE_TEST_FABRICS_H
