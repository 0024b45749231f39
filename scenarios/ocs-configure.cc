// SPDX-License-Identifier: GPL-2.0-only
//
// ocs-configure: compute an OCS configuration that realizes a logical topology on a physical
// wiring (OCS paper §2-§4) and write both as JSON.
//
//   ./build/bin/ocs-configure --wiring=cross --egs=3 --ports=2 --logical=l.txt
//       --algorithm=exact --physical-out=phys.json --out=config.json   (one line)
//
// --logical FILE: the size E on the first line, then E lines of E integers (links per EG
// pair): symmetric, non-negative, zero diagonal, every row at most --ports.
// PHYS.json: {"egs":E,"ports_per_eg":P,"ocs":[{"id":o,"n":[[eg,port],...],"s":[[eg,port],...]}]}
// CONFIG.json: {"circuits":[{"ocs":o,"n":i,"s":j},...],"realized":[[...]],"ltcr":x,
//               "solve_us":t}
// --rewire-out=MOVES.json (optional): the fibre moves that turn a Uniform cabling of E EGs
// with P ports into Cross Wiring: [{"eg":e,"port":p,"from":{"ocs":o,"s":i},
// "to":{"ocs":o2,"s":i2}},...] (RX fibres only, §5).
// A bad matrix or an impossible wiring prints "error: ..." and exits with code 2.
#include "ns3/double.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/ocs-configurator.h"
#include "ns3/ocs-json.h"
#include "ns3/ocs-setup.h"

#include <fstream>
#include <iostream>

using namespace ns3;

namespace
{

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__,
                  "Compute an OCS configuration realizing a logical topology on a wiring "
                  "(single|uniform|2uniform|cross) and write the physical topology and the "
                  "configuration as JSON.");
    cli.Add("wiring", "physical wiring: single|uniform|2uniform|cross", "cross");
    cli.Add("egs", "number of EGs E", "");
    cli.Add("ports", "OCS-facing ports per EG P (even for 2uniform and cross)", "");
    cli.Add("logical", "logical topology file: E, then E lines of E integers", "");
    cli.Add("algorithm", "exact|greedy|bvn|dfs|ilp (exact: single, 2uniform, cross)", "exact");
    cli.Add("time-limit-ms", "time bound of dfs and ilp, in ms", "1000");
    cli.Add("physical-out", "where to write the physical topology JSON", "");
    cli.Add("out", "where to write the configuration JSON", "");
    cli.Add("rewire-out",
            "optional: write the fibre moves that turn a Uniform cabling of these EGs into "
            "Cross Wiring (§5) as JSON",
            "");
    cli.Parse(argc, argv);

    for (const std::string req : {"egs", "ports", "logical", "physical-out", "out"})
    {
        if (cli.GetString(req).empty())
        {
            throw std::invalid_argument("--" + req + " is required");
        }
    }
    // Wiring, sizes and algorithm as attributes of one OcsSetup (names checked there).
    Ptr<OcsSetup> setup = CreateObject<OcsSetup>();
    setup->Set("Wiring", cli.GetChoice("wiring", {"single", "uniform", "2uniform", "cross"}));
    setup->Set("Egs", std::to_string(cli.GetUint("egs", 1, 65536)));
    setup->Set("Ports", std::to_string(cli.GetUint("ports", 1, 4096)));
    setup->Set("Algorithm", cli.GetChoice("algorithm", {"exact", "greedy", "bvn", "dfs", "ilp"}));
    setup->SetAttribute("TimeLimitMs", DoubleValue(cli.GetDouble("time-limit-ms", 0.001, 3.6e6)));
    const uint32_t egs = setup->GetEgs();
    const uint32_t ports = setup->GetPorts();
    std::ifstream in(cli.GetString("logical"));
    if (!in)
    {
        throw std::invalid_argument("--logical=" + cli.GetString("logical")
                                    + ": cannot open the file");
    }
    const OcsMatrix logical = OcsMatrix::Read(in, "--logical=" + cli.GetString("logical"));
    const OcsWiring wiring = setup->MakeWiring();
    ValidateLogicalTopology(logical, egs, ports);
    const OcsConfigResult r = setup->Configure(logical);
    // Everything is computed (and so validated) before anything is written; each file is
    // written atomically, so an error leaves no partial output.
    for (const std::string a : {"physical-out", "out", "rewire-out"})
    {
        for (const std::string b : {"physical-out", "out", "rewire-out"})
        {
            if (a < b && cli.IsSet(a) && cli.IsSet(b) && cli.GetString(a) == cli.GetString(b))
            {
                throw std::invalid_argument("--" + a + " and --" + b + " name the same file '"
                                            + cli.GetString(a) + "'");
            }
        }
    }
    std::vector<FabricOutputFile> files;
    auto add = [&](const std::string& flag, const std::string& content)
    {
        files.push_back({cli.GetString(flag), content, "--" + flag + "=" + cli.GetString(flag)});
    };
    add("physical-out", OcsWiringToJson(wiring).dump() + "\n");
    add("out", OcsConfigToJson(r).dump() + "\n");
    if (cli.IsSet("rewire-out"))
    {
        add("rewire-out", OcsFibreMovesToJson(UniformToCrossMoves(egs, ports)).dump() + "\n");
    }
    WriteFilesAtomically(files);
    std::cerr << "ocs-configure: " << OcsWiringTypeName(setup->GetWiringType()) << " E=" << egs
              << " P=" << ports << " (" << wiring.GetNumOcs() << " OCSes of " << wiring.GetRadix()
              << " ports a side), " << OcsAlgorithmName(setup->GetAlgorithm()) << ": "
              << r.circuits.size() << " circuits, LTCR " << r.ltcr << ", " << r.solveUs << " us"
              << (r.timedOut ? " (time limit reached)" : "") << "\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
