// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_UDP_RUN_H
#define FABRIC_UDP_RUN_H

#include "ns3/fabric-link-monitor.h"
#include "ns3/fabric-traffic-helper.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Everything a packet-level UDP run reports, in one place, with its packet accounting.
 */
struct FabricUdpRunResult
{
    std::vector<FabricLinkMonitor::LinkCounters> links; //!< per directed link
    std::vector<FlowRecord> flows;                      //!< per flow, in input order
    std::map<std::string, uint64_t> drops;              //!< by reason
    uint64_t sentPackets{0};                            //!< packets the senders produced
    uint64_t deliveredPackets{0};                       //!< packets the sinks received
    uint64_t droppedPackets{0}; //!< sum of drops (network and refused at the source)
    uint64_t hopPackets{0};     //!< transmissions onto links
    uint64_t events{0};         //!< simulator events executed
    /// Packets still inside the network when the run stopped (FabricLinkMonitor::
    /// GetInFlightPackets): 0 when it drained, the queued/on-the-wire ones after a stopAt.
    int64_t inFlightPackets{0};
    /// The same, counted where the packets are (FabricLinkMonitor::
    /// GetMeasuredInFlightPackets): differs from inFlightPackets only if a packet vanished.
    int64_t measuredInFlightPackets{0};
    double simSeconds{0};        //!< simulated time when the run ended (stopAt, if given)
    double lastPacketSeconds{0}; //!< when the last packet arrived or was dropped
    double wallSeconds{0};

    /**
     * sent - delivered - dropped - in flight (counted where the packets are): packets lost
     * without a reason, always 0 unless something is broken. Dropped packets (with their
     * reasons in drops) are the losses; packets in flight are neither lost nor delivered,
     * the run just stopped first.
     */
    int64_t Unaccounted() const
    {
        return int64_t(sentPackets) - int64_t(deliveredPackets) - int64_t(droppedPackets)
             - measuredInFlightPackets;
    }
};

/**
 * Run \p flows as constant-rate UDP on \p net until every packet is delivered or dropped
 * (or until \p stopAt if positive), then destroy the simulator.
 * \param rateBps per-flow on-wire rate
 * \param packetSize UDP payload bytes per packet
 * \param hook called after install, before Simulator::Run, with the network and the
 *        applications (FabricTrafficHelper::GetApplications: a PacketSink per host, then a
 *        UdpFlowSender per flow)
 * \throws std::invalid_argument if the time resolution is too coarse for the fastest link
 *         (CheckNetworkSerializationResolution with \p packetSize + 30 bytes of headers;
 *         call Time::SetResolution(Time::PS) before building the network)
 */
FabricUdpRunResult RunFabricUdp(Ptr<FabricNetwork> net,
                                const std::vector<FlowSpec>& flows,
                                const std::vector<double>& rateBps,
                                uint32_t packetSize,
                                Time stopAt = Time(0),
                                const FabricRunHook& hook = nullptr);

} // namespace ns3

#endif // FABRIC_UDP_RUN_H
