// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite of the ocs module's algorithms (no simulator): the exact mirror-symmetric
// configuration realizes logical topologies exactly on Cross Wiring, the baselines never break
// the physical or symmetry constraint, and invalid input is refused. Only public headers.
#include "ns3/fabric-rng.h"
#include "ns3/ocs-configuration.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-matrix.h"
#include "ns3/ocs-wiring.h"
#include "ns3/test.h"

#include <map>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/// A random valid logical topology: symmetric, zero diagonal, at most \p ports links per EG.
OcsMatrix
RandomTopology(FabricRng& rng, uint32_t egs, uint32_t ports)
{
    OcsMatrix l(egs);
    std::vector<uint32_t> free(egs, ports);
    for (uint32_t misses = 0; misses < 200;)
    {
        const auto a = uint32_t(rng.Below(egs));
        const auto b = uint32_t(rng.Below(egs));
        if (a == b || free[a] == 0 || free[b] == 0)
        {
            ++misses;
            continue;
        }
        misses = 0;
        l(a, b)++;
        l(b, a)++;
        free[a]--;
        free[b]--;
    }
    return l;
}

/**
 * The circuits of \p r recounted through the wiring's N and S ports, independently of
 * RealizeCircuits; \p halfPortsUnique tells whether every OCS half-port is in one circuit at most.
 * \return circuits a -> b plus b -> a, per unordered EG pair
 */
std::map<std::pair<uint32_t, uint32_t>, int64_t>
CountCircuits(const OcsWiring& w, const OcsConfigResult& r, bool& halfPortsUnique)
{
    std::set<std::pair<uint32_t, uint32_t>> usedN;
    std::set<std::pair<uint32_t, uint32_t>> usedS;
    std::map<std::pair<uint32_t, uint32_t>, int64_t> count;
    halfPortsUnique = true;
    for (const OcsCircuit& c : r.circuits)
    {
        halfPortsUnique &= usedN.insert({c.ocs, c.n}).second;
        halfPortsUnique &= usedS.insert({c.ocs, c.s}).second;
        const uint32_t a = w.GetNPort(c.ocs, c.n).eg;
        const uint32_t b = w.GetSPort(c.ocs, c.s).eg;
        count[{std::min(a, b), std::max(a, b)}]++;
    }
    return count;
}

/// Exact configuration on Cross Wiring: LTCR 1 on a hand-made topology and on random ones.
class CrossWiringExactTestCase : public TestCase
{
  public:
    CrossWiringExactTestCase()
        : TestCase("Cross Wiring: the exact algorithm realizes the logical topology exactly")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t egs = 8;
        const uint32_t ports = 4;
        const OcsWiring w(OcsWiringType::CROSS, egs, ports);
        NS_TEST_ASSERT_MSG_EQ(w.IsMirrorSymmetric(), true, "Cross Wiring is mirror-symmetric");
        const OcsConfigurator conf(w);
        // A ring with doubled links plus the two diagonals of every square: 4 links per EG.
        OcsMatrix ring(egs);
        for (uint32_t i = 0; i < egs; ++i)
        {
            ring(i, (i + 1) % egs) += 1;
            ring((i + 1) % egs, i) += 1;
            ring(i, (i + 4) % egs) += 1;
        }
        std::vector<OcsMatrix> targets{ring};
        FabricRng rng(7);
        for (uint32_t k = 0; k < 50; ++k)
        {
            targets.push_back(RandomTopology(rng, egs, ports));
        }
        for (const OcsMatrix& l : targets)
        {
            const OcsConfigResult r = conf.Configure(l, OcsAlgorithm::EXACT);
            NS_TEST_EXPECT_MSG_EQ((r.realized == l), true, "realized = target");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.ltcr, 1.0, 1e-12, "LTCR 1");
            const OcsRealization real = RealizeCircuits(w, r.circuits);
            NS_TEST_EXPECT_MSG_EQ(real.oneWayCircuits, 0u, "every circuit has its mirror");
            NS_TEST_EXPECT_MSG_EQ((real.logical == l), true, "circuits realize the target");
            bool unique = false;
            const auto count = CountCircuits(w, r, unique);
            NS_TEST_EXPECT_MSG_EQ(unique, true, "each OCS half-port in one circuit at most");
            for (uint32_t a = 0; a < egs; ++a)
            {
                for (uint32_t b = a + 1; b < egs; ++b)
                {
                    const auto it = count.find({a, b});
                    NS_TEST_EXPECT_MSG_EQ((it == count.end() ? 0 : it->second),
                                          2 * l(a, b),
                                          "circuits between EG " << a << " and " << b);
                }
            }
        }
    }
};

