// SPDX-License-Identifier: GPL-2.0-only
// Two RoCE flows between the same pair of leaves of a fat tree: under one ECMP hash seed they
// hash onto the same spine and share its links (each gets about half the line rate); rehashed
// with another value of the EcmpRouting Seed attribute they take different spines and both run
// at line rate.
//
//   ./build/bin/ecmp-collision-rehash
#include "ns3/core-module.h"
#include "ns3/fabric-cli.h"
#include "ns3/roce-traffic-helper.h"
#include "ns3/zcube-topology.h"

#include <iostream>

using namespace ns3;

namespace
{

/// The spine a flow crosses under ECMP with \p seed (its path is GPU, leaf, spine, leaf, GPU).
uint32_t
SpineOf(const FabricNetworkHelper& links,
        std::shared_ptr<const FabricGraph> graph,
        const FlowSpec& f)
{
    Ptr<FabricRouting> routing = links.CreateRouting(graph);
    return TracePath(*routing, f.src, f.dst, f.Key()).nodes.at(2);
}

} // namespace

int
Body(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "Two flows colliding under ECMP, then rehashed with another Seed.");
    cli.Add("bytes", "message size per flow (bytes)", "2000000");
    cli.Parse(argc, argv);
    const uint64_t bytes = cli.GetUint("bytes", 1, uint64_t(1) << 32);

    std::shared_ptr<const FabricGraph> graph = RoftLayout(16, 4, 4).Build(); // 4 leaves, 4 spines
    std::vector<FlowSpec> flows(2);
    for (uint32_t i = 0; i < 2; ++i)
    {
        flows[i].id = i;
        flows[i].src = i;      // GPUs 0 and 1 on leaf 0
        flows[i].dst = 12 + i; // to GPUs 12 and 13 on leaf 3
        flows[i].bytes = bytes;
        flows[i].srcPort = static_cast<uint16_t>(49152 + i);
    }

    // The first seed under which the two flows collide, then the first after it that
    // separates them: the Seed attribute is all that changes.
    bool wantCollision = true;
    for (uint64_t seed = 0; seed < 1000; ++seed)
    {
        FabricNetworkHelper links;
        links.SetRouting("ns3::EcmpRouting", "Seed", UintegerValue(seed));
        const uint32_t s0 = SpineOf(links, graph, flows[0]);
        const uint32_t s1 = SpineOf(links, graph, flows[1]);
        if ((s0 == s1) != wantCollision)
        {
            continue;
        }
        const FabricRoceRunResult r = RunFabricRoce(links.Install(graph), flows);
        std::cout << "Seed " << seed << ": spines " << graph->GetName(s0) << " and "
                  << graph->GetName(s1) << (s0 == s1 ? " (collision)" : " (separate)") << ", FCT "
                  << r.flows[0].FctSeconds() * 1e6 << " us and " << r.flows[1].FctSeconds() * 1e6
                  << " us, ideal " << r.flows[0].idealSeconds * 1e6 << " us\n";
        if (r.Unaccounted() != 0 || r.incompleteFlows != 0)
        {
            return 1;
        }
        if (!wantCollision)
        {
            return 0;
        }
        wantCollision = false;
    }
    std::cerr << "error: no seed in [0, 1000) gave both cases\n";
    return 1;
}

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Body);
}
