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
// Workloads (steps; OcsPhasedWorkload, run by RunOcsReconfig):
// - moe: MoE layers. Layer l's dispatch demand pairs each EG with k others (k random perfect
//   matchings, seeded), with a random weight per direction. When the previous layer's flows
//   completed the controller reconfigures for the layer (the solve overlaps the computation:
//   only what --overlap-us does not hide counts), and the layer's flows (host i of EG a to
//   host i of EG b) start when the controller reports the new topology in place. Phase
//   completion: previous layer done -> this layer done (stall included); total: the iteration.
// - jobs: multi-job training trace (OcsToeWorkload: jobs of 2..4 EGs, all-to-all plus ring
//   demand, 50% churn per step). A step every --step-us: the controller reconfigures for the
//   new job mix while the running jobs' flows are in flight (so drop and drain differ); the
//   step's flows start when the controller reports the reconfiguration done. Total: makespan.
//
//   ./build/bin/ocs-reconfig                      # cross+exact, uniform+greedy, uniform+bvn
//   ./build/bin/ocs-reconfig --wiring=cross --algorithm=exact --policy=drain --switching-us=25
//   ./build/bin/ocs-reconfig --sweep=false       # without the switching-delay sweep
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/ocs-reconfig-run.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>

using namespace ns3;
using json = nlohmann::json;

namespace
{

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

