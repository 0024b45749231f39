// SPDX-License-Identifier: GPL-2.0-only
// Bit identity of the flow level: a set of fixed experiments (the default comparison's rows,
// Ramp, a fluid split, collectives with dependencies, failures and repairs with a reroute
// delay, random Poisson arrivals with a NIC cap and with a recompute grid) is run and every
// result is dumped as text with floating-point values in hex (%a): per flow its start, finish,
// ideal FCT, base RTT, line rate, wire bytes, stall time, reroutes, path and directed links;
// per directed link its capacity, bytes and utilization bins; the run's end. The dump's 64-bit
// FNV-1a hash must equal the one stored in flow-bit-identity.json.
//
// Work counters (water-fillings, flows re-solved, hand-overs) are left out on purpose: a change
// that does less work for the same results keeps the hashes.
//
// When a hash differs, the dump is written next to the test binary
// (flow-bit-identity-<name>.txt): run the previous build with FLOW_BIT_IDENTITY_DUMP=1 to get
// its dumps and diff them. A change of results on purpose: run
// `FLOW_BIT_IDENTITY_WRITE=1 test-bin/flow-unit-tests --gtest_filter='*FlowBitIdentity*'`
// (one process), which rewrites the stored hashes (each case whose hash it writes fails: it was
// not checked; run again without the variable), and say why in the commit. A case with no
// stored hash fails.
// The hashes pin IEEE double arithmetic as x86-64 SSE2 computes it (no FMA contraction); a
// build with -march flags that enable FMA may legitimately differ in the last bits.
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/ecmp-routing.h"
#include "ns3/flow-collectives.h"
#include "ns3/flow-sim-helper.h"
#include "ns3/nstime.h"
#include "ns3/rng-topology.h"
#include "ns3/spraypoint-routing.h"
#include "ns3/uinteger.h"
#include "ns3/zcube-routing.h"
#include "ns3/zcube-topology.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>

using namespace ns3;

