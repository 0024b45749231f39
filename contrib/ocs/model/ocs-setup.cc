// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-setup.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsSetup");
NS_OBJECT_ENSURE_REGISTERED(OcsSetup);

Ptr<const AttributeChecker>
MakeOcsAlgorithmChecker()
{
    return MakeEnumChecker(static_cast<int>(OcsAlgorithm::EXACT),
                           "exact",
                           static_cast<int>(OcsAlgorithm::GREEDY),
                           "greedy",
                           static_cast<int>(OcsAlgorithm::BVN),
                           "bvn",
                           static_cast<int>(OcsAlgorithm::DFS),
                           "dfs",
                           static_cast<int>(OcsAlgorithm::ILP),
                           "ilp");
}

TypeId
OcsSetup::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OcsSetup")
              .SetParent<Object>()
              .SetGroupName("Ocs")
              .AddConstructor<OcsSetup>()
              .AddAttribute(
                  "Wiring",
                  "Physical wiring (OCS paper §3-§4): single | uniform | 2uniform | cross.",
                  EnumValue(static_cast<int>(OcsWiringType::CROSS)),
                  MakeEnumAccessor(&OcsSetup::m_wiring),
                  MakeEnumChecker(static_cast<int>(OcsWiringType::SINGLE),
                                  "single",
                                  static_cast<int>(OcsWiringType::UNIFORM),
                                  "uniform",
                                  static_cast<int>(OcsWiringType::TWO_UNIFORM),
                                  "2uniform",
                                  static_cast<int>(OcsWiringType::CROSS),
                                  "cross"))
              .AddAttribute("Egs",
                            "Number of electrical groups E, >= 1.",
                            UintegerValue(4),
                            MakeUintegerAccessor(&OcsSetup::m_egs),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("Ports",
                            "OCS-facing duplex ports per EG P, >= 1 (even for 2uniform and cross).",
                            UintegerValue(4),
                            MakeUintegerAccessor(&OcsSetup::m_ports),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("Algorithm",
                            "Configuration algorithm: exact | greedy | bvn | dfs | ilp.",
                            EnumValue(static_cast<int>(OcsAlgorithm::EXACT)),
                            MakeEnumAccessor(&OcsSetup::m_algorithm),
                            MakeOcsAlgorithmChecker())
              .AddAttribute("TimeLimitMs",
                            "Time bound of the DFS and ILP algorithms in milliseconds, > 0.",
                            DoubleValue(1000),
                            MakeDoubleAccessor(&OcsSetup::m_timeLimitMs),
                            MakeDoubleChecker<double>(1e-6));
    return tid;
}

OcsSetup::OcsSetup()
{
    NS_LOG_FUNCTION(this);
}

void
OcsSetup::Set(const std::string& name, const std::string& value)
{
    TypeId::AttributeInformation info;
    if (!GetTypeId().LookupAttributeByName(name, &info))
    {
        throw std::invalid_argument("OcsSetup: no attribute '" + name + "'");
    }
    if (!SetAttributeFailSafe(name, StringValue(value)))
    {
        std::string valid = info.checker->HasUnderlyingTypeInformation()
                              ? info.checker->GetUnderlyingTypeInformation()
                              : info.checker->GetValueTypeName();
        throw std::invalid_argument("OcsSetup " + name + ": '" + value
                                    + "' is not valid; valid: " + valid);
    }
}

OcsWiring
OcsSetup::MakeWiring() const
{
    return OcsWiring(GetWiringType(), m_egs, m_ports);
}

OcsConfigResult
OcsSetup::Configure(const OcsMatrix& logical) const
{
    return OcsConfigurator(MakeWiring()).Configure(logical, GetAlgorithm(), m_timeLimitMs);
}

OcsWiringType
OcsSetup::WiringByName(const std::string& name)
{
    Ptr<OcsSetup> s = CreateObject<OcsSetup>();
    s->Set("Wiring", name);
    return s->GetWiringType();
}

OcsAlgorithm
OcsSetup::AlgorithmByName(const std::string& name)
{
    Ptr<OcsSetup> s = CreateObject<OcsSetup>();
    s->Set("Algorithm", name);
    return s->GetAlgorithm();
}

} // namespace ns3
