// SPDX-License-Identifier: GPL-2.0-only
// ConfigureCrossRawGreedy (the raw Cross Wiring reading of greedy): valid circuits that never
// exceed the target, the seed's triangle realized, and the wrong wiring refused.
#include "ns3/ocs-cross-raw.h"

#include "ocs-test-util.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(OcsCrossRaw, ValidAndNeverAboveTheTarget)
{
    FabricRng rng(3);
    for (uint32_t k = 0; k < 300; ++k)
    {
        const uint32_t egs = 2 + uint32_t(rng.Below(30));
        const uint32_t ports = 2 * (1 + uint32_t(rng.Below(8)));
        const OcsWiring w(OcsWiringType::CROSS, egs, ports);
        const OcsMatrix l = RandomLogical(rng, egs, ports, k % 2 ? 1.0 : 0.6);
        const OcsConfigResult r = ConfigureCrossRawGreedy(w, l);
        ValidateCircuits(w, r.circuits);
        const OcsRealization real = RealizeCircuits(w, r.circuits);
        EXPECT_EQ(real.oneWayCircuits, 0u);
        EXPECT_EQ(real.logical, r.realized);
        for (uint32_t a = 0; a < egs; ++a)
        {
            EXPECT_EQ(r.realized(a, a), 0);
            for (uint32_t b = 0; b < egs; ++b)
            {
                EXPECT_LE(r.realized(a, b), l(a, b));
            }
        }
        EXPECT_DOUBLE_EQ(r.ltcr, ComputeLtcr(l, r.realized));
        EXPECT_EQ(r.circuits.size(), size_t(r.realized.Total())); // two circuits per link
    }
}

TEST(OcsCrossRaw, TriangleAndBadWiring)
{
    OcsMatrix tri(3);
    tri(0, 1) = tri(1, 0) = tri(0, 2) = tri(2, 0) = tri(1, 2) = tri(2, 1) = 1;
    const OcsConfigResult r = ConfigureCrossRawGreedy(OcsWiring(OcsWiringType::CROSS, 3, 2), tri);
    EXPECT_EQ(r.realized, tri);
    EXPECT_DOUBLE_EQ(r.ltcr, 1.0);
    EXPECT_THROW(ConfigureCrossRawGreedy(OcsWiring(OcsWiringType::UNIFORM, 3, 2), tri),
                 std::invalid_argument);
}
