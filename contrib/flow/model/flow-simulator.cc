// SPDX-License-Identifier: GPL-2.0-only
#include "flow-simulator.h"

#include "append-run.h"
#include "fluid-end-queue.h"
#include "max-min-fair.h"

#include "ns3/attribute-construction.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/link-load.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <queue>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowSimulator");
NS_OBJECT_ENSURE_REGISTERED(FlowSimulator);

namespace
{

constexpr double INF = std::numeric_limits<double>::infinity();

/// Pending completions a new one may move in the sorted run (FlowSimulator::SetMaxTailShift).
uint32_t g_maxTailShift = 32;

enum class FlowPhase : uint8_t
{
    WAITING, //!< start conditions not met yet
    SENDING, //!< fluid on the wire (possibly stalled at rate zero)
    TAIL,    //!< every byte sent, the last ACK not back yet
    DONE
};

enum class EventType : uint8_t
{
    START,
    FLUID_END,
    COMPLETE,
    PHYSICAL,
    VIEW,
    RAMP,
    RECOMPUTE
};

/**
 * An event of the run. Made in place from its members where it is stored (emplace_back,
 * AppendRun::Append): GCC 12 built a braced temporary on the stack with one store per member
 * and copied it with 16-byte loads, which cannot be forwarded from narrower stores still in
 * flight (a stall of a dozen cycles per event, in the few places events are made by the
 * thousand).
 */
struct Event
{
    Event() = default; // (members left unset: Peek writes an event before it is read)

    Event(double time, uint64_t order, EventType kind, uint32_t first, uint32_t second)
        : t(time),
          seq(order),
          type(kind),
          a(first),
          b(second)
    {
    }

    double t;
    uint64_t seq; //!< insertion order: ties at one instant are processed deterministically
    EventType type;
    uint32_t a;
    uint32_t b;

    bool operator>(const Event& o) const { return t > o.t || (t == o.t && seq > o.seq); }
};

/**
 * Storage for the flow lists of busy links (FlowIdList beyond its ids in place): blocks cut
 * from chunks that never move and live as long as the simulator. A list that outgrows its
 * block takes a new one twice as large and leaves the old one unused (lists never shrink; the
 * blocks a list left behind add up to less than its current one): a run of 240 flows used to
 * call operator new[] for some 50 links, one at a time.
 */
class IdPool
{
  public:
    /// \p n ids of uninitialized storage.
    uint32_t* Take(uint32_t n)
    {
        if (m_used + n > m_size)
        {
            m_size = std::max<size_t>(n, std::min<size_t>(2 * m_size + 2048, 1u << 18));
            m_chunks.emplace_back(new uint32_t[m_size]);
            m_used = 0;
        }
        uint32_t* p = m_chunks.back().get() + m_used;
        m_used += n;
        return p;
    }

  private:
    std::vector<std::unique_ptr<uint32_t[]>> m_chunks;
    size_t m_used{0};
    size_t m_size{0};
};

/**
 * The ids of the flows on one link: up to N of them stored in place (in the link's own cache
 * line, where the scans of the rate recomputation find them without a second miss), more in
 * an IdPool. Order is kept as a std::vector's would be (push_back, swap with the last on
 * removal), so sums over a link run in the same order.
 */
template<uint32_t N>
class FlowIdList
{
  public:
    FlowIdList() = default;
    FlowIdList(const FlowIdList&) = delete;
    FlowIdList& operator=(const FlowIdList&) = delete;

    FlowIdList(FlowIdList&& o) noexcept
        : m_size(o.m_size),
          m_capacity(o.m_capacity)
    {
        std::memcpy(&m_ids, &o.m_ids, sizeof(m_ids)); // the ids in place or the pool pointer
        o.m_size = 0;
        o.m_capacity = N;
    }

    uint32_t* begin() { return m_capacity > N ? m_ids.heap : m_ids.inl; }
    uint32_t* end() { return begin() + m_size; }
    const uint32_t* begin() const { return m_capacity > N ? m_ids.heap : m_ids.inl; }
    const uint32_t* end() const { return begin() + m_size; }
    uint32_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    uint32_t operator[](size_t i) const { return begin()[i]; }
    uint32_t& operator[](size_t i) { return begin()[i]; }
    uint32_t back() const { return begin()[m_size - 1]; }
    void pop_back() { --m_size; }

    /// Append \p f; beyond N ids the list lives in \p pool (which must outlive it).
    void push_back(uint32_t f, IdPool& pool)
    {
        if (m_size == m_capacity)
        {
            // The first spill makes room for 32 (links that spill usually keep growing).
            const uint32_t room = m_capacity > N ? 2 * m_capacity : std::max<uint32_t>(32, 2 * N);
            uint32_t* grown = pool.Take(room);
            std::copy(begin(), end(), grown);
            m_ids.heap = grown;
            m_capacity = room;
        }
        begin()[m_size++] = f;
    }

  private:
    static_assert(N * sizeof(uint32_t) >= sizeof(uint32_t*), "room for the heap pointer");
    uint32_t m_size{0};
    uint32_t m_capacity{N}; //!< > N: the ids are on the heap
    union
    {
        uint32_t inl[N];
        uint32_t* heap;
    } m_ids;
};

/**
 * Gives a routing object back the view it decided from when the restorer was made, when the
 * restorer goes (at the end of a run, also when the run throws): a run with link events
 * drives a view of its own, which ends in the last event's state, and a routing object left
 * on it would route a later run around links that are up.
 */
class ViewRestorer
{
  public:
    explicit ViewRestorer(FabricRouting& routing)
        : m_routing(routing),
          m_view(routing.GetView())
    {
    }

    ViewRestorer(const ViewRestorer&) = delete;
    ViewRestorer& operator=(const ViewRestorer&) = delete;

    ~ViewRestorer() { m_routing.SetView(m_view); }

  private:
    FabricRouting& m_routing;
    std::shared_ptr<FabricState> m_view;
};

/// (directed link, weight): a flow's share on one link.
using LinkShare = std::pair<uint32_t, double>;

/// A flow's links: a run of entries in the simulator's link arena (LinkArena).
struct LinkSpan
{
    const LinkShare* data{nullptr};
    uint32_t n{0};

    const LinkShare* begin() const { return data; }
    const LinkShare* end() const { return data + n; }
    uint32_t size() const { return n; }
    bool empty() const { return n == 0; }
    void clear() { n = 0; }

    bool operator==(const std::vector<LinkShare>& v) const
    {
        return v.size() == n && std::equal(v.begin(), v.end(), data);
    }
};

/**
 * Storage of every flow's link list, in chunks that never move (so a LinkSpan stays valid)
 * and grow geometrically: one allocation per chunk instead of one vector per flow (a small
 * run spent much of its time in malloc and free for these). A reroute stores the new list
 * and leaves the old one unused until the run ends. Chunks are raw storage, entries
 * constructed as they are stored: a chunk's unused tail is never written (zeroing it wrote
 * up to three times the used size into fresh memory on a process's first run).
 */
class LinkArena
{
  public:
    LinkSpan Store(const std::vector<LinkShare>& v)
    {
        if (v.empty())
        {
            return {};
        }
        if (m_used + v.size() > m_size)
        {
            m_size = std::max<size_t>(v.size(), std::min<size_t>(2 * m_size + 1024, 1u << 18));
            m_chunks.emplace_back(std::allocator<LinkShare>().allocate(m_size), Free{m_size});
            m_used = 0;
        }
        LinkShare* p = m_chunks.back().get() + m_used;
        // Member by member: the list was just written so, and a copy of whole pairs (16-byte
        // loads) would wait for those narrower stores to complete instead of forwarding them.
        for (size_t i = 0; i < v.size(); ++i)
        {
            ::new (static_cast<void*>(p + i)) LinkShare(v[i].first, v[i].second);
        }
        m_used += v.size();
        m_stored += v.size();
        m_maxSpan = std::max<size_t>(m_maxSpan, v.size());
        return {p, static_cast<uint32_t>(v.size())};
    }

    /// The longest list stored so far (a bound to size per-flow link lists with).
    size_t MaxSpan() const { return m_maxSpan; }

    /// Entries stored so far, over every list (a bound on the links of any set of flows).
    size_t Stored() const { return m_stored; }

  private:
    static_assert(std::is_trivially_destructible_v<LinkShare>,
                  "chunks are released without destroying their entries");

    /// Releases a chunk's storage (its entries need no destruction).
    struct Free
    {
        size_t n;

        void operator()(LinkShare* p) const { std::allocator<LinkShare>().deallocate(p, n); }
    };

    std::vector<std::unique_ptr<LinkShare[], Free>> m_chunks;
    size_t m_used{0};
    size_t m_size{0};
    size_t m_maxSpan{0};
    size_t m_stored{0};
};

/**
 * Flow id -> flow index. Ids below a bound that follows the number of flows (the usual case:
 * ids 0, 1, 2, ...) sit in a plain array, others in a hash map; either way one lookup.
 */
class FlowIdIndex
{
  public:
    static constexpr uint32_t NONE = UINT32_MAX;

    /// Room for ids up to about twice \p flows in the array.
    void Reserve(size_t flows)
    {
        const size_t limit = 2 * flows + 64; // (every entry is written: a run pays for its size)
        if (limit > m_dense.size())
        {
            m_dense.resize(limit, NONE);
            for (auto it = m_sparse.begin(); it != m_sparse.end();)
            {
                if (it->first < m_dense.size())
                {
                    m_dense[it->first] = it->second;
                    it = m_sparse.erase(it);
                }
                else
                {
                    ++it;
                }
            }
        }
    }

    /// False if \p id is known already.
    bool Insert(uint32_t id, uint32_t index)
    {
        if (id < m_dense.size())
        {
            if (m_dense[id] != NONE)
            {
                return false;
            }
            m_dense[id] = index;
            return true;
        }
        return m_sparse.emplace(id, index).second;
    }

    /// The index of \p id, or NONE.
    uint32_t Find(uint64_t id) const
    {
        if (id < m_dense.size())
        {
            return m_dense[id];
        }
        if (id > UINT32_MAX)
        {
            return NONE;
        }
        auto it = m_sparse.find(static_cast<uint32_t>(id));
        return it == m_sparse.end() ? NONE : it->second;
    }

  private:
    std::vector<uint32_t> m_dense;
    std::unordered_map<uint32_t, uint32_t> m_sparse;
};

/**
 * Ids (flows or links) for the recomputation's scratch lists: reserved up front for the
 * most they can hold, push_back inline (std::vector's stayed an out-of-line call in these
 * loops, once per id).
 */
class IdScratch
{
  public:
    void reserve(size_t n)
    {
        if (n > m_cap)
        {
            Grow(n);
        }
    }

    void push_back(uint32_t id)
    {
        if (m_size == m_cap)
        {
            Grow(2 * m_cap + 16);
        }
        m_data[m_size++] = id;
    }

