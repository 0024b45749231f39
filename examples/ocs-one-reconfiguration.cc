// SPDX-License-Identifier: GPL-2.0-only
// One OCS reconfiguration at packet level: 6 electrical groups (EGs) on a Cross Wiring cluster,
// first configured for a ring demand (every EG to its successor); 20 us into the run the
// controller reconfigures for EG a <-> EG a+3 (drain policy: changed circuits are emptied
// first); flows between those EGs start once the new topology is in place. Prints the stall
// (drain + switching + restoration), what the circuits realize, every flow's FCT and the
// packet accounting.
//
//   ./build/bin/ocs-one-reconfiguration --switching-us=10
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/ocs-cluster-helper.h"
#include "ns3/ocs-controller.h"
#include "ns3/roce-traffic-helper.h"

#include <iostream>

using namespace ns3;

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "One OCS reconfiguration on a 6-EG Cross Wiring cluster.");
    cli.Add("switching-us", "OCS switching delay (microseconds)", "10");
    cli.Parse(argc, argv);
    const Time switching = cli.GetTime("switching-us", Time::US, NanoSeconds(1), MilliSeconds(100));

    const uint32_t egs = 6;
    const OcsWiring wiring(OcsWiringType::CROSS, egs, 4); // 4 OCS-facing ports per EG
    OcsClusterHelper cluster;                             // one host per EG
    cluster.SetSwitchAttribute("SwitchingDelay", TimeValue(switching));
    cluster.SetSwitchAttribute("RestorationDelay", TimeValue(MicroSeconds(5)));
    cluster.SetFabricAttribute("Policy", StringValue("drain"));
    Ptr<OcsFabric> fabric = cluster.Install(wiring);
    auto controller = CreateObjectWithAttributes<OcsController>("Algorithm", StringValue("exact"));
    controller->SetFabric(fabric);

    auto demand = [egs](uint32_t shift)
    {
        std::vector<double> d(egs * egs, 0.0);
        for (uint32_t a = 0; a < egs; ++a)
        {
            d[a * egs + (a + shift) % egs] = d[(a + shift) % egs * egs + a] = 1.0;
        }
        return d;
    };
    controller->Install(demand(1)); // the ring, at time 0

    // Ring flows now; flows to the EG opposite after the reconfiguration (started at 20 us).
    std::vector<FlowSpec> flows;
    for (uint32_t a = 0; a < egs; ++a)
    {
        FlowSpec ring;
        ring.id = a;
        ring.src = a;
        ring.dst = (a + 1) % egs;
        ring.bytes = 200000;
        flows.push_back(ring);
        FlowSpec across = ring;
        across.id = egs + a;
        across.dst = (a + 3) % egs;
        across.startS = (MicroSeconds(20) + switching + MicroSeconds(5) + MicroSeconds(10))
                            .GetSeconds(); // after the stall, with room for the drain
        flows.push_back(across);
    }
    OcsControllerStep step;
    Simulator::Schedule(MicroSeconds(20),
                        [&]
                        {
                            controller->Apply(demand(3),
                                              Callback<void, const OcsControllerStep&>(
                                                  [&](const OcsControllerStep& s) { step = s; }));
                        });
    const FabricRoceRunResult r = RunFabricRoce(fabric->GetNetwork(), flows);

    std::cout << "reconfiguration requested at " << step.requested.As(Time::US) << ": "
              << step.reconfig.changedCircuits << " circuits changed, switching started at "
              << step.reconfig.switchStart.As(Time::US)
              << " (after draining), topology in place at " << step.reconfig.end.As(Time::US)
              << ", stall " << step.Stall().As(Time::US)
              << "\nrealized logical topology equals the target: "
              << (step.realized == step.logical ? "yes" : "no")
              << "\nflow  src->dst  start (us)  FCT (us)\n";
    for (const RoceFlowRecord& f : r.flows)
    {
        std::cout << f.spec.id << "     " << f.spec.src << "->" << f.spec.dst << "      "
                  << f.start.GetSeconds() * 1e6 << "      " << f.FctSeconds() * 1e6 << "\n";
    }
    std::cout << "packets: " << r.sentPackets << " sent = " << r.deliveredPackets << " delivered + "
              << r.droppedPackets << " dropped + " << r.inFlightPackets << " in flight\n";
    return r.Unaccounted() == 0 && r.incompleteFlows == 0 && step.Stall().IsStrictlyPositive() ? 0
                                                                                               : 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
