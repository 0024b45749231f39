// SPDX-License-Identifier: GPL-2.0-only
#include "roce-rate-control.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRateControl");
NS_OBJECT_ENSURE_REGISTERED(RoceRateControl);
NS_OBJECT_ENSURE_REGISTERED(NoRateControl);
NS_OBJECT_ENSURE_REGISTERED(DcqcnRateControl);

TypeId
RoceRateControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRateControl")
                            .SetParent<Object>()
                            .SetGroupName("Roce")
                            .AddTraceSource("Rate",
                                            "Current sending rate in bit/s.",
                                            MakeTraceSourceAccessor(&RoceRateControl::m_rate),
                                            "ns3::TracedValueCallback::Double");
    return tid;
}

bool
RoceRateControl::MirrorSendState(SendState* state)
{
    if (m_mirror)
    {
        *m_mirror = SendState(); // the previous holder falls back to asking per packet
    }
    m_mirror = (state && PublishesSendState()) ? state : nullptr;
    if (state && !m_mirror)
    {
        *state = SendState();
    }
    PublishSendState();
    return m_mirror != nullptr;
}

void
RoceRateControl::ConnectRateSink(const Callback<void, double, double>& sink)
{
    m_rate.ConnectWithoutContext(sink);
}

void
RoceRateControl::DisconnectRateSink(const Callback<void, double, double>& sink)
{
    m_rate.DisconnectWithoutContext(sink);
}

void
RoceRateControl::PublishSendState()
{
    if (m_mirror)
    {
        m_mirror->mirrored = true;
        m_mirror->callOnSent = NeedsOnSent();
        m_mirror->rateBps = GetRateBps();
    }
}

void
RoceRateControl::DoDispose()
{
    MirrorSendState(nullptr);
    Object::DoDispose();
}

TypeId
NoRateControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoRateControl")
                            .SetParent<RoceRateControl>()
                            .SetGroupName("Roce")
                            .AddConstructor<NoRateControl>();
    return tid;
}