    void clear() { m_size = 0; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const uint32_t* begin() const { return m_data.get(); }
    const uint32_t* end() const { return m_data.get() + m_size; }
    uint32_t operator[](size_t i) const { return m_data[i]; }

  private:
    [[gnu::noinline]] void Grow(size_t n)
    {
        // Not value-initialized: reserved pages stay untouched until used (peak RSS).
        std::unique_ptr<uint32_t[]> grown(new uint32_t[n]);
        std::copy(begin(), end(), grown.get());
        m_data = std::move(grown);
        m_cap = n;
    }

    std::unique_ptr<uint32_t[]> m_data;
    size_t m_size{0};
    size_t m_cap{0};
};

} // namespace

struct FlowSimulator::Impl
{
    /// What only a flow's own events read (its links, progress, timers).
    struct Flow
    {
        LinkSpan links;      //!< (directed link, weight), in Impl::linkArena
        double remaining{0}; //!< wire bytes not sent yet
        double lastT{0};     //!< when remaining was last brought up to date
        double tail{0};      //!< seconds from the fluid's end to completion
        double line{0};      //!< the flow's own rate limit (path bottleneck, NIC)
        double rampCap{INF};
        double stallSince{-1};
        uint32_t version{0};
        uint32_t waiting{0};
        bool rampPending{false};
    };

    /// What the rate recomputation reads of every flow on a link it scans, packed in half a
    /// cache line (the scans visit flows in random order: one miss per flow, not three).
    struct alignas(32) Hot
    {
        double rate{0};    //!< bit/s of wire bytes
        double cand{0};    //!< local recomputation: candidate rate (valid if inS is current)
        uint32_t inS{0};   //!< local recomputation: == its stamp while the flow is in S
        uint32_t check{0}; //!< local recomputation: == the check round's stamp when listed
        uint32_t hint{UINT32_MAX}; //!< local check: the link last found to be its bottleneck
        bool fresh{false};  //!< (re)attached since the last recomputation: rate not valid yet
        bool routed{false}; //!< has links (Flow::links not empty)
        FlowPhase phase{FlowPhase::WAITING};
    };

    static_assert(sizeof(Hot) == 32, "a flow's recomputation data fills half a cache line");

    /// What the rate recomputation reads of a directed link, in one cache line with the ids
    /// of its first 6 flows.
    struct alignas(64) Link
    {
        double cap{0};        //!< usable capacity now (0 while the link is down)
        double statLoad{0};   //!< local check: load under the candidate rates
        double statMax{0};    //!< local check: fastest flow under the candidate rates
        uint32_t mark{0};     //!< stamp of the recomputation step that visited it
        uint32_t statMark{0}; //!< == the check round's stamp when statLoad/statMax are current
        FlowIdList<6> flows;  //!< sending flows
    };
    static_assert(sizeof(Link) == 64, "a link's recomputation data fills one cache line");

    /// A link's byte accounting, integrated on every rate change of one of its flows. The
    /// utilization bin being filled is kept here and stored in FlowSimLinkRecord::binBytes
    /// once time has left it (time only moves forward), so an integration touches one line.
    struct LinkAcc
    {
        double load{0};           //!< bit/s
        double lastT{0};          //!< integrated up to here
        double bytes{0};          //!< wire bytes carried (copied to FlowSimLinkRecord at the end)
        double binBytes{0};       //!< bytes of the bin being filled
        uint32_t bin{UINT32_MAX}; //!< index of that bin (UINT32_MAX: none yet)
    };

    std::shared_ptr<const FabricGraph> graph;
    std::unique_ptr<FabricState> truth; //!< the physical state (only with link events)
    std::shared_ptr<FabricState> view;
    std::vector<Flow> flows;
    std::vector<Hot> hot;
    std::vector<uint32_t> flowMark; //!< threshold recomputation: == stamp once in the component
    FlowIdIndex byId;
    LinkArena linkArena;
    IdPool linkFlowPool; //!< the flow lists of links with more than Link::flows holds in place
    std::vector<std::vector<uint32_t>> dependents;
    std::vector<std::vector<uint32_t>> phaseFlows;
    std::vector<uint32_t> phaseLeft;
    uint32_t maxPhase{0};      //!< the highest phase of a flow added (AddFlows)
    bool anyAfter{false};      //!< a flow added waits for another ('after')
    bool anyDependency{false}; //!< AddDependency was called
    std::vector<FlowSimLinkEvent> linkEvents;

    /// Where a port leads: the directed link leaving through it, the node and port at its far
    /// end (what path tracing asks of the graph at every hop, in one look-up).
    struct PortHop
    {
        uint32_t dirLink;
        uint32_t peer;
        uint32_t peerPort;
    };

    std::vector<uint32_t> portBase; //!< per node: index of its port 0 in portHop (+ the end)
    std::vector<PortHop> portHop;   //!< per (node, port), ports of a node consecutive
    std::vector<double> capacity;   //!< nominal, per directed link
    std::vector<Link> links;        //!< per directed link
    std::vector<LinkAcc> acc;       //!< per directed link
    std::vector<uint32_t> localOf;  //!< per directed link: index in the instance being built
    /// With a fluid split: each links[d].flows entry's weight on the link, at the same index.
    std::vector<std::vector<double>> linkWeights;
    uint32_t stamp{0};
    std::vector<uint32_t> dirtyLinks;
    /// Per dirty link: flows whose old rate is below this level keep it (see recompute).
    std::vector<double> linkTheta;
    std::vector<double> levelCache;   //!< saturation level of a link in this batch (-1: unknown)
    std::vector<uint32_t> freshFlows; //!< flows attached since the last recomputation
    bool incremental{true};

    // Events come from four sources, merged by (time, insertion order): the starts known
    // before the run (sorted once), a heap of the events scheduled while running, the fluid
    // ends (FluidEndQueue: one entry per sending flow, replaced when the flow's rate changes,
    // so no stale entries pile up in the main heap), and the completions in a sorted run
    // (tails).
    /// A std::priority_queue whose storage can be reserved (its growth step by step writes
    /// twice the final size into fresh memory on a process's first run).
    struct EventQueue : std::priority_queue<Event, std::vector<Event>, std::greater<>>
    {
        void Reserve(size_t n) { c.reserve(n); }
    };

    EventQueue queue;
    std::vector<Event> initial;
    size_t nextInitial{0};
    /// Completions (a fluid end plus the flow's path tail) in (time, insertion) order, read
    /// from tailHead on. Fluid ends are popped in time order and tails differ little, so a new
    /// completion lands at or near the back: a few entries moved instead of a heap's sifting
    /// (popping 240 completions from the heap cost 0.05 M of a 240-flow run's 0.92 M
    /// instructions). One that would move more than maxTailShift entries goes to the heap
    /// instead, so the work stays bounded.
    AppendRun<Event> tails;
    size_t tailHead{0};
    size_t maxTailShift{32};     //!< set from SetMaxTailShift's limit when the run starts
    uint64_t tailsToHeap{0};     //!< FlowSimStats::tailsToHeap
    uint64_t tailCompactions{0}; //!< FlowSimStats::tailCompactions
    FluidEndQueue ends;          //!< one entry per sending flow
    /// Where Peek found the next event: 0 initial, 1 queue, 2 ends, 3 tails.
    uint8_t topSource{0};
    uint64_t seq{0};
    bool ran{false};
    uint32_t sending{0};

    void Push(double t, EventType type, uint32_t a, uint32_t b = 0)
    {
        queue.push(Event{t, seq++, type, a, b});
    }

    /// Flow \p f completes at \p t (its sequence number as Push would give it).
    void PushTail(double t, uint32_t f)
    {
        const Event ev{t, seq++, EventType::COMPLETE, f, 0};
        size_t i = tails.Size();
        if (i == tailHead || !(tails[i - 1] > ev))
        {
            tails.Append(ev.t, ev.seq, ev.type, ev.a, ev.b); // in place (see Event)
            return;
        }
        const size_t stop = i - std::min(i - tailHead, maxTailShift);
        while (i > tailHead && tails[i - 1] > ev)
        {
            if (i == stop)
            {
                queue.push(ev); // far out of order: the heap keeps the work logarithmic
                ++tailsToHeap;
                return;
            }
            --i;
        }
        tails.Insert(i, ev);
    }

    /// Flow \p f's fluid ends at \p t (replaces its previous end).
    void SetEnd(uint32_t f, double t) { ends.Set(f, t, seq++); }

    /// Flow \p f has no scheduled fluid end (any more).
    void ClearEnd(uint32_t f) { ends.Clear(f); }

    /// The next event in (time, insertion) order; false if there is none. The sources are
    /// compared by their keys and only the winner is copied out. (Forced inline: GCC outlined
    /// it when the ends became a source of their own, +23 k instructions on the ROFT
    /// AllReduce row; other compilers ignore the attribute.)
    [[gnu::always_inline]] bool Peek(Event& e)
    {
        const Event* best = nullptr;
        if (nextInitial < initial.size())
        {
            best = &initial[nextInitial];
            topSource = 0;
        }
        if (!queue.empty() && (!best || *best > queue.top()))
        {
            best = &queue.top();
            topSource = 1;
        }
        if (tailHead < tails.Size() && (!best || *best > tails[tailHead]))
        {
            best = &tails[tailHead];
            topSource = 3;
        }
        const FluidEndQueue::Entry* end = ends.Top();
        if (end && (!best || best->t > end->t || (best->t == end->t && best->seq > end->seq)))
        {
            e = Event{end->t, end->seq, EventType::FLUID_END, end->f, flows[end->f].version};
            topSource = 2;
            return true;
        }
        if (!best)
        {
            return false;
        }
        e = *best;
        return true;
    }

    /// Remove the event the last Peek returned.
    void Pop()
    {
        if (topSource == 0)
        {
            ++nextInitial;
        }
        else if (topSource == 1)
        {
            queue.pop();
        }
        else if (topSource == 3)
        {
            if (++tailHead == tails.Size())
            {
                tails.Clear();
                tailHead = 0;
            }
            else if (tailHead >= 1024 && 2 * tailHead >= tails.Size())
            {
                tails.EraseFront(tailHead);
                tailHead = 0;
                ++tailCompactions;
            }
        }
        else
        {
            ends.Pop();
        }
    }

