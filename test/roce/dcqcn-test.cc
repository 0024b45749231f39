// SPDX-License-Identifier: GPL-2.0-only
// The DCQCN reaction point as arithmetic (Zhu et al., SIGCOMM'15).
#include "ns3/dcqcn.h"
#include "ns3/roce-rate-control.h"
#include "ns3/roce-run-summary.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

DcqcnParams
Params()
{
    DcqcnParams p;
    p.lineBps = 400e9;
    p.minBps = 100e6;
    p.g = 1.0 / 256;
    p.fastRecovery = 5;
    p.aiBps = 400e6;
    p.haiBps = 2e9;
    p.byteCounter = 10000000;
    return p;
}

} // namespace

TEST(Dcqcn, StartsAtLineRateAndFirstCnpHalves)
{
    Dcqcn d(Params());
    EXPECT_DOUBLE_EQ(d.GetRate(), 400e9);
    EXPECT_TRUE(d.AtLineRate());
    d.OnCnp(); // alpha = 1: RC * (1 - 1/2)
    EXPECT_DOUBLE_EQ(d.GetRate(), 200e9);
    EXPECT_DOUBLE_EQ(d.GetTarget(), 400e9);
    EXPECT_DOUBLE_EQ(d.GetAlpha(), (1 - 1.0 / 256) * 1 + 1.0 / 256);
    d.OnCnp(); // RT <- RC = 200G; RC <- 200G * (1 - alpha/2)
    EXPECT_DOUBLE_EQ(d.GetTarget(), 200e9);
    EXPECT_NEAR(d.GetRate(), 100e9, 1e-3);
    EXPECT_EQ(d.GetCnps(), 2u);
}

TEST(Dcqcn, AlphaDecaysOnlyWithoutCnp)
{
    Dcqcn d(Params());
    d.OnCnp();
    const double a = d.GetAlpha();
    d.OnAlphaTimer(true);
    EXPECT_DOUBLE_EQ(d.GetAlpha(), a);
    d.OnAlphaTimer(false);
    EXPECT_DOUBLE_EQ(d.GetAlpha(), a * (1 - 1.0 / 256));
}

TEST(Dcqcn, FastRecoveryThenAdditiveThenHyper)
{
    Dcqcn d(Params());
    d.OnCnp(); // RC 200G, RT 400G
    // Fast recovery: F = 5 timer events halve the distance to RT, RT unchanged.
    double rc = 200e9;
    for (int i = 0; i < 5; ++i)
    {
        d.OnIncreaseTimer();
        rc = (400e9 + rc) / 2;
        EXPECT_DOUBLE_EQ(d.GetRate(), rc) << i;
        EXPECT_DOUBLE_EQ(d.GetTarget(), 400e9);
    }
    // Cut again so RT is below line rate and the increase phases become visible.
    d.OnCnp();
    const double rt0 = d.GetTarget();
    for (int i = 0; i < 5; ++i)
    {
        d.OnIncreaseTimer(); // T = 1..5 <= F: fast recovery
    }
    EXPECT_DOUBLE_EQ(d.GetTarget(), rt0);
    d.OnIncreaseTimer(); // T = 6 > F, byte counter 0: additive increase
    EXPECT_DOUBLE_EQ(d.GetTarget(), rt0 + 400e6);
    // Hyper increase needs both counters past F: drive the byte counter too.
    for (int i = 0; i < 6; ++i)
    {
        d.OnBytes(10000000);
    }
    const double rt1 = d.GetTarget();
    d.OnIncreaseTimer(); // min(T, BC) = 6 > F (the 6 byte events were additive or hyper)
    EXPECT_DOUBLE_EQ(d.GetTarget(), std::min(400e9, rt1 + 2e9));
}

TEST(Dcqcn, RatesStayWithinBounds)
{
    Dcqcn d(Params());
    for (int i = 0; i < 200; ++i)
    {
        d.OnCnp();
    }
    EXPECT_DOUBLE_EQ(d.GetRate(), 100e6);
    for (int i = 0; i < 100000; ++i)
    {
        d.OnIncreaseTimer();
    }
    EXPECT_DOUBLE_EQ(d.GetRate(), 400e9);
    EXPECT_LE(d.GetTarget(), 400e9);
    DcqcnParams bad = Params();
    bad.minBps = 500e9;
    EXPECT_THROW(Dcqcn{bad}, std::invalid_argument);
}

TEST(RoceRateControl, ChosenByShortNameOrTypeIdName)
{
    EXPECT_EQ(RoceRateControlTypeId("dcqcn", "--rc"), DcqcnRateControl::GetTypeId());
    EXPECT_EQ(RoceRateControlTypeId("none", "--rc"), NoRateControl::GetTypeId());
    EXPECT_EQ(RoceRateControlTypeId("ns3::NoRateControl", "--rc"), NoRateControl::GetTypeId());
    for (const std::string bad : {"timely", "ns3::RoceRateControl", "ns3::Object", ""})
    {
        try
        {
            RoceRateControlTypeId(bad, "--rc");
            ADD_FAILURE() << bad << " accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_EQ(std::string(e.what()).rfind("--rc='" + bad + "' must be dcqcn, none", 0), 0u)
                << e.what();
        }
    }
}

TEST(SharedLinkReport, FlowRowsMarkTheFlowsOnSharedLinks)
{
    SharedLinkReport rep;
    rep.flows = {1};
    RoceFlowRecord a;
    a.spec.src = 0;
    a.spec.dst = 5;
    a.spec.bytes = 1000;
    a.complete = true;
    a.start = MicroSeconds(1);
    a.finish = MicroSeconds(3);
    a.idealSeconds = 1e-6;
    a.retxPackets = 2;
    a.cnps = 3;
    a.path = {0, 8, 9, 5};
    RoceFlowRecord b = a;
    b.complete = false;
    b.path = {1, 8, 5};
    const auto header = SharedLinkReport::FlowCsvHeader({"fabric", "seed"});
    ASSERT_EQ(header.size(), 13u);
    EXPECT_EQ(header[2], "flow");
    EXPECT_EQ(header[9], "collided");
    EXPECT_EQ(header[12], "path");
    const auto ca = rep.FlowCsvCells({"roft", "1"}, 0, a);
    ASSERT_EQ(ca.size(), header.size());
    EXPECT_EQ(ca[0], "roft");
    EXPECT_EQ(ca[2], "0");
    EXPECT_EQ(ca[6], FormatNumber(2.0)); // fct_us
    EXPECT_EQ(ca[8], FormatNumber(2.0)); // slowdown: 2 us / 1 us
    EXPECT_EQ(ca[9], "0");
    EXPECT_EQ(ca[10], "2");
    EXPECT_EQ(ca[11], "3");
    EXPECT_EQ(ca[12], "0 8 9 5");
    const auto cb = rep.FlowCsvCells({"roft", "1"}, 1, b);
    EXPECT_EQ(cb[6], "incomplete");
    EXPECT_EQ(cb[9], "1");
    EXPECT_EQ(cb[12], "1 8 5");
    const nlohmann::json j = rep.FlowsJson({a, b});
    ASSERT_EQ(j.size(), 2u);
    EXPECT_FALSE(j[0]["collided"].get<bool>());
    EXPECT_TRUE(j[1]["collided"].get<bool>());
}
