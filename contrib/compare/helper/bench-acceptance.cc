// SPDX-License-Identifier: GPL-2.0-only
#include "bench-acceptance.h"

#include "ns3/log.h"

#include <iomanip>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BenchAcceptance");

namespace
{

using nlohmann::json;

/// One line: \p measured against at least \p min, measured on \p linkDevice ("p2p" or "fast").
json
AcceptanceLine(const std::string& what,
               double min,
               double measured,
               bool applies,
               bool roundsDiffer,
               const std::string& linkDevice)
{
    json line = {{"target", what},
                 {"min", min},
                 {"measured", measured},
                 {"applies", applies},
                 {"link_device", linkDevice},
                 {"met", applies && !roundsDiffer && measured >= min}};
    if (roundsDiffer)
    {
        line["rounds_differ"] = true;
    }
    return line;
}

} // namespace

json
Issue12Acceptance(const json& summary, uint32_t n, std::ostream& os)
{
    const bool applies = n == 128;
    json lines = json::object();
    std::vector<std::string> required;
    for (const std::string fabric : {"zcube", "roft"})
    {
        const std::string ratioKey = "roce_vs_global_" + fabric + "_permutation";
        const std::string rateKey = "roce_hop_packets_per_s_" + fabric + "_permutation";
        required.push_back(ratioKey);
        required.push_back(rateKey);
        if (!summary.contains("roce") || !summary["roce"].contains(fabric)
            || !summary["roce"][fabric].contains("permutation"))
        {
            continue;
        }
        const json& r = summary["roce"][fabric]["permutation"];
        const bool differ
            = r.contains("rounds_same_hop_packets") && !r["rounds_same_hop_packets"].get<bool>();
        const std::string row = "roce." + fabric + ".permutation.";
        lines[ratioKey] = AcceptanceLine("RoCE + DCQCN on the 128-GPU " + fabric
                                             + " permutation: hop packets/s at least 7x stock "
                                               "global routing's UDP ("
                                             + row + "roce_vs_global)",
                                         7.0,
                                         r["roce_vs_global"].get<double>(),
                                         applies,
                                         differ,
                                         "p2p");
        lines[rateKey] = AcceptanceLine("RoCE + DCQCN on the 128-GPU " + fabric
                                            + " permutation: at least 700k hop packets/s (" + row
                                            + "roce_hop_packets_per_s)",
                                        700e3,
                                        r["roce_hop_packets_per_s"].get<double>(),
                                        applies,
                                        differ,
                                        "p2p");
        if (r.contains("roce_fast_device_vs_global"))
        {
            lines[ratioKey + "_fast_device"] = AcceptanceLine(
                "the same on the opt-in fast link device (" + row + "roce_fast_device_vs_global)",
                7.0,
                r["roce_fast_device_vs_global"].get<double>(),
                applies,
                differ,
                "fast");
            lines[rateKey + "_fast_device"]
                = AcceptanceLine("the same on the opt-in fast link device (" + row
                                     + "roce_fast_device_hop_packets_per_s)",
                                 700e3,
                                 r["roce_fast_device_hop_packets_per_s"].get<double>(),
                                 applies,
                                 differ,
                                 "fast");
        }
    }
    required.push_back("udp_fast_vs_global");
    if (summary.contains("variants") && summary["variants"].contains("fast")
        && summary["variants"]["fast"].contains("ratio_vs_global"))
    {
        lines["udp_fast_vs_global"]
            = AcceptanceLine("UDP fast path at least 6x stock global routing (ZCube AllReduce, "
                             "variants.fast.ratio_vs_global)",
                             6.0,
                             summary["variants"]["fast"]["ratio_vs_global"].get<double>(),
                             applies,
                             false,
                             "p2p");
    }

    // all_met: every default-device line measured and met; the fast device's lines are shown
    // beside them and do not count.
    json missing = json::array();
    bool all = true;
    for (const auto& key : required)
    {
        if (!lines.contains(key))
        {
            missing.push_back(key);
            all = false;
        }
        else
        {
            all = all && lines[key]["met"].get<bool>();
        }
    }

    os << "\nAcceptance of issue #12 (medians of this run";
    if (!applies)
    {
        os << "; defined at --n=128, this run has --n=" << n << ": not applicable";
    }
    os << ")\n";
    for (const auto& [key, l] : lines.items())
    {
        const double x = l["measured"].get<double>();
        const double min = l["min"].get<double>();
        os << "  " << std::left << std::setw(54) << key << std::right << std::fixed
           << std::setprecision(min >= 1000 ? 0 : 2) << std::setw(10) << x
           << (min >= 1000 ? "" : "x") << " (target >= " << min << (min >= 1000 ? "" : "x") << "): "
           << (!applies                      ? "n/a"
               : l.contains("rounds_differ") ? "NOT met (the rounds simulated different runs)"
               : l["met"].get<bool>()        ? "met"
                                             : "NOT met")
           << "\n";
    }
    if (!missing.empty())
    {
        os << "  not measured in this run:";
        for (const auto& m : missing)
        {
            os << " " << m.get<std::string>();
        }
        os << "\n";
    }
    os << "  all default-device lines met: " << (all ? "yes" : "no") << "\n";
    return {{"issue", 12},
            {"n", n},
            {"defined_at_n", 128},
            {"lines", lines},
            {"missing", missing},
            {"all_met", all},
            {"not_here",
             "permutation at 1024 GPUs >= half the hop rate at 128 GPUs: scripts/scaling-table.py "
             "(--scaling points); all-pairs AllReduce at 2048 GPUs in 4 GiB: doc/scaling.md"}};
}

} // namespace ns3
