// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-reconfig-run.h"

#include "ns3/fabric-link-guard.h"
#include "ns3/fabric-switch-forwarder.h"
#include "ns3/log.h"
#include "ns3/ocs-cluster-helper.h"
#include "ns3/ocs-controller.h"
#include "ns3/ocs-setup.h"
#include "ns3/roce-header.h"
#include "ns3/roce-sender.h"
#include "ns3/string.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsReconfigRun");

OcsReconfigRunResult
RunOcsReconfig(const OcsReconfigRunConfig& p, const OcsPhasedWorkload& load)
{
    OcsReconfigRunResult out;
    out.config = p;
    const auto& demands = load.demands;
    const auto& sending = load.sending;
    if (demands.empty() || demands.size() != sending.size())
    {
        throw std::invalid_argument("RunOcsReconfig: the workload needs one demand and one "
                                    "sending matrix per step (at least one step)");
    }
    const OcsWiring wiring(OcsSetup::WiringByName(p.wiring), p.egs, p.ports);
    OcsClusterHelper helper;
    helper.SetHostsPerEg(p.hostsPerEg);
    const Time switching = Time::FromDouble(p.switchingUs, Time::US);
    helper.SetSwitchAttribute("SwitchingDelay", TimeValue(switching));
    helper.SetSwitchAttribute("RestorationDelay", TimeValue(p.restoration));
    helper.SetFabricAttribute("Policy", StringValue(p.policy));
    helper.SetFabricAttribute("DrainTimeout", TimeValue(p.drainTimeout));
    Ptr<OcsFabric> fabric = helper.Install(wiring);
    auto ctl = CreateObjectWithAttributes<OcsController>("Algorithm",
                                                         StringValue(p.algorithm),
                                                         "SolveTime",
                                                         TimeValue(p.solve),
                                                         "Overlap",
                                                         TimeValue(p.overlap));
    ctl->SetFabric(fabric);

    // Plan every step first (deterministic): a flow whose EG pair the realized topology cannot
    // connect at all would have no route when it starts; it is left out and counted.
    const bool moe = p.moe;
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
        for (FlowSpec f : OcsDemandFlows(
                 sending[s], p.egs, p.hostsPerEg, p.bytesPerUnit, uint32_t(flows.size())))
        {
            // A job-trace flow may still run after the next reconfiguration: it needs a path
            // in both topologies.
            const uint32_t a = f.src / p.hostsPerEg;
            const uint32_t b = f.dst / p.hostsPerEg;
            if (!OcsEgReachable(realized[s], a, b)
                || (!moe && s + 1 < demands.size() && !OcsEgReachable(realized[s + 1], a, b)))
            {
                ++out.phases[s].unroutableFlows;
                continue;
            }
            f.id = uint32_t(flows.size());
            f.phase = s; // starts through the phase gate below
            f.startS = 0.0;
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
    auto countDrop = [&out, current](Ptr<const Packet> pkt, const std::string&)
    {
        ++out.phases[*current].lostPackets;
        out.phases[*current].lostBytes += pkt->GetSize();
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
    // Every device's queue overflow, links that are down (FabricLinkGuard) and full host
    // queues, as FabricLinkMonitor counts them for the run.
    const FabricGraph& graph = fabric->GetNetwork()->GetGraph();
    auto countDrop1 = [countDrop](Ptr<const Packet> pkt)
    {
        countDrop(pkt, "");
    };
    for (uint32_t v = 0; v < graph.GetNNodes(); ++v)
    {
        Ptr<Node> node = fabric->GetNetwork()->GetNode(v);
        for (uint32_t port = 0; port < graph.GetNPorts(v); ++port)
        {
            fabric->GetNetwork()->GetDevice(v, port)->TraceConnectWithoutContext(
                "MacTxDrop", Callback<void, Ptr<const Packet>>(countDrop1));
        }
        if (Ptr<FabricLinkGuard> guard = node->GetObject<FabricLinkGuard>())
        {
            guard->TraceConnectWithoutContext(
                "Drop", Callback<void, Ptr<const Packet>, const std::string&>(countDrop));
        }
        if (Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>())
        {
            tc->TraceConnectWithoutContext("TcDrop", Callback<void, Ptr<const Packet>>(countDrop1));
        }
    }

    // Reconfigure for step s now; \p then runs when the new topology is in place.
    auto apply = [&out, ctl, current](
                     uint32_t s, const std::vector<double>& demand, std::function<void()> then)
    {
        *current = s;
        out.phases[s].startUs = Simulator::Now().GetSeconds() * 1e6;
        ctl->Apply(demand,
                   Callback<void, const OcsControllerStep&>(
                       [&out, s, then](const OcsControllerStep& st)
                       {
                           OcsPhaseRecord& ph = out.phases[s];
                           ph.reconfigEndUs = st.reconfig.end.GetSeconds() * 1e6;
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
                           if (then)
                           {
                               then();
                           }
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
    // Every flow: when it starts (a later phase's flow must find its topology in place) and
    // the data it sends again.
    opt.senderCreated = [&](uint32_t flow, Ptr<RoceSender> sender)
    {
        const uint32_t s = stepOfFlow[flow];
        OcsPhaseRecord& ph = out.phases[s];
        const double startUs = (Simulator::Now() + Seconds(flows[flow].startS)).GetSeconds() * 1e6;
        if (s > 0 && (fabric->IsReconfiguring() || startUs < ph.reconfigEndUs))
        {
            throw std::logic_error(std::string("RunOcsReconfig: ") + (moe ? "layer " : "step ")
                                   + std::to_string(s)
                                   + " started before its reconfiguration ended");
        }
        ph.flowsStartUs = ph.flowsStartUs < 0 ? startUs : std::min(ph.flowsStartUs, startUs);
        sender->TraceConnectWithoutContext(
            "Tx",
            Callback<void, Ptr<const Packet>, uint32_t, bool>(
                [&ph](Ptr<const Packet> pkt, uint32_t, bool retransmit)
                {
                    if (retransmit)
                    {
                        ph.retxBytes += pkt->GetSize() - RoceHeader().GetSerializedSize();
                    }
                }));
    };
    if (moe)
    {
        // Layer s starts when every flow of layer s - 1 completed (RoceTrafficHelper phases)
        // and the controller reconfigured for it: the gate requests the reconfiguration and
        // opens when the controller reports it done.
        opt.phaseGate = [&](uint32_t s, std::function<void()> open)
        {
            apply(s, demands[s], std::move(open));
        };
    }
    else
    {
        // Job trace: step s arrives at s x stepPeriod whatever still runs, and the controller
        // reconfigures for the new job mix; the step's flows (phase s; independent phases,
        // handed to the gate at time 0) start when it reports the reconfiguration done. Every
        // step reconfigures, also one whose flows were all left out.
        opt.independentPhases = true;
        auto opens = std::make_shared<std::vector<std::function<void()>>>(demands.size());
        opt.phaseGate = [opens](uint32_t s, std::function<void()> open)
        {
            (*opens)[s] = std::move(open);
        };
        for (uint32_t s = 1; s < demands.size(); ++s)
        {
            Simulator::Schedule(p.stepPeriod * s,
                                [&apply, &demands, opens, s]()
                                {
                                    apply(s,
                                          demands[s],
                                          [opens, s]()
                                          {
                                              if ((*opens)[s])
                                              {
                                                  (*opens)[s]();
                                              }
                                          });
                                });
        }
    }
    out.roce = RunFabricRoce(fabric->GetNetwork(), flows, opt);

    // Per step: retransmissions and completion (from the step's start to its last flow).
    for (uint32_t i = 0; i < out.roce.flows.size(); ++i)
    {
        const RoceFlowRecord& f = out.roce.flows[i];
        OcsPhaseRecord& ph = out.phases[stepOfFlow[i]];
        ph.retxPackets += f.retxPackets;
        if (f.complete)
        {
            ph.completionUs = std::max(ph.completionUs, f.finish.GetSeconds() * 1e6 - ph.startUs);
        }
    }
    out.totalUs = out.roce.lastCompletionSeconds * 1e6;
    fabric->Dispose();
    ctl->Dispose();
    return out;
}

nlohmann::json
OcsReconfigRunToJson(const OcsReconfigRunResult& o)
{
    nlohmann::json phases = nlohmann::json::array();
    for (const OcsPhaseRecord& ph : o.phases)
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
                          {"lost_bytes", ph.lostBytes},
                          {"retransmitted_packets", ph.retxPackets},
                          {"retransmitted_bytes", ph.retxBytes},
                          {"reconfig_end_us", ph.reconfigEndUs},
                          {"flows_start_us", ph.flowsStartUs},
                          {"completion_us", ph.completionUs},
                          {"flows", ph.flows},
                          {"unroutable_flows", ph.unroutableFlows}});
    }
    uint64_t retx = 0;
    uint64_t retxBytes = 0;
    uint64_t lostBytes = 0;
    for (const auto& f : o.roce.flows)
    {
        retx += f.retxPackets;
    }
    for (const OcsPhaseRecord& ph : o.phases)
    {
        retxBytes += ph.retxBytes;
        lostBytes += ph.lostBytes;
    }
    return {{"wiring", o.config.wiring},
            {"algorithm", o.config.algorithm},
            {"policy", o.config.policy},
            {"switching_us", o.config.switchingUs},
            {"sent_packets", o.roce.sentPackets},
            {"delivered_packets", o.roce.deliveredPackets},
            {"lost_packets", o.roce.droppedPackets},
            {"lost_bytes", lostBytes},
            {"in_flight_packets", o.roce.inFlightPackets},
            {"in_flight_measured", o.roce.measuredInFlightPackets},
            {"unaccounted_packets", o.roce.Unaccounted()},
            {"retransmitted_packets", retx},
            {"retransmitted_bytes", retxBytes},
            {"drops_by_reason", o.roce.drops},
            {"incomplete_flows", o.roce.incompleteFlows},
            {"total_completion_us", o.totalUs},
            {"wall_s", o.roce.wallSeconds},
            {"phases", phases}};
}

std::vector<std::string>
OcsPhaseCsvColumns()
{
    return {"workload",
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
            "lost_bytes",
            "retransmitted_packets",
            "retransmitted_bytes",
            "completion_us"};
}

void
WriteOcsPhaseRows(CsvWriter& csv, const std::string& workload, const OcsReconfigRunResult& o)
{
    for (uint32_t s = 0; s < o.phases.size(); ++s)
    {
        const OcsPhaseRecord& ph = o.phases[s];
        csv.Row({workload,
                 o.config.wiring,
                 o.config.algorithm,
                 o.config.policy,
                 FormatNumber(o.config.switchingUs),
                 std::to_string(s),
                 FormatNumber(ph.startUs),
                 FormatNumber(ph.solveUs),
                 FormatNumber(ph.stallUs),
                 FormatNumber(ph.drainUs),
                 std::to_string(ph.changedCircuits),
                 FormatNumber(ph.ltcr),
                 std::to_string(ph.lostPackets),
                 std::to_string(ph.lostBytes),
                 std::to_string(ph.retxPackets),
                 std::to_string(ph.retxBytes),
                 FormatNumber(ph.completionUs)});
    }
}

Gnuplot
OcsReconfigThroughputPlot(const std::vector<OcsReconfigRunResult>& runs, const std::string& title)
{
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 1000,500");
    plot.SetTitle(title);
    plot.SetLegend("time (us)", "data arriving at hosts (Gb/s)");
    if (runs.empty())
    {
        return plot;
    }
    std::string extra;
    int obj = 1;
    for (const auto& [a, b] : runs.front().windows)
    {
        extra += "set object " + std::to_string(obj++) + " rect from " + FormatNumber(a)
               + ", graph 0 to " + FormatNumber(std::max(b, a + 0.5))
               + ", graph 1 fc rgb '#dddddd' fs solid behind\n";
    }
    plot.AppendExtra(extra);
    for (const OcsReconfigRunResult& o : runs)
    {
        Gnuplot2dDataset ds(o.config.wiring + "+" + o.config.algorithm);
        ds.SetStyle(Gnuplot2dDataset::LINES);
        for (size_t b = 0; b < o.throughputGbps.size(); ++b)
        {
            ds.Add((b + 0.5) * o.config.bin.GetSeconds() * 1e6, o.throughputGbps[b]);
        }
        plot.AddDataset(ds);
    }
    return plot;
}

} // namespace ns3
