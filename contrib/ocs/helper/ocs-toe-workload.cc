// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-toe-workload.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

OcsToeWorkload::OcsToeWorkload(uint32_t egs,
                               uint32_t gpusPerEg,
                               uint64_t seed,
                               double churn,
                               std::vector<uint32_t> jobSizes,
                               double ringWeight)
    : m_egs(egs),
      m_gpusPerEg(gpusPerEg),
      m_churn(churn),
      m_ringWeight(ringWeight),
      m_rng(seed)
{
    if (egs < 1 || gpusPerEg < 1)
    {
        throw std::invalid_argument("workload: egs and gpus per EG must be >= 1");
    }
    if (!(churn > 0 && churn <= 1))
    {
        throw std::invalid_argument("workload: churn=" + std::to_string(churn)
                                    + " is out of range (0, 1]");
    }
    if (!(ringWeight >= 0) || !std::isfinite(ringWeight))
    {
        throw std::invalid_argument("workload: ring weight must be >= 0");
    }
    if (jobSizes.empty())
    {
        throw std::invalid_argument("workload: job sizes must not be empty");
    }
    for (uint32_t s : jobSizes)
    {
        if (s == 0 || s % gpusPerEg != 0)
        {
            throw std::invalid_argument("workload: job size " + std::to_string(s)
                                        + " must be a positive multiple of the "
                                        + std::to_string(gpusPerEg) + " GPUs per EG");
        }
        m_sizesEg.push_back(s / gpusPerEg);
    }
    m_fillable.assign(egs + 1, 0);
    m_fillable[0] = 1;
    for (uint32_t r = 1; r <= egs; ++r)
    {
        for (uint32_t s : m_sizesEg)
        {
            if (s <= r && m_fillable[r - s])
            {
                m_fillable[r] = 1;
            }
        }
    }
    if (!m_fillable[egs])
    {
        throw std::invalid_argument("workload: a cluster of " + std::to_string(egs)
                                    + " EGs cannot be filled exactly with jobs of the given sizes");
    }
    std::vector<uint32_t> all(egs);
    for (uint32_t e = 0; e < egs; ++e)
    {
        all[e] = e;
    }
    Fill(all);
}

void
OcsToeWorkload::Fill(std::vector<uint32_t> egs)
{
    for (size_t i = egs.size(); i > 1; --i)
    {
        std::swap(egs[i - 1], egs[m_rng.Below(i)]);
    }
    size_t pos = 0;
    while (pos < egs.size())
    {
        const uint32_t rest = uint32_t(egs.size() - pos);
        std::vector<uint32_t> ok;
        for (uint32_t s : m_sizesEg)
        {
            if (s <= rest && m_fillable[rest - s])
            {
                ok.push_back(s);
            }
        }
        if (ok.empty())
        {
            throw std::logic_error("workload: cannot fill freed EGs exactly");
        }
        const uint32_t g = ok[m_rng.Below(ok.size())];
        OcsToeJob job{g * m_gpusPerEg, {egs.begin() + pos, egs.begin() + pos + g}, m_rng.Next()};
        m_jobs.push_back(std::move(job));
        pos += g;
    }
}

void
OcsToeWorkload::Step()
{
    const auto leave = std::max<size_t>(1, size_t(std::lround(m_churn * m_jobs.size())));
    // Partial Fisher-Yates: the last `leave` jobs after the shuffle depart.
    for (size_t k = 0; k < leave; ++k)
    {
        const size_t last = m_jobs.size() - 1 - k;
        std::swap(m_jobs[last], m_jobs[m_rng.Below(last + 1)]);
    }
    std::vector<uint32_t> freed;
    for (size_t k = 0; k < leave; ++k)
    {
        const OcsToeJob& j = m_jobs.back();
        freed.insert(freed.end(), j.egs.begin(), j.egs.end());
        m_jobs.pop_back();
    }
    std::sort(freed.begin(), freed.end());
    Fill(freed);
}

std::vector<double>
OcsToeWorkload::Demand() const
{
    std::vector<double> d(size_t(m_egs) * m_egs, 0.0);
    for (const OcsToeJob& job : m_jobs)
    {
        FabricRng rng(job.seed);
        const size_t g = job.egs.size();
        for (size_t i = 0; i < g; ++i)
        {
            for (size_t j = 0; j < g; ++j)
            {
                if (i != j)
                {
                    d[size_t(job.egs[i]) * m_egs + job.egs[j]] += 0.5 + rng.Below(1000) / 1000.0;
                }
            }
        }
        if (g >= 2)
        {
            for (size_t i = 0; i < g; ++i)
            {
                const uint32_t a = job.egs[i];
                const uint32_t b = job.egs[(i + 1) % g];
                if (g == 2 && i == 1)
                {
                    break; // a 2-EG ring has one neighbour pair
                }
                d[size_t(a) * m_egs + b] += m_ringWeight;
                d[size_t(b) * m_egs + a] += m_ringWeight;
            }
        }
    }
    return d;
}

} // namespace ns3
