// SPDX-License-Identifier: GPL-2.0-only
// OCS paper Theorem 4.2: L = A + A^T with row and column sums of A within
// [floor(r/2), ceil(r/2)], by the Euler-tour algorithm and by max-flow (Boost.Graph).
#include "ocs-test-util.h"

#include "ns3/symmetric-decomposition.h"

#include <gtest/gtest.h>

using namespace ns3;

// Thousands of random symmetric matrices (any row sums, even diagonals) at several sizes.
TEST(OcsDecomposition, EulerAndMaxFlowMeetTheorem42Bounds)
{
    FabricRng rng(42);
    struct Size
    {
        uint32_t n;
        uint32_t maxEntry;
        uint32_t count;
    };
    uint32_t checked = 0;
    for (const Size s : {Size{1, 3, 50},
                         Size{2, 3, 300},
                         Size{3, 1, 500},
                         Size{5, 3, 1000},
                         Size{8, 2, 1000},
                         Size{16, 5, 500},
                         Size{40, 1, 200},
                         Size{64, 3, 50}})
    {
        for (uint32_t k = 0; k < s.count; ++k)
        {
            const OcsMatrix l = RandomSymmetric(rng, s.n, s.maxEntry);
            const OcsMatrix a = DecomposeSymmetricEuler(l);
            ASSERT_EQ(CheckSymmetricDecomposition(l, a), "") << "euler n=" << s.n << " #" << k;
            const OcsMatrix b = DecomposeSymmetricMaxFlow(l);
            ASSERT_EQ(CheckSymmetricDecomposition(l, b), "") << "maxflow n=" << s.n << " #" << k;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 3600u);
}

// Logical topologies of the §7 sizes: every row of A then sums to at most P/2.
TEST(OcsDecomposition, LogicalTopologiesHalveEveryRow)
{
    FabricRng rng(7);
    for (uint32_t k = 0; k < 300; ++k)
    {
        const uint32_t E = k % 2 ? 64 : 128;
        const OcsMatrix l = RandomLogical(rng, E, 32, k % 3 == 0 ? 1.0 : 0.7);
        const OcsMatrix a = DecomposeSymmetricEuler(l);
        ASSERT_EQ(CheckSymmetricDecomposition(l, a), "");
        for (uint32_t i = 0; i < E; ++i)
        {
            ASSERT_LE(a.RowSum(i), 16);
            ASSERT_LE(a.ColSum(i), 16);
        }
    }
}

TEST(OcsDecomposition, HandCases)
{
    // A triangle: every row sum 2, so A is a directed 3-cycle.
    OcsMatrix t(3);
    t(0, 1) = t(1, 0) = t(1, 2) = t(2, 1) = t(0, 2) = t(2, 0) = 1;
    const OcsMatrix a = DecomposeSymmetricEuler(t);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(a.RowSum(i), 1);
        EXPECT_EQ(a.ColSum(i), 1);
    }
    // A star with odd centre degree: centre row sum 3 -> A row in [1, 2].
    OcsMatrix s(4);
    s(0, 1) = s(1, 0) = s(0, 2) = s(2, 0) = s(0, 3) = s(3, 0) = 1;
    EXPECT_EQ(CheckSymmetricDecomposition(s, DecomposeSymmetricEuler(s)), "");
    EXPECT_EQ(CheckSymmetricDecomposition(s, DecomposeSymmetricMaxFlow(s)), "");
    // Zero matrix.
    EXPECT_EQ(DecomposeSymmetricEuler(OcsMatrix(4)), OcsMatrix(4));
    // The checker rejects a wrong A.
    OcsMatrix wrong(3);
    wrong(0, 1) = 1;
    wrong(1, 2) = 1;
    wrong(0, 2) = 1; // L = A + A^T holds for the triangle, but row 0 sums to 2 > ceil(2/2)
    EXPECT_NE(CheckSymmetricDecomposition(t, wrong), "");
}

TEST(OcsDecomposition, BadInputThrows)
{
    OcsMatrix a(3);
    a(0, 1) = 1;
    EXPECT_THROW(DecomposeSymmetricEuler(a), std::invalid_argument);
    EXPECT_THROW(DecomposeSymmetricMaxFlow(a), std::invalid_argument);
    OcsMatrix d(2);
    d(0, 0) = 3;
    EXPECT_THROW(DecomposeSymmetricEuler(d), std::invalid_argument);
    OcsMatrix n(2);
    n(0, 1) = n(1, 0) = -2;
    EXPECT_THROW(DecomposeSymmetricEuler(n), std::invalid_argument);
}
