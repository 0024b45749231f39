// SPDX-License-Identifier: GPL-2.0-only
#include "ns3/fabric-stats.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

using namespace ns3;

TEST(FabricStats, QuantileNearestRank)
{
    const std::vector<double> v{5, 1, 4, 2, 3}; // any order
    EXPECT_EQ(Quantile(v, 0), 1);
    EXPECT_EQ(Quantile(v, 0.2), 1); // ceil(1) = 1st
    EXPECT_EQ(Quantile(v, 0.21), 2);
    EXPECT_EQ(Quantile(v, 0.5), 3);
    EXPECT_EQ(Quantile(v, 1), 5);
    // Even count: the lower median.
    EXPECT_EQ(Quantile({1, 2, 3, 4}, 0.5), 2);
    EXPECT_EQ(Quantile({}, 0.5), 0);
}

TEST(FabricStats, QuantileRoundedIndex)
{
    const auto r = QuantileMethod::ROUNDED_INDEX;
    EXPECT_EQ(Quantile({5, 1, 4, 2, 3}, 0.5, r), 3);
    // Even count: index round(1.5) = 2, the upper median.
    EXPECT_EQ(Quantile({1, 2, 3, 4}, 0.5, r), 3);
    EXPECT_EQ(Quantile({1, 2, 3, 4}, 0, r), 1);
    EXPECT_EQ(Quantile({1, 2, 3, 4}, 1, r), 4);
    EXPECT_EQ(Quantile({10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110}, 0.1, r), 20);
}

TEST(FabricStats, BadQuantileAndMeanAndRss)
{
    EXPECT_THROW(Quantile({1, 2}, -0.1), std::invalid_argument);
    EXPECT_THROW(Quantile({1, 2}, 1.5), std::invalid_argument);
    EXPECT_DOUBLE_EQ(Mean({1, 2, 3, 6}), 3);
    EXPECT_EQ(Mean({}), 0);
    std::vector<char> big(32 << 20, 1); // touch 32 MiB
    EXPECT_GT(PeakRssMiB(), 30.0);
    EXPECT_EQ(big[12345], 1);
}