/// Greedy and BvN on Cross Wiring: never more than the target, never a one-way circuit.
class CrossWiringBaselinesTestCase : public TestCase
{
  public:
    CrossWiringBaselinesTestCase()
        : TestCase("Cross Wiring: greedy and BvN keep the physical and symmetry constraints")
    {
    }

  private:
    void DoRun() override
    {
        const OcsWiring w(OcsWiringType::CROSS, 8, 4);
        const OcsConfigurator conf(w);
        FabricRng rng(11);
        for (uint32_t k = 0; k < 30; ++k)
        {
            const OcsMatrix l = RandomTopology(rng, 8, 4);
            for (OcsAlgorithm a : {OcsAlgorithm::GREEDY, OcsAlgorithm::BVN})
            {
                const OcsConfigResult r = conf.Configure(l, a);
                const OcsRealization real = RealizeCircuits(w, r.circuits);
                NS_TEST_EXPECT_MSG_EQ(real.oneWayCircuits, 0u, OcsAlgorithmName(a));
                NS_TEST_EXPECT_MSG_EQ((real.logical == r.realized), true, OcsAlgorithmName(a));
                NS_TEST_EXPECT_MSG_LT_OR_EQ(r.ltcr, 1.0 + 1e-12, OcsAlgorithmName(a));
                for (uint32_t i = 0; i < 8; ++i)
                {
                    for (uint32_t j = 0; j < 8; ++j)
                    {
                        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.realized(i, j), l(i, j), "within target");
                    }
                }
                bool unique = false;
                CountCircuits(w, r, unique);
                NS_TEST_EXPECT_MSG_EQ(unique, true, OcsAlgorithmName(a));
            }
        }
    }
};

/// Input the algorithms must refuse with std::invalid_argument.
class InvalidTopologyTestCase : public TestCase
{
  public:
    InvalidTopologyTestCase()
        : TestCase("invalid logical topologies and EXACT on Uniform are refused")
    {
    }

  private:
    void DoRun() override
    {
        const OcsConfigurator cross(OcsWiring(OcsWiringType::CROSS, 4, 2));
        OcsMatrix asymmetric(4);
        asymmetric(0, 1) = 1;
        OcsMatrix tooMany(4);
        tooMany(0, 1) = tooMany(1, 0) = 3; // 3 links on a 2-port EG
        for (const OcsMatrix& bad : {asymmetric, tooMany})
        {
            bool threw = false;
            try
            {
                cross.Configure(bad, OcsAlgorithm::EXACT);
            }
            catch (const std::invalid_argument&)
            {
                threw = true;
            }
            NS_TEST_EXPECT_MSG_EQ(threw, true, "invalid topology refused");
        }
        OcsMatrix one(4);
        one(0, 1) = one(1, 0) = 1;
        bool threw = false;
        try
        {
            OcsConfigurator(OcsWiring(OcsWiringType::UNIFORM, 4, 2))
                .Configure(one, OcsAlgorithm::EXACT);
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "EXACT on Uniform refused (NP-complete there)");
    }
};

class OcsAlgorithmsTestSuite : public TestSuite
{
  public:
    OcsAlgorithmsTestSuite()
        : TestSuite("ocs-algorithms", UNIT)
    {
        AddTestCase(new CrossWiringExactTestCase, TestCase::QUICK);
        AddTestCase(new CrossWiringBaselinesTestCase, TestCase::QUICK);
        AddTestCase(new InvalidTopologyTestCase, TestCase::QUICK);
    }
};

static OcsAlgorithmsTestSuite g_ocsAlgorithmsTestSuite;

} // namespace
