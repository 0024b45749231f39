// SPDX-License-Identifier: GPL-2.0-only
#include "ecn-marker.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcnMarker");
NS_OBJECT_ENSURE_REGISTERED(EcnMarker);

TypeId
EcnMarker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::EcnMarker")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddConstructor<EcnMarker>()
              .AddAttribute("Enabled",
                            "Mark ECN-capable packets at all.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&EcnMarker::m_enabled),
                            MakeBooleanChecker())
              .AddAttribute("KminTime",
                            "Kmin as queueing time at the port's line rate (bytes = time x rate). "
                            "Default: DCQCN paper's 5 KB at 40 Gb/s.",
                            TimeValue(MicroSeconds(1)),
                            MakeTimeAccessor(&EcnMarker::m_kmin),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("KmaxTime",
                            "Kmax as queueing time at the port's line rate. Default: DCQCN "
                            "paper's 200 KB at 40 Gb/s.",
                            TimeValue(MicroSeconds(40)),
                            MakeTimeAccessor(&EcnMarker::m_kmax),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("Pmax",
                            "Marking probability at Kmax (HPCC's DCQCN profile: 0.2; the DCQCN "
                            "paper's 1% reacts too late at 400 Gb/s, see doc/roce.md).",
                            DoubleValue(0.2),
                            MakeDoubleAccessor(&EcnMarker::m_pmax),
                            MakeDoubleChecker<double>(0, 1));
    return tid;
}

EcnMarker::EcnMarker()
    : m_uniform(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

void
EcnMarker::DoDispose()
{
    m_uniform = nullptr;
    Object::DoDispose();
}

uint64_t
EcnMarker::KminBytes(uint64_t rateBps) const
{
    return static_cast<uint64_t>(m_kmin.GetSeconds() * rateBps / 8);
}

uint64_t
EcnMarker::KmaxBytes(uint64_t rateBps) const
{
    return static_cast<uint64_t>(m_kmax.GetSeconds() * rateBps / 8);
}

const EcnMarker::Thresholds&
EcnMarker::ThresholdsAt(uint64_t rateBps)
{
    if (m_last.rateBps != rateBps || m_last.kminTs != m_kmin.GetTimeStep()
        || m_last.kmaxTs != m_kmax.GetTimeStep())
    {
        m_last = {rateBps,
                  m_kmin.GetTimeStep(),
                  m_kmax.GetTimeStep(),
                  KminBytes(rateBps),
                  KmaxBytes(rateBps)};
    }
    return m_last;
}

bool
EcnMarker::ShouldMark(uint32_t queueBytes, uint64_t rateBps)
{
    if (!m_enabled)
    {
        return false;
    }
    NS_ABORT_MSG_IF(m_kmin > m_kmax,
                    "EcnMarker: KminTime " << m_kmin.As(Time::US) << " exceeds KmaxTime "
                                           << m_kmax.As(Time::US));
    const Thresholds& t = ThresholdsAt(rateBps);
    const uint64_t kmin = t.kmin;
    if (queueBytes <= kmin)
    {
        return false;
    }
    const uint64_t kmax = t.kmax;
    if (queueBytes >= kmax)
    {
        return true;
    }
    const double p = m_pmax * double(queueBytes - kmin) / double(kmax - kmin);
    return m_uniform->GetValue() < p;
}

int64_t
EcnMarker::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

} // namespace ns3