namespace
{

/// One experiment: a routing bound to its graph, flows, link events, simulator attributes.
struct Experiment
{
    Ptr<FabricRouting> routing;
    std::vector<FlowSpec> flows;
    std::vector<FlowSimLinkEvent> events;
    std::function<void(FlowSimHelper&)> configure;
    double stopS = std::numeric_limits<double>::infinity(); //!< run horizon
};

/// The default comparison's flow helper (PacketFlowFlowHelper: 400 Gb/s, 1 us, 10 us bins).
FlowSimHelper
ComparisonHelper()
{
    FlowSimHelper h;
    h.SetAttribute("DefaultLinkRate", DataRateValue(DataRate("400Gbps")));
    h.SetAttribute("LinkDelay", TimeValue(MicroSeconds(1)));
    h.SetAttribute("UtilizationBin", TimeValue(MicroSeconds(10)));
    return h;
}

std::vector<FlowSpec>
Pattern(const std::string& name, uint32_t hosts, uint64_t bytes)
{
    TrafficPatternParams tp;
    tp.hosts = hosts;
    tp.seed = 1;
    tp.bytes = bytes;
    return MakeTraffic(ParseTrafficPattern(name), tp);
}

std::shared_ptr<const FabricGraph>
ZCube16()
{
    return ZCubeLayout(16, 4).Build();
}

std::shared_ptr<const FabricGraph>
Roft16()
{
    return RoftLayout(16, 4, 4).Build();
}

/// Random pairs, sizes and arrivals from integers only (no libm in the inputs).
std::vector<FlowSpec>
RandomFlows(uint32_t hosts, uint32_t count, uint64_t seed, uint32_t meanGapNs)
{
    std::mt19937_64 rng(seed);
    std::vector<FlowSpec> flows;
    uint64_t tNs = 0;
    for (uint32_t i = 0; i < count; ++i)
    {
        tNs += rng() % (2 * meanGapNs);
        FlowSpec f;
        f.id = i;
        f.src = static_cast<uint32_t>(rng() % hosts);
        f.dst = static_cast<uint32_t>(rng() % (hosts - 1));
        f.dst += f.dst >= f.src ? 1 : 0;
        f.bytes = 4096 + rng() % 500000;
        f.startS = tNs * 1e-9;
        f.srcPort = static_cast<uint16_t>(49152 + i % 16384);
        flows.push_back(f);
    }
    return flows;
}

/// The first switch-to-switch link (undirected id) on the hashed path of \p f.
uint32_t
CoreLinkOf(const FabricRouting& routing, const FlowSpec& f)
{
    const FabricGraph& g = *routing.GetGraphPtr();
    const FabricPath p = TracePath(routing, f.src, f.dst, f.Key());
    for (uint32_t d : p.dirLinks)
    {
        if (!g.IsHost(g.GetDirLinkTail(d)) && !g.IsHost(g.GetDirLinkHead(d)))
        {
            return d / 2;
        }
    }
    throw std::logic_error("CoreLinkOf: the flow crosses no switch-to-switch link");
}

Experiment
MakeExperiment(const std::string& name)
{
    Experiment x;
    x.configure = [](FlowSimHelper&) {
    };
    if (name == "zcube-allreduce")
    {
        x.routing = MakeRouting<ZCubeRouting>(ZCube16(), "Seed", UintegerValue(1));
        x.flows = Pattern("allreduce", 16, 65536);
    }
    else if (name == "zcube-prefill")
    {
        x.routing = MakeRouting<ZCubeRouting>(ZCube16(), "Seed", UintegerValue(1));
        x.flows = Pattern("prefill", 16, 1000000);
    }
    else if (name == "roft-allreduce" || name == "roft-allreduce-ramp" || name == "roft-prefill")
    {
        x.routing = MakeRouting<EcmpRouting>(Roft16(), "Seed", UintegerValue(1));
        x.flows = Pattern(name == "roft-prefill" ? "prefill" : "allreduce",
                          16,
                          name == "roft-prefill" ? 1000000 : 65536);
        if (name == "roft-allreduce-ramp")
        {
            // The ramp acts here: flows leave at many instants and the survivors, cut to
            // their shares before, climb back by ramp steps. (On the ZCube AllReduce and
            // Prefill every flow leaves at once and it never binds.)
            x.configure = [](FlowSimHelper& h)
            {
                h.SetAttribute("Ramp", BooleanValue(true));
            };
        }
    }
    else if (name == "roft-prefill-fluid")
    {
        x.routing = MakeRouting<EcmpRouting>(Roft16(), "Seed", UintegerValue(1));
        x.flows = Pattern("prefill", 16, 1000000);
        x.configure = [](FlowSimHelper& h)
        {
            h.SetAttribute("FluidSplit", BooleanValue(true));
        };
    }
    else if (name == "rng-permutation")
    {
        auto g = std::shared_ptr<const FabricGraph>(
            RngFabric(MakeRandomRegularGraph(16, 4, 1), 2).Build());
        x.routing = MakeRouting<SpraypointRouting>(g, "Seed", UintegerValue(1));
        x.flows = Pattern("permutation", g->GetNHosts(), 1000000);
    }
    else if (name == "zcube-halving-doubling")
    {
        // 2 log2 n phases: each step starts when the previous one completed everywhere.
        x.routing = MakeRouting<ZCubeRouting>(ZCube16(), "Seed", UintegerValue(1));
        x.flows = MakeHalvingDoublingAllReduce(16, 4000000);
    }
    else if (name == "roft-failures")
    {
        // A core link of a running flow fails and is repaired, a spine fails: survivors
        // re-share at once, flows move after the reroute delay, some stall for a while.
        x.routing = MakeRouting<EcmpRouting>(Roft16(), "Seed", UintegerValue(1));
        x.flows = Pattern("allreduce", 16, 262144);
        const uint32_t core = CoreLinkOf(*x.routing, x.flows[5]);
        const uint32_t spine = 16 + 4; // RoftLayout: hosts, then leaves, then spines
        x.events = {{2e-6, FlowSimLinkEvent::Kind::FAIL_LINK, core},
                    {9e-6, FlowSimLinkEvent::Kind::FAIL_NODE, spine + 1},
                    {25e-6, FlowSimLinkEvent::Kind::REPAIR_LINK, core},
                    {40e-6, FlowSimLinkEvent::Kind::REPAIR_NODE, spine + 1}};
        x.configure = [](FlowSimHelper& h)
        {
            h.SetAttribute("RerouteDelay", TimeValue(MicroSeconds(5)));
        };
    }
    else if (name == "zcube64-random")
    {
        // Poisson-like arrivals at high load: the verified local recomputation at work.
        x.routing = MakeRouting<ZCubeRouting>(ZCubeLayout(64, 8).Build(), "Seed", UintegerValue(1));
        x.flows = RandomFlows(64, 1500, 11, 100);
    }
    else if (name == "zcube64-random-stopped")
    {
        // Stopped while flows are on their links: the closing pass integrates the links
        // still loaded and stores their partly filled bins.
        x.routing = MakeRouting<ZCubeRouting>(ZCubeLayout(64, 8).Build(), "Seed", UintegerValue(1));
        x.flows = RandomFlows(64, 1500, 11, 100);
        x.stopS = 37.5e-6;
    }
    else if (name == "roft64-random-nic-grid")
    {
        x.routing
            = MakeRouting<EcmpRouting>(RoftLayout(64, 8, 4).Build(), "Seed", UintegerValue(3));
        x.flows = RandomFlows(64, 800, 12, 60);
        x.configure = [](FlowSimHelper& h)
        {
            h.SetAttribute("NicRate", DataRateValue(DataRate("150Gbps")));
            h.SetAttribute("RecomputeInterval", TimeValue(MicroSeconds(3)));
        };
    }
    else if (name == "roft64-random-full")
    {
        // The reference: whole components water-filled at every event.
        x.routing
            = MakeRouting<EcmpRouting>(RoftLayout(64, 8, 4).Build(), "Seed", UintegerValue(3));
        x.flows = RandomFlows(64, 400, 13, 60);
        x.configure = [](FlowSimHelper& h)
        {
            h.SetAttribute("Incremental", BooleanValue(false));
        };
    }
    else
    {
        throw std::invalid_argument("unknown experiment " + name);
    }
    return x;
}

std::string
Hex(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%a", v);
    return buf;
}

/// Every result of a run as text, floating-point values exact.
std::string
Dump(const FlowSimulator& sim)
{
    std::string out;
    for (const FlowSimRecord& r : sim.GetRecords())
    {
        out += "flow " + std::to_string(r.spec.id) + " " + std::to_string(r.started) + " "
             + std::to_string(r.complete) + " " + Hex(r.startS) + " " + Hex(r.finishS) + " "
             + Hex(r.idealS) + " " + Hex(r.baseRttS) + " " + Hex(r.lineBps) + " " + Hex(r.wireBytes)
             + " " + Hex(r.stalledS) + " " + std::to_string(r.reroutes) + " path";
        for (uint32_t v : r.path)
        {
            out += " " + std::to_string(v);
        }
        out += " links";
        for (uint32_t d : r.dirLinks)
        {
            out += " " + std::to_string(d);
        }
        out += "\n";
    }
    const auto& links = sim.GetLinks();
    for (uint32_t d = 0; d < links.size(); ++d)
    {
        out += "link " + std::to_string(d) + " " + Hex(links[d].capacityBps) + " "
             + Hex(links[d].bytes);
        for (double b : links[d].binBytes)
        {
            out += " " + Hex(b);
        }
        out += "\n";
    }
    out += "end " + Hex(sim.GetStats().endS) + "\n";
    return out;
}

std::string
Fnv1a64(const std::string& text)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text)
    {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%016" PRIx64, h);
    return buf;
}