    OcsReconfigRunConfig p;
    // --full: 16 EGs x 8 ports x 4 hosts (about a minute for the comparison); larger clusters
    // with --egs/--ports (see the estimate below and doc/ocs-net.md); the paper's 2048-GPU runs
    // are the flow-level model's (contrib/flow).
    const bool full = cli.GetBool("full");
    p.egs = full && !cli.IsSet("egs") ? 16 : uint32_t(cli.GetUint("egs", 2, 64));
    p.ports = full && !cli.IsSet("ports") ? 8 : uint32_t(cli.GetUint("ports", 2, 32));
    if (p.egs % 2 || p.ports % 2)
    {
        throw std::invalid_argument("--egs and --ports must be even (Cross Wiring pairs OCSes, "
                                    "MoE pairs EGs), got --egs="
                                    + std::to_string(p.egs)
                                    + " --ports=" + std::to_string(p.ports));
    }
    p.hostsPerEg
        = full && !cli.IsSet("hosts-per-eg") ? 4 : uint32_t(cli.GetUint("hosts-per-eg", 1, 32));
    // One device per possible peer port (doc/ocs-net.md, model note) within the addressing
    // plan's ports per node.
    if (p.ports * (p.egs - 1) + p.hostsPerEg > 1023)
    {
        throw std::invalid_argument(
            "--egs=" + std::to_string(p.egs) + " --ports=" + std::to_string(p.ports)
            + " --hosts-per-eg=" + std::to_string(p.hostsPerEg)
            + ": an EG would have ports x (egs - 1) + hosts-per-eg = "
            + std::to_string(p.ports * (p.egs - 1) + p.hostsPerEg)
            + " devices, at most 1023 (one device per peer port it can be joined to)");
    }
    const uint32_t steps = uint32_t(cli.GetUint("steps", 1, 100));
    const uint32_t moeK = cli.IsSet("moe-k") ? uint32_t(cli.GetUint("moe-k", 1, p.ports)) : p.ports;
    const double moeUnit = cli.GetDouble("unit-kb", 1, 1e5) * 1000;
    const double jobUnit = cli.GetDouble("job-unit-kb", 1, 1e5) * 1000;
    p.solve = cli.GetTime("solve-us", Time::US, Time(0), Seconds(10));
    p.overlap = cli.GetTime("overlap-us", Time::US, Time(0), Seconds(10));
    p.restoration = cli.GetTime("restoration-us", Time::US, Time(0), Seconds(1));
    p.drainTimeout = cli.GetTime("drain-timeout-us", Time::US, MicroSeconds(1), Seconds(1));
    p.stepPeriod = cli.GetTime("step-us", Time::US, MicroSeconds(1), Seconds(10));
    p.bin = cli.GetTime("bin-us", Time::US, NanoSeconds(100), MilliSeconds(10));
    const uint64_t seed = cli.GetUint("seed", 0, UINT64_MAX);
    const double switchingUs = cli.GetDouble("switching-us", 0, 1e6);
    const std::string policy = cli.GetChoice("policy", {"drop", "drain", "pause"});
    const std::string wl = cli.GetChoice("workload", {"moe", "jobs", "both"});
    // One run per (wiring, algorithm): the given one, or the default comparison.
    std::vector<std::pair<std::string, std::string>> choices;
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
        choices.emplace_back(w, a);
    }
    else
    {
        choices = {{"cross", "exact"}, {"uniform", "greedy"}, {"uniform", "bvn"}};
    }
    p.policy = policy;
    p.switchingUs = switchingUs;
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
        // Measured on the loaded 2-core machine (MoE, cross+exact, 4 layers, routing updates
        // batched): 32 EGs x 4 ports x 1 host 10 s, 16 x 8 x 4 13 s, 32 x 8 x 4 36 s, 64 x 8 x 2
        // 81 s (192 MB), 64 x 16 x 4 with 2 layers 198 s (72 s CPU, 362 MB): packet work,
        // which grows with E x P (the MoE volume) and a little faster (logical links grow as
        // E^2 P); memory about 5.3 KB per E^2 P (devices of the logical links) and 150 KB per
        // host.
        const double ep = double(p.egs) * p.ports / 128.0;
        const double perRun = 0.05 + 10 * std::pow(ep, 1.5) * (1 + steps) / 5.0;
        CheckFabricMemory(20e6 + 5300.0 * p.egs * p.egs * p.ports + 150e3 * p.egs * p.hostsPerEg,
                          "--egs=" + std::to_string(p.egs) + " --ports=" + std::to_string(p.ports)
                              + " --hosts-per-eg=" + std::to_string(p.hostsPerEg));
        const double runs = double(choices.size()) * (wl == "both" ? 2 : 1)
                          + (sweep && choices.size() > 1 ? 4.0 * choices.size() : 0.0);
        CheckFabricRunTime(runs * perRun,
                           "--egs=" + std::to_string(p.egs) + " --ports=" + std::to_string(p.ports)
                               + " --hosts-per-eg=" + std::to_string(p.hostsPerEg)
                               + " --steps=" + std::to_string(steps));
    }
    // Horizon: each step's stall and traffic, generously.
    p.stopAt = Seconds(1) + Time::FromDouble(switchingUs, Time::US) * (steps + 1) * 2;
    FabricResults out(cli.GetString("out"));

    json summary;
    summary["params"] = {{"egs", p.egs},
                         {"ports", p.ports},
                         {"hosts_per_eg", p.hostsPerEg},
                         {"steps", steps},
                         {"moe_k", moeK},
                         {"moe_unit_bytes", moeUnit},
                         {"job_unit_bytes", jobUnit},
                         {"solve_sim_us", p.solve.GetSeconds() * 1e6},
                         {"overlap_us", p.overlap.GetSeconds() * 1e6},
                         {"restoration_us", p.restoration.GetSeconds() * 1e6},
                         {"drain_timeout_us", p.drainTimeout.GetSeconds() * 1e6},
                         {"step_us", p.stepPeriod.GetSeconds() * 1e6},
                         {"policy", policy},
                         {"seed", seed}};
    json runs = json::array();
    CsvWriter phaseCsv(out.Path("phases.csv"), OcsPhaseCsvColumns());
    std::cout << std::left << std::setw(6) << "load" << std::setw(9) << "wiring" << std::setw(8)
              << "algo" << std::setw(7) << "policy" << std::right << std::setw(10) << "switch-us"
              << std::setw(8) << "phases" << std::setw(10) << "stall-us" << std::setw(8) << "lost"
              << std::setw(8) << "retx" << std::setw(10) << "changed" << std::setw(12) << "total-us"
              << std::setw(8) << "vs-1st" << std::setw(11) << "unaccount" << std::setw(8)
              << "unrout"
              << "\n";
    bool accounted = true;
    // Runs of one group (a workload, or one sweep point): the table's vs-1st is over the first.
    auto group
        = [&](const std::string& load, OcsReconfigRunConfig c, const OcsPhasedWorkload& demands)
    {
        std::vector<OcsReconfigRunResult> list;
        for (const auto& [wiring, algorithm] : choices)
        {
            c.wiring = wiring;
            c.algorithm = algorithm;
            OcsReconfigRunResult o = RunOcsReconfig(c, demands);
            accounted = accounted && o.roce.Unaccounted() == 0;
            const double base = list.empty() ? o.totalUs : list.front().totalUs;
            double stall = 0;
            uint64_t retx = 0;
            uint32_t changed = 0;
            uint32_t unroutable = 0;
            for (const OcsPhaseRecord& ph : o.phases)
            {
                stall += ph.stallUs;
                retx += ph.retxPackets;
                changed += ph.changedCircuits;
                unroutable += ph.unroutableFlows;
            }
            WriteOcsPhaseRows(phaseCsv, load, o);
            std::cout << std::left << std::setw(6) << load << std::setw(9) << wiring << std::setw(8)
                      << algorithm << std::setw(7) << c.policy << std::right << std::setw(10)
                      << FormatNumber(c.switchingUs) << std::setw(8) << o.phases.size()
                      << std::setw(10) << std::fixed << std::setprecision(1) << stall
                      << std::setw(8) << o.roce.droppedPackets << std::setw(8) << retx
                      << std::setw(10) << changed << std::setw(12) << o.totalUs << std::setw(8)
                      << std::setprecision(3) << (base > 0 ? o.totalUs / base : 1.0)
                      << std::setw(11) << o.roce.Unaccounted() << std::setw(8) << unroutable
                      << std::defaultfloat << "\n";
            json j = OcsReconfigRunToJson(o);
            j["workload"] = load;
            j["completion_vs_first"] = base > 0 ? o.totalUs / base : 1.0;
            runs.push_back(j);
            list.push_back(std::move(o));
        }
        return list;
    };
    const std::vector<std::string> workloads
        = wl == "both" ? std::vector<std::string>{"moe", "jobs"} : std::vector<std::string>{wl};
    for (const std::string& load : workloads)
    {
        OcsReconfigRunConfig c = p;
        c.moe = load == "moe";
        c.bytesPerUnit = c.moe ? moeUnit : jobUnit;
        if (!c.moe)
        {
            // Job steps come at fixed times: a flow still running 50 steps later is reported
            // incomplete rather than simulated for a second of retransmissions.
            c.stopAt = std::min(p.stopAt, p.stepPeriod * (50 * steps));
        }
        const OcsPhasedWorkload demands = c.moe
                                            ? OcsMoeWorkload(p.egs, steps, moeK, seed)
                                            : OcsJobTraceWorkload(p.egs, p.hostsPerEg, steps, seed);
        const auto list = group(load, c, demands);
        // Aggregate throughput over time, reconfiguration windows shaded.
        Gnuplot plot = OcsReconfigThroughputPlot(
            list,
            load + " workload, " + policy + ", switching " + FormatNumber(switchingUs)
                + " us; shaded: reconfigurations of " + list.front().config.wiring + "+"
                + list.front().config.algorithm);
        out.WritePng("throughput-" + load + ".png", plot);
    }
    if (sweep && choices.size() > 1)
    {
        std::cout << "\nswitching-delay sweep (MoE):\n";
        OcsReconfigRunConfig c = p;
        c.moe = true;
        c.bytesPerUnit = moeUnit;
        const OcsPhasedWorkload demands = OcsMoeWorkload(p.egs, steps, moeK, seed);
        for (double us : {10.0, 100.0, 1000.0, 25000.0})
        {
            c.switchingUs = us;
            c.stopAt = Seconds(1) + MicroSeconds(us) * (steps + 1) * 2;
            group("sweep", c, demands);
        }
    }
    phaseCsv.Close();
    summary["runs"] = runs;
    out.WriteSummary(summary);
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
