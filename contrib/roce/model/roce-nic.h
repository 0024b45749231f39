// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_NIC_H
#define ROCE_NIC_H

#include "ns3/event-id.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/point-to-point-net-device.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class PfcQueue;
class RoceSender;

/**
 * \ingroup roce
 * The transmit arbiter of a host's RDMA NIC: queue pairs do not push packets; the NIC pulls
 * one packet at a time, round-robin among the queue pairs of a port whose pacing
 * (rate-control) allows them to send now, and only while the port's device queue holds fewer
 * than DeviceQueuePackets packets. So a host with many queue pairs never overflows its own
 * NIC, and each queue pair gets at most its DCQCN rate and at least a fair share of the port.
 * ACK/NACK/CNP packets are sent directly and bypass the arbitration.
 *
 * In a lossless fabric (the port's device queue is a PfcQueue) the NIC honours PFC: while
 * the switch has paused the data class of a port, no queue pair of that port sends; control
 * packets (their own class) go on. A data packet already in the device queue
 * (DeviceQueuePackets) still leaves, which the switches' headroom accounts for.
 */
class RoceNic : public Object
{
  public:
    static TypeId GetTypeId();
    RoceNic();

    /// The NIC of \p node, created and aggregated on first use.
    static Ptr<RoceNic> Get(Ptr<Node> node);

    /// Add a queue pair on NIC port \p port (the node's device index).
    void Register(Ptr<RoceSender> qp, uint32_t port);
    void Unregister(Ptr<RoceSender> qp, uint32_t port);
    /// A queue pair of \p port may have become able to send.
    void Kick(uint32_t port);
    /// Line rate of \p port in bit/s.
    uint64_t GetPortRate(uint32_t port);

    /**
     * Make \p qp reachable for ACK/NACK/CNP packets carrying queue-pair number \p qpn
     * (they arrive at the host's RoceReceiver on UDP 4791, as in RoCEv2).
     * \return false if another queue pair of this host already has that number
     */
    bool BindQp(uint32_t qpn, Ptr<RoceSender> qp);
    /// The queue pair bound to \p qpn, or null.
    Ptr<RoceSender> FindQp(uint32_t qpn) const;

  protected:
    void DoDispose() override;

  private:
    struct Port
    {
        Ptr<PointToPointNetDevice> device;
        Ptr<PfcQueue> pfc; //!< the device queue in a lossless fabric, else null
        std::vector<Ptr<RoceSender>> qps;
        size_t next{0};
        bool pending{false};
        EventId wake;
        Time wakeAt;
    };

    Port& GetPort(uint32_t port);
    void TrySend(uint32_t port);

    Ptr<Node> m_node;
    uint32_t m_depth{1};
    std::vector<Port> m_ports;
    std::unordered_map<uint32_t, Ptr<RoceSender>> m_qps;
};

} // namespace ns3

#endif // ROCE_NIC_H
