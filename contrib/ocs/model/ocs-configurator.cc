// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-configurator.h"

#include "symmetric-decomposition.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ns3
{

std::string
OcsAlgorithmName(OcsAlgorithm a)
{
    switch (a)
    {
    case OcsAlgorithm::EXACT:
        return "exact";
    case OcsAlgorithm::GREEDY:
        return "greedy";
    case OcsAlgorithm::BVN:
        return "bvn";
    case OcsAlgorithm::DFS:
        return "dfs";
    case OcsAlgorithm::ILP:
        return "ilp";
    }
    return "?";
}

OcsConfigurator::OcsConfigurator(const OcsWiring& wiring)
    : m_wiring(wiring)
{
}

namespace
{

using Clock = std::chrono::steady_clock;

double
Us(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::micro>(b - a).count();
}

OcsColouring
Solve(const OcsColouringProblem& p, OcsAlgorithm algorithm, double timeLimitMs)
{
    switch (algorithm)
    {
    case OcsAlgorithm::EXACT:
        return ColourBipartiteExact(p);
    case OcsAlgorithm::GREEDY:
        return ColourGreedy(p);
    case OcsAlgorithm::BVN:
        return ColourBvn(p);
    case OcsAlgorithm::DFS:
        return ColourDfs(p, timeLimitMs);
    case OcsAlgorithm::ILP:
        return ColourIlp(p, timeLimitMs);
    }
    throw std::invalid_argument("unknown algorithm");
}

} // namespace

OcsConfigResult
OcsConfigurator::Configure(const OcsMatrix& logical,
                           OcsAlgorithm algorithm,
                           double timeLimitMs) const
{
    const uint32_t E = m_wiring.GetEgs();
    const uint32_t P = m_wiring.GetPortsPerEg();
    ValidateLogicalTopology(logical, E, P);
    if (!(timeLimitMs > 0))
    {
        throw std::invalid_argument("time limit must be > 0 ms");
    }
    const OcsWiringType type = m_wiring.GetType();
    if (algorithm == OcsAlgorithm::EXACT && type == OcsWiringType::UNIFORM)
    {
        throw std::invalid_argument("algorithm 'exact' needs a mirror-symmetric wiring "
                                    "(single|2uniform|cross); Uniform has no exact polynomial "
                                    "algorithm: use greedy|bvn|dfs|ilp");
    }
    OcsConfigResult r;
    const auto t0 = Clock::now();
    std::vector<OcsCircuit>& circuits = r.circuits;
    circuits.reserve(size_t(E) * P);
    if (type == OcsWiringType::SINGLE)
    {
        std::vector<uint32_t> next(E, 0);
        for (uint32_t a = 0; a < E; ++a)
        {
            for (uint32_t b = a + 1; b < E; ++b)
            {
                for (int64_t k = 0; k < logical(a, b); ++k)
                {
                    const uint32_t x = a * P + next[a]++;
                    const uint32_t y = b * P + next[b]++;
                    circuits.push_back({0, x, y});
                    circuits.push_back({0, y, x});
                }
            }
        }
        r.provedOptimal = true;
    }
    else
    {
        OcsColouringProblem prob;
        prob.vertices = E;
        if (type == OcsWiringType::UNIFORM)
        {
            prob.shared = true;
            prob.colours = P;
            for (uint32_t u = 0; u < E; ++u)
            {
                for (uint32_t v = u + 1; v < E; ++v)
                {
                    if (logical(u, v) > 0)
                    {
                        prob.pairs.push_back({u, v, uint32_t(logical(u, v))});
                    }
                }
            }
        }
        else
        {
            const auto d0 = Clock::now();
            const std::vector<OcsMatrixEntry> a = DecomposeSymmetricEulerSparse(logical);
            r.decompositionUs = Us(d0, Clock::now());
            prob.shared = false;
            prob.colours = P / 2;
            prob.pairs.reserve(a.size());
            for (const OcsMatrixEntry& x : a)
            {
                prob.pairs.push_back({x.i, x.j, uint32_t(x.value)});
            }
        }
        const OcsColouring col = Solve(prob, algorithm, timeLimitMs);
        r.timedOut = col.timedOut;
        r.provedOptimal = col.provedOptimal;
        r.note = col.note;
        for (size_t e = 0; e < prob.pairs.size(); ++e)
        {
            const uint32_t u = prob.pairs[e].u;
            const uint32_t v = prob.pairs[e].v;
            for (uint32_t c : col.colours[e])
            {
                switch (type)
                {
                case OcsWiringType::UNIFORM:
                    circuits.push_back({c, u, v});
                    circuits.push_back({c, v, u});
                    break;
                case OcsWiringType::CROSS:
                    // TX(u.2c) -> RX(v.2c+1) on OCS 2c; TX(v.2c+1) -> RX(u.2c) on OCS 2c+1.
                    circuits.push_back({2 * c, u, v});
                    circuits.push_back({2 * c + 1, v, u});
                    break;
                case OcsWiringType::TWO_UNIFORM:
                    // TX(u.2c) -> RX(v.2c+1) and TX(v.2c+1) -> RX(u.2c), both on OCS c.
                    circuits.push_back({c, 2 * u, 2 * v + 1});
                    circuits.push_back({c, 2 * v + 1, 2 * u});
                    break;
                default:
                    break;
                }
            }
        }
    }
    r.solveUs = Us(t0, Clock::now());
    std::sort(circuits.begin(), circuits.end());
    OcsRealization real = RealizeCircuits(m_wiring, circuits);
    r.oneWayCircuits = real.oneWayCircuits;
    r.realized = std::move(real.logical);
    for (uint32_t i = 0; i < E; ++i)
    {
        for (uint32_t j = 0; j < E; ++j)
        {
            if (r.realized(i, j) > logical(i, j))
            {
                throw std::logic_error("OCS configuration realized more links than asked for "
                                       "between EG "
                                       + std::to_string(i) + " and " + std::to_string(j));
            }
        }
    }
    if (r.oneWayCircuits != 0)
    {
        throw std::logic_error("OCS configuration produced one-way circuits");
    }
    r.ltcr = ComputeLtcr(logical, r.realized);
    return r;
}

} // namespace ns3
