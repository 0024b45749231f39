// SPDX-License-Identifier: GPL-2.0-only
#include "dcqcn.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

Dcqcn::Dcqcn(const DcqcnParams& p)
    : m_p(p),
      m_rc(p.lineBps),
      m_rt(p.lineBps)
{
    if (!(p.lineBps > 0) || !(p.minBps > 0) || p.minBps > p.lineBps)
    {
        throw std::invalid_argument("Dcqcn: need 0 < minBps <= lineBps");
    }
    if (!(p.g > 0 && p.g <= 1))
    {
        throw std::invalid_argument("Dcqcn: g must be in (0, 1]");
    }
    if (p.byteCounter == 0)
    {
        throw std::invalid_argument("Dcqcn: byteCounter must be >= 1");
    }
}

void
Dcqcn::OnCnp()
{
    ++m_cnps;
    m_rt = m_rc;
    m_rc = std::max(m_p.minBps, m_rc * (1 - m_alpha / 2));
    m_alpha = (1 - m_p.g) * m_alpha + m_p.g;
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytes = 0;
}

void
Dcqcn::OnAlphaTimer(bool cnpInPeriod)
{
    if (!cnpInPeriod)
    {
        m_alpha = (1 - m_p.g) * m_alpha;
    }
}

void
Dcqcn::OnIncreaseTimer()
{
    ++m_timerCount;
    Increase();
}

bool
Dcqcn::OnBytes(uint64_t bytes)
{
    m_bytes += bytes;
    if (m_bytes < m_p.byteCounter)
    {
        return false;
    }
    m_bytes -= m_p.byteCounter;
    ++m_byteCount;
    Increase();
    return true;
}

void
Dcqcn::Increase()
{
    const uint32_t hi = std::max(m_timerCount, m_byteCount);
    const uint32_t lo = std::min(m_timerCount, m_byteCount);
    // Fast recovery for the first F increase events (counters 1..F), then additive; hyper
    // once both counters are past F.
    if (hi > m_p.fastRecovery)
    {
        m_rt += (lo > m_p.fastRecovery) ? m_p.haiBps : m_p.aiBps;
        m_rt = std::min(m_rt, m_p.lineBps);
    }
    m_rc = std::min(m_p.lineBps, (m_rt + m_rc) / 2);
}

} // namespace ns3
