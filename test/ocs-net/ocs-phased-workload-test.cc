// SPDX-License-Identifier: GPL-2.0-only
// The phased workloads of the OCS reconfiguration experiment (plain C++): MoE layers pair every
// EG k times, job-trace sending drops departing jobs, flows carry the demand, reachability.
#include "ns3/ocs-phased-workload.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

using namespace ns3;

TEST(OcsPhasedWorkload, MoeLayersPairEveryEgKTimesAndRepeatFromTheSeed)
{
    const uint32_t egs = 8;
    const auto w = OcsMoeWorkload(egs, 3, 2, 7);
    ASSERT_EQ(w.demands.size(), 3u);
    EXPECT_EQ(w.sending, w.demands);
    for (const auto& d : w.demands)
    {
        ASSERT_EQ(d.size(), size_t(egs) * egs);
        for (uint32_t a = 0; a < egs; ++a)
        {
            uint32_t partners = 0;
            double row = 0;
            for (uint32_t b = 0; b < egs; ++b)
            {
                EXPECT_EQ(d[a * egs + b] > 0, d[b * egs + a] > 0); // both directions
                partners += d[a * egs + b] > 0 ? 1 : 0;
                row += d[a * egs + b];
            }
            EXPECT_EQ(d[a * egs + a], 0.0);
            // Two matchings: one or two partners (a pair may repeat), weights in [0.5, 1.5).
            EXPECT_GE(partners, 1u);
            EXPECT_LE(partners, 2u);
            EXPECT_GE(row, 1.0);
            EXPECT_LT(row, 3.0);
        }
    }
    EXPECT_NE(w.demands[0], w.demands[1]); // the demand changes every layer
    EXPECT_EQ(OcsMoeWorkload(egs, 3, 2, 7).demands, w.demands);
    EXPECT_NE(OcsMoeWorkload(egs, 3, 2, 8).demands, w.demands);
    EXPECT_THROW(OcsMoeWorkload(7, 3, 2, 1), std::invalid_argument);
    EXPECT_THROW(OcsMoeWorkload(8, 0, 2, 1), std::invalid_argument);
}

TEST(OcsPhasedWorkload, JobTraceSendsOnlyForJobsThatStay)
{
    const uint32_t egs = 8;
    const auto w = OcsJobTraceWorkload(egs, 2, 4, 3);
    ASSERT_EQ(w.demands.size(), 4u);
    ASSERT_EQ(w.sending.size(), 4u);
    EXPECT_EQ(w.sending.back(), w.demands.back()); // nothing departs after the last step
    bool dropped = false;
    for (uint32_t s = 0; s < 4; ++s)
    {
        for (size_t i = 0; i < w.demands[s].size(); ++i)
        {
            // Sending is the demand or nothing (a departing job's block).
            EXPECT_TRUE(w.sending[s][i] == w.demands[s][i] || w.sending[s][i] == 0);
            dropped = dropped || (w.sending[s][i] == 0 && w.demands[s][i] > 0);
        }
    }
    EXPECT_TRUE(dropped); // 50% churn: some job departs
    EXPECT_THROW(OcsJobTraceWorkload(egs, 2, 0, 3), std::invalid_argument);
}

TEST(OcsPhasedWorkload, FlowsCarryTheDemandHostByHost)
{
    std::vector<double> d(16, 0.0);
    d[0 * 4 + 1] = 2.0;  // EG 0 -> EG 1
    d[3 * 4 + 2] = 1e-6; // tiny: the 1000-byte floor
    d[2 * 4 + 2] = 5.0;  // the diagonal carries nothing
    const auto flows = OcsDemandFlows(d, 4, 2, 1000.0, 10);
    ASSERT_EQ(flows.size(), 4u);
    EXPECT_EQ(flows[0].id, 10u);
    EXPECT_EQ(flows[0].src, 0u);
    EXPECT_EQ(flows[0].dst, 2u);
    EXPECT_EQ(flows[0].bytes, 1000u); // 2 units x 1000 B over 2 hosts
    EXPECT_EQ(flows[1].src, 1u);
    EXPECT_EQ(flows[1].dst, 3u);
    EXPECT_EQ(flows[2].src, 6u);
    EXPECT_EQ(flows[2].dst, 4u);
    EXPECT_EQ(flows[3].id, 13u);
    EXPECT_THROW(OcsDemandFlows(std::vector<double>(15, 0.0), 4, 2, 1000.0, 0),
                 std::invalid_argument);
    EXPECT_THROW(OcsDemandFlows(d, 4, 0, 1000.0, 0), std::invalid_argument);
}

TEST(OcsPhasedWorkload, ReachabilityFollowsTheLogicalLinks)
{
    OcsMatrix l(5);
    l(0, 1) = l(1, 0) = 1;
    l(1, 2) = l(2, 1) = 2;
    l(3, 4) = l(4, 3) = 1;
    EXPECT_TRUE(OcsEgReachable(l, 0, 2));
    EXPECT_TRUE(OcsEgReachable(l, 2, 0));
    EXPECT_FALSE(OcsEgReachable(l, 0, 3));
    EXPECT_TRUE(OcsEgReachable(l, 4, 3));
}