const std::vector<std::string> EXPERIMENTS{"zcube-allreduce",
                                           "zcube-prefill",
                                           "roft-allreduce",
                                           "roft-allreduce-ramp",
                                           "roft-prefill",
                                           "roft-prefill-fluid",
                                           "rng-permutation",
                                           "zcube-halving-doubling",
                                           "roft-failures",
                                           "zcube64-random",
                                           "zcube64-random-stopped",
                                           "roft64-random-nic-grid",
                                           "roft64-random-full"};

/// Run experiment \p name; its dump (and, if \p stats is given, the run's counters).
std::string
RunAndDump(const std::string& name, FlowSimStats* stats = nullptr)
{
    Experiment x = MakeExperiment(name);
    FlowSimHelper h = ComparisonHelper();
    x.configure(h);
    Ptr<FlowSimulator> sim = h.Run(x.routing, x.flows, x.events, x.stopS);
    if (stats)
    {
        *stats = sim->GetStats();
    }
    return Dump(*sim);
}

class FlowBitIdentity : public testing::TestWithParam<std::string>
{
};

} // namespace

TEST_P(FlowBitIdentity, ResultsEqualTheStoredHash)
{
    const std::string name = GetParam();
    const std::string dump = RunAndDump(name);
    const std::string hash = Fnv1a64(dump);
    // The experiment is not trivial: flows completed and links carried bytes.
    EXPECT_NE(dump.find("flow 0 1 1 "), std::string::npos) << name << ": flow 0 did not complete";
    nlohmann::json stored = nlohmann::json::object();
    {
        std::ifstream in(FLOW_BIT_IDENTITY_FILE);
        ASSERT_TRUE(in.good()) << "cannot read " << FLOW_BIT_IDENTITY_FILE;
        stored = nlohmann::json::parse(in);
    }
    // Writing is requested by a non-empty FLOW_BIT_IDENTITY_WRITE (the ctest entries clear
    // it). A hash written now was not checked: the case fails, so a run that rewrites the
    // stored hashes (or adds a missing one) never passes as a check.
    const char* write = std::getenv("FLOW_BIT_IDENTITY_WRITE");
    if (write && *write && (!stored.contains(name) || stored[name].get<std::string>() != hash))
    {
        // Run the binary itself for this (one process, one experiment after the other).
        stored[name] = hash;
        std::ofstream(FLOW_BIT_IDENTITY_FILE) << stored.dump(2) << "\n";
        ADD_FAILURE() << name << ": hash " << hash << " written to " << FLOW_BIT_IDENTITY_FILE
                      << " (FLOW_BIT_IDENTITY_WRITE), not checked: run again without it";
        return;
    }
    if (std::getenv("FLOW_BIT_IDENTITY_DUMP") || !stored.contains(name)
        || stored[name].get<std::string>() != hash)
    {
        const std::string path = "flow-bit-identity-" + name + ".txt";
        std::ofstream(path) << dump;
        std::cerr << "dump of " << name << " written to " << path << "\n";
    }
    ASSERT_TRUE(stored.contains(name)) << name << " has no stored hash (FLOW_BIT_IDENTITY_WRITE=1)";
    EXPECT_EQ(stored[name].get<std::string>(), hash)
        << name << ": the flow level's results changed (see the comment at the top of " << __FILE__
        << ")";
}

