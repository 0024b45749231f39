// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-warning.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"
#include "ns3/log.h"

#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricWarning");

namespace
{

GlobalValue g_fabricWarnings("FabricWarnings",
                             "Print warnings of the fabric modules (stalled flows, unreachable "
                             "host pairs, misconfigurations) on standard error.",
                             BooleanValue(true),
                             MakeBooleanChecker());

uint64_t g_warnings = 0;

} // namespace

void
FabricWarn(const std::string& component, const std::string& message)
{
    ++g_warnings;
    NS_LOG_WARN(component << ": " << message);
    BooleanValue enabled;
    g_fabricWarnings.GetValue(enabled);
    if (enabled.Get())
    {
        std::cerr << "warning: " << component << ": " << message << "\n";
    }
}

uint64_t
GetFabricWarningCount()
{
    return g_warnings;
}

} // namespace ns3
