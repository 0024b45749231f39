// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_FIBRE_CHANNEL_H
#define OCS_FIBRE_CHANNEL_H

#include "ns3/nstime.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/traced-callback.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ocs-net
 * The fibre path between two EG port devices through one or two OCSes: a point-to-point
 * channel that carries frames only while the logical link it stands for is established (both
 * circuits joined and restored, set by OcsFabric with SetCarrying). A frame handed to it
 * otherwise is dropped with reason FabricDropReason::OCS_DARK; so is a frame still on the
 * fibre when the link goes dark (its arrival is checked against the circuit epoch), and so
 * are the frames queued in both devices at that moment (they would be sent into the dark).
 *
 * Trace source Drop (packet, reason), which FabricLinkMonitor counts.
 */
class OcsFibreChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId();
    OcsFibreChannel();

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override;

    /// Establish (true) or tear down (false) the link; tearing down drops what is queued
    /// in both devices and what is on the fibre (see the class description).
    void SetCarrying(bool carrying);
    bool IsCarrying() const { return m_carrying; }

    /// Frames delivered out of end \p from (0 or 1: the device attached first or second).
    uint64_t GetDelivered(uint32_t from) const { return m_delivered[from]; }
    /// When the last frame handed to this channel has fully arrived (or would have).
    Time GetBusyUntil() const { return m_busyUntil; }
    /// Frames this channel dropped (ocs-dark).
    uint64_t GetDarkDrops() const { return m_darkDrops; }

    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, const std::string& reason);

  private:
    void Arrive(Ptr<Packet> p, uint32_t from, uint64_t epoch);
    void Drop(Ptr<const Packet> p);

    bool m_carrying{true};
    uint64_t m_epoch{0}; //!< incremented whenever the link goes dark
    uint64_t m_delivered[2]{0, 0};
    uint64_t m_darkDrops{0};
    Time m_busyUntil;
    TracedCallback<Ptr<const Packet>, const std::string&> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_wireLossTrace;
};

} // namespace ns3

#endif // OCS_FIBRE_CHANNEL_H
