// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_QUEUE_H
#define PFC_QUEUE_H

#include "ns3/event-id.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>

namespace ns3
{

/**
 * \ingroup roce
 * The egress queue of a port of a lossless (PFC, IEEE 802.1Qbb) fabric: a Queue<Packet> that
 * a PointToPointNetDevice uses as its device queue, with one FIFO per priority class and
 * strict priority of the control class over the data class. Classes are read from the IPv4
 * DSCP: DSCP >= ControlDscpMin is the control class (RoCE ACK/NACK/CNP), the rest data.
 *
 * A class can be paused (ReceivePause): Dequeue then skips it, so the device stops sending it
 * after the frame on the wire; when the device went idle with only paused packets and the
 * class resumes, the queue restarts the device (a kick: the head packet goes through the
 * device's Send once more, at the head of its class, so its MacTx trace fires at that time;
 * the Enqueue/Dequeue traces show one more pair for it). A packet for an idle device whose
 * class is paused must not go through the device's Send (the device would dequeue nothing):
 * PfcSwitch holds it with Hold() instead.
 *
 * Everything else is the base class's: byte and packet counters, BytesInQueue (which the ECN
 * marker and FabricLinkMonitor read), MaxSize drops (queue-overflow), Remove() used by the
 * link guard's flush.
 */
class PfcQueue : public Queue<Packet>
{
  public:
    static TypeId GetTypeId();
    PfcQueue();
    ~PfcQueue() override;

    static constexpr uint8_t DATA = 0;    //!< lossless data class (RoCE data)
    static constexpr uint8_t CONTROL = 1; //!< high-priority class (ACK/NACK/CNP)
    static constexpr uint8_t N_CLASSES = 2;
    static constexpr uint32_t NO_INGRESS = 0xffffffff;

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    /**
     * Take the packet Remove() would take out of this queue without running the leave
     * callback: the packet leaves the queue but stays in the switch's buffer, charged to its
     * ingress port, because a component of the switch keeps it (PfcSwitch::HoldQueued).
     * \param[out] ingress the ingress port the packet is charged to (NO_INGRESS: none)
     * \return the packet (with its PPP header), or null if the queue is empty
     */
    Ptr<Packet> RemoveKeepingCharge(uint32_t& ingress);
    Ptr<const Packet> Peek() const override;

    /// The class of an IPv4 packet (no PPP header) for DSCP threshold \p controlDscpMin.
    static uint8_t ClassOfIpv4(Ptr<const Packet> p, uint8_t controlDscpMin);
    /// The class of an IPv4 packet under this queue's ControlDscpMin.
    uint8_t ClassOf(Ptr<const Packet> ipv4) const { return ClassOfIpv4(ipv4, m_controlDscpMin); }

    /// The device this queue serves (needed to restart it after a pause).
    void SetDevice(Ptr<NetDevice> device) { m_device = device; }
    Ptr<NetDevice> GetDevice() const { return m_device; }

    /**
     * A pause frame for class \p cls arrived: stop the class for \p duration (Time::Max():
     * until a resume), or resume it now (\p duration zero). Ignored while IgnorePause is set.
     */
    void ReceivePause(uint8_t cls, Time duration);
    bool IsPaused(uint8_t cls) const { return m_paused[cls]; }
    /// Total time class \p cls was paused up to now.
    Time GetPausedTime(uint8_t cls) const;
    /// Since when class \p cls is paused (meaningful while IsPaused).
    Time GetPausedSince(uint8_t cls) const { return m_pausedSince[cls]; }
    /// Pause frames received for \p cls that paused it (resumes and refreshes not counted).
    uint64_t GetPauseCount(uint8_t cls) const { return m_pauseCount[cls]; }
    /// Ignore pause frames from now on (the watchdog's ignore policy); resumes every class.
    void SetIgnorePause(bool ignore);
    bool GetIgnorePause() const { return m_ignorePause; }

    /// Packets of class \p cls queued.
    uint32_t GetNPacketsOf(uint8_t cls) const { return m_fifo[cls].size(); }
    /// Whether the device went idle (its last Dequeue found nothing it could send).
    bool IsIdle() const { return m_idle; }
    /// Whether a packet of class \p cls would be sent now if the device asked.
    bool CanSend(uint8_t cls) const { return !m_gate || !m_paused[cls]; }

    /// Bytes (with the PPP header) of class \p cls queued here, by the ingress port they are
    /// charged to (index: port of this switch; packets without an ingress are not counted).
    const std::vector<uint64_t>& GetBytesByIngress(uint8_t cls) const
    {
        return m_bytesByIngress[cls];
    }

    /// The ingress port that the next enqueued packet is accounted to (PfcSwitch).
    void SetNextIngress(uint32_t port) { m_nextIngress = port; }
    /// Called when a packet accounted to an ingress port leaves this queue (sent or removed):
    /// ingress port, class, bytes (with the PPP header).
    using LeaveCallback = Callback<void, uint32_t, uint8_t, uint32_t>;
    void SetLeaveCallback(LeaveCallback cb) { m_leave = cb; }

    /**
     * Queue an IPv4 packet without the device's Send, for an idle device whose class is
     * paused: adds the PPP header as the device would. \return false if the queue is full
     */
    bool Hold(Ptr<Packet> ipv4);

    /// Drop every queued packet of class \p cls; \return the packets removed, for the caller
    /// to report (the watchdog's drop policy).
    std::vector<Ptr<Packet>> FlushClass(uint8_t cls);

    /// State change of a class: class, paused.
    typedef void (*PauseStateTracedCallback)(uint8_t cls, bool paused);

  protected:
    void DoDispose() override;

  private:
    struct Entry
    {
        ConstIterator it;
        uint32_t ingress;
    };

    /// The class Dequeue would serve now, or N_CLASSES.
    uint8_t NextClass() const;
    /// Head of \p cls out: dequeued (sent) or removed (dropped); the leave callback runs if
    /// \p leave (the packet leaves the switch's buffer). \p ingress: its ingress port.
    Ptr<Packet> Take(uint8_t cls, bool dequeue, bool leave = true, uint32_t* ingress = nullptr);
    void SetPaused(uint8_t cls, bool paused);
    void Kick();
    /// Charge (\p add) or discharge \p bytes of \p cls to \p ingress in m_bytesByIngress.
    void CountIngress(uint8_t cls, uint32_t ingress, uint32_t bytes, bool add);

    std::array<std::deque<Entry>, N_CLASSES> m_fifo;
    std::array<std::vector<uint64_t>, N_CLASSES> m_bytesByIngress;
    std::array<bool, N_CLASSES> m_paused{};
    std::array<Time, N_CLASSES> m_pausedSince;
    std::array<Time, N_CLASSES> m_pausedTotal;
    std::array<uint64_t, N_CLASSES> m_pauseCount{};
    std::array<EventId, N_CLASSES> m_expiry;
    Ptr<NetDevice> m_device;
    LeaveCallback m_leave;
    uint32_t m_nextIngress{NO_INGRESS};
    uint8_t m_controlDscpMin{32};
    bool m_gate{true};
    bool m_idle{true};
    bool m_ignorePause{false};
    bool m_kicking{false};
    uint32_t m_kickIngress{NO_INGRESS};
    TracedCallback<uint8_t, bool> m_pauseTrace;
};

} // namespace ns3

#endif // PFC_QUEUE_H
