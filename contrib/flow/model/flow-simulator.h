// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_SIMULATOR_H
#define FLOW_SIMULATOR_H

#include "ns3/data-rate.h"
#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-state.h"
#include "ns3/flow-path-ids.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/traffic-pattern.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * A timed change of the fabric for the flow level: the physical state changes at \c timeS
 * (capacity goes to zero or comes back at once); the routing view learns of it
 * FlowSimulator::RerouteDelay later.
 */
struct FlowSimLinkEvent
{
    /// What happens.
    enum class Kind : uint8_t
    {
        FAIL_LINK,   //!< both directions of link \c id fail
        REPAIR_LINK, //!< both directions of link \c id are repaired
        FAIL_NODE,   //!< node \c id fails
        REPAIR_NODE  //!< node \c id is repaired
    };

    double timeS{0}; //!< when, in seconds
    Kind kind{Kind::FAIL_LINK};
    uint32_t id{0}; //!< link id or node id
};

/**
 * \ingroup flow
 * What one flow did at the flow level, in the packet level's terms (RoceFlowRecord): the
 * start, the completion at the sender (last byte acknowledged), the ideal FCT of the same
 * definition, the path.
 *
 * idealS, baseRttS and lineBps are those of one path: the one the flow is first routed on
 * (at its start, or at the first reroute that finds it a route); later reroutes change the
 * path, not them. They are NaN while the flow has had no route (and stay NaN if it never
 * gets one).
 */
struct FlowSimRecord
{
    FlowSimRecord() = default;

    /// The record of a flow not started yet. (A constructor of its own: value-initializing
    /// a record, as a vector's emplace_back() does, zeroed all of it first, path storage
    /// included.)
    explicit FlowSimRecord(const FlowSpec& s)
        : spec(s)
    {
    }

    FlowSpec spec;
    bool started{false};
    bool complete{false};
    double startS{0};     //!< when the flow started
    double finishS{0};    //!< when its last byte was acknowledged (fluid end + path tail)
    double idealS{0};     //!< wire bytes / bottleneck rate + base RTT, first packet counted once
    double baseRttS{0};   //!< the path's round trip for one data packet and its ACK
    double lineBps{0};    //!< slowest link of the path
    double wireBytes{0};  //!< payload plus per-packet headers
    double stalledS{0};   //!< time spent started, not done and at rate zero
    uint32_t reroutes{0}; //!< path changes after the start
    FlowPathIds path;     //!< node ids, source to destination (the hashed path)
    FlowPathIds dirLinks; //!< directed links of that path

    double FctSeconds() const { return complete ? finishS - startS : -1; }
    double Slowdown() const { return complete && idealS > 0 ? FctSeconds() / idealS : -1; }
};

/**
 * \ingroup flow
 * What one directed link carried at the flow level.
 */
struct FlowSimLinkRecord
{
    FlowSimLinkRecord() = default;

    /// A record whose bins are allocated from \p bins (the simulator's arena).
    explicit FlowSimLinkRecord(std::pmr::memory_resource* bins)
        : binBytes(bins)
    {
    }

    double bytes{0};       //!< wire bytes carried
    double capacityBps{0}; //!< nominal rate
    /// Wire bytes per utilization bin (if enabled). Allocated through the simulator's
    /// FlowSimulator::BinArena (its first block from chunks the simulator owns); a copy of the
    /// record allocates its own, as a std::vector would.
    std::pmr::vector<double> binBytes;
};

/**
 * \ingroup flow
 * Counters of a run.
 */