// The variants exercise what they are named for: their results differ from the base case's.
TEST(FlowBitIdentityCases, VariantsDifferFromTheirBase)
{
    for (const auto& [variant, base] : std::vector<std::pair<std::string, std::string>>{
             {"roft-allreduce-ramp", "roft-allreduce"},
             {"roft-prefill-fluid", "roft-prefill"},
             {"zcube64-random-stopped", "zcube64-random"}})
    {
        EXPECT_NE(Fnv1a64(RunAndDump(variant)), Fnv1a64(RunAndDump(base))) << variant;
    }
}

INSTANTIATE_TEST_SUITE_P(Experiments,
                         FlowBitIdentity,
                         testing::ValuesIn(EXPERIMENTS),
                         [](const testing::TestParamInfo<std::string>& info)
                         {
                             std::string s = info.param;
                             for (char& c : s)
                             {
                                 c = c == '-' ? '_' : c;
                             }
                             return s;
                         });

TEST(FlowBitIdentity, SameRunTwiceSameBits)
{
    // Determinism within a process (allocator state differs between the two runs).
    EXPECT_EQ(RunAndDump("zcube64-random"), RunAndDump("zcube64-random"));
    EXPECT_EQ(RunAndDump("roft-failures"), RunAndDump("roft-failures"));
}

// The sorted run of pending completions and the event heap order completions alike: with the
// shift limit at 0 (every completion that lands before a pending one goes to the heap) and
// with no limit (none goes there), every experiment's results are the default's bit for bit.
// FlowSimulator.CompletionsInTimeOrderWhenTailsOvertake and
// FlowSimulator.SameInstantCompletionsInSchedulingOrder check the order of completions.
TEST(FlowBitIdentity, SameBitsWhateverTheCompletionShiftLimit)
{
    uint64_t toHeapDefault = 0;
    uint64_t toHeapZero = 0;
    for (const std::string& name : EXPERIMENTS)
    {
        FlowSimStats def;
        const std::string dump = RunAndDump(name, &def);
        toHeapDefault += def.tailsToHeap;
        for (const uint32_t limit : {0u, UINT32_MAX})
        {
            const uint32_t previous = FlowSimulator::SetMaxTailShift(limit);
            FlowSimStats st;
            const std::string other = RunAndDump(name, &st);
            FlowSimulator::SetMaxTailShift(previous);
            EXPECT_TRUE(other == dump) << name << " with the shift limit at " << limit;
            EXPECT_EQ(st.events, def.events) << name << " limit " << limit;
            if (limit == 0)
            {
                EXPECT_GE(st.tailsToHeap, def.tailsToHeap) << name;
                toHeapZero += st.tailsToHeap;
            }
            else
            {
                EXPECT_EQ(st.tailsToHeap, 0u) << name;
            }
        }
    }
    // The experiments do insert completions before pending ones (else limit 0 changes nothing).
    EXPECT_GT(toHeapZero, toHeapDefault);
}
