// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_SWITCH_H
#define OCS_SWITCH_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ocs-net
 * One optical circuit switch: Radix N half-ports (light enters from the TX half of an EG port)
 * and Radix S half-ports (light leaves into the RX half of an EG port). A circuit joins N
 * half-port n to S half-port s; light goes one way, N to S. The switch knows nothing of
 * packets: OcsFibreChannel asks it (through OcsFabric) whether a direction carries light.
 *
 * A circuit is *ready* when it is joined and its receiving transceiver has locked
 * (restoration). Reconfigure(newJoin) runs in three steps:
 *  1. now: every N half-port whose join changes goes dark (its circuit is torn down); the
 *     unchanged circuits stay ready throughout;
 *  2. after SwitchingDelay: the new circuits carry light, not yet ready;
 *  3. after RestorationDelay more: the new circuits are ready.
 * The JoinChanged callback hears every N half-port whose state changed, at each step.
 *
 * Trace sources: ReconfigurationStart (number of changed circuits), ReconfigurationEnd
 * (when step 3 completes).
 */
class OcsSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    OcsSwitch();

    /// No join (a dark N half-port).
    static constexpr uint32_t NONE = UINT32_MAX;

    /**
     * Set the number of half-ports per side, every one dark.
     * \throws std::invalid_argument if \p radix is 0 or above 65536
     */
    void SetRadix(uint32_t radix);
    uint32_t GetRadix() const { return static_cast<uint32_t>(m_join.size()); }
    /// Index of this OCS in its cluster (for traces and messages).
    void SetIndex(uint32_t index) { m_index = index; }
    uint32_t GetIndex() const { return m_index; }

    /// S half-port N half-port \p n is joined to now, or NONE (dark or switching).
    uint32_t GetJoin(uint32_t n) const;
    /// Whether the circuit from \p n is joined and restored (carries frames).
    bool IsReady(uint32_t n) const;
    /// Whether a reconfiguration is under way (between steps 1 and 3).
    bool IsReconfiguring() const { return m_reconfiguring; }

    /**
     * Set every join at once, ready, with no delay (the configuration at time 0).
     * \param join N half-port -> S half-port or NONE, Radix entries, no S used twice
     * \throws std::invalid_argument on a wrong size, an S out of range or used twice;
     *         std::logic_error while reconfiguring
     */
    void SetJoins(const std::vector<uint32_t>& join);

    /**
     * Start a reconfiguration to \p join (see the class description).
     * \return the number of N half-ports whose join changes (0: nothing happens, no trace)
     * \throws as SetJoins
     */
    uint32_t Reconfigure(const std::vector<uint32_t>& join);

    Time GetSwitchingDelay() const { return m_switchingDelay; }
    Time GetRestorationDelay() const { return m_restorationDelay; }

    /// Called with the N half-port whose join or readiness changed.
    void SetJoinChangedCallback(Callback<void, uint32_t> cb) { m_joinChanged = cb; }
    /**
     * Called with true before and false after each group of join changes made in one instant
     * (SetJoins, the tear-down of Reconfigure, the end of switching, the end of restoration),
     * so that a listener can react once per group (OcsFabric: one routing rebuild).
     */
    void SetJoinBatchCallback(Callback<void, bool> cb) { m_joinBatch = cb; }

    typedef void (*ReconfigurationStartTracedCallback)(uint32_t ocs, uint32_t changed);
    typedef void (*ReconfigurationEndTracedCallback)(uint32_t ocs);

  protected:
    void DoDispose() override;

  private:
    void CheckJoins(const std::vector<uint32_t>& join) const;
    void EndSwitching();
    void EndRestoration();
    /// m_joinBatch(begin) if set.
    void Batch(bool begin) const;

    std::vector<uint32_t> m_join;    //!< N -> S now (NONE: dark)
    std::vector<uint8_t> m_ready;    //!< per N: joined and restored
    std::vector<uint32_t> m_target;  //!< joins of the reconfiguration under way
    std::vector<uint32_t> m_changed; //!< N half-ports it changes
    bool m_reconfiguring{false};
    uint32_t m_index{0};
    Time m_switchingDelay;
    Time m_restorationDelay;
    EventId m_event;
    Callback<void, uint32_t> m_joinChanged;
    Callback<void, bool> m_joinBatch;
    TracedCallback<uint32_t, uint32_t> m_startTrace;
    TracedCallback<uint32_t> m_endTrace;
};

} // namespace ns3

#endif // OCS_SWITCH_H
