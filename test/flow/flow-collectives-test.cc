// SPDX-License-Identifier: GPL-2.0-only
// Collective patterns with steps (flow-collectives, MakeShiftedAllToAll): their definitions
// (steps, pairs and bytes per step, every host's data reduced and gathered everywhere) and
// the same flow list run at packet level (RoCE) and at flow level, steps in order.
#include "../ns3-sim-fixture.h"

#include "ns3/fabric-traffic-helper.h"
#include "ns3/flow-collectives.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-helper.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/// Replays a ring AllReduce on sets of contributors: chunk c at host h holds the hosts whose
/// data it has summed. The flows carry no chunk number, so the chunk a host forwards is the
/// one the definition names; the check is that, forwarded that way, every host ends with
/// every chunk summed over all hosts, and each flow's size is that chunk's size.
void
CheckRingCovers(const std::vector<FlowSpec>& flows, uint32_t n, uint64_t bytesPerHost)
{
    std::vector<std::vector<std::set<uint32_t>>> have(n, std::vector<std::set<uint32_t>>(n));
    std::vector<uint64_t> chunkBytes(n);
    uint64_t total = 0;
    for (uint32_t c = 0; c < n; ++c)
    {
        chunkBytes[c] = bytesPerHost / n + (c < bytesPerHost % n ? 1 : 0);
        total += chunkBytes[c];
        for (uint32_t h = 0; h < n; ++h)
        {
            have[h][c] = {h};
        }
    }
    ASSERT_EQ(total, bytesPerHost);
    const uint32_t steps = 2 * (n - 1);
    ASSERT_EQ(flows.size(), size_t(steps) * n);
    for (uint32_t t = 0; t < steps; ++t)
    {
        const bool gather = t >= n - 1;
        const uint32_t s = gather ? t - (n - 1) : t;
        std::vector<std::vector<std::set<uint32_t>>> next = have;
        uint64_t stepBytes = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            const FlowSpec& f = flows[size_t(t) * n + i];
            EXPECT_EQ(f.src, i);
            EXPECT_EQ(f.dst, (i + 1) % n);
            const uint32_t c = (i + (gather ? 1 : 0) + n - s) % n;
            EXPECT_EQ(f.bytes, chunkBytes[c]) << "step " << t << " host " << i;
            stepBytes += f.bytes;
            auto& dst = next[f.dst][c];
            if (gather)
            {
                dst = have[i][c]; // all-gather overwrites with the reduced chunk
            }
            else
            {
                dst.insert(have[i][c].begin(), have[i][c].end()); // reduce: sum
            }
        }
        EXPECT_EQ(stepBytes, bytesPerHost) << "every step moves each chunk once";
        have = next;
        if (t == n - 2)
        {
            for (uint32_t h = 0; h < n; ++h)
            {
                EXPECT_EQ(have[h][(h + 1) % n].size(), n) << "host " << h << " after reduce";
            }
        }
    }
    for (uint32_t h = 0; h < n; ++h)
    {
        for (uint32_t c = 0; c < n; ++c)
        {
            EXPECT_EQ(have[h][c].size(), n) << "host " << h << " chunk " << c;
        }
    }
}

} // namespace

TEST(Collectives, RingAllReduceDefinition)
{
    for (uint32_t n : {2u, 3u, 5u, 8u})
    {
        const uint64_t bytes = 1000 + n; // not a multiple of n for most n: uneven chunks
        const auto barrier = MakeRingAllReduce(n, bytes, false);
        CheckRingCovers(barrier, n, bytes);
        for (size_t f = 0; f < barrier.size(); ++f)
        {
            EXPECT_EQ(barrier[f].id, f);
            EXPECT_EQ(barrier[f].phase, f / n) << "a step per phase";
            EXPECT_EQ(barrier[f].after, -1);
            EXPECT_EQ(barrier[f].SourcePort(), 49152 + f / n);
        }
        const auto piped = MakeRingAllReduce(n, bytes, true);
        CheckRingCovers(piped, n, bytes);
        for (size_t f = 0; f < piped.size(); ++f)
        {
            EXPECT_EQ(piped[f].phase, 0u);
            if (f < n)
            {
                EXPECT_EQ(piped[f].after, -1);
                continue;
            }
            // Waits for the transfer that brought it what it forwards: the previous step's
            // flow into its source.
            ASSERT_GE(piped[f].after, 0);
            const FlowSpec& dep = piped[static_cast<size_t>(piped[f].after)];
            EXPECT_EQ(dep.dst, piped[f].src);
            EXPECT_EQ(dep.id / n + 1, f / n);
        }
    }
    EXPECT_THROW(MakeRingAllReduce(1, 100, false), std::invalid_argument);
    EXPECT_THROW(MakeRingAllReduce(8193, 100000, false), std::invalid_argument);
    EXPECT_THROW(MakeRingAllReduce(8, 7, true), std::invalid_argument);
}

