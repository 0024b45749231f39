// SPDX-License-Identifier: GPL-2.0-only
//
// OCS reconfiguration at packet level (issue 10): an OCS cluster whose circuits change while
// RoCE traffic runs, on Cross Wiring with the exact algorithm vs Uniform with the greedy
// (MixNet-like) and BvN baselines, same size and same logical solver.
//
// Cluster: E EGs (electrical switches) with H hosts below and P uplinks each, cabled to the
// OCSes by the wiring (contrib/ocs), built by OcsClusterHelper (contrib/ocs-net): every logical
// link a circuit pair can realize is a fabric link with a stable id, up only while both its
// circuits are ready. An OcsController turns each step's EG-to-EG demand into the MLU-optimal
// logical topology (single hop, spare ports filled) and circuits, and reconfigures: solve time
// (set, --solve-us) minus what the overlap hides (--overlap-us), then drain (drain policy),
// switching (--switching-us) and link restoration (--restoration-us).
//
// Workloads (steps):
// - moe: MoE layers. Layer l's dispatch demand pairs each EG with k others (k random perfect
//   matchings, seeded), with a random weight per direction; a layer's flows (host i of EG a to
//   host i of EG b) start once the previous layer's flows completed, after a fixed budget:
//   the announced stall (solve not hidden + switching + restoration) plus a margin (a layer
//   whose reconfiguration changes no circuit waits it too). Phase completion: previous layer done
//   -> this layer done (stall included); total: the iteration time.
// - jobs: multi-job training trace (OcsToeWorkload: jobs of 2..4 EGs, all-to-all plus ring
//   demand, 50% churn per step). A step every --step-us: the controller reconfigures for the
//   new job mix while the running jobs' flows are in flight (so drop and drain differ); the
//   step's flows start after the same budget (plus the drain timeout with drain). Total: makespan.
//
//   ./build/bin/ocs-reconfig                      # cross+exact, uniform+greedy, uniform+bvn
//   ./build/bin/ocs-reconfig --wiring=cross --algorithm=exact --policy=drain --switching-us=25
//   ./build/bin/ocs-reconfig --sweep=false       # without the switching-delay sweep
#include "ns3/boolean.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-results.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/gnuplot.h"
#include "ns3/ocs-cluster-helper.h"
#include "ns3/ocs-controller.h"
#include "ns3/ocs-setup.h"
#include "ns3/ocs-toe-workload.h"
#include "ns3/roce-sender.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// Everything a run needs besides its (wiring, algorithm, policy, switching) choice.
struct Params
{
    uint32_t egs;
    uint32_t ports;
    uint32_t hostsPerEg;
    std::string workload;
    uint32_t steps;
    uint32_t moeK;
    double bytesPerUnit;
    double jobBytesPerUnit;
    Time solve;
    Time overlap;
    Time restoration;
    Time drainTimeout;
    Time drainMargin;
    Time stepPeriod;
    Time bin;
    Time stopAt;
    uint64_t seed;
};

struct RunSpec
{
    std::string wiring;
    std::string algorithm;
    std::string policy;
    double switchingUs;
};

/// One step's demand and flows.
struct Step
{
    std::vector<double> demand;
    std::vector<FlowSpec> flows;
};

struct PhaseOut
{
    double startUs{0};
    double solveUs{0};    //!< measured wall time of the solve
    double solveSimUs{0}; //!< solve time counted in simulated time
    double stallUs{0};
    double drainUs{0};
    uint32_t changedCircuits{0};
    uint32_t linksDown{0};
    double ltcr{1};
    uint64_t lostPackets{0};
    uint64_t retxPackets{0};
    double completionUs{0};
    uint32_t flows{0};
    uint32_t unroutableFlows{0};
};

struct RunOut
{
    RunSpec spec;
    FabricRoceRunResult r;
    std::vector<PhaseOut> phases;
    std::vector<std::pair<double, double>> windows; //!< reconfiguration windows (us)
    std::vector<double> throughputGbps;             //!< aggregate delivered rate per bin
    double totalUs{0};
};

