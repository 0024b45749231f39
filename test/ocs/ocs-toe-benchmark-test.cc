// SPDX-License-Identifier: GPL-2.0-only
// The §7 micro-benchmark loop (RunOcsToeBenchmark): series per wiring and algorithm in run
// order, one record per configuration and step, exact complete on Cross Wiring, routed MLU at
// the bound where the realization is exact, the ILP limited to its first steps.
#include "ns3/ocs-toe-benchmark.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace ns3;

TEST(OcsToeBenchmark, SeriesAndRecordsFollowTheSteps)
{
    OcsToeBenchmarkParams p;
    p.gpusPerEg = 4;
    p.ports = 4;
    p.jobSizes = {8, 12, 16};
    p.wirings = {OcsWiringType::UNIFORM, OcsWiringType::CROSS};
    p.algorithms = {OcsAlgorithm::EXACT, OcsAlgorithm::GREEDY, OcsAlgorithm::ILP};
    p.ilpSteps = 1;
    p.steps = 3;
    p.mlu = true;
    p.crossRaw = true;
    uint32_t stepRecords = 0;
    uint32_t logicalRecords = 0;
    std::vector<uint32_t> progress;
    const OcsToeSizeResult r = RunOcsToeBenchmark(
        48,
        p,
        [&](const OcsToeStepRecord& x)
        {
            ++stepRecords;
            EXPECT_LE(x.realizedLinks, x.targetLinks);
            EXPECT_GE(x.ltcr, 0.0);
            EXPECT_LE(x.ltcr, 1.0);
        },
        [&](const OcsToeLogicalRecord& x)
        {
            ++logicalRecords;
            EXPECT_GT(x.links, 0u);
        },
        [&](uint32_t step) { progress.push_back(step); });
    EXPECT_EQ(r.egs, 12u);
    // Run order of step 0: uniform greedy, uniform ilp, cross exact, greedy, ilp, greedy-raw.
    ASSERT_EQ(r.series.size(), 6u);
    const std::vector<std::pair<std::string, std::string>> expected{{"uniform", "greedy"},
                                                                    {"uniform", "ilp"},
                                                                    {"cross", "exact"},
                                                                    {"cross", "greedy"},
                                                                    {"cross", "ilp"},
                                                                    {"cross", "greedy-raw"}};
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ(r.series[i].wiring, expected[i].first) << i;
        EXPECT_EQ(r.series[i].algorithm, expected[i].second) << i;
        const size_t n = r.series[i].algorithm == "ilp" ? 1 : 3; // ILP on the first step only
        EXPECT_EQ(r.series[i].ltcr.size(), n) << i;
        EXPECT_EQ(r.series[i].mluRatio.size(), n) << i;
    }
    // 3 steps x (uniform: greedy; cross: exact, greedy) + the ILP once per wiring.
    EXPECT_EQ(stepRecords, 3u * 3u + 2u);
    EXPECT_EQ(logicalRecords, 3u);
    EXPECT_EQ(progress, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_TRUE(r.exactComplete);
    for (size_t s = 0; s < 3; ++s)
    {
        EXPECT_EQ(r.series[2].ltcr[s], 1.0);
        EXPECT_NEAR(r.series[2].mluRatio[s], 1.0, 1e-9); // exact realization: MLU at the bound
        EXPECT_EQ(r.series[2].unrouted[s], 0.0);
    }
    EXPECT_EQ(r.mlus.size(), 3u);
    EXPECT_EQ(r.logicalUs.size(), 3u);
    EXPECT_GT(OcsToeEstimateSeconds(48, p), 0.0);
    EXPECT_GT(OcsToeEstimateBytes(48, p), 0.0);
}

TEST(OcsToeBenchmark, RepeatsFromTheSeedAndRefusesBadSizes)
{
    OcsToeBenchmarkParams p;
    p.gpusPerEg = 4;
    p.ports = 4;
    p.jobSizes = {8, 12, 16};
    p.algorithms = {OcsAlgorithm::GREEDY};
    p.steps = 4;
    const auto a = RunOcsToeBenchmark(48, p, nullptr, nullptr, nullptr);
    const auto b = RunOcsToeBenchmark(48, p, nullptr, nullptr, nullptr);
    ASSERT_EQ(a.series.size(), b.series.size());
    for (size_t i = 0; i < a.series.size(); ++i)
    {
        EXPECT_EQ(a.series[i].ltcr, b.series[i].ltcr);
    }
    EXPECT_EQ(a.mlus, b.mlus);
    EXPECT_THROW(RunOcsToeBenchmark(50, p, nullptr, nullptr, nullptr), std::invalid_argument);
}