struct FlowSimStats
{
    uint64_t events{0};          //!< events processed
    uint64_t instants{0};        //!< distinct instants (one rate recomputation at most each)
    uint64_t recomputations{0};  //!< water-filling runs (one per affected component)
    uint64_t flowsRecomputed{0}; //!< flows whose rates were recomputed, summed over runs
    uint64_t rateChanges{0};     //!< times a sending flow's rate actually changed
    uint64_t localFallbacks{0};  //!< batches the verified local recomputation handed over
    /// Departure-only batches (Incremental) whose allocation was kept as it stood, with no
    /// water-filling: every flow they concern still had its cap or a bottleneck.
    uint64_t keptBatches{0};
    /// Departure-only batches on which that check ran and failed (water-filling followed);
    /// batches it skipped in its back-off after a failure are in neither counter.
    uint64_t keptRejected{0};
    /// Completions put on the event heap instead of the sorted run of completions, because
    /// their insertion would have moved more than the shift limit's pending ones
    /// (FlowSimulator::SetMaxTailShift): a completion far ahead of those already pending.
    uint64_t tailsToHeap{0};
    /// Times the sorted run of completions dropped the entries already taken without being
    /// empty (at least 1024 taken, and at least half of the run).
    uint64_t tailCompactions{0};
    /// Fluid ends put on the heap of ends (FluidEndQueue) because they came before the last
    /// entry of its sorted run (set out of completion order; in order they cost no sifting).
    /// A flow whose end is on the heap stays there when its end changes.
    uint64_t endsToHeap{0};
    /// Times the sorted run of fluid ends moved its live entries down, over dead entries (ends
    /// changed out of place or cleared: a rate change, a departure, a reroute, a link down)
    /// when those outnumber them, or over the entries already taken when those are most of it.
    uint64_t endRunCompactions{0};
    uint32_t peakActive{0}; //!< most flows sending at once
    /// When the run ended: the last completion if every flow completed (link events after
    /// it are not processed), else \c stopS if events were left, else the last event.
    double endS{0};
    double wallSeconds{0};
};

/**
 * \ingroup flow
 * The flow-level twin of a packet-level run: the same FabricGraph, the same routing object
 * (so a flow's path is the one its packets take), the same FlowSpec lists, and no ns-3
 * simulator inside (a plain event loop over its own clock).
 *
 * Model. A flow is a fluid of wire bytes (payload plus HeaderBytes per PacketPayload-byte
 * packet) that starts at its time, or when the flows it depends on completed ('after',
 * phases, AddDependency: startS is then a delay, as in RoceTrafficHelper). Sending flows
 * share every directed link max-min fairly (exact water-filling, MaxMinFairRates), optionally
 * capped by a NIC rate and a DCQCN-like ramp. Rates are recomputed once per instant, only in
 * the connected components (flows linked by shared links) that an event touched. A flow's
 * fluid ends when its bytes are sent; it completes a path tail later (base RTT minus one
 * packet's serialization), so an uncontended flow's FCT equals the packet level's ideal FCT.
 *
 * Dynamics. Link and node events change the physical state at their time (flows crossing a
 * dead link stall at rate zero) and the routing view RerouteDelay later; then every sending
 * flow asks the routing object for its path again (a flow with no route stalls).
 */
class FlowSimulator final : public Object
{
  public:
    static TypeId GetTypeId();
    FlowSimulator();
    ~FlowSimulator() override;
    /// Always FlowSimulator's TypeId (the class is final), also when made by
    /// CreateWithAttributes, which does not go through ObjectFactory.
    TypeId GetInstanceTypeId() const override;

    /**
     * A FlowSimulator with the values of \p attributes (validated, as ObjectFactory::Set
     * adds them) and every other attribute at its initial value (Config::SetDefault
     * included): the values ObjectFactory::Create would set, in the same order, without
     * ns-3's generic construction (ObjectBase::ConstructSelf also turns every value into a
     * string and looks each attribute's full name up in the environment: about 100 k
     * instructions per object, more than a small run's rate computation). When the
     * NS_ATTRIBUTE_DEFAULT environment variable is set, ObjectFactory::Create is used, so
     * that its defaults apply exactly as they do there. Differences from ConstructSelf, none of
     * which arises through FlowSimHelper: an entry of \p attributes that is not settable at
     * construction is ignored (ns-3 aborts), a value its attribute refuses aborts (ns-3 ignores
     * it), and the environment variable is read at each call (ns-3 reads it once per process).
     */
    static Ptr<FlowSimulator> CreateWithAttributes(const AttributeConstructionList& attributes);

    /**
     * Route over \p routing (bound to its graph). The simulator keeps a physical state of
     * its own and, when link events are given, drives the routing's view during Run: the
     * routing decides from a view of the simulator's (SetView), a copy of its own view at the
     * start that learns each event RerouteDelay late. When Run returns (or throws), the
     * routing has the view it had before back, unchanged by the run, so the same routing
     * object can route another run.
     * \throws std::invalid_argument if the routing has no graph
     */
    void SetRouting(Ptr<FabricRouting> routing);

