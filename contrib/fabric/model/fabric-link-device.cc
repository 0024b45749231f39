// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-link-device.h"

#include "fast-p2p-channel.h"
#include "fast-p2p-net-device.h"

#include "ns3/error-model.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"

#include <stdexcept>

namespace ns3
{

namespace
{

[[noreturn]] void
NotALinkDevice(const char* what, const Ptr<NetDevice>& dev)
{
    throw std::invalid_argument(std::string("FabricLinkDevice::") + what + ": "
                                + (dev ? dev->GetInstanceTypeId().GetName() : "null")
                                + " is not a point-to-point link device");
}

} // namespace

bool
FabricLinkDevice::IsLinkDevice(const Ptr<NetDevice>& dev)
{
    return DynamicCast<FastP2pNetDevice>(dev) || DynamicCast<PointToPointNetDevice>(dev);
}

Ptr<Queue<Packet>>
FabricLinkDevice::GetQueue(const Ptr<NetDevice>& dev)
{
    if (auto f = DynamicCast<FastP2pNetDevice>(dev))
    {
        return f->GetQueue();
    }
    if (auto p = DynamicCast<PointToPointNetDevice>(dev))
    {
        return p->GetQueue();
    }
    NotALinkDevice("GetQueue", dev);
}

void
FabricLinkDevice::SetReceiveErrorModel(const Ptr<NetDevice>& dev, Ptr<ErrorModel> em)
{
    if (auto f = DynamicCast<FastP2pNetDevice>(dev))
    {
        f->SetReceiveErrorModel(em);
        return;
    }
    if (auto p = DynamicCast<PointToPointNetDevice>(dev))
    {
        p->SetReceiveErrorModel(em);
        return;
    }
    NotALinkDevice("SetReceiveErrorModel", dev);
}

DataRate
FabricLinkDevice::GetDataRate(const Ptr<NetDevice>& dev)
{
    if (auto f = DynamicCast<FastP2pNetDevice>(dev))
    {
        return f->GetDataRate();
    }
    if (!DynamicCast<PointToPointNetDevice>(dev))
    {
        NotALinkDevice("GetDataRate", dev);
    }
    DataRateValue rate;
    dev->GetAttribute("DataRate", rate);
    return rate.Get();
}

Time
FabricLinkDevice::GetDelay(const Ptr<NetDevice>& dev)
{
    if (auto f = DynamicCast<FastP2pNetDevice>(dev))
    {
        auto ch = DynamicCast<FastP2pChannel>(f->GetChannel());
        return ch ? ch->GetDelay() : Time(0);
    }
    if (!DynamicCast<PointToPointNetDevice>(dev))
    {
        NotALinkDevice("GetDelay", dev);
    }
    // PointToPointChannel::GetDelay is protected in ns-3.37: read the attribute.
    TimeValue delay;
    if (Ptr<Channel> ch = dev->GetChannel())
    {
        ch->GetAttribute("Delay", delay);
    }
    return delay.Get();
}

Ptr<NetDevice>
FabricLinkDevice::GetPeer(const Ptr<NetDevice>& dev)
{
    if (!IsLinkDevice(dev))
    {
        NotALinkDevice("GetPeer", dev);
    }
    Ptr<Channel> ch = dev->GetChannel();
    if (!ch || ch->GetNDevices() != 2)
    {
        return nullptr;
    }
    return ch->GetDevice(0) == dev ? ch->GetDevice(1) : ch->GetDevice(0);
}

} // namespace ns3
