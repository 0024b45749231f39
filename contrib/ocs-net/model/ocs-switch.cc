// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-switch.h"

#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsSwitch");
NS_OBJECT_ENSURE_REGISTERED(OcsSwitch);

TypeId
OcsSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OcsSwitch")
              .SetParent<Object>()
              .SetGroupName("OcsNet")
              .AddConstructor<OcsSwitch>()
              .AddAttribute("SwitchingDelay",
                            "Time from tearing the changed circuits down to light on the new ones "
                            "(3D MEMS: milliseconds; Mordia-style: 2.8 us; see "
                            "shared/REFERENCE-NUMBERS.md)",
                            TimeValue(MicroSeconds(10)),
                            MakeTimeAccessor(&OcsSwitch::m_switchingDelay),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("RestorationDelay",
                            "Time from light on a new circuit to a usable link: transceiver lock "
                            "and clock-data recovery (Mordia receiver initialization 8.7 us; "
                            "hundreds of ns to microseconds for CDR)",
                            TimeValue(MicroSeconds(10)),
                            MakeTimeAccessor(&OcsSwitch::m_restorationDelay),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("ReconfigurationStart",
                              "A reconfiguration began: OCS index, number of changed circuits",
                              MakeTraceSourceAccessor(&OcsSwitch::m_startTrace),
                              "ns3::OcsSwitch::ReconfigurationStartTracedCallback")
              .AddTraceSource("ReconfigurationEnd",
                              "The new circuits are ready: OCS index",
                              MakeTraceSourceAccessor(&OcsSwitch::m_endTrace),
                              "ns3::OcsSwitch::ReconfigurationEndTracedCallback");
    return tid;
}

OcsSwitch::OcsSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
OcsSwitch::DoDispose()
{
    m_event.Cancel();
    m_joinChanged = MakeNullCallback<void, uint32_t>();
    m_joinBatch = MakeNullCallback<void, bool>();
    Object::DoDispose();
}

void
OcsSwitch::SetRadix(uint32_t radix)
{
    NS_LOG_FUNCTION(this << radix);
    if (radix == 0 || radix > 65536)
    {
        throw std::invalid_argument("OcsSwitch: radix must be in [1, 65536], got "
                                    + std::to_string(radix));
    }
    if (m_reconfiguring)
    {
        throw std::logic_error("OcsSwitch: SetRadix during a reconfiguration");
    }
    m_join.assign(radix, NONE);
    m_ready.assign(radix, 0);
}

uint32_t
OcsSwitch::GetJoin(uint32_t n) const
{
    return m_join.at(n);
}

bool
OcsSwitch::IsReady(uint32_t n) const
{
    return m_ready.at(n) != 0;
}

void
OcsSwitch::CheckJoins(const std::vector<uint32_t>& join) const
{
    if (join.size() != m_join.size())
    {
        throw std::invalid_argument("OcsSwitch " + std::to_string(m_index) + ": "
                                    + std::to_string(join.size()) + " joins for radix "
                                    + std::to_string(m_join.size()));
    }
    std::vector<uint8_t> used(join.size(), 0);
    for (uint32_t n = 0; n < join.size(); ++n)
    {
        const uint32_t s = join[n];
        if (s == NONE)
        {
            continue;
        }
        if (s >= join.size() || used[s])
        {
            throw std::invalid_argument(
                "OcsSwitch " + std::to_string(m_index) + ": join of N " + std::to_string(n)
                + " to S " + std::to_string(s)
                + (s >= join.size() ? " is out of range [0, radix)" : " reuses that S half-port"));
        }
        used[s] = 1;
    }
    if (m_reconfiguring)
    {
        throw std::logic_error("OcsSwitch " + std::to_string(m_index)
                               + ": a reconfiguration is already under way");
    }
}

void
OcsSwitch::SetJoins(const std::vector<uint32_t>& join)
{
    NS_LOG_FUNCTION(this);
    CheckJoins(join);
    Batch(true);
    for (uint32_t n = 0; n < join.size(); ++n)
    {
        const uint8_t ready = join[n] != NONE ? 1 : 0;
        if (join[n] != m_join[n] || ready != m_ready[n])
        {
            m_join[n] = join[n];
            m_ready[n] = ready;
            if (!m_joinChanged.IsNull())
            {
                m_joinChanged(n);
            }
        }
    }
    Batch(false);
}

void
OcsSwitch::Batch(bool begin) const
{
    if (!m_joinBatch.IsNull())
    {
        m_joinBatch(begin);
    }
}

uint32_t
OcsSwitch::Reconfigure(const std::vector<uint32_t>& join)
{
    NS_LOG_FUNCTION(this);
    CheckJoins(join);
    m_changed.clear();
    for (uint32_t n = 0; n < join.size(); ++n)
    {
        if (join[n] != m_join[n])
        {
            m_changed.push_back(n);
        }
    }
    if (m_changed.empty())
    {
        return 0;
    }
    m_target = join;
    m_reconfiguring = true;
    m_startTrace(m_index, static_cast<uint32_t>(m_changed.size()));
    // Step 1: the changed circuits go dark now.
    Batch(true);
    for (uint32_t n : m_changed)
    {
        m_join[n] = NONE;
        m_ready[n] = 0;
        if (!m_joinChanged.IsNull())
        {
            m_joinChanged(n);
        }
    }
    Batch(false);
    m_event = Simulator::Schedule(m_switchingDelay, &OcsSwitch::EndSwitching, this);
    return static_cast<uint32_t>(m_changed.size());
}

void
OcsSwitch::EndSwitching()
{
    NS_LOG_FUNCTION(this);
    // Step 2: light on the new circuits; frames are not received before the transceiver locks.
    Batch(true);
    for (uint32_t n : m_changed)
    {
        m_join[n] = m_target[n];
        if (m_join[n] != NONE && !m_joinChanged.IsNull())
        {
            m_joinChanged(n);
        }
    }
    Batch(false);
    m_event = Simulator::Schedule(m_restorationDelay, &OcsSwitch::EndRestoration, this);
}

void
OcsSwitch::EndRestoration()
{
    NS_LOG_FUNCTION(this);
    // Step 3: the new circuits are ready.
    m_reconfiguring = false;
    Batch(true);
    for (uint32_t n : m_changed)
    {
        if (m_join[n] != NONE)
        {
            m_ready[n] = 1;
            if (!m_joinChanged.IsNull())
            {
                m_joinChanged(n);
            }
        }
    }
    Batch(false);
    m_changed.clear();
    m_endTrace(m_index);
}

} // namespace ns3
