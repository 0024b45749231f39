// SPDX-License-Identifier: GPL-2.0-only
// The OCS ToE micro-benchmark's report (ocs-toe-report): summary rows, tables and CSV rows.
#include "ns3/ocs-toe-report.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ns3;

namespace
{

OcsToeSizedSeries
Series()
{
    OcsToeSeries s;
    s.wiring = "uniform";
    s.algorithm = "greedy";
    s.ltcr = {1.0, 0.5, 0.9, 1.0, 0.8};
    s.solveUs = {10, 30, 20, 50, 40};
    s.decompUs = {1, 2, 3, 4, 5};
    s.mluRatio = {1.0, 2.0};
    s.unrouted = {0.0, 0.5};
    s.timeouts = 2;
    s.provedOptimal = 1;
    return {2048, s};
}

} // namespace

TEST(OcsToeReport, SeriesRowHasTheQuantilesOfTheRoundedIndexRule)
{
    const nlohmann::json j = OcsToeSeriesToJson(Series(), 32, false);
    EXPECT_EQ(j["gpus"], 2048);
    EXPECT_EQ(j["egs"], 64);
    EXPECT_EQ(j["wiring"], "uniform");
    EXPECT_EQ(j["algorithm"], "greedy");
    EXPECT_EQ(j["steps"], 5);
    EXPECT_NEAR(j["ltcr_mean"].get<double>(), 0.84, 1e-12);
    EXPECT_EQ(j["ltcr_min"].get<double>(), 0.5);
    // sorted 0.5 0.8 0.9 1 1: p10 is index round(0.4) = 0, median index 2.
    EXPECT_EQ(j["ltcr_p10"].get<double>(), 0.5);
    EXPECT_EQ(j["ltcr_median"].get<double>(), 0.9);
    EXPECT_EQ(j["ltcr_max"].get<double>(), 1.0);
    EXPECT_EQ(j["steps_ltcr_1"], 2);
    EXPECT_EQ(j["solve_us_median"].get<double>(), 30);
    EXPECT_EQ(j["solve_us_p90"].get<double>(), 50); // index round(3.6) = 4
    EXPECT_EQ(j["solve_us_max"].get<double>(), 50);
    EXPECT_EQ(j["decomposition_us_median"].get<double>(), 3);
    EXPECT_EQ(j["timeouts"], 2);
    EXPECT_EQ(j["proved_optimal"], 1);
    EXPECT_FALSE(j.contains("mlu_over_logical_mean"));
    const nlohmann::json m = OcsToeSeriesToJson(Series(), 32, true);
    EXPECT_EQ(m["mlu_over_logical_mean"].get<double>(), 1.5);
    EXPECT_EQ(m["mlu_over_logical_max"].get<double>(), 2.0);
    EXPECT_EQ(m["unrouted_demand_fraction_mean"].get<double>(), 0.25);
}

TEST(OcsToeReport, TablesPrintOneRowPerSeries)
{
    const std::vector<OcsToeSizedSeries> series{Series(), Series()};
    std::ostringstream t;
    PrintOcsToeTable(series, t);
    std::istringstream lines(t.str());
    std::string header;
    std::string row;
    std::getline(lines, header);
    EXPECT_NE(header.find("LTCR-mean"), std::string::npos);
    ASSERT_TRUE(std::getline(lines, row));
    EXPECT_EQ(row.rfind("2048   uniform  greedy", 0), 0u) << row;
    EXPECT_NE(row.find("0.8400"), std::string::npos) << row; // mean, 4 decimals
    EXPECT_NE(row.find("30.0"), std::string::npos) << row;   // median solve, 1 decimal
    EXPECT_TRUE(std::getline(lines, row));
    EXPECT_FALSE(std::getline(lines, row));
    std::ostringstream m;
    PrintOcsToeMluTable(series, m);
    EXPECT_NE(m.str().find("1.500      50.0     2.000       25.00"), std::string::npos) << m.str();
}

TEST(OcsToeReport, CsvRowsMatchTheirColumns)
{
    OcsToeStepRecord step{3, "cross", "exact", 1.0, 12.5, 2.5, false, 10, 10};
    const auto row = OcsToeStepCsvRow(2048, 64, step);
    ASSERT_EQ(row.size(), OcsToeStepCsvColumns().size());
    EXPECT_EQ(row[1], "64");
    EXPECT_EQ(row[2], "3");
    EXPECT_EQ(row[8], "0");
    OcsToeLogicalRecord logical{4, 7, 1.25, 100, 3, 9.5};
    const auto lrow = OcsToeLogicalCsvRow(2048, logical);
    ASSERT_EQ(lrow.size(), OcsToeLogicalCsvColumns().size());
    EXPECT_EQ(lrow[2], "7");
    EXPECT_EQ(lrow[3], "1.25");
}
