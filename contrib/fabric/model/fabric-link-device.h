// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_LINK_DEVICE_H
#define FABRIC_LINK_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/queue-fwd.h"

namespace ns3
{

class ErrorModel;

/// Which device/channel pair a fabric's links are built from (ns3::FabricNetwork::LinkDevice).
enum class FabricLinkDeviceType
{
    P2P,  //!< ns-3's PointToPointNetDevice and PointToPointChannel (default)
    FAST, //!< FastP2pNetDevice and FastP2pChannel: same semantics, fewer events per hop
};

/**
 * \ingroup fabric
 * What the fabric's code needs of a link device, for either kind (ns-3's
 * PointToPointNetDevice or FastP2pNetDevice), so that nothing else casts to one of them.
 * Everything else goes through NetDevice or by name (attributes, trace sources), which both
 * kinds spell alike.
 */
class FabricLinkDevice
{
  public:
    /// Whether \p dev is a link device of either kind.
    static bool IsLinkDevice(const Ptr<NetDevice>& dev);
    /// The device's transmit queue. \throws std::invalid_argument if not a link device
    static Ptr<Queue<Packet>> GetQueue(const Ptr<NetDevice>& dev);
    /// Replace the device's receive error model.
    static void SetReceiveErrorModel(const Ptr<NetDevice>& dev, Ptr<ErrorModel> em);
    /// The device's serialization rate.
    static DataRate GetDataRate(const Ptr<NetDevice>& dev);
    /// Propagation delay of the device's channel.
    static Time GetDelay(const Ptr<NetDevice>& dev);
    /// The device at the other end of the link.
    static Ptr<NetDevice> GetPeer(const Ptr<NetDevice>& dev);
};

} // namespace ns3

#endif // FABRIC_LINK_DEVICE_H
