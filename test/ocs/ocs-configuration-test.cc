// SPDX-License-Identifier: GPL-2.0-only
// OCS paper §3-§4, §7: exact mirror-symmetric configuration realizes every valid logical
// topology on Cross Wiring, 2-Uniform and Single (LTCR = 1); the baselines never break the
// physical or symmetry constraint; the minimal example of Fig. 3.
#include "ocs-test-util.h"

#include "ns3/object-factory.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-setup.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Independent check of a result: circuits valid, no one-way circuit, realized <= target,
/// LTCR recomputed from the circuits.
void
ExpectValid(const OcsWiring& w, const OcsMatrix& l, const OcsConfigResult& r)
{
    const OcsRealization real = RealizeCircuits(w, r.circuits); // throws on physical violation
    EXPECT_EQ(real.oneWayCircuits, 0u);
    EXPECT_EQ(real.logical, r.realized);
    for (uint32_t i = 0; i < l.GetN(); ++i)
    {
        for (uint32_t j = 0; j < l.GetN(); ++j)
        {
            ASSERT_LE(r.realized(i, j), l(i, j));
        }
    }
    EXPECT_DOUBLE_EQ(r.ltcr, ComputeLtcr(l, real.logical));
}

OcsMatrix
Triangle()
{
    OcsMatrix l(3);
    l(0, 1) = l(1, 0) = l(1, 2) = l(2, 1) = l(0, 2) = l(2, 0) = 1;
    return l;
}

} // namespace

