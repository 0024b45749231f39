// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_NETWORK_H
#define PFC_NETWORK_H

#include "ns3/event-id.h"
#include "ns3/fabric-network.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/pfc-dependency.h"
#include "ns3/pfc-queue.h"
#include "ns3/pfc-switch.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup roce
 * A cycle in a directed graph: the indices into \p edges (pairs tail -> head over nodes
 * 0..nNodes-1) of one directed cycle, in order, or empty if the graph has none. Depth-first
 * search (Boost.Graph); a self-loop is a cycle of one edge.
 */
std::vector<uint32_t> FindDirectedCycle(uint32_t nNodes,
                                        const std::vector<std::pair<uint32_t, uint32_t>>& edges);

/**
 * \ingroup roce
 * The lossless domain of a FabricNetwork: a PfcSwitch on every switch, PfcQueue pause state
 * on every port, and the detectors that production switches offer.
 *
 * - Pause storm: a port's data class paused without a break for longer than StormTime;
 *   reported once per pause episode with the directed link, then the WatchdogPolicy acts:
 *   none (report only), drop (drop what waits in the paused class, reason pfc-watchdog, and
 *   ignore pauses on that port from then on), ignore (ignore pauses on that port from then
 *   on: the port sends again and the downstream headroom may overflow).
 * - Deadlock: a cycle of the buffer dependency graph (PfcBufferDependencies) among switch
 *   queues whose data class has been paused without a break for DeadlockTime while holding
 *   packets: each link of the cycle enters a port kept in XOFF by the bytes waiting in the
 *   next one, so none can resume; reported once with the links of the cycle; StopOnDeadlock
 *   ends the run there. A link merely paused both ways is no deadlock.
 *
 * The checks run every CheckInterval only while some port is paused, so a run still ends on
 * its own when its traffic does.
 */
class PfcNetwork : public Object
{
  public:
    static TypeId GetTypeId();
    PfcNetwork();
    ~PfcNetwork() override;

    enum WatchdogPolicy
    {
        WATCHDOG_NONE,
        WATCHDOG_DROP,
        WATCHDOG_IGNORE
    };

    /**
     * Install PFC on every switch of \p net with PfcSwitches made by \p switchFactory; every
     * device must use a PfcQueue (FabricNetworkHelper::SetQueueType("ns3::PfcQueue")). Host
     * queues are not gated: their RoceNic stops the paused class.
     */
    void Install(Ptr<FabricNetwork> net, const ObjectFactory& switchFactory);

    Ptr<PfcSwitch> GetSwitch(uint32_t fabricNode) const;
    /**
     * Pause the data class of directed link \p dirLink (its sender's egress queue) for
     * \p window from now, as a pause frame of that length would, then resume and restart the
     * device (a planned stop of one link's sender; the OCS pause policy holds its frames at the
     * EG instead, see OcsFabric). A host's NIC stops its queue pairs for the window.
     * \throws std::invalid_argument if \p dirLink does not exist or \p window is not positive
     */
    void PauseDirLink(uint32_t dirLink, Time window);
    /// The egress queue of a directed link.
    Ptr<PfcQueue> GetQueue(uint32_t dirLink) const { return m_queues[dirLink]; }

    struct PauseEvent
    {
        double t;         //!< seconds
        uint32_t dirLink; //!< the paused directed link (its sender's egress)
        bool paused;
    };

    struct DeadlockReport
    {
        double t;
        std::vector<uint32_t> dirLinks; //!< the cycle
        std::vector<std::string> labels;
    };

    struct StormReport
    {
        double t;
        uint32_t dirLink;
        std::string label;
        double pausedSeconds; //!< how long it had been paused when detected
    };

    /// Pause frames sent by all switches (XOFF, refresh and XON).
    uint64_t GetPauseFrames() const;
    /// XOFF events (pause episodes started) seen by all queues.
    uint64_t GetPauseEpisodes() const;
    uint64_t GetHeadroomDrops() const;
    /// Pause frames of all switches lost on links that were down (PfcSwitch::GetLostPauseFrames).
    uint64_t GetLostPauseFrames() const;
    uint64_t GetWatchdogDrops() const { return m_watchdogDrops; }
    /// How long \p dirLink's data class has been paused in all, up to now (seconds).
    double GetPausedSeconds(uint32_t dirLink) const;
    const std::vector<PauseEvent>& GetPauseEvents() const { return m_events; }
    const std::vector<DeadlockReport>& GetDeadlocks() const { return m_deadlocks; }
    const std::vector<StormReport>& GetStorms() const { return m_storms; }
    uint32_t GetNDirLinks() const { return m_queues.size(); }

    typedef void (*DeadlockTracedCallback)(const std::vector<uint32_t>& dirLinks);
    typedef void (*StormTracedCallback)(uint32_t dirLink, Time pausedFor);

  protected:
    void DoDispose() override;

  private:
    void PauseChanged(uint32_t dirLink, uint8_t cls, bool paused);
    void Check();

    Ptr<FabricNetwork> m_net;
    std::vector<Ptr<PfcSwitch>> m_switches; //!< by fabric node (null for hosts)
    std::vector<Ptr<PfcQueue>> m_queues;    //!< by directed link
    std::vector<bool> m_stormReported;      //!< for the current pause episode
    std::vector<PauseEvent> m_events;
    std::vector<DeadlockReport> m_deadlocks;
    std::vector<StormReport> m_storms;
    uint32_t m_nPaused{0};
    uint64_t m_watchdogDrops{0};
    EventId m_check;
    /// False once this object is disposed or destroyed: the queues' PauseState callbacks hold
    /// it, so a pause after the PfcNetwork is gone is ignored instead of reaching freed memory.
    std::shared_ptr<bool> m_alive{std::make_shared<bool>(true)};
    Time m_checkInterval;
    Time m_deadlockTime;
    Time m_stormTime;
    WatchdogPolicy m_policy{WATCHDOG_NONE};
    bool m_stopOnDeadlock{false};
    bool m_recordEvents{true};
    TracedCallback<const std::vector<uint32_t>&> m_deadlockTrace;
    TracedCallback<uint32_t, Time> m_stormTrace;
};

} // namespace ns3

#endif // PFC_NETWORK_H
