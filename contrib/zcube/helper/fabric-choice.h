// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CHOICE_H
#define FABRIC_CHOICE_H

#include "ns3/fabric-graph.h"
#include "ns3/fabric-routing.h"
#include "ns3/leaf-spine-layout.h"
#include "ns3/object-factory.h"
#include "ns3/traffic-pattern.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup zcube
 * Sizes of the fabrics the zcube experiments compare (ZCube paper §7.2).
 */
struct FabricChoiceParams
{
    uint32_t n{128};    //!< GPUs
    uint32_t k{16};     //!< GPUs per switch (ZCube) / per leaf (ROFT)
    uint32_t spines{0}; //!< ROFT spines; 0 = n / k as in §7.2
    LeafAttachment attachment{LeafAttachment::CONTIGUOUS}; //!< ROFT host attachment
    uint32_t parallel{1}; //!< links per ZCube core pair / ROFT leaf-spine pair
    /// ROFT ECMP mixes each switch's id into the hash; unset: the ns3::EcmpRouting::MixSwitchId
    /// attribute default (true unless --ns3::EcmpRouting::MixSwitchId changed it)
    std::optional<bool> mixSwitchId{};
};

/**
 * \ingroup zcube
 * One fabric of a comparison, built once: its graph, the directed links its load-imbalance
 * metric is taken over, and its routing scheme as a TypeId with attributes. The same routing
 * instance serves the analytic walk and the packets (pass it to FabricNetworkHelper::Install).
 */
struct FabricChoice
{
    std::string name;                         //!< "zcube" | "roft"
    std::shared_ptr<const FabricGraph> graph; //!< built once
    std::vector<uint32_t> metricDirLinks;     //!< ZCube core O->E; ROFT leaf<->spine both ways
    ObjectFactory routing;                    //!< ns3::ZCubeRouting | ns3::EcmpRouting
    /**
     * The fabric's closed-form cross-check of walked loads (flows, weights, loads per
     * directed link): ZCube's Eq. 3; empty when the fabric has none.
     */
    std::function<bool(
        const std::vector<FlowSpec>&, const std::vector<double>&, const std::vector<double>&)>
        modelCheck;

    /**
     * A routing of this fabric with flow-hash seed \p seed, bound to the graph. An ECMP
     * routing is made by EcmpRouting::Reseeded from one built once (same tables, so a sweep
     * over many seeds costs no BFS; it shares that routing's all-up view).
     */
    Ptr<FabricRouting> CreateRouting(uint64_t seed) const;

    /// The routing built once from the factory (seed 0), whose tables CreateRouting reuses.
    Ptr<FabricRouting> base;
};

/// The names MakeFabricChoice knows, in a fixed order ("zcube", "roft").
std::vector<std::string> FabricChoiceNames();

/**
 * \ingroup zcube
 * Build the fabric called \p name: "zcube" (ZCubeLayout(n, k, parallel), ns3::ZCubeRouting)
 * or "roft" (LeafSpineLayout(n, k, spines, attachment, parallel), ns3::EcmpRouting with
 * MixSwitchId).
 * \throws std::invalid_argument on an unknown name (the valid ones listed) or invalid sizes
 */
FabricChoice MakeFabricChoice(const std::string& name, const FabricChoiceParams& params);

} // namespace ns3

#endif // FABRIC_CHOICE_H
