// SPDX-License-Identifier: GPL-2.0-only
// CheckNetworkSerializationResolution, apart from fabric-checks.cc: it needs the network and
// its devices, which the standalone (sanitized) test targets that compile fabric-checks.cc do
// not link.
#include "fabric-checks.h"

#include "ns3/fabric-link-device.h"
#include "ns3/fabric-network.h"
#include "ns3/log.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetworkChecks");

void
CheckNetworkSerializationResolution(Ptr<FabricNetwork> net,
                                    uint64_t wireBytes,
                                    const std::string& caller)
{
    const FabricGraph& g = net->GetGraph();
    double fastest = 0;
    std::string where;
    for (uint32_t v = 0; v < g.GetNNodes(); ++v)
    {
        for (uint32_t p = 0; p < g.GetNPorts(v); ++p)
        {
            Ptr<NetDevice> dev = net->GetDevice(v, p);
            if (!dev || !FabricLinkDevice::IsLinkDevice(dev))
            {
                continue;
            }
            const double rate = double(FabricLinkDevice::GetDataRate(dev).GetBitRate());
            if (rate > fastest)
            {
                fastest = rate;
                where = g.GetName(v) + " port " + std::to_string(p);
            }
        }
    }
    if (fastest <= 0)
    {
        return;
    }
    std::ostringstream flag;
    flag << caller << ": the link rate " << fastest / 1e9 << " Gb/s (" << where << ")";
    try
    {
        CheckSerializationResolution(fastest, wireBytes, flag.str());
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string(e.what())
                                    + "; call Time::SetResolution(Time::PS) before creating "
                                      "the network, as RunFabricProgram does");
    }
}

} // namespace ns3