/// MoE dispatch demands: per layer, k random perfect matchings (E even) of the EGs, a random
/// weight in [0.5, 1.5) per direction of every matched pair.
std::vector<std::vector<double>>
MoeDemands(const Params& p)
{
    std::vector<std::vector<double>> out;
    FabricRng rng(p.seed);
    for (uint32_t l = 0; l < p.steps; ++l)
    {
        std::vector<double> d(size_t(p.egs) * p.egs, 0.0);
        for (uint32_t m = 0; m < p.moeK; ++m)
        {
            std::vector<uint32_t> perm(p.egs);
            for (uint32_t i = 0; i < p.egs; ++i)
            {
                perm[i] = i;
            }
            for (uint32_t i = p.egs - 1; i > 0; --i)
            {
                std::swap(perm[i], perm[rng.Below(i + 1)]);
            }
            for (uint32_t i = 0; i + 1 < p.egs; i += 2)
            {
                const uint32_t a = perm[i];
                const uint32_t b = perm[i + 1];
                d[size_t(a) * p.egs + b] += 0.5 + double(rng.Below(1000)) / 1000.0;
                d[size_t(b) * p.egs + a] += 0.5 + double(rng.Below(1000)) / 1000.0;
            }
        }
        out.push_back(d);
    }
    return out;
}

/// Job-trace demands: OcsToeWorkload with jobs of 2, 3 and 4 EGs, half of them replaced per
/// step. demands[s] is what the controller configures for at step s (every job present);
/// sending[s] is the traffic of step s: the jobs that are still there at step s + 1 (a job that
/// departs has finished its work), so every flow still running at a reconfiguration belongs to
/// a job the new topology serves.
void
JobDemands(const Params& p,
           std::vector<std::vector<double>>* demands,
           std::vector<std::vector<double>>* sending)
{
    const uint32_t h = p.hostsPerEg;
    OcsToeWorkload w(p.egs, h, p.seed, 0.5, {2 * h, 3 * h, 4 * h}, 4.0);
    std::vector<std::vector<OcsToeJob>> jobs;
    for (uint32_t s = 0; s < p.steps; ++s)
    {
        if (s > 0)
        {
            w.Step();
        }
        demands->push_back(w.Demand());
        jobs.push_back(w.GetJobs());
    }
    for (uint32_t s = 0; s < p.steps; ++s)
    {
        std::vector<double> d = (*demands)[s];
        if (s + 1 < p.steps)
        {
            for (const OcsToeJob& j : jobs[s])
            {
                const bool stays = std::any_of(jobs[s + 1].begin(),
                                               jobs[s + 1].end(),
                                               [&j](const OcsToeJob& k)
                                               { return k.seed == j.seed && k.egs == j.egs; });
                if (!stays)
                {
                    for (uint32_t a : j.egs)
                    {
                        for (uint32_t b : j.egs)
                        {
                            d[size_t(a) * p.egs + b] = 0;
                        }
                    }
                }
            }
        }
        sending->push_back(d);
    }
}

/// Flows of one demand: host i of EG a to host i of EG b, D_ab * bytesPerUnit / H bytes.
std::vector<FlowSpec>
FlowsOf(const Params& p, const std::vector<double>& d, uint32_t firstId)
{
    std::vector<FlowSpec> flows;
    for (uint32_t a = 0; a < p.egs; ++a)
    {
        for (uint32_t b = 0; b < p.egs; ++b)
        {
            const double x = d[size_t(a) * p.egs + b];
            if (a == b || x <= 0)
            {
                continue;
            }
            for (uint32_t i = 0; i < p.hostsPerEg; ++i)
            {
                FlowSpec f;
                f.id = firstId + uint32_t(flows.size());
                f.src = a * p.hostsPerEg + i;
                f.dst = b * p.hostsPerEg + i;
                const double unit = p.workload == "moe" ? p.bytesPerUnit : p.jobBytesPerUnit;
                f.bytes = std::max<uint64_t>(1000, uint64_t(x * unit / p.hostsPerEg));
                flows.push_back(f);
            }
        }
    }
    return flows;
}

/// Whether EG \p b can be reached from EG \p a over the links of \p l.
bool
Reachable(const OcsMatrix& l, uint32_t a, uint32_t b)
{
    std::vector<uint8_t> seen(l.GetN(), 0);
    std::vector<uint32_t> queue{a};
    seen[a] = 1;
    for (size_t i = 0; i < queue.size(); ++i)
    {
        for (uint32_t v = 0; v < l.GetN(); ++v)
        {
            if (!seen[v] && l(queue[i], v) > 0)
            {
                seen[v] = 1;
                queue.push_back(v);
            }
        }
    }
    return seen[b] != 0;
}