TEST(Collectives, HalvingDoublingDefinition)
{
    const uint32_t n = 16;
    const uint64_t bytes = 1 << 20;
    const auto flows = MakeHalvingDoublingAllReduce(n, bytes);
    ASSERT_EQ(flows.size(), size_t(2 * 4 * n)); // 2 log2 n steps of n flows
    std::vector<uint64_t> sent(n, 0);
    for (const auto& f : flows)
    {
        const uint32_t s = f.phase < 4 ? f.phase : 7 - f.phase;
        EXPECT_EQ(f.dst, f.src ^ (1u << s));
        EXPECT_EQ(f.bytes, bytes >> (s + 1));
        sent[f.src] += f.bytes;
    }
    for (uint32_t h = 0; h < n; ++h)
    {
        // Reduce-scatter sends B(1 - 1/n), all-gather as much again.
        EXPECT_EQ(sent[h], 2 * (bytes - bytes / n)) << h;
    }
    EXPECT_THROW(MakeHalvingDoublingAllReduce(12, bytes), std::invalid_argument);
}

TEST(Collectives, AllToAllRoundsArePermutations)
{
    const uint32_t n = 8;
    const auto flows = MakeShiftedAllToAll(n, 4096, 0, 1);
    ASSERT_EQ(flows.size(), size_t(n) * (n - 1)); // n-1 rounds of n flows
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t r = 0; r < n - 1; ++r)
    {
        std::set<uint32_t> dsts;
        for (uint32_t i = 0; i < n; ++i)
        {
            const FlowSpec& f = flows[size_t(r) * n + i];
            dsts.insert(f.dst);
            pairs.insert({f.src, f.dst});
        }
        EXPECT_EQ(dsts.size(), n) << "round " << r << " is a permutation";
    }
    EXPECT_EQ(pairs.size(), size_t(n) * (n - 1)) << "every ordered pair once";
}

class CollectiveRuns : public Ns3SimTest
{
};

/// The same ring list at packet level (RoCE) and at flow level: all complete, no step starts
/// before what it waits for completed, and the packet level takes about as long as the flow
/// level (both are bandwidth-bound neighbour transfers).
TEST_F(CollectiveRuns, RingAtPacketAndFlowLevel)
{
    const uint32_t n = 8;
    const uint64_t bytes = 8 * 64 * 1024;
    for (const bool pipelined : {false, true})
    {
        const auto flows = MakeRingAllReduce(n, bytes, pipelined);
        ZCubeHelper zcube(n, 4);
        FabricNetworkHelper links;
        FabricRoceRunOptions opt;
        opt.stopAt = MilliSeconds(50);
        const FabricRoceRunResult packet = RunFabricRoce(zcube.Install(links), flows, opt);
        Ptr<FlowSimulator> sim = FlowSimHelper().Run(zcube.GetRouting(), flows);
        ASSERT_EQ(packet.flows.size(), flows.size());
        double packetEnd = 0;
        double flowEnd = 0;
        std::map<uint32_t, double> phaseEnd;
        for (size_t f = 0; f < flows.size(); ++f)
        {
            const auto& p = packet.flows[f];
            const auto& q = sim->GetRecords()[f];
            ASSERT_TRUE(p.complete) << f;
            ASSERT_TRUE(q.complete) << f;
            packetEnd = std::max(packetEnd, p.finish.GetSeconds());
            flowEnd = std::max(flowEnd, q.finishS);
            phaseEnd[flows[f].phase] = std::max(phaseEnd[flows[f].phase], p.finish.GetSeconds());
            if (flows[f].after >= 0)
            {
                const auto a = static_cast<size_t>(flows[f].after);
                EXPECT_GE(p.start, packet.flows[a].finish) << f;
                EXPECT_GE(q.startS, sim->GetRecords()[a].finishS - 1e-12) << f;
            }
        }
        for (size_t f = 0; f < flows.size(); ++f)
        {
            if (flows[f].phase > 0)
            {
                EXPECT_GE(packet.flows[f].start.GetSeconds(), phaseEnd[flows[f].phase - 1]) << f;
            }
        }
        EXPECT_NEAR(packetEnd, flowEnd, 0.25 * flowEnd) << (pipelined ? "pipelined" : "barrier");
    }
}

/// A collective's flows use a source port per step, so every flow of a host has its own port
/// and FabricTrafficHelper (UDP, no sockets) accepts the list; a list where two flows of a host
/// share a port is refused before anything is installed.
TEST_F(CollectiveRuns, UdpInstallNeedsDistinctSourcePorts)
{
    const uint32_t n = 8;
    ZCubeHelper zcube(n, 4);
    FabricNetworkHelper links;
    Ptr<FabricNetwork> net = zcube.Install(links);
    const auto ring = MakeRingAllReduce(n, 8 * 4096, false);
    FabricTrafficHelper ok(net);
    EXPECT_NO_THROW(ok.Install(ring, std::vector<double>(ring.size(), 1e9)));
    EXPECT_EQ(ok.GetRecords().size(), ring.size());

    std::vector<FlowSpec> clash(ring.begin(), ring.begin() + 2 * n); // steps 0 and 1
    clash[n].srcPort = clash[0].srcPort;                             // host 0, twice
    FabricTrafficHelper refused(net);
    EXPECT_THROW(refused.Install(clash, std::vector<double>(clash.size(), 1e9)),
                 std::invalid_argument);
    EXPECT_TRUE(refused.GetRecords().empty());
}
