// SPDX-License-Identifier: GPL-2.0-only
// The DCQCN reaction point as arithmetic (Zhu et al., SIGCOMM'15).
#include "ns3/dcqcn.h"
#include "ns3/roce-rate-control.h"

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
