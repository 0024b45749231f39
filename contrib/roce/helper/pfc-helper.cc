// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-helper.h"

#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcHelper");

PfcHelper::PfcHelper()
{
    m_switch.SetTypeId(PfcSwitch::GetTypeId());
    m_network.SetTypeId(PfcNetwork::GetTypeId());
}

void
PfcHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switch.Set(name, value);
}

void
PfcHelper::SetNetworkAttribute(const std::string& name, const AttributeValue& value)
{
    m_network.Set(name, value);
}

void
PfcHelper::ConfigureLinks(FabricNetworkHelper& links) const
{
    UintegerValue buffer;
    m_switch.Create<PfcSwitch>()->GetAttribute("BufferSize", buffer);
    // A device queue holds at most 2^32 - 1 bytes (QueueSize is 32-bit): a larger buffer
    // would wrap to a small queue that drops while the switch's pool never pauses.
    if (buffer.Get() > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("PfcHelper::ConfigureLinks: PfcSwitch::BufferSize "
                                    + std::to_string(buffer.Get())
                                    + " bytes does not fit a device queue; valid: 1.."
                                    + std::to_string(std::numeric_limits<uint32_t>::max()));
    }
    links.SetQueueType("ns3::PfcQueue");
    links.SetQueueAttribute(
        "MaxSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(buffer.Get()))));
}

Ptr<PfcNetwork>
PfcHelper::Install(Ptr<FabricNetwork> net) const
{
    Ptr<PfcNetwork> pfc = m_network.Create<PfcNetwork>();
    pfc->Install(net, m_switch);
    return pfc;
}

} // namespace ns3
