// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_JSON_H
#define OCS_JSON_H

#include "ns3/ocs-configurator.h"
#include "ns3/ocs-matrix.h"
#include "ns3/ocs-wiring.h"

#include <nlohmann/json.hpp>

namespace ns3
{

/**
 * \ingroup ocs
 * The physical topology as ocs-configure writes it:
 * {"egs":E,"ports_per_eg":P,"ocs":[{"id":o,"n":[[eg,port],...],"s":[[eg,port],...]}]},
 * n[i] being the EG port whose TX is cabled to N half-port i, s[i] the one whose RX is cabled
 * to S half-port i.
 */
nlohmann::ordered_json OcsWiringToJson(const OcsWiring& wiring);

/// \ingroup ocs A matrix as a JSON array of rows.
nlohmann::ordered_json OcsMatrixToJson(const OcsMatrix& m);

/**
 * \ingroup ocs
 * A configuration as ocs-configure writes it:
 * {"circuits":[{"ocs":o,"n":i,"s":j},...],"realized":[[...]],"ltcr":x,"solve_us":t}.
 */
nlohmann::ordered_json OcsConfigToJson(const OcsConfigResult& r);

/**
 * \ingroup ocs
 * Fibre moves (UniformToCrossMoves) as JSON:
 * [{"eg":e,"port":p,"from":{"ocs":o,"s":i},"to":{"ocs":o2,"s":i2}},...].
 */
nlohmann::ordered_json OcsFibreMovesToJson(const std::vector<OcsFibreMove>& moves);

} // namespace ns3

#endif // OCS_JSON_H