RunOut
RunOne(const Params& p,
       const RunSpec& spec,
       const std::vector<std::vector<double>>& demands,
       const std::vector<std::vector<double>>& sending)
{
    RunOut out;
    out.spec = spec;
    const OcsWiring wiring(OcsSetup::WiringByName(spec.wiring), p.egs, p.ports);
    OcsClusterHelper helper;
    helper.SetHostsPerEg(p.hostsPerEg);
    const Time switching = Time::FromDouble(spec.switchingUs, Time::US);
    helper.SetSwitchAttribute("SwitchingDelay", TimeValue(switching));
    helper.SetSwitchAttribute("RestorationDelay", TimeValue(p.restoration));
    helper.SetFabricAttribute("Policy", StringValue(spec.policy));
    helper.SetFabricAttribute("DrainTimeout", TimeValue(p.drainTimeout));
    Ptr<OcsFabric> fabric = helper.Install(wiring);
    auto ctl = CreateObjectWithAttributes<OcsController>("Algorithm",
                                                         StringValue(spec.algorithm),
                                                         "SolveTime",
                                                         TimeValue(p.solve),
                                                         "Overlap",
                                                         TimeValue(p.overlap));
    ctl->SetFabric(fabric);

    // Plan every step first (deterministic): a flow whose EG pair the realized topology cannot
    // connect at all would have no route when it starts; it is left out and counted.
    const bool moe = p.workload == "moe";
    const Time unhidden = p.solve > p.overlap ? p.solve - p.overlap : Time(0);
    // When a step's flows start: the announced stall (solve not hidden + switching +
    // restoration) plus a margin, the same for both policies; the job trace's drain policy
    // adds its drain timeout (traffic is in flight there). A layer that would start before its
    // reconfiguration ended is an error, never a silent start on the old topology.
    const Time budget = unhidden + switching + p.restoration + p.drainMargin
                      + (spec.policy == "drain" && !moe ? p.drainTimeout : Time(0));
    std::vector<FlowSpec> flows;
    std::vector<uint32_t> stepOfFlow;
    out.phases.resize(demands.size());
    std::vector<OcsMatrix> realized;
    for (uint32_t s = 0; s < demands.size(); ++s)
    {
        const OcsConfigResult plan = ctl->Plan(demands[s]);
        out.phases[s].ltcr = plan.ltcr;
        realized.push_back(plan.realized);
    }
    for (uint32_t s = 0; s < demands.size(); ++s)
    {
        for (FlowSpec f : FlowsOf(p, sending[s], uint32_t(flows.size())))
        {
            // A job-trace flow may still run after the next reconfiguration: it needs a path
            // in both topologies.
            const uint32_t a = f.src / p.hostsPerEg;
            const uint32_t b = f.dst / p.hostsPerEg;
            if (!Reachable(realized[s], a, b)
                || (!moe && s + 1 < demands.size() && !Reachable(realized[s + 1], a, b)))
            {
                ++out.phases[s].unroutableFlows;
                continue;
            }
            f.id = uint32_t(flows.size());
            if (moe)
            {
                f.phase = s;
                f.startS = s == 0 ? 0.0 : budget.GetSeconds();
            }
            else
            {
                f.startS = s == 0 ? 0.0 : (p.stepPeriod * s + budget).GetSeconds();
            }
            flows.push_back(f);
            stepOfFlow.push_back(s);
            ++out.phases[s].flows;
        }
    }

    // Step 0's configuration is in place at time 0.
    const OcsControllerStep first = ctl->Install(demands[0]);
    out.phases[0].solveUs = first.measuredSolveUs;

    // The step in progress: drops are attributed to it.
    auto current = std::make_shared<uint32_t>(0);
    auto countDrop = [&out, current](Ptr<const Packet>, const std::string&)
    {
        ++out.phases[*current].lostPackets;
    };
    for (uint32_t i = 0; i < fabric->GetLogicalLinks().size(); ++i)
    {
        fabric->GetChannel(i)->TraceConnectWithoutContext(
            "Drop", Callback<void, Ptr<const Packet>, const std::string&>(countDrop));
    }
    for (uint32_t e = 0; e < p.egs; ++e)
    {
        Ptr<FabricSwitchForwarder> fw = fabric->GetNetwork()
                                            ->GetNode(fabric->GetEgNode(e))
                                            ->GetObject<FabricSwitchForwarder>();
        if (fw)
        {
            fw->TraceConnectWithoutContext(
                "Drop", Callback<void, Ptr<const Packet>, const std::string&>(countDrop));
        }
    }

    auto apply = [&out, ctl, current](uint32_t s, const std::vector<double>& demand)
    {
        *current = s;
        out.phases[s].startUs = Simulator::Now().GetSeconds() * 1e6;
        ctl->Apply(demand,
                   Callback<void, const OcsControllerStep&>(
                       [&out, s](const OcsControllerStep& st)
                       {
                           PhaseOut& ph = out.phases[s];
                           ph.solveUs = st.measuredSolveUs;
                           ph.solveSimUs = st.solveTime.GetSeconds() * 1e6;
                           ph.stallUs = st.Stall().GetSeconds() * 1e6;
                           ph.drainUs
                               = (st.reconfig.switchStart - st.reconfig.requested).GetSeconds()
                               * 1e6;
                           ph.changedCircuits = st.reconfig.changedCircuits;
                           ph.linksDown = st.reconfig.linksDown;
                           out.windows.emplace_back(st.requested.GetSeconds() * 1e6,
                                                    st.reconfig.end.GetSeconds() * 1e6);
                       }));
    };

    // Aggregate throughput: data bytes (frames above 100 bytes, not ACKs) arriving at hosts,
    // in bins of absolute time.
    const double binS = p.bin.GetSeconds();
    const FabricGraph& g = fabric->GetNetwork()->GetGraph();
    for (uint32_t h = 0; h < g.GetNHosts(); ++h)
    {
        fabric->GetNetwork()->GetDevice(h, 0)->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>(
                [&out, binS](Ptr<const Packet> pkt)
                {
                    if (pkt->GetSize() <= 100)
                    {
                        return;
                    }
                    const auto b = size_t(Simulator::Now().GetSeconds() / binS);
                    if (out.throughputGbps.size() <= b)
                    {
                        out.throughputGbps.resize(b + 1, 0.0);
                    }
                    out.throughputGbps[b] += pkt->GetSize() * 8.0 / binS / 1e9;
                }));
    }
    FabricRoceRunOptions opt;
    opt.stopAt = p.stopAt;
    if (moe)
    {
        // A layer's reconfiguration starts when every flow of the previous layer completed.
        auto remaining = std::make_shared<std::vector<uint32_t>>(demands.size(), 0);
        for (uint32_t s : stepOfFlow)
        {
            ++(*remaining)[s];
        }
        opt.senderCreated = [&, remaining](uint32_t flow, Ptr<RoceSender> sender)
        {
            const uint32_t s = stepOfFlow[flow];
            if (s > 0 && ctl->GetFabric()->IsReconfiguring())
            {
                throw std::runtime_error("internal: layer " + std::to_string(s)
                                         + " started before its reconfiguration ended");
            }
            sender->TraceConnectWithoutContext("Complete",
                                               Callback<void, uint32_t>(
                                                   [&, remaining, s](uint32_t)
                                                   {
                                                       if (--(*remaining)[s] == 0
                                                           && s + 1 < demands.size())
                                                       {
                                                           apply(s + 1, demands[s + 1]);
                                                       }
                                                   }));
        };
    }
    else
    {
        for (uint32_t s = 1; s < demands.size(); ++s)
        {
            Simulator::Schedule(p.stepPeriod * s, [&, s]() { apply(s, demands[s]); });
        }
    }
    out.r = RunFabricRoce(fabric->GetNetwork(), flows, opt);

    // Per step: retransmissions and completion (from the step's start to its last flow).
    for (uint32_t i = 0; i < out.r.flows.size(); ++i)
    {
        const RoceFlowRecord& f = out.r.flows[i];
        PhaseOut& ph = out.phases[stepOfFlow[i]];
        ph.retxPackets += f.retxPackets;
        if (f.complete)
        {
            ph.completionUs = std::max(ph.completionUs, f.finish.GetSeconds() * 1e6 - ph.startUs);
        }
    }
    out.totalUs = out.r.lastCompletionSeconds * 1e6;
    fabric->Dispose();
    ctl->Dispose();
    return out;
}

