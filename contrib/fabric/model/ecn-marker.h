// SPDX-License-Identifier: GPL-2.0-only
#ifndef ECN_MARKER_H
#define ECN_MARKER_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup fabric
 * RED-style ECN marking on a switch's instantaneous egress queue, as DCQCN's congestion point:
 * an ECN-capable packet is marked CE with probability 0 below Kmin, rising linearly to Pmax
 * at Kmax, and 1 above Kmax. Thresholds are given as queueing time at the port's line rate,
 * so bytes = time x rate and they scale with the link: the default Kmin and Kmax (1 us, 40 us)
 * are the DCQCN paper's 5 KB / 200 KB at 40 Gb/s (REFERENCE-NUMBERS: recalled values), i.e.
 * 50 KB / 2 MB at 400 Gb/s; the default Pmax (0.2) is HPCC's DCQCN profile.
 */
class EcnMarker : public Object
{
  public:
    static TypeId GetTypeId();
    EcnMarker();

    /**
     * \param queueBytes egress queue occupancy before this packet
     * \param rateBps egress line rate
     * \return whether to mark this packet CE
     */
    bool ShouldMark(uint32_t queueBytes, uint64_t rateBps);

    /// Marking thresholds in bytes at \p rateBps.
    uint64_t KminBytes(uint64_t rateBps) const;
    uint64_t KmaxBytes(uint64_t rateBps) const;

    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    bool m_enabled{true};
    Time m_kmin;
    Time m_kmax;
    double m_pmax{0.2};
    Ptr<UniformRandomVariable> m_uniform;

    /// The thresholds in bytes of the last (rate, Kmin, Kmax) asked: Time::GetSeconds is a
    /// 128-bit division, and a switch asks for every packet at a few rates.
    struct Thresholds
    {
        uint64_t rateBps{0};
        int64_t kminTs{-1}; //!< m_kmin in time steps when computed
        int64_t kmaxTs{-1};
        uint64_t kmin{0};
        uint64_t kmax{0};
    };

    const Thresholds& ThresholdsAt(uint64_t rateBps);
    Thresholds m_last;
};

} // namespace ns3

#endif // ECN_MARKER_H