    /**
     * Add flows (ids unique across calls), checked one by one: when a flow is refused,
     * the flows before it in \p flows stay added and the ones after it are not.
     * \throws std::invalid_argument like RoceTrafficHelper::Install: endpoints that are not
     *         distinct hosts, zero bytes, duplicate ids (unknown 'after' ids are reported
     *         by Run)
     */
    void AddFlows(const std::vector<FlowSpec>& flows);

    /**
     * Flow \p flowId starts only after flow \p predecessorId completed (in addition to its
     * 'after' and phase conditions).
     * \throws std::invalid_argument on an unknown id
     */
    void AddDependency(uint32_t flowId, uint32_t predecessorId);

    /// A timed fail/repair event. \throws std::invalid_argument on an id out of range
    void AddLinkEvent(const FlowSimLinkEvent& event);

    /**
     * Run until every flow completed, nothing can progress, or \p stopS. The run ends at the
     * last completion even when link events are still pending (they could change no flow).
     * \throws std::invalid_argument on a dependency cycle or more than 2^31 - 1 flows;
     * std::logic_error if called twice
     */
    void Run(double stopS = std::numeric_limits<double>::infinity());

    const std::vector<FlowSimRecord>& GetRecords() const { return m_records; }
    const std::vector<FlowSimLinkRecord>& GetLinks() const { return m_links; }
    const FlowSimStats& GetStats() const { return m_stats; }
    /// Utilization bin in seconds (0: no series).
    double GetBinSeconds() const { return m_bin.GetSeconds(); }
    /// Capacity of a directed link (bit/s) as the simulator uses it.
    double GetCapacityBps(uint32_t dirLink) const;
    /// Current rate of a flow (bit/s of wire bytes), for tests and traces.
    double GetRateBps(uint32_t flowIndex) const;

    /**
     * For tests: from the next Run of any simulator on, a completion whose insertion into the
     * sorted run of pending completions would move more than \p n of them goes to the event
     * heap instead (FlowSimStats::tailsToHeap). The order of events, and so every result, is
     * the same for every \p n; only the work differs. Process-wide, not thread-safe.
     * \return the previous limit (the default is 32)
     */
    static uint32_t SetMaxTailShift(uint32_t n);

    /// Signature of the FlowComplete trace: flow index, FCT in seconds.
    typedef void (*FlowCompleteTracedCallback)(uint32_t flow, double fctS);

  private:
    struct Impl;
    void DoDispose() override;

    DataRate m_defaultRate;
    Time m_linkDelay;
    uint32_t m_payload;
    uint32_t m_header;
    uint32_t m_ackBytes;
    DataRate m_nicRate;
    bool m_ramp;
    double m_rampInitial;
    Time m_rampStep;
    bool m_fluidSplit;
    Time m_rerouteDelay;
    Time m_bin;
    Time m_recomputeInterval;
    bool m_incremental;
    uint32_t m_maxHops;

    Ptr<FabricRouting> m_routing;
    std::vector<FlowSimRecord> m_records;
    /**
     * Storage of the links' utilization bins: a link's first block (up to BinArena::SMALL
     * bytes) from chunks the simulator owns (a malloc per used link cost a small run about a
     * tenth of its time), larger blocks from the heap as a std::vector's. Every link's bins
     * grow together as time passes, so an arena for all of them would keep every outgrown
     * block (+178 MiB of peak RSS on the 16k-GPU AllReduce of bench-flow, 10 us bins).
     */
    class BinArena : public std::pmr::memory_resource
    {
      public:
        static constexpr std::size_t SMALL = 32 * sizeof(double); //!< bytes from the chunks

      private:
        void* do_allocate(std::size_t bytes, std::size_t align) override;
        void do_deallocate(void* p, std::size_t bytes, std::size_t align) override;
        bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override;

        std::pmr::monotonic_buffer_resource m_small{16384};
    };

    /// The links' utilization bins (declared before m_links: it outlives their vectors).
    BinArena m_binArena;
    std::vector<FlowSimLinkRecord> m_links;
    FlowSimStats m_stats;
    std::unique_ptr<Impl> m_impl;
    TracedCallback<uint32_t, double> m_completeTrace;
};

} // namespace ns3

#endif // FLOW_SIMULATOR_H
