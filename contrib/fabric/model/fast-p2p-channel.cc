// SPDX-License-Identifier: GPL-2.0-only
#include "fast-p2p-channel.h"

#include "fast-p2p-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastP2pChannel");
NS_OBJECT_ENSURE_REGISTERED(FastP2pChannel);

/**
 * The accessor of TxRxPointToPoint: ns-3's, then the devices are told whether the channel
 * still has to see every frame (a sink connected) or not (UpdateWires).
 */
class FastP2pChannel::TxRxAccessor : public TraceSourceAccessor
{
  public:
    explicit TxRxAccessor(Ptr<const TraceSourceAccessor> inner)
        : m_inner(inner)
    {
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        return Updated(obj, m_inner->ConnectWithoutContext(obj, cb));
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        return Updated(obj, m_inner->Connect(obj, context, cb));
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        return Updated(obj, m_inner->DisconnectWithoutContext(obj, cb));
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        return Updated(obj, m_inner->Disconnect(obj, context, cb));
    }

  private:
    static bool Updated(ObjectBase* obj, bool result)
    {
        if (auto ch = dynamic_cast<FastP2pChannel*>(obj))
        {
            ch->UpdateWires();
        }
        return result;
    }

    Ptr<const TraceSourceAccessor> m_inner;
};

TypeId
FastP2pChannel::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FastP2pChannel")
              .SetParent<Channel>()
              .SetGroupName("Fabric")
              .AddConstructor<FastP2pChannel>()
              .AddAttribute("Delay",
                            "Propagation delay through the channel",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FastP2pChannel::SetDelay, &FastP2pChannel::GetDelay),
                            MakeTimeChecker())
              .AddTraceSource("TxRxPointToPoint",
                              "A frame started across the channel: packet, transmitting and "
                              "receiving device, serialization time, arrival of its last bit "
                              "(relative to now).",
                              Create<TxRxAccessor>(
                                  MakeTraceSourceAccessor(&FastP2pChannel::m_txrxPointToPoint)),
                              "ns3::FastP2pChannel::TxRxAnimationCallback");
    return tid;
}

FastP2pChannel::FastP2pChannel()
{
    NS_LOG_FUNCTION(this);
}

void
FastP2pChannel::DoDispose()
{
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->SetWire(nullptr, Time(), 0, false);
    }
    m_devices = {};
    Channel::DoDispose();
}

void
FastP2pChannel::Attach(Ptr<FastP2pNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_nDevices >= 2, "FastP2pChannel: only two devices permitted");
    NS_ABORT_MSG_IF(!device || !device->GetNode(), "FastP2pChannel: attach a device of a node");
    m_devices[m_nDevices++] = device;
    if (m_nDevices == 2)
    {
        m_peerContext[0] = m_devices[1]->GetNode()->GetId();
        m_peerContext[1] = m_devices[0]->GetNode()->GetId();
        UpdateWires();
    }
}

void
FastP2pChannel::SetDelay(Time delay)
{
    m_delay = delay;
    UpdateWires();
}

void
FastP2pChannel::UpdateWires()
{
    if (m_nDevices != 2)
    {
        return;
    }
    // Only this class's TransmitStart may be skipped, and only while it would do nothing but
    // start the arrival at the peer.
    const bool direct
        = typeid(*this) == typeid(FastP2pChannel) && m_txrxPointToPoint.IsEmpty();
    for (uint32_t wire = 0; wire < 2; ++wire)
    {
        m_devices[wire]->SetWire(
            PeekPointer(m_devices[1 - wire]), m_delay, m_peerContext[wire], direct);
    }
}

bool
FastP2pChannel::TransmitStart(const Ptr<Packet>& p, const Ptr<FastP2pNetDevice>& src, Time txTime)
{
    NS_ASSERT(m_nDevices == 2);
    const uint32_t wire = src == m_devices[0] ? 0 : 1;
    const Ptr<FastP2pNetDevice>& dst = m_devices[1 - wire];
    // The frame itself, not a copy: the receiving device copies it on arrival only if
    // something else still holds it then (FastP2pNetDevice::ArriveNext).
    dst->StartArrival(p, txTime + m_delay, m_peerContext[wire]);
    if (!m_txrxPointToPoint.IsEmpty())
    {
        m_txrxPointToPoint(p, src, dst, txTime, txTime + m_delay);
    }
    return true;
}

Ptr<NetDevice>
FastP2pChannel::GetDevice(std::size_t i) const
{
    return GetFastP2pDevice(i);
}

Ptr<FastP2pNetDevice>
FastP2pChannel::GetFastP2pDevice(std::size_t i) const
{
    NS_ABORT_MSG_IF(i >= m_nDevices, "FastP2pChannel: no device " << i);
    return m_devices[i];
}

} // namespace ns3
