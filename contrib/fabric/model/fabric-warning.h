// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_WARNING_H
#define FABRIC_WARNING_H

#include <string>

namespace ns3
{

/**
 * \ingroup fabric
 * Report a condition a user must see whatever NS_LOG says (a stalled flow, host pairs the
 * routing cannot connect, a misconfiguration): "warning: <component>: <message>" on standard
 * error, and the same through NS_LOG_WARN of the FabricWarning component. Silenced for a
 * whole program with the global value --FabricWarnings=false (ns3::GlobalValue
 * "FabricWarnings", default true).
 */
void FabricWarn(const std::string& component, const std::string& message);

/// Number of warnings reported so far in this process (printed or not).
uint64_t GetFabricWarningCount();

} // namespace ns3

#endif // FABRIC_WARNING_H