    /// Link \p d changed; flows with a rate below \p theta are not affected by this change.
    void MarkDirty(uint32_t d, double theta)
    {
        linkTheta[d] = std::min(linkTheta[d], incremental ? theta : 0.0);
        if (links[d].mark != UINT32_MAX)
        {
            links[d].mark = UINT32_MAX;
            dirtyLinks.push_back(d);
        }
    }
};

TypeId
FlowSimulator::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FlowSimulator")
              .SetParent<Object>()
              .SetGroupName("Flow")
              .AddConstructor<FlowSimulator>()
              .AddAttribute("DefaultLinkRate",
                            "Rate of links whose FabricLink::rateBps is 0 (the network helper's "
                            "default, 400 Gb/s).",
                            DataRateValue(DataRate("400Gbps")),
                            MakeDataRateAccessor(&FlowSimulator::m_defaultRate),
                            MakeDataRateChecker())
              .AddAttribute("LinkDelay",
                            "Propagation delay of every link (FabricNetworkHelper's default 1 us).",
                            TimeValue(MicroSeconds(1)),
                            MakeTimeAccessor(&FlowSimulator::m_linkDelay),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("PacketPayload",
                            "Payload bytes per packet (RoceSender::PacketSize, 4096).",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&FlowSimulator::m_payload),
                            MakeUintegerChecker<uint32_t>(1, 65536))
              .AddAttribute("HeaderBytes",
                            "Wire overhead per packet in bytes (RoceSender::WIRE_OVERHEAD: BTH 12 "
                            "+ UDP 8 + IPv4 20 + PPP 2 = 42).",
                            UintegerValue(42),
                            MakeUintegerAccessor(&FlowSimulator::m_header),
                            MakeUintegerChecker<uint32_t>(0, 65536))
              .AddAttribute("AckBytes",
                            "Wire bytes of the ACK that ends a flow (counted in the base RTT).",
                            UintegerValue(42),
                            MakeUintegerAccessor(&FlowSimulator::m_ackBytes),
                            MakeUintegerChecker<uint32_t>(0, 65536))
              .AddAttribute("NicRate",
                            "Per-flow rate cap of the sending NIC (0: none; the host link "
                            "already limits a flow to its rate).",
                            DataRateValue(DataRate(0)),
                            MakeDataRateAccessor(&FlowSimulator::m_nicRate),
                            MakeDataRateChecker())
              .AddAttribute("Ramp",
                            "DCQCN-like ramp: a flow cut to its share by contention recovers "
                            "only gradually (every RampStep it halves the gap to its line "
                            "rate, DCQCN's fast recovery) instead of at once.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FlowSimulator::m_ramp),
                            MakeBooleanChecker())
              .AddAttribute("RampInitialFraction",
                            "With Ramp: a new flow's starting rate as a fraction of its line "
                            "rate (DCQCN starts at line rate: 1).",
                            DoubleValue(1.0),
                            MakeDoubleAccessor(&FlowSimulator::m_rampInitial),
                            MakeDoubleChecker<double>(1e-6, 1))
              .AddAttribute("RampStep",
                            "With Ramp: the rate-increase timer (DCQCN's 55 us).",
                            TimeValue(MicroSeconds(55)),
                            MakeTimeAccessor(&FlowSimulator::m_rampStep),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("FluidSplit",
                            "Spread each flow over the routing's Candidates in equal shares per "
                            "hop instead of its hashed path (multipath schemes).",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FlowSimulator::m_fluidSplit),
                            MakeBooleanChecker())
              .AddAttribute("RerouteDelay",
                            "Delay between a physical change and the routing view learning it "
                            "(detection plus reaction); flows are rerouted then.",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FlowSimulator::m_rerouteDelay),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("UtilizationBin",
                            "Bin of the per-link bytes series (0: no series).",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FlowSimulator::m_bin),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("RecomputeInterval",
                            "0: rates are recomputed at every instant with an event (exact max-min "
                            "at all times). > 0: at most once per interval, on its grid (0, T, "
                            "2T, ...); events between grid points wait for the next one (a new "
                            "flow sends nothing, a finished flow's capacity stays unused until "
                            "then): faster, FCTs off by up to about one interval.",
                            TimeValue(Seconds(0)),
                            MakeTimeAccessor(&FlowSimulator::m_recomputeInterval),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("Incremental",
                            "Recompute only the flows a change can affect: on each batch of "
                            "changes, flows whose rate is below the lowest level at which a "
                            "changed link or flow can saturate keep their rates (they are frozen "
                            "before the change matters in water-filling) and only the rest of "
                            "the connected component is water-filled over the capacity left. "
                            "Exact: the same rates as a full recomputation (false).",
                            BooleanValue(true),
                            MakeBooleanAccessor(&FlowSimulator::m_incremental),
                            MakeBooleanChecker())
              .AddAttribute("MaxHops",
                            "A path longer than this is a routing loop: no route.",
                            UintegerValue(64),
                            MakeUintegerAccessor(&FlowSimulator::m_maxHops),
                            MakeUintegerChecker<uint32_t>(1, 1024))
              .AddTraceSource("FlowComplete",
                              "A flow completed (flow index, FCT in seconds).",
                              MakeTraceSourceAccessor(&FlowSimulator::m_completeTrace),
                              "ns3::FlowSimulator::FlowCompleteTracedCallback");
    return tid;
}

void*
FlowSimulator::BinArena::do_allocate(std::size_t bytes, std::size_t align)
{
    return bytes <= SMALL ? m_small.allocate(bytes, align)
                          : std::pmr::new_delete_resource()->allocate(bytes, align);
}

void
FlowSimulator::BinArena::do_deallocate(void* p, std::size_t bytes, std::size_t align)
{
    if (bytes > SMALL)
    {
        std::pmr::new_delete_resource()->deallocate(p, bytes, align);
    }
    // (a small block stays in its chunk until the simulator goes)
}

bool
FlowSimulator::BinArena::do_is_equal(const std::pmr::memory_resource& o) const noexcept
{
    return this == &o;
}

FlowSimulator::FlowSimulator()
    : m_impl(std::make_unique<Impl>())
{
    NS_LOG_FUNCTION(this);
}

FlowSimulator::~FlowSimulator() = default;

TypeId
FlowSimulator::GetInstanceTypeId() const
{
    return GetTypeId();
}

Ptr<FlowSimulator>
FlowSimulator::CreateWithAttributes(const AttributeConstructionList& attributes)
{
    if (AttributeDefaultsFromEnvironment())
    {
        ObjectFactory factory;
        factory.SetTypeId(GetTypeId());
        for (auto it = attributes.Begin(); it != attributes.End(); ++it)
        {
            factory.Set(it->name, *it->value);
        }
        return factory.Create<FlowSimulator>();
    }
    Ptr<FlowSimulator> sim(new FlowSimulator(), false);
    SetConstructionAttributes(*sim,
                              GetTypeId(),
                              [&attributes](const TypeId::AttributeInformation& info)
                              { return Ptr<const AttributeValue>(attributes.Find(info.checker)); });
    sim->NotifyConstructionCompleted();
    return sim;
}

void
FlowSimulator::DoDispose()
{
    m_routing = nullptr;
    Object::DoDispose();
}

void
FlowSimulator::SetRouting(Ptr<FabricRouting> routing)
{
    NS_LOG_FUNCTION(this);
    if (!routing || !routing->HasGraph())
    {
        throw std::invalid_argument("FlowSimulator::SetRouting: the routing must be bound to a "
                                    "graph (SetGraph) first");
    }
    if (m_routing)
    {
        throw std::logic_error("FlowSimulator::SetRouting: call once");
    }
    m_routing = routing;
    Impl& s = *m_impl;
    s.graph = routing->GetGraphPtr();
    const uint32_t nl = s.graph->GetNLinks();
    const uint32_t nd = 2 * nl;
    s.capacity.resize(nd);
    m_links.reserve(nd); // empty until now: SetRouting runs once
    for (uint32_t d = 0; d < nd; ++d)
    {
        m_links.emplace_back(&m_binArena);
    }
    const uint32_t nn = s.graph->GetNNodes();
    s.portBase.resize(size_t(nn) + 1);
    uint32_t ports = 0;
    for (uint32_t v = 0; v < nn; ++v)
    {
        s.portBase[v] = ports;
        ports += s.graph->GetNPorts(v);
    }
    s.portBase[nn] = ports;
    s.portHop.resize(ports);
    // One look-up per link (both directions share its rate, each end's port leads to the
    // other end), the default read once.
    const double defaultBps = double(m_defaultRate.GetBitRate());
    for (uint32_t l = 0; l < nl; ++l)
    {
        const FabricLink& link = s.graph->GetLink(l);
        const double c = link.rateBps > 0 ? link.rateBps : defaultBps;
        s.capacity[2 * l] = c;
        s.capacity[2 * l + 1] = c;
        m_links[2 * l].capacityBps = c;
        m_links[2 * l + 1].capacityBps = c;
        s.portHop[s.portBase[link.node[0]] + link.port[0]] = {2 * l, link.node[1], link.port[1]};
        s.portHop[s.portBase[link.node[1]] + link.port[1]]
            = {2 * l + 1, link.node[0], link.port[0]};
    }
    s.links = std::vector<Impl::Link>(nd);
    for (uint32_t d = 0; d < nd; ++d)
    {
        s.links[d].cap = s.capacity[d]; // all up until a link event (Run is called once)
    }
    s.acc.assign(nd, Impl::LinkAcc{});
    s.localOf.assign(nd, 0);
    s.linkWeights.assign(m_fluidSplit ? nd : 0, {});
    s.linkTheta.assign(nd, INF);
    s.levelCache.assign(nd, -1);
}

uint32_t
FlowSimulator::SetMaxTailShift(uint32_t n)
{
    NS_LOG_FUNCTION(n);
    const uint32_t previous = g_maxTailShift;
    g_maxTailShift = n;
    return previous;
}

double
FlowSimulator::GetCapacityBps(uint32_t dirLink) const
{
    return m_impl->capacity.at(dirLink);
}

double
FlowSimulator::GetRateBps(uint32_t flowIndex) const
{
    return m_impl->hot.at(flowIndex).rate;
}

void
FlowSimulator::AddFlows(const std::vector<FlowSpec>& flows)
{
    NS_LOG_FUNCTION(this << flows.size());
    Impl& s = *m_impl;
    if (!s.graph)
    {
        throw std::logic_error("FlowSimulator::AddFlows: SetRouting first");
    }
    if (s.ran)
    {
        throw std::logic_error("FlowSimulator::AddFlows: the run is over");
    }
    const uint32_t hosts = s.graph->GetNHosts();
    // Room for the new flows at once (geometric, so that many small calls stay linear).
    const size_t total = m_records.size() + flows.size();
    if (total > m_records.capacity())
    {
        const size_t room = std::max(total, 2 * m_records.capacity());
        m_records.reserve(room);
        s.flows.reserve(room);
        s.hot.reserve(room);
        s.flowMark.reserve(room);
        s.dependents.reserve(room);
        s.byId.Reserve(room);
    }
    // The per-flow state of the accepted flows, in one step each after the loop (one
    // out-of-line call per flow and vector otherwise); also when a flow is refused.
    auto grow = [&]
    {
        const size_t m = m_records.size();
        s.flows.resize(m);
        s.hot.resize(m);
        s.flowMark.resize(m, 0);
        s.dependents.resize(m);
    };
    auto addRecords = [&]
    {
        for (const auto& f : flows)
        {
            if (f.src >= hosts || f.dst >= hosts || f.src == f.dst)
            {
                throw std::invalid_argument("FlowSimulator: flow " + std::to_string(f.id)
                                            + ": src and dst must be distinct hosts in [0, "
                                            + std::to_string(hosts) + ")");
            }
            if (f.bytes == 0)
            {
                throw std::invalid_argument("FlowSimulator: flow " + std::to_string(f.id)
                                            + ": bytes must be >= 1");
            }
            if (!(f.startS >= 0) || !std::isfinite(f.startS))
            {
                throw std::invalid_argument("FlowSimulator: flow " + std::to_string(f.id)
                                            + ": start time must be finite and >= 0");
            }
            const auto index = static_cast<uint32_t>(m_records.size());
            if (!s.byId.Insert(f.id, index))
            {
                throw std::invalid_argument("FlowSimulator: flow id " + std::to_string(f.id)
                                            + " appears twice; ids must be unique");
            }
            m_records.emplace_back(f);
            s.maxPhase = std::max(s.maxPhase, f.phase);
            s.anyAfter = s.anyAfter || f.after >= 0;
        }
    };
    try
    {
        addRecords();
    }
    catch (...)
    {
        grow(); // the flows accepted before the refused one stay, as before
        throw;
    }
    grow();
}

void
FlowSimulator::AddDependency(uint32_t flowId, uint32_t predecessorId)
{
    Impl& s = *m_impl;
    const uint32_t a = s.byId.Find(flowId);
    const uint32_t b = s.byId.Find(predecessorId);
    if (a == FlowIdIndex::NONE || b == FlowIdIndex::NONE || a == b)
    {
        throw std::invalid_argument("FlowSimulator::AddDependency: flow " + std::to_string(flowId)
                                    + " on " + std::to_string(predecessorId)
                                    + ": both must be known, distinct flow ids");
    }
    s.dependents[b].push_back(a);
    s.flows[a].waiting++;
    s.anyDependency = true;
}

void
FlowSimulator::AddLinkEvent(const FlowSimLinkEvent& e)
{
    Impl& s = *m_impl;
    if (!s.graph)
    {
        throw std::logic_error("FlowSimulator::AddLinkEvent: SetRouting first");
    }
    const bool link = e.kind == FlowSimLinkEvent::Kind::FAIL_LINK
                   || e.kind == FlowSimLinkEvent::Kind::REPAIR_LINK;
    const uint32_t limit = link ? s.graph->GetNLinks() : s.graph->GetNNodes();
    if (e.id >= limit)
    {
        throw std::invalid_argument(std::string("FlowSimulator: link event ")
                                    + (link ? "link" : "node") + " id " + std::to_string(e.id)
                                    + " out of range [0, " + std::to_string(limit) + ")");
    }
    if (!(e.timeS >= 0) || !std::isfinite(e.timeS))
    {
        throw std::invalid_argument("FlowSimulator: link event time must be finite and >= 0");
    }
    s.linkEvents.push_back(e);
}

namespace
{

/// A routing chose a port its node lacks (FabricGraph::GetPortLink refuses it alike).
[[noreturn, gnu::cold, gnu::noinline]] void
BadPort(uint32_t node, uint32_t port, uint32_t ports)
{
    throw std::out_of_range("FlowSimulator: the routing chose port " + std::to_string(port)
                            + " of node " + std::to_string(node) + ", which has "
                            + std::to_string(ports) + " ports");
}

void
Apply(FabricState& state, const FlowSimLinkEvent& e)
{
    switch (e.kind)
    {
    case FlowSimLinkEvent::Kind::FAIL_LINK:
        state.FailLink(e.id);
        break;
    case FlowSimLinkEvent::Kind::REPAIR_LINK:
        state.RepairLink(e.id);
        break;
    case FlowSimLinkEvent::Kind::FAIL_NODE:
        state.FailNode(e.id);
        break;
    case FlowSimLinkEvent::Kind::REPAIR_NODE:
        state.RepairNode(e.id);
        break;
    }
}

} // namespace

void
FlowSimulator::Run(double stopS)
{
    NS_LOG_FUNCTION(this << stopS);
    Impl& s = *m_impl;
    if (!s.graph)
    {
        throw std::logic_error("FlowSimulator::Run: SetRouting first");
    }
    if (s.ran)
    {
        throw std::logic_error("FlowSimulator::Run: call once");
    }
    if (s.flows.size() > FluidEndQueue::MAX_FLOWS)
    {
        throw std::invalid_argument("FlowSimulator::Run: " + std::to_string(s.flows.size())
                                    + " flows; at most 2^31 - 1");
    }
    s.ran = true;
    // The ramp's timers follow each recomputation of a flow: keep recomputing whole components.
    s.incremental = m_incremental && !m_ramp;
    const auto wall0 = std::chrono::steady_clock::now();
    const FabricGraph& g = *s.graph;
    const size_t n = s.flows.size();
    s.ends.Reset(static_cast<uint32_t>(n)); // (room for a fluid end per flow)
    // The physical state starts all up (every link at its capacity, as SetRouting set it); it
    // is kept only when link events will change it.
    if (!s.linkEvents.empty())
    {
        s.truth = std::make_unique<FabricState>(s.graph);
    }

    // Start conditions: 'after', phases (as RoceTrafficHelper), AddDependency. With one
    // phase and no 'after' (AddFlows kept count) the flows' records are not read here: each
    // pass over them (a cache line per flow) cost a 240-flow run about a microsecond.
    const bool onePhase = s.maxPhase == 0 && !s.anyAfter;
    const uint32_t phases = n == 0 ? 0 : s.maxPhase + 1;
    s.phaseFlows.assign(phases, {});
    s.phaseLeft.assign(phases, 0);
    if (onePhase && n > 0)
    {
        s.phaseLeft[0] = static_cast<uint32_t>(n);
        s.phaseFlows[0].resize(n);
        std::iota(s.phaseFlows[0].begin(), s.phaseFlows[0].end(), 0U);
    }
    else
    {
        for (size_t f = 0; f < n; ++f)
        {
            s.phaseLeft[m_records[f].spec.phase]++;
        }
        // Each phase's flows in index order, written by index into lists sized at once.
        std::vector<uint32_t> phaseFill(phases, 0);
        for (uint32_t p = 0; p < phases; ++p)
        {
            s.phaseFlows[p].resize(s.phaseLeft[p]);
        }
        for (size_t f = 0; f < n; ++f)
        {
            const FlowSpec& fs = m_records[f].spec;
            s.phaseFlows[fs.phase][phaseFill[fs.phase]++] = f;
            if (fs.after >= 0)
            {
                const uint32_t pred = s.byId.Find(static_cast<uint64_t>(fs.after));
                if (pred == FlowIdIndex::NONE || pred == f)
                {
                    throw std::invalid_argument("FlowSimulator: flow " + std::to_string(fs.id)
                                                + " waits for unknown flow "
                                                + std::to_string(fs.after));
                }
                s.dependents[pred].push_back(f);
                s.flows[f].waiting++;
            }
            s.flows[f].waiting += fs.phase > 0 ? 1 : 0;
        }
        for (uint32_t p = 0; p < phases; ++p)
        {
            if (s.phaseFlows[p].empty())
            {
                throw std::invalid_argument("FlowSimulator: phase " + std::to_string(p)
                                            + " has no flow (phases must be 0, 1, 2, ... "
                                              "without gaps)");
            }
        }
    }
    // Without any wait (one phase, no 'after', no AddDependency) every flow can start.
    const bool anyWait = !onePhase || s.anyDependency;
    if (anyWait)
    {
        // Kahn's algorithm: every flow must be able to start.
        std::vector<uint32_t> w(n);
        std::vector<uint32_t> ready;
        ready.reserve(n);
        for (size_t f = 0; f < n; ++f)
        {
            w[f] = s.flows[f].waiting;
            if (w[f] == 0)
            {
                ready.push_back(f);
            }
        }
        std::vector<uint32_t> left = s.phaseLeft;
        size_t done = 0;
        while (!ready.empty())
        {
            const uint32_t f = ready.back();
            ready.pop_back();
            ++done;
            for (uint32_t d : s.dependents[f])
            {
                if (--w[d] == 0)
                {
                    ready.push_back(d);
                }
            }
            const uint32_t p = m_records[f].spec.phase;
            if (--left[p] == 0 && p + 1 < phases)
            {
                for (uint32_t d : s.phaseFlows[p + 1])
                {
                    if (--w[d] == 0)
                    {
                        ready.push_back(d);
                    }
                }
            }
        }
        if (done != n)
        {
            throw std::invalid_argument("FlowSimulator: flow dependencies form a cycle; "
                                        + std::to_string(n - done) + " flows could never start");
        }
    }

    std::optional<ViewRestorer> restoreView;
    if (!s.linkEvents.empty())
    {
        // Drive a view of our own: the routing decides from it, updated RerouteDelay late.
        // The routing gets its own view back when Run returns.
        restoreView.emplace(*m_routing);
        s.view = std::make_shared<FabricState>(s.graph);
        s.view->CopyFrom(*m_routing->GetView());
        m_routing->SetView(s.view);
    }
    s.initial.reserve(n);
    // Pending at once: a completion per sending flow (or a start, a ramp step), the link
    // events and a recomputation tick.
    s.queue.Reserve(n + s.linkEvents.size() + 1);
    s.tails.Reserve(std::min<size_t>(n, 1024)); // completions pending at once: usually few
    s.maxTailShift = g_maxTailShift;
    for (size_t f = 0; f < n; ++f)
    {
        if (s.flows[f].waiting == 0)
        {
            s.initial.emplace_back(
                m_records[f].spec.startS, s.seq++, EventType::START, static_cast<uint32_t>(f), 0);
        }
    }
    // Flows added in start order (a collective's step, a pattern at time 0) are in order
    // already: check before sorting.
    const auto earlier = [](const Event& a, const Event& b)
    {
        return b > a;
    };
    if (!std::is_sorted(s.initial.begin(), s.initial.end(), earlier))
    {
        std::sort(s.initial.begin(), s.initial.end(), earlier);
    }
    for (size_t i = 0; i < s.linkEvents.size(); ++i)
    {
        s.Push(s.linkEvents[i].timeS, EventType::PHYSICAL, i);
    }

    const double delay = m_linkDelay.GetSeconds();
    const double nic = m_nicRate.GetBitRate() > 0 ? double(m_nicRate.GetBitRate()) : INF;
    const double binS = m_bin.GetSeconds();
    const double rampStep = m_rampStep.GetSeconds();

    // Store the bin link d was filling in its record (the bins before it are there already).
    auto flushBin = [&](uint32_t d)
    {
        const Impl::LinkAcc& a0 = s.acc[d];
        if (a0.bin == UINT32_MAX)
        {
            return;
        }
        auto& bins = m_links[d].binBytes;
        if (bins.size() <= a0.bin)
        {
            if (bins.capacity() <= a0.bin)
            {
                bins.reserve(std::max<size_t>(32, 2 * size_t(a0.bin)));
            }
            bins.resize(a0.bin, 0.0); // bins the link spent idle
            bins.push_back(a0.binBytes);
        }
        else
        {
            bins[a0.bin] = a0.binBytes;
        }
    };
    // Utilization bin b spans [limit(b - 1), limit(b)), limit(b) = (b + 1) * binS rounded
    // (limit(-1) = 0): the bins tile time exactly, and an integration crossing several steps
    // from one to the next with a multiplication, not a division per bin.
    auto binLimit = [binS](size_t b)
    {
        // Through int64_t below 2^62: the same values as size_t's conversions, which take a
        // branchy sequence of their own on x86-64.
        const double next = b + 1 < (size_t(1) << 62)
                              ? static_cast<double>(static_cast<int64_t>(b + 1))
                              : static_cast<double>(b + 1);
        return next * binS;
    };
    // The bin holding time a: floor(a / binS), moved by one where the rounded division and
    // the rounded limits disagree (within a unit in the last place of a limit).
    auto binOf = [binS, &binLimit](double a)
    {
        const double q = a / binS;
        size_t b
            = q < 0x1p62 ? static_cast<size_t>(static_cast<int64_t>(q)) : static_cast<size_t>(q);
        while (b > 0 && a < binLimit(b - 1))
        {
            --b;
        }
        while (a >= binLimit(b))
        {
            ++b;
        }
        return b;
    };
    // Bytes a link carried at load over (t0, t], t0 < t (split over utilization bins).
    auto integrateSpan = [&](uint32_t d, double t0, double t, double load)
    {
        Impl::LinkAcc& a0 = s.acc[d];
        a0.bytes += load * (t - t0) / 8;
        if (binS > 0)
        {
            double a = t0;
            size_t b = binOf(a);
            while (true)
            {
                const double end = std::min(t, binLimit(b));
                const double add = load * (end - a) / 8; // > 0: a < limit(b) and a < t
                if (b != a0.bin)
                {
                    // The bin left behind is complete: stored right after the link's last one
                    // (the usual case, inline), else with its idle bins (flushBin).
                    auto& bins = m_links[d].binBytes;
                    if (a0.bin != UINT32_MAX && bins.size() == a0.bin
                        && bins.size() < bins.capacity())
                    {
                        bins.push_back(a0.binBytes);
                    }
                    else
                    {
                        flushBin(d);
                    }
                    if (b >= UINT32_MAX)
                    {
                        throw std::invalid_argument(
                            "FlowSimulator: UtilizationBin " + std::to_string(binS)
                            + " s gives more than 2^32 - 1 bins by " + std::to_string(t)
                            + " s; use a larger bin (or 0: no series)");
                    }
                    a0.bin = static_cast<uint32_t>(b);
                    a0.binBytes = add;
                }
                else
                {
                    a0.binBytes += add;
                }
                if (end >= t)
                {
                    break;
                }
                a = end;
                ++b;
            }
        }
    };
    // Bytes a link carried at its current load up to t. Most calls find nothing to add (the
    // link idle, or integrated at this instant already): that test is small enough to be
    // inlined where it is called, the integration a lambda of its own (GCC 12 -O3 keeps it out
    // of line; as one lambda, the whole call was, and its prologue cost more than the test).
    auto integrate = [&](uint32_t d, double t)
    {
        Impl::LinkAcc& a0 = s.acc[d];
        const double t0 = a0.lastT;
        a0.lastT = t;
        if (!(a0.load <= 0 || t <= t0))
        {
            integrateSpan(d, t0, t, a0.load);
        }
    };

    // The links (and weights) a flow loads under the current view; false: no route.
    // The last traced path: its nodes and directed links in arrays sized once for the longest
    // path allowed (written by index: a push_back per hop was an out-of-line call).
    struct Trace
    {
        std::vector<uint32_t> nodes;    //!< hops + 1 entries valid
        std::vector<uint32_t> dirLinks; //!< hops entries valid
        uint32_t hops{0};
        bool delivered{false};

        const uint32_t* LinksBegin() const { return dirLinks.data(); }
        const uint32_t* LinksEnd() const { return dirLinks.data() + hops; }
    };

    Trace scratch;
    scratch.nodes.resize(size_t(m_maxHops) + 1);
    scratch.dirLinks.resize(m_maxHops);
    std::vector<LinkShare> routeLinks; // the links it loads (storage reused)
    auto route = [&](uint32_t f, Trace& hashed, std::vector<LinkShare>& out)
    {
        const FlowSpec& fs = m_records[f].spec;
        // TracePath (fabric-routing.h) hop by hop, into storage reused from flow to flow (a
        // small run spends much of its time allocating path vectors otherwise).
        uint32_t* nodes = hashed.nodes.data();
        uint32_t* dirLinks = hashed.dirLinks.data();
        const uint32_t* portBase = s.portBase.data();
        const Impl::PortHop* portHop = s.portHop.data();
        uint32_t hops = 0;
        nodes[0] = fs.src;
        {
            const FlowKey key = fs.Key();
            uint32_t node = fs.src;
            uint32_t inPort = FabricRouting::NO_PORT;
            while (node != fs.dst && hops < m_maxHops)
            {
                const uint32_t port = m_routing->SelectPort(node, inPort, fs.dst, key);
                if (port == FabricRouting::NO_PORT)
                {
                    break;
                }
                // GetEgressDirLink, GetPeerPort and GetPeer in one look-up of our own table
                // (a port the node lacks is refused as FabricGraph::GetPortLink refuses it).
                const uint32_t at = portBase[node] + port;
                if (port >= portBase[node + 1] - portBase[node])
                {
                    BadPort(node, port, portBase[node + 1] - portBase[node]);
                }
                const Impl::PortHop& h = portHop[at];
                dirLinks[hops] = h.dirLink;
                inPort = h.peerPort;
                node = h.peer;
                nodes[++hops] = node;
            }
            hashed.hops = hops;
            hashed.delivered = (node == fs.dst);
        }
        out.clear();
        if (!hashed.delivered)
        {
            return false;
        }
        if (!m_fluidSplit)
        {
            if (out.capacity() < hops)
            {
                out.reserve(hops); // (an out-of-line call even when there is room)
            }
            for (uint32_t i = 0; i < hops; ++i)
            {
                const uint32_t d = dirLinks[i];
                out.emplace_back(d, 1.0);
            }
            return true;
        }
        // Fluid split: equal shares over the candidates, hop by hop (fabric's FluidSplit, the
        // rule the analyses share).
        std::vector<std::pair<uint32_t, double>> shares;
        if (FluidSplit(*m_routing, fs.src, fs.dst, shares, m_maxHops) < 1 - 1e-9)
        {
            return false; // some share has no route: the flow stalls as a whole
        }
        for (const auto& [d, m] : shares)
        {
            out.emplace_back(d, std::min(1.0, m));
        }
        return true;
    };

    // Path timing: base RTT and the tail after the fluid's end (see the class comment).
    auto timing = [&](uint32_t f, const Trace& p)
    {
        FlowSimRecord& r = m_records[f];
        Impl::Flow& fl = s.flows[f];
        const uint64_t bytes = r.spec.bytes;
        const uint64_t pkts = (bytes + m_payload - 1) / m_payload;
        const double dataWire = double(std::min<uint64_t>(m_payload, bytes) + m_header);
        r.wireBytes = double(bytes) + double(pkts) * m_header;
        if (!p.delivered)
        {
            // A trace that stops short of the destination has no ideal: summed over its hops
            // it gave 0 (no hop) or a partial path's, which then stood for the flow's. NaN
            // marks it, so that the path the flow is first routed on sets all three.
            r.baseRttS = std::numeric_limits<double>::quiet_NaN();
            r.lineBps = std::numeric_limits<double>::quiet_NaN();
            r.idealS = std::numeric_limits<double>::quiet_NaN();
            fl.tail = 0;
            fl.line = nic;
            return;
        }
        double rtt = 0;
        double line = INF;
        for (const uint32_t* it = p.LinksBegin(); it != p.LinksEnd(); ++it)
        {
            const uint32_t d = *it;
            rtt += 2 * delay + 8.0 * (dataWire + m_ackBytes) / s.capacity[d];
            line = std::min(line, s.capacity[d]);
        }
        r.baseRttS = rtt;
        r.lineBps = line;
        r.idealS = (r.wireBytes - dataWire) * 8 / line + rtt;
        fl.tail = rtt - dataWire * 8 / line;
        fl.line = std::min(line, nic);
    };

    const bool fluid = m_fluidSplit;
    // FluidSplit may have been set after SetRouting sized the per-link weights.
    s.linkWeights.assign(fluid ? s.links.size() : 0, {});
    // A flow joins its links: its own threshold is computed at the next recomputation.
    auto attach = [&](uint32_t f)
    {
        Impl::Flow& fl = s.flows[f];
        for (const auto& [d, w] : fl.links)
        {
            s.links[d].flows.push_back(f, s.linkFlowPool);
            if (fluid)
            {
                s.linkWeights[d].push_back(w);
            }
            s.MarkDirty(d, INF);
        }
        if (!fl.links.empty() && !s.hot[f].fresh)
        {
            s.hot[f].fresh = true;
            s.freshFlows.push_back(f);
        }
        s.hot[f].hint = UINT32_MAX; // its links may have changed
    };
    // Take a flow off its links: its load leaves them at t, its rate is zero from now on.
    auto detach = [&](uint32_t f, double t)
    {
        Impl::Flow& fl = s.flows[f];
        Impl::Hot& h = s.hot[f];
        // Water-filling is unchanged below the level at which the flow froze: flows slower
        // than it keep their rates. A flow not shared yet had no part in the allocation.
        const double theta = h.fresh ? INF : h.rate;
        for (const auto& [d, w] : fl.links)
        {
            auto& v = s.links[d].flows;
            auto it = std::find(v.begin(), v.end(), f);
            if (fluid)
            {
                auto& lw = s.linkWeights[d];
                lw[it - v.begin()] = lw.back();
                lw.pop_back();
            }
            *it = v.back();
            v.pop_back();
            s.MarkDirty(d, theta);
            integrate(d, t);
            s.acc[d].load = v.empty() ? 0 : std::max(0.0, s.acc[d].load - w * h.rate);
        }
        h.rate = 0;
        fl.version++; // no fluid end at the old rate
        s.ClearEnd(f);
    };
    // Bring a sending flow's remaining bytes up to t at its current rate.
    auto advance = [&](uint32_t f, double t)
    {
        Impl::Flow& fl = s.flows[f];
        const double rate = s.hot[f].rate;
        if (rate > 0 && t > fl.lastT)
        {
            fl.remaining = std::max(0.0, fl.remaining - rate * (t - fl.lastT) / 8);
        }
        fl.lastT = t;
    };
    auto setRate = [&](uint32_t f, double rate, double t)
    {
        Impl::Flow& fl = s.flows[f];
        Impl::Hot& h = s.hot[f];
        advance(f, t);
        if (rate != h.rate)
        {
            for (const auto& [d, w] : fl.links)
            {
                integrate(d, t);
                s.acc[d].load = std::max(0.0, s.acc[d].load + w * (rate - h.rate));
            }
            h.rate = rate;
            fl.version++;
            m_stats.rateChanges++;
            if (rate > 0)
            {
                s.SetEnd(f, t + fl.remaining * 8 / rate);
            }
            else
            {
                s.ClearEnd(f);
            }
        }
        if (rate > 0 && fl.stallSince >= 0)
        {
            m_records[f].stalledS += t - fl.stallSince;
            fl.stallSince = -1;
        }
        else if (rate == 0 && fl.stallSince < 0)
        {
            fl.stallSince = t;
        }
    };

    // Scratch lists, at most one entry per flow or directed link: reserved once, so a small
    // run does not grow them step by step.
    const size_t nDir = s.links.size();
    IdScratch compLinks;
    IdScratch compFlows;
    compLinks.reserve(nDir);
    compFlows.reserve(n);
    s.dirtyLinks.reserve(nDir);
    s.freshFlows.reserve(n);
    std::vector<double> localCap;
    MaxMinFlowSet localFlows;                      // the instance's flows, in flat arrays
    std::vector<std::pair<double, double>> onLink; // (rate, weight) of the old flows of a link
    IdScratch levelKnown;
    std::vector<uint32_t> dirty;
    levelKnown.reserve(nDir);
    dirty.reserve(nDir);
    MaxMinFairSolver solver;
    // Links a list of flows loads, at most (to size the solver's input at once without
    // visiting the flows twice); never more than every list stored, so that one long list
    // (a fluid split over many paths) does not make the bound flows x longest list.
    auto compLinkCount = [&](const IdScratch& flows)
    {
        return std::min(flows.size() * s.linkArena.MaxSpan(), s.linkArena.Stored());
    };
    // Weight of the i-th flow of directed link d's flows (1 on a single path).
    auto weightAt = [&](uint32_t d, size_t i)
    {
        return fluid ? s.linkWeights[d][i] : 1.0;
    };
    // Capacity now: nominal, or 0 while the physical state has the link down.
    auto usableCap = [&](uint32_t d)
    {
        return s.links[d].cap;
    };
    // The level at which link d saturates when the fresh flows on it rise from zero with every
    // old flow that is faster than the level, the slower ones at their old rates: valid while
    // water-filling is unchanged below it, so a fresh flow cannot freeze before the lowest such
    // level of its links.
    auto saturationLevel = [&](uint32_t d)
    {
        onLink.clear();
        double rising = 0;
        for (size_t i = 0; i < s.links[d].flows.size(); ++i)
        {
            const uint32_t g = s.links[d].flows[i];
            const double w = weightAt(d, i);
            if (s.hot[g].fresh)
            {
                rising += w;
            }
            else
            {
                onLink.emplace_back(s.hot[g].rate, w);
            }
        }
        std::sort(onLink.begin(), onLink.end());
        double below = 0;
        for (const auto& [r, w] : onLink)
        {
            rising += w;
        }
        const double c = usableCap(d);
        for (const auto& [r, w] : onLink)
        {
            const double level = (c - below) / rising;
            if (level <= r)
            {
                return std::max(0.0, level);
            }
            below += w * r;
            rising -= w;
        }
        return std::max(0.0, (c - below) / std::max(rising, 1e-300));
    };
    // Water-fill every component that holds a dirty link, over the flows the changes can affect.
    // A change does not alter water-filling below its level theta (a departure: the flow's old
    // rate; an arrival: the level where its first link saturates; a new cap: the old rate; a
    // capacity change: 0), so every flow slower than the lowest theta of a component keeps its
    // rate, and the others are water-filled over the capacity the slow ones leave. The result
    // is the max-min allocation itself (it is unique), as a full recomputation finds it.
    // Local recomputation, verified. Water-fill only a set S of flows (at first the new ones and
    // those on links whose capacity changed), the others held at their rates, then check the
    // max-min condition on every flow whose surroundings changed: each must be at its cap or
    // have a bottleneck, a saturated link on which no flow is faster. A feasible allocation in
    // which every flow has a bottleneck is the max-min one (it is unique), so if every checked
    // flow passes (the unchecked ones saw no change on any of their links) the result is exact.
    // A flow that fails joins S with every flow on its links, and S is water-filled again. Rates
    // are applied only once verified; false (nothing changed) if S grows past its budget, and
    // the threshold recomputation below takes over.
    // (Per flow: Impl::Hot's cand, inS, check; per link: Impl::Link's stat fields.)
    IdScratch setS;
    IdScratch checkList;
    IdScratch failed;
    setS.reserve(n);
    checkList.reserve(n);
    failed.reserve(n);
    uint32_t localStamp = 0;
    uint32_t statStamp = 0;
    constexpr double TOL = 1e-9;
    // Departures only (no new flow): the allocation left is feasible, and if every flow the
    // departures can concern (on their links, at least as fast as a departed flow) still has a
    // bottleneck or its cap, it is the max-min one as it stands: nothing to water-fill. A
    // capacity change (theta 0) concerns every flow on the link, and its load must still fit.
    // Why that suffices (a proof sketch):
    // - Before the batch the allocation is max-min (within TOL): every sending flow is at its
    //   cap or has a bottleneck, a saturated link on which no flow is faster.
    // - A dirty link d has theta(d) = the lowest old rate of the flows that left it. A remaining
    //   flow g on d slower than theta(d) did not have d as its bottleneck (the departed flow
    //   was faster there). Its bottleneck b is then either clean (load, members and rates
    //   unchanged: still saturated, g still the fastest on it) or dirty with g at or above
    //   theta(b) (g was the fastest on b), and then g is checked on b's account below. The same
    //   holds for a flow on no dirty link: its bottleneck is clean.
    // - Flows at or above theta(d) on a dirty link are re-checked: each must find a saturated
    //   link on which it is the fastest (or be at its cap), under the rates as they stand.
    // So every flow has its cap or a bottleneck in a feasible allocation: it is the max-min one
    // (unique). A departure that freed a flow's only bottleneck leaves that flow at or above
    // theta with no saturated link on which it is the fastest: the check fails, and the
    // water-filling below runs (counted in FlowSimStats::keptBatches / keptRejected).
    // (Its own small helpers: the local stage's, shared, were no longer inlined there.)
    auto keptAsIs = [&](double t)
    {
        checkList.clear();
        ++statStamp;
        const uint32_t mark = ++s.stamp;
        // Load and fastest flow of a link under the current rates (once per batch).
        auto stat = [&](uint32_t d)
        {
            Impl::Link& l = s.links[d];
            if (l.statMark != statStamp)
            {
                l.statMark = statStamp;
                double load = 0;
                double top = 0;
                for (size_t i = 0; i < l.flows.size(); ++i)
                {
                    const double r = s.hot[l.flows[i]].rate;
                    load += weightAt(d, i) * r;
                    top = std::max(top, r);
                }
                l.statLoad = load;
                l.statMax = top;
            }
        };
        auto isBottleneck = [&](uint32_t d, double r)
        {
            stat(d);
            const Impl::Link& l = s.links[d];
            return l.statLoad >= l.cap * (1 - TOL) && r >= l.statMax * (1 - TOL);
        };
        // As the local stage's check: at the NIC cap, or a bottleneck (the last one first).
        auto bottlenecked = [&](uint32_t f)
        {
            Impl::Hot& h = s.hot[f];
            const double r = h.rate;
            if (r >= nic * (1 - TOL))
            {
                return true;
            }
            if (h.hint != UINT32_MAX && isBottleneck(h.hint, r))
            {
                return true;
            }
            for (const auto& [d, w] : s.flows[f].links)
            {
                if (d != h.hint && isBottleneck(d, r))
                {
                    h.hint = d;
                    return true;
                }
            }
            return false;
        };
        for (uint32_t d : s.dirtyLinks)
        {
            stat(d);
            const Impl::Link& l = s.links[d];
            if (l.statLoad > l.cap * (1 + TOL))
            {
                NS_LOG_LOGIC("departures at " << t << " s not kept: link " << d << " carries "
                                              << l.statLoad << " bit/s over " << l.cap);
                return false;
            }
            const double theta = s.linkTheta[d] * (1 - TOL);
            for (uint32_t g : l.flows)
            {
                Impl::Hot& h = s.hot[g];
                if (h.rate >= theta && h.check != mark)
                {
                    h.check = mark;
                    if (!bottlenecked(g))
                    {
                        NS_LOG_LOGIC("departures at " << t << " s not kept: flow " << g << " at "
                                                      << h.rate << " bit/s lost its bottleneck");
                        return false;
                    }
                    checkList.push_back(g);
                }
            }
        }
        // Their progress is brought up to t as the local stage would (its seed set is exactly
        // these flows, their rates unchanged): later arithmetic on their bytes stays the same.
        for (uint32_t g : checkList)
        {
            advance(g, t);
        }
        for (uint32_t d : s.dirtyLinks)
        {
            s.linkTheta[d] = INF;
            s.links[d].mark = 0;
        }
        s.dirtyLinks.clear();
        return true;
    };
    auto tryLocal = [&](double t)
    {
        // The per-flow and per-link arrays do not move during a recomputation: their bases are
        // read once here (through s, every access reloaded them after any byte-sized store).
        Impl::Hot* const hot = s.hot.data();
        Impl::Link* const lnk = s.links.data();
        const Impl::Flow* const fls = s.flows.data();
        ++localStamp;
        setS.clear();
        // S holds at least the new flows that send over links: more than the budget (e.g. a
        // collective's first step, all flows new) is handed over without seeding S.
        if (s.freshFlows.size() > 64 + s.sending / 4)
        {
            size_t newSending = 0;
            for (uint32_t f : s.freshFlows)
            {
                const Impl::Hot& h = hot[f];
                newSending += h.fresh && h.phase == FlowPhase::SENDING && h.routed ? 1 : 0;
            }
            if (newSending > 64 + s.sending / 4)
            {
                m_stats.localFallbacks++;
                return false;
            }
        }
        auto addS = [&](uint32_t f)
        {
            Impl::Hot& h = hot[f];
            if (h.inS != localStamp && h.phase == FlowPhase::SENDING && h.routed)
            {
                h.inS = localStamp;
                h.cand = h.rate;
                setS.push_back(f);
            }
        };
        for (uint32_t f : s.freshFlows)
        {
            if (hot[f].fresh)
            {
                addS(f);
            }
        }
        for (uint32_t d : s.dirtyLinks)
        {
            // A departure at rate theta frees capacity for the flows at least as fast on the
            // link; a capacity change (theta 0) concerns every flow on it.
            const double theta = s.linkTheta[d] * (1 - TOL);
            for (uint32_t g : lnk[d].flows)
            {
                const Impl::Hot& h = hot[g];
                if (!h.fresh && h.rate >= theta)
                {
                    addS(g);
                }
            }
        }
        auto rateOf = [&](uint32_t f)
        {
            const Impl::Hot& h = hot[f];
            return h.inS == localStamp ? h.cand : h.rate;
        };
        // Load and fastest flow of a link under the candidate rates (once per round).
        auto stat = [&](uint32_t d)
        {
            Impl::Link& l = lnk[d];
            if (l.statMark != statStamp)
            {
                l.statMark = statStamp;
                double load = 0;
                double top = 0;
                for (size_t i = 0; i < l.flows.size(); ++i)
                {
                    const double r = rateOf(l.flows[i]);
                    load += weightAt(d, i) * r;
                    top = std::max(top, r);
                }
                l.statLoad = load;
                l.statMax = top;
            }
        };
        // (The local stage runs without Ramp only: every flow's cap is the NIC's.)
        auto isBottleneck = [&](uint32_t d, double r)
        {
            stat(d);
            const Impl::Link& l = lnk[d];
            return l.statLoad >= l.cap * (1 - TOL) && r >= l.statMax * (1 - TOL);
        };
        // The link that was the flow's bottleneck the last time it passed is tried first (an
        // OR over the flow's links: the order changes the work, not the answer).
        auto bottlenecked = [&](uint32_t f)
        {
            Impl::Hot& h = hot[f];
            const double r = h.inS == localStamp ? h.cand : h.rate;
            if (r >= nic * (1 - TOL))
            {
                return true;
            }
            if (h.hint != UINT32_MAX && isBottleneck(h.hint, r))
            {
                return true;
            }
            for (const auto& [d, w] : fls[f].links)
            {
                if (d != h.hint && isBottleneck(d, r))
                {
                    h.hint = d;
                    return true;
                }
            }
            return false;
        };
        const size_t budget = 64 + s.sending / 4;
        while (setS.size() <= budget)
        {
            // Water-fill S over the capacity the other flows leave.
            ++s.stamp;
            compLinks.clear();
            bool grown = false;
            for (size_t i = 0; i < setS.size() && !grown; ++i)
            {
                for (const auto& [d, w] : fls[setS[i]].links)
                {
                    if (lnk[d].mark == s.stamp)
                    {
                        continue;
                    }
                    lnk[d].mark = s.stamp;
                    s.localOf[d] = compLinks.size();
                    compLinks.push_back(d);
                }
            }
            localCap.resize(compLinks.size());
            for (size_t i = 0; i < compLinks.size(); ++i)
            {
                const uint32_t d = compLinks[i];
                const Impl::Link& l = lnk[d];
                const double cap = l.cap;
                double c = cap;
                for (size_t j = 0; j < l.flows.size(); ++j)
                {
                    const Impl::Hot& h = hot[l.flows[j]];
                    if (h.inS != localStamp)
                    {
                        c -= weightAt(d, j) * h.rate;
                    }
                }
                if (c < -TOL * cap)
                {
                    // The held flows alone overload it: they must be re-solved too.
                    for (uint32_t g : l.flows)
                    {
                        addS(g);
                    }
                    grown = true;
                }
                localCap[i] = std::max(0.0, c);
            }
            if (grown)
            {
                continue;
            }
            localFlows.Clear();
            localFlows.Reserve(setS.size(), compLinkCount(setS));
            for (size_t i = 0; i < setS.size(); ++i)
            {
                const Impl::Flow& fl = fls[setS[i]];
                for (const auto& [d, w] : fl.links)
                {
                    localFlows.AddLink(s.localOf[d], w);
                }
                localFlows.EndFlow(nic); // no Ramp here: rampCap is infinite
            }
            const std::vector<double>& rates = solver.Solve(localCap, localFlows);
            m_stats.recomputations++;
            m_stats.flowsRecomputed += setS.size();
            for (size_t i = 0; i < setS.size(); ++i)
            {
                const uint32_t f = setS[i];
                const double old = hot[f].rate;
                double rate = rates[i];
                if (old > 0 && std::fabs(rate - old) <= 1e-12 * old)
                {
                    rate = old; // rounding noise: no needless rescheduling
                }
                hot[f].cand = rate;
            }
            // Check every flow on a link that changed: dirty links and the links of the flows
            // of S whose rate moved (S's own flows are among them or unchanged in place).
            ++statStamp;
            const uint32_t mark = ++s.stamp;
            checkList.clear();
            auto checkFlow = [&](uint32_t g)
            {
                if (hot[g].check != mark)
                {
                    hot[g].check = mark;
                    checkList.push_back(g);
                }
            };
            auto checkLink = [&](uint32_t d)
            {
                if (lnk[d].mark == mark)
                {
                    return;
                }
                lnk[d].mark = mark;
                for (uint32_t g : lnk[d].flows)
                {
                    checkFlow(g);
                }
            };
            // On a link a flow left at rate theta, only the flows at least as fast can have had
            // their bottleneck there (it was the departed flow's as well); slower flows see a
            // change there only through a flow of S, whose links are checked in full.
            for (uint32_t d : s.dirtyLinks)
            {
                const double theta = s.linkTheta[d] * (1 - TOL);
                for (uint32_t g : lnk[d].flows)
                {
                    if (hot[g].rate >= theta)
                    {
                        checkFlow(g);
                    }
                }
            }
            for (uint32_t f : setS)
            {
                checkFlow(f);
            }
            for (uint32_t f : setS)
            {
                if (hot[f].cand != hot[f].rate || hot[f].fresh)
                {
                    for (const auto& [d, w] : fls[f].links)
                    {
                        checkLink(d);
                    }
                }
            }
            failed.clear();
            for (uint32_t g : checkList)
            {
                if (hot[g].phase == FlowPhase::SENDING && !bottlenecked(g))
                {
                    failed.push_back(g);
                }
            }
            if (failed.empty())
            {
                for (uint32_t f : setS)
                {
                    setRate(f, hot[f].cand, t);
                }
                // The dirty links' marks were overwritten by the stamps above.
                for (uint32_t d : s.dirtyLinks)
                {
                    s.linkTheta[d] = INF;
                    lnk[d].mark = 0;
                }
                s.dirtyLinks.clear();
                for (uint32_t f : s.freshFlows)
                {
                    hot[f].fresh = false;
                }
                s.freshFlows.clear();
                return true;
            }
            // A failed flow joins S with the faster flows on its links (those that may have
            // to yield to it); if that adds nothing, with every flow on its links.
            const size_t before = setS.size();
            for (uint32_t g : failed)
            {
                addS(g);
                const double r = rateOf(g) * (1 + TOL);
                for (const auto& [d, w] : fls[g].links)
                {
                    for (uint32_t h : lnk[d].flows)
                    {
                        if (rateOf(h) > r)
                        {
                            addS(h);
                        }
                    }
                }
            }
            if (setS.size() == before)
            {
                for (uint32_t g : failed)
                {
                    for (const auto& [d, w] : fls[g].links)
                    {
                        for (uint32_t h : lnk[d].flows)
                        {
                            addS(h);
                        }
                    }
                }
            }
            if (setS.size() == before)
            {
                break; // cannot happen (a flow whose neighbours are all in S passes): be safe
            }
        }
        // Over budget: restore the dirty links' marks for the threshold recomputation.
        for (uint32_t d : s.dirtyLinks)
        {
            lnk[d].mark = UINT32_MAX;
        }
        m_stats.localFallbacks++;
        return false;
    };
    uint32_t localSkip = 0;
    uint32_t localBackoff = 0;
    uint32_t keptSkip = 0;
    uint32_t keptBackoff = 0;
    auto recompute = [&](double t)
    {
        if (s.dirtyLinks.empty() && s.freshFlows.empty())
        {
            return; // nothing changed
        }
        // A batch of departures that leaves every concerned flow with its bottleneck needs no
        // water-filling at all (e.g. the AllReduce rows: 225 flows re-solved to the same rates
        // after the first 15 finished, in the threshold stage when the local one was skipped).
        // Where departures keep changing rates (random traffic), the check fails and its work
        // is wasted: after a failure it is skipped for a number of batches that doubles with
        // each consecutive failure (at most 64).
        bool kept = false;
        if (s.incremental && s.freshFlows.empty())
        {
            if (keptSkip > 0)
            {
                --keptSkip;
            }
            else if (keptAsIs(t))
            {
                NS_LOG_LOGIC("departures at " << t << " s: allocation kept as it stands");
                m_stats.keptBatches++;
                keptBackoff = 0;
                kept = true;
            }
            else
            {
                m_stats.keptRejected++;
                keptBackoff = std::min<uint32_t>(64, std::max<uint32_t>(1, 2 * keptBackoff));
                keptSkip = keptBackoff;
            }
        }
        if (kept)
        {
            // Counted as a batch the local stage handled (or skipped), as before this check.
            if (localSkip > 0)
            {
                --localSkip;
            }
            else
            {
                localBackoff = 0;
            }
            return;
        }
        // Where the local attempt keeps handing over (strongly coupled flows, e.g. fluid splits
        // at high load), its work is wasted: after a hand-over, skip it for a number of
        // batches that doubles with each consecutive hand-over (at most 64).
        if (s.incremental && localSkip > 0)
        {
            --localSkip;
        }
        else if (s.incremental)
        {
            if (tryLocal(t))
            {
                localBackoff = 0;
                return;
            }
            localBackoff = std::min<uint32_t>(64, std::max<uint32_t>(1, 2 * localBackoff));
            localSkip = localBackoff;
        }
        if (s.incremental)
        {
            for (uint32_t f : s.freshFlows)
            {
                const Impl::Flow& fl = s.flows[f];
                if (!s.hot[f].fresh || s.hot[f].phase != FlowPhase::SENDING)
                {
                    continue;
                }
                double theta = std::min(nic, fl.rampCap);
                for (const auto& [d, w] : fl.links)
                {
                    if (s.levelCache[d] < 0)
                    {
                        s.levelCache[d] = saturationLevel(d);
                        levelKnown.push_back(d);
                    }
                    theta = std::min(theta, s.levelCache[d]);
                }
                for (const auto& [d, w] : fl.links)
                {
                    s.linkTheta[d] = std::min(s.linkTheta[d], theta);
                }
            }
            for (uint32_t d : levelKnown)
            {
                s.levelCache[d] = -1;
            }
            levelKnown.clear();
        }
        dirty.clear();
        dirty.swap(s.dirtyLinks);
        std::sort(dirty.begin(),
                  dirty.end(),
                  [&](uint32_t a, uint32_t b) {
                      return s.linkTheta[a] < s.linkTheta[b]
                          || (s.linkTheta[a] == s.linkTheta[b] && a < b);
                  });
        ++s.stamp;
        for (uint32_t seed : dirty)
        {
            if (s.links[seed].mark == s.stamp)
            {
                continue;
            }
            // Slower flows than this keep their rates (a margin against rounding).
            const double theta = s.linkTheta[seed] * (1 - 1e-9);
            compLinks.clear();
            compFlows.clear();
            compLinks.push_back(seed);
            s.links[seed].mark = s.stamp;
            for (size_t i = 0; i < compLinks.size(); ++i)
            {
                for (uint32_t f : s.links[compLinks[i]].flows)
                {
                    if (s.flowMark[f] == s.stamp)
                    {
                        continue;
                    }
                    const Impl::Flow& fl = s.flows[f];
                    if (!s.hot[f].fresh && s.hot[f].rate < theta)
                    {
                        continue; // fixed: its load is taken off the capacity below
                    }
                    s.flowMark[f] = s.stamp;
                    compFlows.push_back(f);
                    for (const auto& [d, w] : fl.links)
                    {
                        if (s.links[d].mark != s.stamp)
                        {
                            s.links[d].mark = s.stamp;
                            compLinks.push_back(d);
                        }
                    }
                }
            }
            localCap.resize(compLinks.size());
            for (size_t i = 0; i < compLinks.size(); ++i)
            {
                const uint32_t d = compLinks[i];
                s.localOf[d] = i;
                double c = usableCap(d);
                for (size_t j = 0; j < s.links[d].flows.size(); ++j)
                {
                    const uint32_t g = s.links[d].flows[j];
                    if (s.flowMark[g] != s.stamp)
                    {
                        c -= weightAt(d, j) * s.hot[g].rate;
                    }
                }
                localCap[i] = std::max(0.0, c);
            }
            localFlows.Clear();
            localFlows.Reserve(compFlows.size(), compLinkCount(compFlows));
            for (size_t i = 0; i < compFlows.size(); ++i)
            {
                const Impl::Flow& fl = s.flows[compFlows[i]];
                for (const auto& [d, w] : fl.links)
                {
                    localFlows.AddLink(s.localOf[d], w);
                }
                localFlows.EndFlow(std::min(nic, fl.rampCap));
            }
            const std::vector<double>& rates = solver.Solve(localCap, localFlows);
            m_stats.recomputations++;
            m_stats.flowsRecomputed += compFlows.size();
            for (size_t i = 0; i < compFlows.size(); ++i)
            {
                const uint32_t f = compFlows[i];
                Impl::Flow& fl = s.flows[f];
                const double old = s.hot[f].rate;
                double rate = rates[i];
                // Keep the old rate through rounding noise: no needless rescheduling.
                if (old > 0 && std::fabs(rate - old) <= 1e-12 * old)
                {
                    rate = old;
                }
                setRate(f, rate, t);
                if (m_ramp)
                {
                    // Only a positive share is a cut by contention (CNPs). Rate 0 means a link
                    // of the path has no capacity (a failure): DCQCN gets no CNP from a dead
                    // link, so the cap stays and a rerouted flow resumes at it.
                    if (rate > 0 && rate < fl.rampCap * (1 - 1e-9))
                    {
                        fl.rampCap = rate; // cut to the share (CNPs); recovers by RAMP steps
                    }
                    else if (fl.rampCap < fl.line && !fl.rampPending)
                    {
                        fl.rampPending = true;
                        s.Push(t + rampStep, EventType::RAMP, f);
                    }
                }
            }
        }
        for (uint32_t d : dirty)
        {
            s.linkTheta[d] = INF;
        }
        for (uint32_t f : s.freshFlows)
        {
            s.hot[f].fresh = false;
        }
        s.freshFlows.clear();
    };

    auto startFlow = [&](uint32_t f, double t)
    {
        Impl::Flow& fl = s.flows[f];
        FlowSimRecord& r = m_records[f];
        s.hot[f].phase = FlowPhase::SENDING;
        fl.lastT = t;
        r.started = true;
        r.startS = t;
        const bool ok = route(f, scratch, routeLinks);
        fl.links = s.linkArena.Store(routeLinks);
        timing(f, scratch);
        r.path.assign(scratch.nodes.data(), scratch.nodes.data() + scratch.hops + 1);
        r.dirLinks.assign(scratch.LinksBegin(), scratch.LinksEnd());
        fl.remaining = r.wireBytes;
        if (!ok)
        {
            fl.links.clear();
        }
        s.hot[f].routed = !fl.links.empty();
        fl.rampCap = m_ramp ? m_rampInitial * fl.line : INF;
        ++s.sending;
        m_stats.peakActive = std::max(m_stats.peakActive, s.sending);
        attach(f);
        // At rate 0 until a recomputation gives it a share: at once with RecomputeInterval 0
        // (this instant adds 0), at the next grid point otherwise; never, with no route.
        fl.stallSince = t;
    };

    auto release = [&](uint32_t d, double t)
    {
        if (--s.flows[d].waiting == 0)
        {
            s.Push(t + m_records[d].spec.startS, EventType::START, d);
        }
    };

    auto reroute = [&](double t)
    {
        for (uint32_t f = 0; f < n; ++f)
        {
            Impl::Flow& fl = s.flows[f];
            if (s.hot[f].phase != FlowPhase::SENDING)
            {
                continue;
            }
            Trace& hashed = scratch;
            std::vector<LinkShare>& links = routeLinks;
            const bool ok = route(f, hashed, links);
            if (fl.links == links)
            {
                continue;
            }
            advance(f, t);
            detach(f, t);
            fl.links = s.linkArena.Store(links);
            s.hot[f].routed = !fl.links.empty();
            attach(f);
            // Detached, it is at rate 0 until a recomputation shares its new links (or, with
            // no route, until a later view change routes it): see startFlow.
            if (fl.stallSince < 0)
            {
                fl.stallSince = t;
            }
            FlowSimRecord& r = m_records[f];
            r.reroutes++;
            if (ok)
            {
                r.path.assign(hashed.nodes.data(), hashed.nodes.data() + hashed.hops + 1);
                r.dirLinks.assign(hashed.LinksBegin(), hashed.LinksEnd());
                // The tail and the line limit are the new path's. The ideal, with the base
                // RTT and line rate it was computed from, stays the one of the path the flow
                // was first routed on (the packet level's ideal is its path at the start);
                // a flow that had none (it started with no route) takes this path's.
                const double ideal = r.idealS;
                const double baseRtt = r.baseRttS;
                const double lineBps = r.lineBps;
                timing(f, hashed);
                if (std::isfinite(ideal))
                {
                    r.idealS = ideal;
                    r.baseRttS = baseRtt;
                    r.lineBps = lineBps;
                }
                else if (m_ramp)
                {
                    // Its first path: it starts at the ramp's initial fraction of that path's
                    // line rate, as a flow routed at its start does.
                    fl.rampCap = m_rampInitial * fl.line;
                }
            }
        }
    };

    const double quantum = m_recomputeInterval.GetSeconds();
    bool recomputePending = false;
    double now = 0;
    // The run ends at stopS, or at the instant the last flow completes: link events still
    // pending then change nothing any flow does, and running on to them would stretch endS
    // (and the link utilizations over [0, endS]) with idle time.
    double horizon = stopS;
    size_t completed = 0;
    Event e;
    while (s.Peek(e))
    {
        const double t = e.t;
        if (t > horizon)
        {
            break;
        }
        now = t;
        m_stats.instants++;
        // Every event of this instant, then one recomputation.
        bool recomputeNow = quantum <= 0;
        while (s.Peek(e) && e.t == t)
        {
            s.Pop();
            m_stats.events++;
            switch (e.type)
            {
            case EventType::START:
                startFlow(e.a, t);
                break;
            case EventType::FLUID_END:
            {
                Impl::Flow& fl = s.flows[e.a];
                if (s.hot[e.a].phase != FlowPhase::SENDING || fl.version != e.b)
                {
                    break; // superseded by a rate change
                }
                fl.remaining = 0;
                fl.lastT = t;
                detach(e.a, t);
                s.hot[e.a].phase = FlowPhase::TAIL;
                --s.sending;
                s.PushTail(t + fl.tail, e.a);
                break;
            }
            case EventType::COMPLETE:
            {
                s.hot[e.a].phase = FlowPhase::DONE;
                FlowSimRecord& r = m_records[e.a];
                r.complete = true;
                r.finishS = t;
                m_completeTrace(e.a, r.FctSeconds());
                if (++completed == n)
                {
                    horizon = t; // the rest of this instant runs, nothing after it
                }
                for (uint32_t d : s.dependents[e.a])
                {
                    release(d, t);
                }
                const uint32_t p = r.spec.phase;
                if (--s.phaseLeft[p] == 0 && p + 1 < s.phaseFlows.size())
                {
                    for (uint32_t d : s.phaseFlows[p + 1])
                    {
                        release(d, t);
                    }
                }
                break;
            }
            case EventType::PHYSICAL:
            {
                const uint32_t nd = 2 * g.GetNLinks();
                std::vector<uint8_t> before(nd);
                for (uint32_t d = 0; d < nd; ++d)
                {
                    before[d] = s.truth->IsDirLinkUsable(d);
                }
                Apply(*s.truth, s.linkEvents[e.a]);
                for (uint32_t d = 0; d < nd; ++d)
                {
                    const bool usable = s.truth->IsDirLinkUsable(d);
                    if (before[d] != uint8_t(usable))
                    {
                        s.links[d].cap = usable ? s.capacity[d] : 0.0;
                        s.MarkDirty(d, 0);
                    }
                }
                s.Push(t + m_rerouteDelay.GetSeconds(), EventType::VIEW, e.a);
                break;
            }
            case EventType::VIEW:
                Apply(*s.view, s.linkEvents[e.a]);
                reroute(t);
                break;
            case EventType::RECOMPUTE:
                recomputePending = false;
                recomputeNow = true;
                break;
            case EventType::RAMP:
            {
                Impl::Flow& fl = s.flows[e.a];
                fl.rampPending = false;
                if (s.hot[e.a].phase == FlowPhase::SENDING)
                {
                    fl.rampCap += (fl.line - fl.rampCap) / 2;
                    if (fl.line - fl.rampCap < 1e-3 * fl.line)
                    {
                        fl.rampCap = fl.line;
                    }
                    for (const auto& [d, w] : fl.links)
                    {
                        // A higher cap matters from its old rate up.
                        s.MarkDirty(d, s.hot[e.a].rate);
                    }
                }
                break;
            }
            }
        }
        if (!recomputeNow && !s.dirtyLinks.empty() && !recomputePending)
        {
            // The next grid point, which may be this instant (flows started at t = 0, or on
            // any grid point, do not wait a whole interval; a point within rounding of now
            // is now: an event time and a Time's seconds need not be the same double).
            const double k = std::round(now / quantum);
            if (std::fabs(now - k * quantum) <= 1e-9 * quantum)
            {
                recomputeNow = true;
            }
            else
            {
                recomputePending = true;
                s.Push((std::floor(now / quantum) + 1) * quantum, EventType::RECOMPUTE, 0);
            }
        }
        if (recomputeNow)
        {
            recompute(now);
        }
    }
    // Close the books: flows still sending have moved their bytes up to now.
    const double end = std::isfinite(horizon) && s.Peek(e) ? horizon : now;
    for (uint32_t d = 0; d < s.acc.size(); ++d)
    {
        // (Most links of a small run never carried anything: no call for them.)
        const Impl::LinkAcc& a0 = s.acc[d];
        if (a0.load > 0)
        {
            integrate(d, end);
        }
        if (a0.bin != UINT32_MAX)
        {
            flushBin(d);
        }
        m_links[d].bytes = a0.bytes;
    }
    for (uint32_t f = 0; f < n; ++f)
    {
        if (s.hot[f].phase == FlowPhase::SENDING)
        {
            advance(f, end);
            if (s.flows[f].stallSince >= 0)
            {
                m_records[f].stalledS += end - s.flows[f].stallSince;
                s.flows[f].stallSince = -1;
            }
        }
    }
    m_stats.endS = end;
    m_stats.tailsToHeap = s.tailsToHeap;
    m_stats.tailCompactions = s.tailCompactions;
    m_stats.endsToHeap = s.ends.ToHeap();
    m_stats.endRunCompactions = s.ends.Compactions();
    m_stats.wallSeconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
}

} // namespace ns3
