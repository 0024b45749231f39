// SPDX-License-Identifier: GPL-2.0-only
#include "attribute-construction.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <cstdlib>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AttributeConstruction");

bool
AttributeDefaultsFromEnvironment()
{
    return std::getenv("NS_ATTRIBUTE_DEFAULT") != nullptr;
}

void
AttributeConstructionFailed(const std::string& where)
{
    NS_FATAL_ERROR("attribute " << where << " cannot be set to its value");
}

} // namespace ns3
