// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_SETUP_H
#define OCS_SETUP_H

#include "ns3/attribute.h"
#include "ns3/object.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-wiring.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ocs
 * The attribute checker of an OcsAlgorithm enum attribute: exact | greedy | bvn | dfs | ilp.
 */
Ptr<const AttributeChecker> MakeOcsAlgorithmChecker();

/**
 * \ingroup ocs
 * An OCS cluster's configuration choices as ns-3 attributes: the physical wiring, the EG and
 * port counts, and the configuration algorithm with its time limit. The names of the wiring
 * and algorithm are checked by the attributes' EnumValue checkers, the one place that knows
 * them, so `--ns3::OcsSetup::Algorithm=ilp` and Config::SetDefault work too. The algorithms
 * themselves stay plain C++ (OcsConfigurator); this object only chooses and runs them.
 */
class OcsSetup : public Object
{
  public:
    static TypeId GetTypeId();
    OcsSetup();

    OcsWiringType GetWiringType() const { return static_cast<OcsWiringType>(m_wiring); }
    OcsAlgorithm GetAlgorithm() const { return static_cast<OcsAlgorithm>(m_algorithm); }
    uint32_t GetEgs() const { return m_egs; }
    uint32_t GetPorts() const { return m_ports; }
    double GetTimeLimitMs() const { return m_timeLimitMs; }

    /**
     * Set attribute \p name from text (e.g. "Wiring", "cross").
     * \throws std::invalid_argument naming the attribute and, for names, the valid ones
     */
    void Set(const std::string& name, const std::string& value);

    /// The wiring the attributes describe. \throws std::invalid_argument on invalid sizes
    OcsWiring MakeWiring() const;
    /// Configure \p logical on MakeWiring() with the chosen algorithm and time limit.
    OcsConfigResult Configure(const OcsMatrix& logical) const;

    /// The wiring type the Wiring attribute calls \p name. \throws std::invalid_argument
    static OcsWiringType WiringByName(const std::string& name);
    /// The algorithm the Algorithm attribute calls \p name. \throws std::invalid_argument
    static OcsAlgorithm AlgorithmByName(const std::string& name);

  private:
    // Enum attributes are stored as int (ns-3.37 EnumValue).
    int m_wiring{static_cast<int>(OcsWiringType::CROSS)};
    uint32_t m_egs{4};
    uint32_t m_ports{4};
    int m_algorithm{static_cast<int>(OcsAlgorithm::EXACT)};
    double m_timeLimitMs{1000};
};

} // namespace ns3

#endif // OCS_SETUP_H