json
RunJson(const RunOut& o)
{
    json phases = json::array();
    for (const PhaseOut& ph : o.phases)
    {
        phases.push_back({{"start_us", ph.startUs},
                          {"solve_us", ph.solveUs},
                          {"solve_sim_us", ph.solveSimUs},
                          {"stall_us", ph.stallUs},
                          {"drain_us", ph.drainUs},
                          {"changed_circuits", ph.changedCircuits},
                          {"links_down", ph.linksDown},
                          {"ltcr", ph.ltcr},
                          {"lost_packets", ph.lostPackets},
                          {"retransmitted_packets", ph.retxPackets},
                          {"completion_us", ph.completionUs},
                          {"flows", ph.flows},
                          {"unroutable_flows", ph.unroutableFlows}});
    }
    uint64_t retx = 0;
    for (const auto& f : o.r.flows)
    {
        retx += f.retxPackets;
    }
    return {{"wiring", o.spec.wiring},
            {"algorithm", o.spec.algorithm},
            {"policy", o.spec.policy},
            {"switching_us", o.spec.switchingUs},
            {"sent_packets", o.r.sentPackets},
            {"delivered_packets", o.r.deliveredPackets},
            {"lost_packets", o.r.droppedPackets},
            {"in_flight_packets", o.r.inFlightPackets},
            {"unaccounted_packets", o.r.Unaccounted()},
            {"retransmitted_packets", retx},
            {"drops_by_reason", o.r.drops},
            {"incomplete_flows", o.r.incompleteFlows},
            {"total_completion_us", o.totalUs},
            {"wall_s", o.r.wallSeconds},
            {"phases", phases}};
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__,
                  "OCS reconfiguration at packet level: Cross Wiring + exact vs Uniform + "
                  "greedy / BvN, RoCE traffic through reconfigurations");
    cli.Add("wiring", "cross|uniform (with --algorithm: one run; neither: the comparison)", "");
    cli.Add("algorithm", "exact|greedy|bvn", "");
    cli.Add("policy", "drop|drain|pause: traffic on circuits that change", "drain");
    cli.Add("switching-us", "OCS switching delay (us)", "10");
    cli.Add("restoration-us", "link restoration after switching (us)", "10");
    cli.Add("solve-us",
            "configuration solve time counted in simulated time (us); each phase also reports "
            "the measured wall time of its solve (solve_us), which is not used so that runs "
            "repeat exactly",
            "50");
    cli.Add("overlap-us", "computation that hides the solve (us, MoE pipelining)", "0");
    cli.Add("drain-timeout-us", "drain policy: switch anyway after this long (us)", "50");
    cli.Add("workload", "moe|jobs|both", "both");
    cli.Add("egs", "EGs (even)", "8");
    cli.Add("ports", "OCS-facing ports per EG (even)", "4");
    cli.Add("hosts-per-eg", "hosts under each EG", "2");
    cli.Add("steps", "MoE layers / job-trace steps", "4");
    cli.Add("moe-k", "EGs each EG dispatches to per layer (<= ports; default: ports)", "0");
    cli.Add("unit-kb", "MoE: bytes per demand unit (KB)", "256");
    cli.Add("job-unit-kb", "job trace: bytes per demand unit (KB)", "2048");
    cli.Add("step-us", "job trace: time between steps (us)", "200");
    cli.Add("bin-us", "throughput bin (us)", "5");
    cli.Add("sweep", "also sweep the switching delay 10 us .. 25 ms (MoE, comparison)", "true");
    cli.Add(
        "full", "larger cluster: 16 EGs x 8 ports x 4 hosts (paper scale: flow level)", "false");
    cli.Add("seed", "workload seed", "1");
    cli.Add("out", "output folder", "results/ocs-reconfig");
    cli.Parse(argc, argv);
    // Attributes this program sets on every run from its own flags.
    for (const auto& [attribute, flag] : std::vector<std::pair<std::string, std::string>>{
             {"ns3::OcsSwitch::SwitchingDelay", "--switching-us"},
             {"ns3::OcsSwitch::RestorationDelay", "--restoration-us"},
             {"ns3::OcsFabric::Policy", "--policy"},
             {"ns3::OcsFabric::DrainTimeout", "--drain-timeout-us"},
             {"ns3::OcsController::Algorithm", "--algorithm"},
             {"ns3::OcsController::SolveTime", "--solve-us"},
             {"ns3::OcsController::Overlap", "--overlap-us"}})
    {
        cli.ReserveAttribute(attribute, flag);
    }

    Params p;
    // --full: 16 EGs x 8 ports x 4 hosts, which this packet level runs in minutes (at 32 EGs
    // EcmpRouting's table rebuild on every link change of a reconfiguration dominates); the
    // paper's 2048-GPU runs are the flow-level model's (contrib/flow).
    const bool full = cli.GetBool("full");
    p.egs = full && !cli.IsSet("egs") ? 16 : uint32_t(cli.GetUint("egs", 2, 64));
    p.ports = full && !cli.IsSet("ports") ? 8 : uint32_t(cli.GetUint("ports", 2, 16));
    if (p.egs % 2 || p.ports % 2)
    {
        throw std::invalid_argument("--egs and --ports must be even (Cross Wiring pairs OCSes, "
                                    "MoE pairs EGs), got --egs="
                                    + std::to_string(p.egs)
                                    + " --ports=" + std::to_string(p.ports));
    }
    p.hostsPerEg
        = full && !cli.IsSet("hosts-per-eg") ? 4 : uint32_t(cli.GetUint("hosts-per-eg", 1, 16));
    p.steps = uint32_t(cli.GetUint("steps", 1, 100));
    p.moeK = cli.IsSet("moe-k") ? uint32_t(cli.GetUint("moe-k", 1, p.ports)) : p.ports;
    p.bytesPerUnit = cli.GetDouble("unit-kb", 1, 1e5) * 1000;
    p.jobBytesPerUnit = cli.GetDouble("job-unit-kb", 1, 1e5) * 1000;
    p.solve = cli.GetTime("solve-us", Time::US, Time(0), Seconds(10));
    p.overlap = cli.GetTime("overlap-us", Time::US, Time(0), Seconds(10));
    p.restoration = cli.GetTime("restoration-us", Time::US, Time(0), Seconds(1));
    p.drainTimeout = cli.GetTime("drain-timeout-us", Time::US, MicroSeconds(1), Seconds(1));
    p.drainMargin = MicroSeconds(5);
    p.stepPeriod = cli.GetTime("step-us", Time::US, MicroSeconds(1), Seconds(10));
    p.bin = cli.GetTime("bin-us", Time::US, NanoSeconds(100), MilliSeconds(10));
    p.seed = cli.GetUint("seed", 0, UINT64_MAX);
    const double switchingUs = cli.GetDouble("switching-us", 0, 1e6);
    const std::string policy = cli.GetChoice("policy", {"drop", "drain", "pause"});
    const std::string wl = cli.GetChoice("workload", {"moe", "jobs", "both"});
    std::vector<RunSpec> specs;
    if (cli.IsSet("wiring") || cli.IsSet("algorithm"))
    {
        if (!cli.IsSet("wiring") || !cli.IsSet("algorithm"))
        {
            throw std::invalid_argument("--wiring and --algorithm go together (neither: the "
                                        "default comparison)");
        }
        const std::string w = cli.GetChoice("wiring", {"cross", "uniform"});
        const std::string a = cli.GetChoice("algorithm", {"exact", "greedy", "bvn"});
        if (w == "uniform" && a == "exact")
        {
            throw std::invalid_argument("--algorithm=exact does not apply to --wiring=uniform "
                                        "(no exact algorithm: NP-complete); use greedy or bvn");
        }
        specs.push_back({w, a, policy, switchingUs});
    }
    else
    {
        specs = {{"cross", "exact", policy, switchingUs},
                 {"uniform", "greedy", policy, switchingUs},
                 {"uniform", "bvn", policy, switchingUs}};
    }
    const bool sweep = cli.GetBool("sweep");
    if (wl != "moe")
    {
        const Time budget = (p.solve > p.overlap ? p.solve - p.overlap : Time(0))
                          + Time::FromDouble(switchingUs, Time::US) + p.restoration
                          + p.drainTimeout;
        if (p.stepPeriod <= budget)
        {
            throw std::invalid_argument(
                "--step-us=" + cli.GetString("step-us")
                + ": the job trace needs steps longer than a reconfiguration (solve not hidden + "
                  "drain timeout + switching + restoration = "
                + FormatNumber(budget.GetSeconds() * 1e6) + " us)");
        }
    }
    {
        // Measured on the loaded 2-core machine (MoE, one run, 2 ports, 1 host per EG): 0.24 s
        // at 16 EGs, 2.2 s at 32, 43 s at 64 (EcmpRouting's table rebuilds on every link change
        // grow about as EGs^4); 32 EGs x 4 ports 6 s, 16 EGs x 8 ports x 4 hosts 4 s; 2 to 8
        // steps hardly matter at these sizes.
        const double perRun = 0.05
                            + 2.5 * std::pow(p.egs / 32.0, 4) * std::pow(p.ports / 2.0, 1.5)
                                  * p.hostsPerEg * (1 + p.steps / 20.0);
        const double runs = double(specs.size()) * (wl == "both" ? 2 : 1)
                          + (sweep && specs.size() > 1 ? 4.0 * specs.size() : 0.0);
        CheckFabricRunTime(runs * perRun,
                           "--egs=" + std::to_string(p.egs) + " --ports=" + std::to_string(p.ports)
                               + " --hosts-per-eg=" + std::to_string(p.hostsPerEg)
                               + " --steps=" + std::to_string(p.steps));
    }
    // Horizon: each step's stall and traffic, generously.
    p.stopAt = Seconds(1) + Time::FromDouble(switchingUs, Time::US) * (p.steps + 1) * 2;
    FabricResults out(cli.GetString("out"));

    std::vector<std::string> workloads
        = wl == "both" ? std::vector<std::string>{"moe", "jobs"} : std::vector<std::string>{wl};
    json summary;
    summary["params"] = {{"egs", p.egs},
                         {"ports", p.ports},
                         {"hosts_per_eg", p.hostsPerEg},
                         {"steps", p.steps},
                         {"moe_k", p.moeK},
                         {"moe_unit_bytes", p.bytesPerUnit},
                         {"job_unit_bytes", p.jobBytesPerUnit},
                         {"solve_sim_us", p.solve.GetSeconds() * 1e6},
                         {"overlap_us", p.overlap.GetSeconds() * 1e6},
                         {"restoration_us", p.restoration.GetSeconds() * 1e6},
                         {"drain_timeout_us", p.drainTimeout.GetSeconds() * 1e6},
                         {"step_us", p.stepPeriod.GetSeconds() * 1e6},
                         {"policy", policy},
                         {"seed", p.seed}};
    json runs = json::array();
    CsvWriter phaseCsv(out.Path("phases.csv"),
                       {"workload",
                        "wiring",
                        "algorithm",
                        "policy",
                        "switching_us",
                        "phase",
                        "start_us",
                        "solve_us",
                        "stall_us",
                        "drain_us",
                        "changed_circuits",
                        "ltcr",
                        "lost_packets",
                        "retransmitted_packets",
                        "completion_us"});
    std::cout << std::left << std::setw(6) << "load" << std::setw(9) << "wiring" << std::setw(8)
              << "algo" << std::setw(7) << "policy" << std::right << std::setw(10) << "switch-us"
              << std::setw(8) << "phases" << std::setw(10) << "stall-us" << std::setw(8) << "lost"
              << std::setw(8) << "retx" << std::setw(10) << "changed" << std::setw(12) << "total-us"
              << std::setw(8) << "vs-1st" << std::setw(11) << "unaccount" << std::setw(8)
              << "unrout"
              << "\n";
    std::map<std::string, std::vector<RunOut>> plotted;
    auto report = [&](const std::string& load, const RunOut& o, double baseUs)
    {
        double stall = 0;
        uint64_t lost = 0;
        uint64_t retx = 0;
        uint32_t changed = 0;
        uint32_t unroutable = 0;
        for (uint32_t s = 0; s < o.phases.size(); ++s)
        {
            const PhaseOut& ph = o.phases[s];
            stall += ph.stallUs;
            lost += ph.lostPackets;
            retx += ph.retxPackets;
            changed += ph.changedCircuits;
            unroutable += ph.unroutableFlows;
            phaseCsv.Row({load,
                          o.spec.wiring,
                          o.spec.algorithm,
                          o.spec.policy,
                          FormatNumber(o.spec.switchingUs),
                          std::to_string(s),
                          FormatNumber(ph.startUs),
                          FormatNumber(ph.solveUs),
                          FormatNumber(ph.stallUs),
                          FormatNumber(ph.drainUs),
                          std::to_string(ph.changedCircuits),
                          FormatNumber(ph.ltcr),
                          std::to_string(ph.lostPackets),
                          std::to_string(ph.retxPackets),
                          FormatNumber(ph.completionUs)});
        }
        std::cout << std::left << std::setw(6) << load << std::setw(9) << o.spec.wiring
                  << std::setw(8) << o.spec.algorithm << std::setw(7) << o.spec.policy << std::right
                  << std::setw(10) << FormatNumber(o.spec.switchingUs) << std::setw(8)
                  << o.phases.size() << std::setw(10) << std::fixed << std::setprecision(1) << stall
                  << std::setw(8) << o.r.droppedPackets << std::setw(8) << retx << std::setw(10)
                  << changed << std::setw(12) << o.totalUs << std::setw(8) << std::setprecision(3)
                  << (baseUs > 0 ? o.totalUs / baseUs : 1.0) << std::setw(11) << o.r.Unaccounted()
                  << std::setw(8) << unroutable << std::defaultfloat << "\n";
        json j = RunJson(o);
        j["workload"] = load;
        j["completion_vs_first"] = baseUs > 0 ? o.totalUs / baseUs : 1.0;
        runs.push_back(j);
    };
    bool accounted = true;
    for (const std::string& load : workloads)
    {
        Params pl = p;
        pl.workload = load;
        if (load == "jobs")
        {
            // Job steps come at fixed times: a flow still running 50 steps later is reported
            // incomplete rather than simulated for a second of retransmissions.
            pl.stopAt = std::min(p.stopAt, p.stepPeriod * (50 * pl.steps));
        }
        std::vector<std::vector<double>> demands;
        std::vector<std::vector<double>> sending;
        if (load == "moe")
        {
            demands = sending = MoeDemands(pl);
        }
        else
        {
            JobDemands(pl, &demands, &sending);
        }
        double base = 0;
        for (const RunSpec& s : specs)
        {
            RunOut o = RunOne(pl, s, demands, sending);
            accounted = accounted && o.r.Unaccounted() == 0;
            if (base == 0)
            {
                base = o.totalUs;
            }
            report(load, o, base);
            plotted[load].push_back(std::move(o));
        }
    }
    json sweepJson = json::array();
    if (sweep && specs.size() > 1)
    {
        std::cout << "\nswitching-delay sweep (MoE):\n";
        Params pl = p;
        pl.workload = "moe";
        const auto demands = MoeDemands(pl);
        for (double us : {10.0, 100.0, 1000.0, 25000.0})
        {
            pl.stopAt = Seconds(1) + MicroSeconds(us) * (pl.steps + 1) * 2;
            double base = 0;
            for (RunSpec s : specs)
            {
                s.switchingUs = us;
                RunOut o = RunOne(pl, s, demands, demands);
                accounted = accounted && o.r.Unaccounted() == 0;
                if (base == 0)
                {
                    base = o.totalUs;
                }
                report("sweep", o, base);
            }
        }
    }
    phaseCsv.Close();
    summary["runs"] = runs;

    // Aggregate throughput over time, reconfiguration windows shaded, one plot per workload.
    for (auto& [load, list] : plotted)
    {
        Gnuplot plot;
        plot.SetTerminal("pngcairo size 1000,500");
        plot.SetTitle(load + " workload, " + policy + ", switching " + FormatNumber(switchingUs)
                      + " us; shaded: reconfigurations of " + list.front().spec.wiring + "+"
                      + list.front().spec.algorithm);
        plot.SetLegend("time (us)", "data arriving at hosts (Gb/s)");
        std::string extra;
        int obj = 1;
        for (const auto& [a, b] : list.front().windows)
        {
            extra += "set object " + std::to_string(obj++) + " rect from " + FormatNumber(a)
                   + ", graph 0 to " + FormatNumber(std::max(b, a + 0.5))
                   + ", graph 1 fc rgb '#dddddd' fs solid behind\n";
        }
        plot.AppendExtra(extra);
        for (const RunOut& o : list)
        {
            Gnuplot2dDataset ds(o.spec.wiring + "+" + o.spec.algorithm);
            ds.SetStyle(Gnuplot2dDataset::LINES);
            for (size_t b = 0; b < o.throughputGbps.size(); ++b)
            {
                ds.Add((b + 0.5) * p.bin.GetSeconds() * 1e6, o.throughputGbps[b]);
            }
            plot.AddDataset(ds);
        }
        out.WritePng("throughput-" + load + ".png", plot);
    }
    out.WriteJson("summary.json", summary);
    std::cout << "\nstall: request -> new topology in place (solve not hidden + drain + "
                 "switching + restoration), summed over phases; lost: packets dropped (any "
                 "reason); total: iteration (moe) or makespan (jobs); vs-1st: total over the "
                 "first run of the group; unrout: flows left out because the realized topology "
                 "cannot connect their EGs (their time is not in total)\nwrote "
              << out.Path("summary.json") << ", phases.csv, throughput-<workload>.png\n";
    if (!accounted)
    {
        std::cerr << "error: packets unaccounted for (sent != delivered + dropped + in flight)\n";
        return 1;
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