// Thousands of random valid topologies at several sizes: exact is exact on every
// mirror-symmetric wiring (and Single).
TEST(OcsExact, RealizesEveryRandomTopology)
{
    FabricRng rng(2024);
    struct Size
    {
        uint32_t egs;
        uint32_t ports;
        uint32_t count;
    };
    uint32_t checked = 0;
    for (const Size s : {Size{2, 2, 200},
                         Size{3, 2, 500},
                         Size{4, 4, 800},
                         Size{6, 6, 800},
                         Size{9, 4, 800},
                         Size{16, 8, 400},
                         Size{64, 32, 30},
                         Size{128, 32, 6}})
    {
        for (OcsWiringType t :
             {OcsWiringType::CROSS, OcsWiringType::TWO_UNIFORM, OcsWiringType::SINGLE})
        {
            const OcsWiring w(t, s.egs, s.ports);
            const OcsConfigurator conf(w);
            for (uint32_t k = 0; k < s.count; ++k)
            {
                const double fill = k % 4 == 0 ? 1.0 : 0.3 + 0.7 * (rng.Below(1000) / 1000.0);
                const OcsMatrix l = RandomLogical(rng, s.egs, s.ports, fill);
                const OcsConfigResult r = conf.Configure(l, OcsAlgorithm::EXACT);
                ASSERT_EQ(r.realized, l) << OcsWiringTypeName(t) << " E=" << s.egs << " #" << k;
                ASSERT_DOUBLE_EQ(r.ltcr, 1.0);
                ASSERT_EQ(RealizeCircuits(w, r.circuits).oneWayCircuits, 0u);
                ASSERT_EQ(r.circuits.size(), size_t(l.Total())); // one circuit per direction
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 3 * 3536u);
}

// The seed's minimal example (§2.2, Fig. 3): 3 EGs, 2 ports, all-to-all single links.
TEST(OcsExact, MinimalExampleImpossibleOnUniformExactOnCross)
{
    const OcsMatrix l = Triangle();
    // Cross Wiring: 2 OCSes, exact.
    const OcsWiring cross(OcsWiringType::CROSS, 3, 2);
    EXPECT_EQ(cross.GetNumOcs(), 2u);
    const OcsConfigResult c = OcsConfigurator(cross).Configure(l, OcsAlgorithm::EXACT);
    EXPECT_EQ(c.realized, l);
    EXPECT_DOUBLE_EQ(c.ltcr, 1.0);
    EXPECT_EQ(c.circuits.size(), 6u);
    // Uniform: the exhaustive DFS finishes and proves no configuration realizes it (an odd
    // cycle needs 3 colours, there are 2 ports); best is 2 of the 3 links.
    const OcsWiring uniform(OcsWiringType::UNIFORM, 3, 2);
    const OcsConfigurator u(uniform);
    const OcsConfigResult d = u.Configure(l, OcsAlgorithm::DFS, 10000);
    EXPECT_TRUE(d.provedOptimal);
    EXPECT_FALSE(d.timedOut);
    EXPECT_NEAR(d.ltcr, 2.0 / 3.0, 1e-12);
    const OcsConfigResult i = u.Configure(l, OcsAlgorithm::ILP, 10000);
    EXPECT_TRUE(i.provedOptimal) << i.note;
    EXPECT_NEAR(i.ltcr, 2.0 / 3.0, 1e-12);
    for (OcsAlgorithm a : {OcsAlgorithm::GREEDY, OcsAlgorithm::BVN})
    {
        const OcsConfigResult r = u.Configure(l, a);
        EXPECT_LT(r.ltcr, 1.0) << OcsAlgorithmName(a);
        ExpectValid(uniform, l, r);
    }
    // Brute force over every configuration of the two 3x3 OCSes (partial permutations):
    // none realizes the triangle.
    std::vector<std::vector<OcsCircuit>> perOcs[2];
    for (uint32_t o = 0; o < 2; ++o)
    {
        // All partial injective maps {0,1,2} -> {0,1,2} (n -> s), 34 of them.
        for (uint32_t code = 0; code < 64; ++code)
        {
            std::vector<OcsCircuit> cs;
            uint32_t usedS = 0;
            bool ok = true;
            for (uint32_t n = 0, x = code; n < 3; ++n, x /= 4)
            {
                if (x % 4 == 3)
                {
                    continue;
                }
                if (usedS & (1u << (x % 4)))
                {
                    ok = false;
                }
                usedS |= 1u << (x % 4);
                cs.push_back({o, n, x % 4});
            }
            if (ok)
            {
                perOcs[o].push_back(cs);
            }
        }
    }
    ASSERT_EQ(perOcs[0].size(), 34u);
    uint32_t best = 0;
    for (const auto& a : perOcs[0])
    {
        for (const auto& b : perOcs[1])
        {
            std::vector<OcsCircuit> all = a;
            all.insert(all.end(), b.begin(), b.end());
            const OcsMatrix r = RealizeCircuits(uniform, all).logical;
            EXPECT_NE(r, l);
            best = std::max<uint32_t>(best, uint32_t(r(0, 1) + r(1, 2) + r(0, 2)));
        }
    }
    EXPECT_EQ(best, 2u);
}

TEST(OcsExact, RefusedOnUniformAndBadTopologies)
{
    const OcsConfigurator u(OcsWiring(OcsWiringType::UNIFORM, 3, 2));
    EXPECT_THROW(u.Configure(Triangle(), OcsAlgorithm::EXACT), std::invalid_argument);
    const OcsConfigurator c(OcsWiring(OcsWiringType::CROSS, 3, 2));
    OcsMatrix over = Triangle();
    over(0, 1) = over(1, 0) = 2; // row 0 sums to 3 > 2
    EXPECT_THROW(c.Configure(over, OcsAlgorithm::EXACT), std::invalid_argument);
    EXPECT_THROW(c.Configure(OcsMatrix(4), OcsAlgorithm::EXACT), std::invalid_argument);
    EXPECT_THROW(OcsSetup::AlgorithmByName("mcf"), std::invalid_argument);
}

// Every baseline on Uniform, Cross Wiring and 2-Uniform returns a configuration that obeys the
// physical and symmetry constraints, on random topologies of several sizes.
TEST(OcsBaselines, OutputIsAlwaysValid)
{
    FabricRng rng(99);
    struct Size
    {
        uint32_t egs;
        uint32_t ports;
        uint32_t count;
    };
    uint32_t checked = 0;
    for (const Size s : {Size{3, 2, 150}, Size{5, 4, 150}, Size{8, 6, 100}, Size{16, 8, 30}})
    {
        for (OcsWiringType t :
             {OcsWiringType::UNIFORM, OcsWiringType::CROSS, OcsWiringType::TWO_UNIFORM})
        {
            const OcsWiring w(t, s.egs, s.ports);
            const OcsConfigurator conf(w);
            for (uint32_t k = 0; k < s.count; ++k)
            {
                const OcsMatrix l = RandomLogical(rng, s.egs, s.ports, k % 2 ? 1.0 : 0.6);
                for (OcsAlgorithm a : {OcsAlgorithm::GREEDY, OcsAlgorithm::BVN, OcsAlgorithm::DFS})
                {
                    const OcsConfigResult r = conf.Configure(l, a, 2.0);
                    ExpectValid(w, l, r);
                    ++checked;
                }
                if (k % 10 == 0)
                {
                    ExpectValid(w, l, conf.Configure(l, OcsAlgorithm::ILP, 50.0));
                    ++checked;
                }
            }
        }
    }
    EXPECT_GT(checked, 3000u);
}

// On Cross Wiring every baseline runs after the decomposition on a bipartite problem; BvN
// (Birkhoff) and a finished DFS are then exact too.
TEST(OcsBaselines, BvnIsExactAfterDecomposition)
{
    FabricRng rng(5);
    const OcsWiring w(OcsWiringType::CROSS, 12, 8);
    const OcsConfigurator conf(w);
    for (uint32_t k = 0; k < 200; ++k)
    {
        const OcsMatrix l = RandomLogical(rng, 12, 8, 1.0);
        EXPECT_DOUBLE_EQ(conf.Configure(l, OcsAlgorithm::BVN).ltcr, 1.0);
    }
}

// Cross Wiring makes a complete algorithm possible; it does not make an incomplete one complete
// (OCS paper §4.1: "greedy heuristics, and ILP solving under a time bound are not complete";
// Th. 4.1 needs both a decoupling-optimal wiring and a complete algorithm). After L = A + A^T
// the baselines face the paper's own §4.3 sub-problem, "a configuration realizing A on P1":
// P/2 partial permutations summing to A, i.e. a bipartite edge colouring of A with P/2
// colours. Lowest-free-colour greedy can paint itself into a corner there with only 2 colours,
// while exact, BvN (König), a finished DFS and the optimal ILP realize the same input.
TEST(OcsBaselines, GreedyIsIncompleteOnCrossWiring)
{
    // Colouring layer, 2 colours (one OCS pair per colour): 0->2 takes 0, 0->3 then 1, 1->4
    // takes 0; 1->3 finds row 1 free only in colour 1 and column 3 free only in colour 0.
    OcsColouringProblem p;
    p.vertices = 5;
    p.colours = 2;
    p.shared = false;
    p.pairs = {{0, 2, 1}, {0, 3, 1}, {1, 4, 1}, {1, 3, 1}};
    const OcsColouring g = ColourGreedy(p);
    EXPECT_EQ(CheckColouring(p, g), "");
    EXPECT_NEAR(ColouringScore(p, g), 0.75, 1e-12);
    const OcsColouring e = ColourBipartiteExact(p);
    EXPECT_EQ(CheckColouring(p, e), "");
    EXPECT_NEAR(ColouringScore(p, e), 1.0, 1e-12);

    // End to end: 4 EGs x 4 ports on Cross Wiring (4 OCSes, 2 OCS pairs).
    const int64_t v[4][4] = {{0, 0, 2, 2}, {0, 0, 1, 1}, {2, 1, 0, 1}, {2, 1, 1, 0}};
    OcsMatrix l(4);
    for (uint32_t i = 0; i < 4; ++i)
    {
        for (uint32_t j = 0; j < 4; ++j)
        {
            l(i, j) = v[i][j];
        }
    }
    const OcsWiring w(OcsWiringType::CROSS, 4, 4);
    const OcsConfigurator conf(w);
    const OcsConfigResult greedy = conf.Configure(l, OcsAlgorithm::GREEDY);
    ExpectValid(w, l, greedy);
    EXPECT_LT(greedy.ltcr, 1.0);
    for (OcsAlgorithm a :
         {OcsAlgorithm::EXACT, OcsAlgorithm::BVN, OcsAlgorithm::DFS, OcsAlgorithm::ILP})
    {
        const OcsConfigResult r = conf.Configure(l, a, 2000.0);
        ExpectValid(w, l, r);
        EXPECT_DOUBLE_EQ(r.ltcr, 1.0) << OcsAlgorithmName(a);
        EXPECT_TRUE(r.provedOptimal || a == OcsAlgorithm::BVN) << OcsAlgorithmName(a);
    }
}

// The colouring layer directly: the checker catches a reused colour; exact colouring rejects
// an over-degree problem.
TEST(OcsColouring, CheckerAndLimits)
{
    OcsColouringProblem p;
    p.vertices = 3;
    p.colours = 2;
    p.shared = true;
    p.pairs = {{0, 1, 1}, {1, 2, 1}, {0, 2, 1}};
    OcsColouring c;
    c.colours = {{0}, {0}, {1}};
    EXPECT_NE(CheckColouring(p, c), ""); // vertex 1 uses colour 0 twice
    c.colours = {{0}, {1}, {}};
    EXPECT_EQ(CheckColouring(p, c), "");
    EXPECT_NEAR(ColouringScore(p, c), 2.0 / 3.0, 1e-12);
    EXPECT_THROW(ColourBipartiteExact(p), std::invalid_argument);
    p.shared = false;
    p.colours = 1;
    p.pairs = {{0, 1, 1}, {0, 2, 1}};
    EXPECT_THROW(ColourBipartiteExact(p), std::invalid_argument);
    p.pairs = {{0, 0, 1}};
    EXPECT_THROW(p.Validate(), std::invalid_argument);
}

// OcsSetup: wiring and algorithm chosen by attributes (ObjectFactory / text), names checked by
// the attribute checkers; the result is the configurator's, computed by code.
TEST(OcsSetup, AttributesChooseWiringAndAlgorithm)
{
    FabricRng rng(11);
    const OcsMatrix l = RandomLogical(rng, 6, 4, 0.8);
    for (const std::string wiring : {"uniform", "2uniform", "cross"})
    {
        for (const std::string algorithm : {"greedy", "bvn"})
        {
            ObjectFactory f("ns3::OcsSetup");
            f.Set("Wiring", StringValue(wiring));
            f.Set("Egs", UintegerValue(6));
            f.Set("Ports", UintegerValue(4));
            f.Set("Algorithm", StringValue(algorithm));
            Ptr<OcsSetup> setup = f.Create<OcsSetup>();
            EXPECT_EQ(OcsWiringTypeName(setup->GetWiringType()), wiring);
            EXPECT_EQ(OcsAlgorithmName(setup->GetAlgorithm()), algorithm);
            const OcsConfigResult byAttr = setup->Configure(l);
            const OcsConfigResult byCode
                = OcsConfigurator(OcsWiring(OcsSetup::WiringByName(wiring), 6, 4))
                      .Configure(l, OcsSetup::AlgorithmByName(algorithm));
            EXPECT_EQ(byAttr.realized, byCode.realized) << wiring << " " << algorithm;
            EXPECT_EQ(byAttr.circuits.size(), byCode.circuits.size());
        }
    }
    Ptr<OcsSetup> s = CreateObject<OcsSetup>();
    try
    {
        s->Set("Wiring", "clos");
        ADD_FAILURE() << "no error for wiring 'clos'";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("2uniform"), std::string::npos) << e.what();
    }
    EXPECT_THROW(s->Set("Algorithm", "mcf"), std::invalid_argument);
    EXPECT_THROW(s->Set("Egs", "0"), std::invalid_argument);
    EXPECT_THROW(s->Set("NoSuch", "1"), std::invalid_argument);
    s->Set("Algorithm", "ilp");
    EXPECT_EQ(s->GetAlgorithm(), OcsAlgorithm::ILP);
}
