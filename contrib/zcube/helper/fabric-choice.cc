// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-choice.h"

#include "ns3/boolean.h"
#include "ns3/ecmp-routing.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"
#include "ns3/zcube-routing.h"
#include "ns3/zcube-topology.h"

#include <functional>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChoice");

namespace
{
using Builder = std::function<FabricChoice(const FabricChoiceParams&)>;

/// The one place that maps user-facing fabric names to builders.
const std::vector<std::pair<std::string, Builder>>&
Registry()
{
    static const std::vector<std::pair<std::string, Builder>> registry{
        {"zcube",
         [](const FabricChoiceParams& p)
         {
             ZCubeLayout layout(p.n, p.k, p.parallel);
             FabricChoice c;
             c.graph = layout.Build();
             c.metricDirLinks = layout.CoreDirLinks(*c.graph);
             c.routing.SetTypeId("ns3::ZCubeRouting");
             c.modelCheck = [layout, g = c.graph](const std::vector<FlowSpec>& flows,
                                                  const std::vector<double>& w,
                                                  const std::vector<double>& walked)
             {
                 return ZCubeWalkMatchesEq3(layout, *g, flows, w, walked);
             };
             return c;
         }},
        {"roft",
         [](const FabricChoiceParams& p)
         {
             if (p.k == 0)
             {
                 throw std::invalid_argument("roft: k (GPUs per leaf) must be >= 1");
             }
             LeafSpineLayout layout(
                 p.n, p.k, p.spines == 0 ? p.n / p.k : p.spines, p.attachment, p.parallel);
             FabricChoice c;
             c.graph = layout.Build();
             c.metricDirLinks = layout.FabricDirLinks(*c.graph);
             c.routing.SetTypeId("ns3::EcmpRouting");
             if (p.mixSwitchId)
             {
                 c.routing.Set("MixSwitchId", BooleanValue(*p.mixSwitchId));
             }
             return c;
         }}};
    return registry;
}
} // namespace

Ptr<FabricRouting>
FabricChoice::CreateRouting(uint64_t seed) const
{
    if (Ptr<EcmpRouting> ecmp = DynamicCast<EcmpRouting>(base))
    {
        return ecmp->Reseeded(seed);
    }
    ObjectFactory f = routing;
    f.Set("Seed", UintegerValue(seed));
    Ptr<FabricRouting> r = f.Create<FabricRouting>();
    r->SetGraph(graph);
    return r;
}

std::vector<std::string>
FabricChoiceNames()
{
    std::vector<std::string> names;
    for (const auto& [name, builder] : Registry())
    {
        names.push_back(name);
    }
    return names;
}

FabricChoice
MakeFabricChoice(const std::string& name, const FabricChoiceParams& params)
{
    std::string valid;
    for (const auto& [known, builder] : Registry())
    {
        if (known == name)
        {
            FabricChoice c = builder(params);
            c.name = name;
            c.base = c.CreateRouting(0);
            return c;
        }
        valid += (valid.empty() ? "" : "|") + known;
    }
    throw std::invalid_argument("fabric '" + name + "' unknown; valid: " + valid);
}

} // namespace ns3