TypeId
DcqcnRateControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::DcqcnRateControl")
              .SetParent<RoceRateControl>()
              .SetGroupName("Roce")
              .AddConstructor<DcqcnRateControl>()
              .AddAttribute("MinRate",
                            "Floor of the current rate (HPCC ns-3 rdma-hw default).",
                            DataRateValue(DataRate("100Mbps")),
                            MakeDataRateAccessor(&DcqcnRateControl::m_minRate),
                            MakeDataRateChecker())
              .AddAttribute("G",
                            "Alpha EWMA gain g (DCQCN paper: 1/256).",
                            DoubleValue(1.0 / 256),
                            MakeDoubleAccessor(&DcqcnRateControl::m_g),
                            MakeDoubleChecker<double>(1e-9, 1))
              .AddAttribute("FastRecoverySteps",
                            "F: increase events spent in fast recovery (DCQCN paper: 5).",
                            UintegerValue(5),
                            MakeUintegerAccessor(&DcqcnRateControl::m_fastRecovery),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("AdditiveIncrease",
                            "R_AI at 40 Gb/s (DCQCN paper: 40 Mb/s).",
                            DataRateValue(DataRate("40Mbps")),
                            MakeDataRateAccessor(&DcqcnRateControl::m_ai),
                            MakeDataRateChecker())
              .AddAttribute("HyperIncrease",
                            "R_HAI at 40 Gb/s (first DCQCN ns-3 configuration: 200 Mb/s).",
                            DataRateValue(DataRate("200Mbps")),
                            MakeDataRateAccessor(&DcqcnRateControl::m_hai),
                            MakeDataRateChecker())
              .AddAttribute("ScaleIncreaseWithLineRate",
                            "Multiply R_AI and R_HAI by line rate / 40 Gb/s.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&DcqcnRateControl::m_scale),
                            MakeBooleanChecker())
              .AddAttribute("ByteCounter",
                            "Bytes sent per byte-counter increase event (DCQCN paper: 10 MB).",
                            UintegerValue(10000000),
                            MakeUintegerAccessor(&DcqcnRateControl::m_byteCounter),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("AlphaUpdateInterval",
                            "Alpha decays when no CNP arrived in this period (DCQCN paper: 55 us).",
                            TimeValue(MicroSeconds(55)),
                            MakeTimeAccessor(&DcqcnRateControl::m_alphaInterval),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("RateIncreaseInterval",
                            "Period of the rate-increase timer (DCQCN paper: 55 us).",
                            TimeValue(MicroSeconds(55)),
                            MakeTimeAccessor(&DcqcnRateControl::m_increaseInterval),
                            MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

DcqcnRateControl::DcqcnRateControl()
{
    NS_LOG_FUNCTION(this);
}

void
DcqcnRateControl::DoDispose()
{
    Stop();
    RoceRateControl::DoDispose();
}

void
DcqcnRateControl::Start(double lineBps)
{
    NS_LOG_FUNCTION(this << lineBps);
    const double scale = m_scale ? lineBps / 40e9 : 1.0;
    DcqcnParams p;
    p.lineBps = lineBps;
    p.minBps = std::min<double>(m_minRate.GetBitRate(), lineBps);
    p.g = m_g;
    p.fastRecovery = m_fastRecovery;
    p.aiBps = m_ai.GetBitRate() * scale;
    p.haiBps = m_hai.GetBitRate() * scale;
    p.byteCounter = m_byteCounter;
    m_dcqcn = std::make_unique<Dcqcn>(p);
    m_rate = lineBps;
    PublishSendState();
}

void
DcqcnRateControl::Stop()
{
    m_alphaEvent.Cancel();
    m_increaseEvent.Cancel();
}

double
DcqcnRateControl::GetRateBps() const
{
    return m_rate;
}

void
DcqcnRateControl::Update()
{
    m_rate = m_dcqcn->GetRate();
    PublishSendState();
}

void
DcqcnRateControl::OnCnp()
{
    m_dcqcn->OnCnp();
    m_cnpInPeriod = true;
    Update();
    // The increase timer restarts at every cut; the alpha timer runs from the first CNP on.
    m_increaseEvent.Cancel();
    m_increaseEvent
        = Simulator::Schedule(m_increaseInterval, &DcqcnRateControl::IncreaseTimer, this);
    if (!m_alphaEvent.IsRunning())
    {
        m_alphaEvent = Simulator::Schedule(m_alphaInterval, &DcqcnRateControl::AlphaTimer, this);
    }
}

void
DcqcnRateControl::AlphaTimer()
{
    m_dcqcn->OnAlphaTimer(m_cnpInPeriod);
    m_cnpInPeriod = false;
    // Once alpha has decayed to nothing and the rate is back, the timer can rest until the
    // next CNP; it restarts there.
    if (m_dcqcn->GetAlpha() > 1e-6 || !m_dcqcn->AtLineRate())
    {
        m_alphaEvent = Simulator::Schedule(m_alphaInterval, &DcqcnRateControl::AlphaTimer, this);
    }
}

void
DcqcnRateControl::IncreaseTimer()
{
    m_dcqcn->OnIncreaseTimer();
    Update();
    if (!m_dcqcn->AtLineRate())
    {
        m_increaseEvent
            = Simulator::Schedule(m_increaseInterval, &DcqcnRateControl::IncreaseTimer, this);
    }
}

void
DcqcnRateControl::OnSent(uint32_t bytes)
{
    if (!m_dcqcn->AtLineRate() && m_dcqcn->OnBytes(bytes))
    {
        Update();
    }
}

TypeId
RoceRateControlTypeId(const std::string& name, const std::string& what)
{
    if (name == "dcqcn")
    {
        return DcqcnRateControl::GetTypeId();
    }
    if (name == "none")
    {
        return NoRateControl::GetTypeId();
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(name, &tid) && tid.HasConstructor()
        && tid.IsChildOf(RoceRateControl::GetTypeId()))
    {
        return tid;
    }
    throw std::invalid_argument(what + "='" + name
                                + "' must be dcqcn, none, or the TypeId of a constructible "
                                  "rate control derived from ns3::RoceRateControl");
}

} // namespace ns3
