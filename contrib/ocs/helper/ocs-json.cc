// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-json.h"

namespace ns3
{

nlohmann::ordered_json
OcsWiringToJson(const OcsWiring& wiring)
{
    nlohmann::ordered_json ocs = nlohmann::ordered_json::array();
    for (uint32_t o = 0; o < wiring.GetNumOcs(); ++o)
    {
        nlohmann::ordered_json n = nlohmann::ordered_json::array();
        nlohmann::ordered_json s = nlohmann::ordered_json::array();
        for (uint32_t i = 0; i < wiring.GetRadix(); ++i)
        {
            const OcsEgPort tx = wiring.GetNPort(o, i);
            const OcsEgPort rx = wiring.GetSPort(o, i);
            n.push_back({tx.eg, tx.port});
            s.push_back({rx.eg, rx.port});
        }
        ocs.push_back({{"id", o}, {"n", n}, {"s", s}});
    }
    return {{"egs", wiring.GetEgs()}, {"ports_per_eg", wiring.GetPortsPerEg()}, {"ocs", ocs}};
}

nlohmann::ordered_json
OcsMatrixToJson(const OcsMatrix& m)
{
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < m.GetN(); ++i)
    {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (uint32_t j = 0; j < m.GetN(); ++j)
        {
            row.push_back(m(i, j));
        }
        rows.push_back(row);
    }
    return rows;
}

nlohmann::ordered_json
OcsConfigToJson(const OcsConfigResult& r)
{
    nlohmann::ordered_json circuits = nlohmann::ordered_json::array();
    for (const OcsCircuit& c : r.circuits)
    {
        circuits.push_back({{"ocs", c.ocs}, {"n", c.n}, {"s", c.s}});
    }
    return {{"circuits", circuits},
            {"realized", OcsMatrixToJson(r.realized)},
            {"ltcr", r.ltcr},
            {"solve_us", r.solveUs}};
}

nlohmann::ordered_json
OcsFibreMovesToJson(const std::vector<OcsFibreMove>& moves)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const OcsFibreMove& m : moves)
    {
        out.push_back({{"eg", m.egPort.eg},
                       {"port", m.egPort.port},
                       {"from", {{"ocs", m.from.ocs}, {"s", m.from.index}}},
                       {"to", {{"ocs", m.to.ocs}, {"s", m.to.index}}}});
    }
    return out;
}

} // namespace ns3
