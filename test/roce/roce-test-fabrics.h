// SPDX-License-Identifier: GPL-2.0-only
// Small fabrics and flows shared by the RoCE tests that run one scenario twice and compare
// (roce-host-path-test.cc: two host paths; link-device-test.cc: two link devices), the
// transport tests and the failover tests.
#ifndef ROCE_TEST_FABRICS_H
#define ROCE_TEST_FABRICS_H

#include "ns3/fabric-network-helper.h"
#include "ns3/packet.h"
#include "ns3/queue-size.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/simulator.h"
#include "ns3/traffic-pattern.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/// A RoCE flow of \p bytes from GPU \p src to \p dst with source port \p srcPort.
inline FlowSpec
Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes, uint16_t srcPort)
{
    FlowSpec f;
    f.id = id;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.srcPort = srcPort;
    return f;
}

/// A RoCE flow of \p bytes from GPU \p src to \p dst, source port 49152 + \p id.
inline FlowSpec
Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
{
    return Flow(id, src, dst, bytes, static_cast<uint16_t>(49152 + id));
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

/// Two flows into one host (ECN marks, CNPs) and a third elsewhere, on Roft16.
inline std::vector<FlowSpec>
IncastAndOneMore()
{
    return {Flow(0, 0, 15, 300000), Flow(1, 4, 15, 300000), Flow(2, 1, 6, 100000)};
}

/// The flows of traffic pattern \p p over \p hosts hosts, \p bytes each.
inline std::vector<FlowSpec>
Pattern(TrafficPattern p, uint32_t hosts, uint64_t bytes)
{
    TrafficPatternParams tp;
    tp.hosts = hosts;
    tp.bytes = bytes;
    return MakeTraffic(p, tp);
}

/// Every flow's on-wire rate: line rate (400 Gb/s) divided by the flows of its source.
inline std::vector<double>
LineRateShares(const std::vector<FlowSpec>& flows, uint32_t hosts)
{
    std::vector<uint32_t> perSrc(hosts, 0);
    for (const auto& f : flows)
    {
        perSrc[f.src]++;
    }
    std::vector<double> rates;
    for (const auto& f : flows)
    {
        rates.push_back(400e9 / perSrc[f.src]);
    }
    return rates;
}

/**
 * Record every transmission on every device of \p net into \p out, in order, one line each:
 * time in ps, node/port and every byte of the frame; with \p uidAndTags also the packet uid
 * first (uids count on across runs of one process: compare them with RelativeUids) and the
 * packet tags last.
 */
inline void
RecordEveryTransmission(Ptr<FabricNetwork> net, std::vector<std::string>& out, bool uidAndTags)
{
    for (uint32_t v = 0; v < net->GetGraph().GetNNodes(); ++v)
    {
        for (uint32_t p = 0; p < net->GetGraph().GetNPorts(v); ++p)
        {
            net->GetDevice(v, p)->TraceConnectWithoutContext(
                "PhyTxBegin",
                Callback<void, Ptr<const Packet>>(
                    [&out, v, p, uidAndTags](Ptr<const Packet> pkt)
                    {
                        std::vector<uint8_t> bytes(pkt->GetSize());
                        pkt->CopyData(bytes.data(), bytes.size());
                        std::ostringstream s;
                        if (uidAndTags)
                        {
                            s << pkt->GetUid() << " ";
                        }
                        s << Simulator::Now().GetPicoSeconds() << " " << v << "/" << p << " ";
                        for (uint8_t b : bytes)
                        {
                            s << int(b) << ".";
                        }
                        auto it = pkt->GetPacketTagIterator();
                        while (uidAndTags && it.HasNext())
                        {
                            s << " tag " << it.Next().GetTypeId().GetName();
                        }
                        out.push_back(s.str());
                    }));
        }
    }
}

/// Rewrite the leading uids of RecordEveryTransmission's lines relative to the smallest.
inline void
RelativeUids(std::vector<std::string>& lines)
{
    uint64_t first = UINT64_MAX;
    for (const auto& t : lines)
    {
        first = std::min<uint64_t>(first, std::stoull(t.substr(0, t.find(' '))));
    }
    for (auto& t : lines)
    {
        const size_t sp = t.find(' ');
        t = std::to_string(std::stoull(t.substr(0, sp)) - first) + t.substr(sp);
    }
}

/**
 * Two runs' RecordEveryTransmission logs are the same transmission for transmission (the uids
 * taken relative to each log's smallest); the first difference is reported, its first 160
 * characters (uid, time, port and the headers).
 */
inline void
ExpectSameTransmissions(std::vector<std::string> a, std::vector<std::string> b)
{
    ASSERT_EQ(a.size(), b.size());
    RelativeUids(a);
    RelativeUids(b);
    for (size_t i = 0; i < a.size(); ++i)
    {
        if (a[i] != b[i])
        {
            FAIL() << "transmission " << i << ": " << a[i].substr(0, 160) << " vs "
                   << b[i].substr(0, 160);
        }
    }
}

} // namespace ns3

#endif // ROCE_TEST_FABRICS_H
