// SPDX-License-Identifier: GPL-2.0-only
// Field-by-field comparison of two RoCE (FabricRoceRunResult) or UDP (FabricUdpRunResult) runs
// that must agree: the two host paths (roce-host-path-test.cc), the two link devices
// (link-device-test.cc).
#ifndef ROCE_RESULT_COMPARE_H
#define ROCE_RESULT_COMPARE_H

#include "ns3/nstime.h"
#include "ns3/fabric-udp-run.h"
#include "ns3/roce-traffic-helper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

inline std::string
PathText(const std::vector<std::pair<Time, std::vector<uint32_t>>>& changes)
{
    std::ostringstream s;
    for (const auto& [t, path] : changes)
    {
        s << t.GetNanoSeconds() << ":";
        for (uint32_t n : path)
        {
            s << n << ",";
        }
        s << ";";
    }
    return s.str();
}

/**
 * The fields a UDP and a RoCE run result share agree: every link's counters, the packet
 * accounting, the horizon; and both runs account for every packet.
 */
template <typename R>
void
ExpectSameLinksAndAccounting(const R& a, const R& b)
{
    ASSERT_EQ(a.links.size(), b.links.size());
    for (size_t l = 0; l < a.links.size(); ++l)
    {
        EXPECT_EQ(a.links[l].txBytes, b.links[l].txBytes) << l;
        EXPECT_EQ(a.links[l].txPackets, b.links[l].txPackets) << l;
        EXPECT_EQ(a.links[l].maxQueueBytes, b.links[l].maxQueueBytes) << l;
        EXPECT_EQ(a.links[l].queueDrops, b.links[l].queueDrops) << l;
        EXPECT_EQ(a.links[l].rxErrorDrops, b.links[l].rxErrorDrops) << l;
        EXPECT_EQ(a.links[l].ecnMarks, b.links[l].ecnMarks) << l;
    }
    EXPECT_EQ(a.drops, b.drops);
    EXPECT_EQ(a.sentPackets, b.sentPackets);
    EXPECT_EQ(a.deliveredPackets, b.deliveredPackets);
    EXPECT_EQ(a.droppedPackets, b.droppedPackets);
    EXPECT_EQ(a.hopPackets, b.hopPackets);
    EXPECT_EQ(a.inFlightPackets, b.inFlightPackets);
    EXPECT_EQ(a.simSeconds, b.simSeconds);
    EXPECT_EQ(a.lastPacketSeconds, b.lastPacketSeconds);
    EXPECT_EQ(a.Unaccounted(), 0);
    EXPECT_EQ(b.Unaccounted(), 0);
}

/// Every field of two UDP runs agrees except the event count.
inline void
ExpectSameUdpResults(const FabricUdpRunResult& a, const FabricUdpRunResult& b)
{
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (size_t i = 0; i < a.flows.size(); ++i)
    {
        EXPECT_EQ(a.flows[i].txBytes, b.flows[i].txBytes) << i;
        EXPECT_EQ(a.flows[i].txPackets, b.flows[i].txPackets) << i;
        EXPECT_EQ(a.flows[i].rxBytes, b.flows[i].rxBytes) << i;
        EXPECT_EQ(a.flows[i].rxPackets, b.flows[i].rxPackets) << i;
        EXPECT_EQ(a.flows[i].firstTx, b.flows[i].firstTx) << i;
        EXPECT_EQ(a.flows[i].lastRx, b.flows[i].lastRx) << i;
    }
    ExpectSameLinksAndAccounting(a, b);
    EXPECT_EQ(a.measuredInFlightPackets, b.measuredInFlightPackets);
}

/**
 * Every field of the two results is the same; the event count too unless \p sameEvents is
 * false (runs that differ only in how many events they take, such as the two link devices).
 */
inline void
ExpectSameRoceResults(const FabricRoceRunResult& a,
                      const FabricRoceRunResult& b,
                      bool sameEvents = true)
{
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (size_t i = 0; i < a.flows.size(); ++i)
    {
        const RoceFlowRecord& x = a.flows[i];
        const RoceFlowRecord& y = b.flows[i];
        EXPECT_EQ(x.started, y.started) << i;
        EXPECT_EQ(x.complete, y.complete) << i;
        EXPECT_EQ(x.delivered, y.delivered) << i;
        EXPECT_EQ(x.start, y.start) << i;
        EXPECT_EQ(x.finish, y.finish) << i;
        EXPECT_EQ(x.rxComplete, y.rxComplete) << i;
        EXPECT_EQ(x.rxBytes, y.rxBytes) << i;
        EXPECT_EQ(x.txPackets, y.txPackets) << i;
        EXPECT_EQ(x.retxPackets, y.retxPackets) << i;
        EXPECT_EQ(x.cnps, y.cnps) << i;
        EXPECT_EQ(x.nacks, y.nacks) << i;
        EXPECT_EQ(x.repeatedNacks, y.repeatedNacks) << i;
        EXPECT_EQ(x.timeouts, y.timeouts) << i;
        EXPECT_EQ(x.duplicatesReceived, y.duplicatesReceived) << i;
        EXPECT_EQ(x.stalls, y.stalls) << i;
        EXPECT_EQ(x.path, y.path) << i;
        EXPECT_EQ(PathText(x.pathChanges), PathText(y.pathChanges)) << i;
    }
    ExpectSameLinksAndAccounting(a, b);
    for (size_t l = 0; l < std::min(a.links.size(), b.links.size()); ++l)
    {
        EXPECT_EQ(a.links[l].txSmallPackets, b.links[l].txSmallPackets) << l;
    }
    EXPECT_EQ(a.hopControlPackets, b.hopControlPackets);
    EXPECT_EQ(a.incompleteFlows, b.incompleteFlows);
    EXPECT_EQ(a.lastCompletionSeconds, b.lastCompletionSeconds);
    if (sameEvents)
    {
        EXPECT_EQ(a.events, b.events);
    }
}

} // namespace ns3

#endif // ROCE_RESULT_COMPARE_H
