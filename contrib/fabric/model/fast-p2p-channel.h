// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAST_P2P_CHANNEL_H
#define FAST_P2P_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class FastP2pNetDevice;

/**
 * \ingroup fabric
 * The full-duplex wire between two FastP2pNetDevices: a frame whose transmission starts now
 * arrives at the other end after its serialization time plus Delay, delivered in the
 * receiving node's context, as ns-3's PointToPointChannel does (same Delay attribute, same
 * TxRxPointToPoint trace source).
 *
 * TransmitStart is virtual so that a channel with more physics can be derived, as
 * OcsFibreChannel derives from PointToPointChannel. An MPI run needs a remote variant for
 * links whose ends are on different ranks: a FastP2pRemoteChannel overriding TransmitStart to
 * hand the frame to MpiInterface::SendPacket (arrival time now + txTime + Delay, destination
 * node and device index), with an MpiReceiver aggregated to each device that calls
 * FastP2pNetDevice::Receive, as PointToPointRemoteChannel does; the device needs no change.
 *
 * While nothing is connected to TxRxPointToPoint, a plain FastP2pChannel is not called per
 * frame: each device holds what TransmitStart would read (peer, delay, peer context;
 * FastP2pNetDevice::SetWire), kept current when the delay or the trace's sinks change. A
 * derived class is recognized by its own TypeId (as every ns-3 Object has one) and always
 * gets TransmitStart.
 */
class FastP2pChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FastP2pChannel();

    /// Connect \p device (at most two).
    void Attach(Ptr<FastP2pNetDevice> device);
    /**
     * Carry \p p from \p src to the other end: it arrives \p txTime + Delay from now. The
     * channel passes the frame object on (no copy per hop, unlike PointToPointChannel); the
     * receiving device makes a copy on arrival if anything else still holds the frame then.
     * \return false if the channel dropped it (this class never does)
     */
    virtual bool TransmitStart(const Ptr<Packet>& p, const Ptr<FastP2pNetDevice>& src, Time txTime);

    std::size_t GetNDevices() const override { return m_nDevices; }
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Ptr<FastP2pNetDevice> GetFastP2pDevice(std::size_t i) const;
    Time GetDelay() const { return m_delay; }
    /// Set the Delay attribute (frames already on the wire keep theirs; the delay must not
    /// shrink while frames are on the wire, see FastP2pNetDevice::StartArrival).
    void SetDelay(Time delay);

    /// Same signature as PointToPointChannel::TxRxAnimationCallback.
    typedef void (*TxRxAnimationCallback)(Ptr<const Packet> packet,
                                          Ptr<NetDevice> txDevice,
                                          Ptr<NetDevice> rxDevice,
                                          Time duration,
                                          Time lastBitTime);

  protected:
    void DoDispose() override;
    /// The device at the other end from \p src.
    Ptr<FastP2pNetDevice> GetPeer(Ptr<FastP2pNetDevice> src) const
    {
        return src == m_devices[0] ? m_devices[1] : m_devices[0];
    }

  private:
    class TxRxAccessor;

    /// Give both devices what a frame needs of this channel (FastP2pNetDevice::SetWire).
    void UpdateWires();

    Time m_delay;
    std::array<Ptr<FastP2pNetDevice>, 2> m_devices;
    std::array<uint32_t, 2> m_peerContext{}; //!< node id of the receiving end of each direction
    std::size_t m_nDevices{0};
    TracedCallback<Ptr<const Packet>, Ptr<NetDevice>, Ptr<NetDevice>, Time, Time>
        m_txrxPointToPoint;
};

} // namespace ns3

#endif // FAST_P2P_CHANNEL_H
