// SPDX-License-Identifier: GPL-2.0-only
#ifndef DCQCN_H
#define DCQCN_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup roce
 * Parameters of the DCQCN reaction point (sender), in SI units.
 */
struct DcqcnParams
{
    double lineBps{400e9};          //!< line rate: start rate and cap
    double minBps{100e6};           //!< floor of the current rate
    double g{1.0 / 256};            //!< alpha EWMA gain
    uint32_t fastRecovery{5};       //!< F: increase events spent in fast recovery
    double aiBps{400e6};            //!< additive increase step of the target rate
    double haiBps{2e9};             //!< hyper increase step of the target rate
    uint64_t byteCounter{10000000}; //!< bytes sent between byte-counter increase events
};

/**
 * \ingroup roce
 * The DCQCN reaction point as plain arithmetic (Zhu et al., SIGCOMM'15): current rate RC,
 * target rate RT and alpha. The caller drives time: it calls OnAlphaTimer and
 * OnIncreaseTimer at their periods and OnBytes as it sends.
 *
 * - CNP: RT <- RC, RC <- RC (1 - alpha/2), alpha <- (1-g) alpha + g; both increase counters
 *   and the byte count restart.
 * - Alpha timer without a CNP in the period: alpha <- (1-g) alpha.
 * - Increase event (timer or byte counter; counters T and BC, counted from 1): while
 *   max(T, BC) <= F fast recovery RC <- (RT+RC)/2 (F events); when min(T, BC) > F hyper
 *   increase RT += HAI; otherwise additive increase RT += AI; then RC <- (RT+RC)/2. Rates
 *   stay within [min, line].
 */
class Dcqcn
{
  public:
    explicit Dcqcn(const DcqcnParams& p);

    double GetRate() const { return m_rc; }
    double GetTarget() const { return m_rt; }
    double GetAlpha() const { return m_alpha; }
    uint32_t GetCnps() const { return m_cnps; }
    /// True once the rate is back at line rate (no timer needed).
    bool AtLineRate() const { return m_rc >= m_p.lineBps; }

    void OnCnp();
    /// \param cnpInPeriod whether a CNP arrived since the previous alpha timer
    void OnAlphaTimer(bool cnpInPeriod);
    void OnIncreaseTimer();
    /// Count sent bytes; \return true if the byte counter produced an increase event.
    bool OnBytes(uint64_t bytes);

  private:
    void Increase();

    DcqcnParams m_p;
    double m_rc;
    double m_rt;
    double m_alpha{1.0};
    uint32_t m_timerCount{0};
    uint32_t m_byteCount{0};
    uint64_t m_bytes{0};
    uint32_t m_cnps{0};
};

} // namespace ns3

#endif // DCQCN_H
