// SPDX-License-Identifier: GPL-2.0-only
#include "zcube-routing.h"

#include "ns3/enum.h"
#include "ns3/fabric-addressing.h"
#include "ns3/log.h"
#include "ns3/traffic-pattern.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ZCubeRouting");
NS_OBJECT_ENSURE_REGISTERED(ZCubeRouting);

TypeId
ZCubeRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ZCubeRouting")
                            .SetParent<FabricRouting>()
                            .SetGroupName("ZCube")
                            .AddConstructor<ZCubeRouting>()
                            .AddAttribute("Seed",
                                          "Flow-hash seed for choosing among parallel core links.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&ZCubeRouting::m_seed),
                                          MakeUintegerChecker<uint64_t>())
                            .AddAttribute("DetourShape",
                                          "Controller detours for a dead core link O_a -> E_b: "
                                          "paper (§6.2, O_a -> E_c -> O_d -> E_b, 4 switches) "
                                          "or reverse-plane (per affected pair i -> j: i's E "
                                          "side -> E_{e(i)} -> O_{o(j)} -> j's O side, 2 "
                                          "switches over links Eq. 1 never loads; the paper "
                                          "detour for a pair whose path has a piece down).",
                                          EnumValue(ZCubeRouting::PAPER),
                                          MakeEnumAccessor(&ZCubeRouting::m_shape),
                                          MakeEnumChecker(ZCubeRouting::PAPER,
                                                          "paper",
                                                          ZCubeRouting::REVERSE_PLANE,
                                                          "reverse-plane"))
                            .AddTraceSource("DetourChange",
                                            "The controller installed or removed detours: "
                                            "(entries installed, removed, in force after; "
                                            "per-pair entries included).",
                                            MakeTraceSourceAccessor(&ZCubeRouting::m_detourTrace),
                                            "ns3::ZCubeRouting::DetourChangeTracedCallback");
    return tid;
}

ZCubeRouting::ZCubeRouting()
{
    NS_LOG_FUNCTION(this);
}

void
ZCubeRouting::DoSetGraph()
{
    if (m_graph->GetKind() != "zcube")
    {
        throw std::invalid_argument("ZCubeRouting: the graph was not built by ZCubeLayout (kind '"
                                    + m_graph->GetKind() + "')");
    }
    m_layout = ZCubeLayout(static_cast<uint32_t>(m_graph->GetParameter("n")),
                           static_cast<uint32_t>(m_graph->GetParameter("k")),
                           static_cast<uint32_t>(m_graph->GetParameter("parallel")));
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
    if (m_graph->GetNHosts() != n || m_graph->GetNNodes() != n + 2 * m)
    {
        throw std::invalid_argument("ZCubeRouting: graph was not built by this ZCubeLayout");
    }
}

uint32_t
ZCubeRouting::FirstUsable(const FabricState& view, uint32_t node, uint32_t first) const
{
    for (uint32_t r = 0; r < m_layout.GetParallel(); ++r)
    {
        if (view.IsPortUsable(node, first + r))
        {
            return first + r;
        }
    }
    return NO_PORT;
}

uint32_t
ZCubeRouting::EvenUpward(uint32_t node, uint32_t srcGpu, const FlowKey& key) const
{
    // Up to any O_d but the source's own (which may be what failed), by flow hash among the
    // ports this switch believes up; Eq. 1 from O_d on.
    const uint32_t m = m_layout.GetM();
    const uint32_t par = m_layout.GetParallel();
    const uint32_t own = m_layout.OddGroup(srcGpu);
    const uint32_t k = m_layout.GetK();
    return PickUsable(
        node,
        (m - 1) * par,
        [own, par, k](uint32_t i)
        {
            const uint32_t d = i / par;
            return k + (d < own ? d : d + 1) * par + i % par;
        },
        FlowHash(key, m_seed ^ node));
}

uint32_t
ZCubeRouting::GetDetour(uint32_t node, uint32_t dstHost) const
{
    auto it = m_detours.find(DetourKey(node, dstHost));
    return it == m_detours.end() ? NO_PORT : it->second;
}

uint32_t
ZCubeRouting::PairDetour(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
    const uint32_t k = m_layout.GetK();
    uint64_t key;
    if (node < n)
    {
        key = PairKey(node, 0, dstHost);
    }
    else if (inPort == NO_PORT)
    {
        return NO_PORT;
    }
    else if (node >= n + m)
    {
        if (inPort >= k)
        {
            return NO_PORT; // E entries are for packets from the switch's own GPUs only
        }
        key = PairKey(node, inPort, dstHost);
    }
    else
    {
        if (inPort < k)
        {
            return NO_PORT; // O entries are for packets from the core only
        }
        key = PairKey(node, (inPort - k) / m_layout.GetParallel(), dstHost);
    }
    auto it = m_pairDetours.find(key);
    return it == m_pairDetours.end() ? NO_PORT : it->second;
}

uint32_t
ZCubeRouting::SelectPort(uint32_t node, uint32_t inPort, uint32_t dstHost, const FlowKey& key) const
{
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
    uint32_t port;
    if (node < n)
    {
        if (node == dstHost)
        {
            return NO_PORT;
        }
        // A controller's per-pair choice (reverse-plane) while the GPU believes it works.
        if (!m_pairDetours.empty())
        {
            const uint32_t pd = PairDetour(node, inPort, dstHost);
            if (pd != NO_PORT && IsPortUp(node, pd))
            {
                return pd;
            }
        }
        // Rule 1 side first; NIC failover to the E side when the GPU believes its O side dead.
        if (IsPortUp(node, 0))
        {
            return 0;
        }
        return IsPortUp(node, 1) ? 1 : NO_PORT;
    }
    if (!m_pairDetours.empty())
    {
        // Before the per-destination detours: O_{o(j)} may be O_a itself, whose detour for j
        // serves the packets that still reach it from its GPUs.
        const uint32_t pd = PairDetour(node, inPort, dstHost);
        if (pd != NO_PORT && IsPortUp(node, pd))
        {
            return pd;
        }
    }
    if (!m_detours.empty())
    {
        auto it = m_detours.find(DetourKey(node, dstHost));
        if (it != m_detours.end() && !(node >= n + m && inPort < m_layout.GetK()))
        {
            return IsPortUp(node, it->second) ? it->second : NO_PORT;
        }
    }
    if (node < n + m)
    {
        const uint32_t b = m_layout.EvenGroup(dstHost);
        const uint32_t par = m_layout.GetParallel();
        if (par == 1)
        {
            port = m_layout.OddCorePort(b, 0);
        }
        else
        {
            // Resilient: the all-up choice stands while its link works; otherwise rehash over
            // the parallel links the view believes usable.
            return PickUsable(
                node,
                par,
                [this, b](uint32_t r) { return m_layout.OddCorePort(b, r); },
                FlowHash(key, m_seed ^ node));
        }
    }
    else
    {
        const uint32_t b = node - n - m;
        if (m_layout.EvenGroup(dstHost) == b && IsPortUp(node, m_layout.EvenHostPort(dstHost)))
        {
            return m_layout.EvenHostPort(dstHost);
        }
        if (inPort < m_layout.GetK())
        {
            // From one of this switch's GPUs that failed over to its E side.
            return EvenUpward(node, b * m_layout.GetK() + inPort, key);
        }
        // Not on the Eq. 1 path of this destination, and no detour: no route.
        return NO_PORT;
    }
    return (port == NO_PORT || IsPortUp(node, port)) ? port : NO_PORT;
}

std::vector<uint32_t>
ZCubeRouting::Candidates(uint32_t node, uint32_t inPort, uint32_t dstHost) const
{
    const uint32_t n = m_layout.GetN();
    const uint32_t m = m_layout.GetM();
    const uint32_t par = m_layout.GetParallel();
    std::vector<uint32_t> ports;
    if (!m_pairDetours.empty() && node != dstHost)
    {
        const uint32_t pd = PairDetour(node, inPort, dstHost);
        if (pd != NO_PORT && IsPortUp(node, pd))
        {
            return {pd};
        }
    }
    const uint32_t detour = (node >= n && !(node >= n + m && inPort < m_layout.GetK()))
                              ? GetDetour(node, dstHost)
                              : NO_PORT;
    if (node < n)
    {
        if (node != dstHost)
        {
            ports.push_back(IsPortUp(node, 0) ? 0 : 1);
        }
    }
    else if (detour != NO_PORT)
    {
        ports.push_back(detour);
    }
    else if (node < n + m)
    {
        for (uint32_t r = 0; r < par; ++r)
        {
            ports.push_back(m_layout.OddCorePort(m_layout.EvenGroup(dstHost), r));
        }
    }
    else if (m_layout.EvenGroup(dstHost) == node - n - m
             && IsPortUp(node, m_layout.EvenHostPort(dstHost)))
    {
        ports.push_back(m_layout.EvenHostPort(dstHost));
    }
    else if (inPort < m_layout.GetK())
    {
        const uint32_t own = m_layout.OddGroup((node - n - m) * m_layout.GetK() + inPort);
        for (uint32_t d = 0; d < m; ++d)
        {
            for (uint32_t r = 0; r < par && d != own; ++r)
            {
                ports.push_back(EvenCorePort(d, r));
            }
        }
    }
    ports.erase(std::remove_if(ports.begin(),
                               ports.end(),
                               [this, node](uint32_t p) { return !IsPortUp(node, p); }),
                ports.end());
    return ports;
}

bool
ZCubeRouting::AddReversePlane(const FabricState& view,
                              uint32_t i,
                              uint32_t j,
                              std::unordered_map<uint64_t, uint32_t>& pairs) const
{
    // i's E side -> E_c -> (E -> O core) -> O_d -> j's O side, c = e(i), d = o(j). Eq. 1
    // loads none of these links: GPUs send on their O side and receive on their E side, and
    // the core carries O -> E only.
    const uint32_t c = m_layout.EvenGroup(i);
    const uint32_t d = m_layout.OddGroup(j);
    const uint32_t ec = m_layout.EvenNode(c);
    const uint32_t od = m_layout.OddNode(d);
    if (!view.IsPortUsable(i, 1) || !view.IsPortUsable(od, OddHostPort(j)))
    {
        return false;
    }
    const uint32_t across = FirstUsable(view, ec, EvenCorePort(d));
    if (across == NO_PORT)
    {
        return false; // e.g. E_b -> O_a itself, needed only by i = j when k <= m
    }
    pairs[PairKey(i, 0, j)] = 1;
    pairs[PairKey(ec, m_layout.EvenHostPort(i), j)] = across;
    pairs[PairKey(od, c, j)] = OddHostPort(j);
    return true;
}

void
ZCubeRouting::DoControllerViewChanged(const FabricStateChange& /*change*/)
{
    const auto view = GetControllerView();
    std::unordered_map<uint64_t, uint32_t> detours;
    std::unordered_map<uint64_t, uint32_t> pairs;
    uint32_t fallbacks = 0;
    if (view && (view->GetNDirLinksDown() > 0 || view->GetNNodesDown() > 0))
    {
        const FabricState& v = *view;
        const uint32_t n = m_layout.GetN();
        const uint32_t m = m_layout.GetM();
        for (uint32_t j = 0; j < n; ++j)
        {
            const uint32_t b = m_layout.EvenGroup(j);
            const uint32_t q = m_layout.OddGroup(j);
            const uint32_t eb = m_layout.EvenNode(b);
            const uint32_t oq = m_layout.OddNode(q);
            if (!v.IsPortUsable(eb, m_layout.EvenHostPort(j)))
            {
                // j's even side is dead: deliver on its odd side, O_a -> E_c -> O_q -> j.
                if (!v.IsPortUsable(oq, OddHostPort(j)))
                {
                    continue; // both sides dead: j is unreachable
                }
                detours[DetourKey(oq, j)] = OddHostPort(j);
                for (uint32_t a = 0; a < m; ++a)
                {
                    const uint32_t oa = m_layout.OddNode(a);
                    if (a == q || !v.IsNodeUp(oa))
                    {
                        continue;
                    }
                    for (uint32_t i = 0; i < m; ++i)
                    {
                        const uint32_t c = (j + a + i) % m; // spread detours over E switches
                        const uint32_t ec = m_layout.EvenNode(c);
                        const uint32_t up = FirstUsable(v, oa, m_layout.OddCorePort(c));
                        const uint32_t across = FirstUsable(v, ec, EvenCorePort(q));
                        if (c != b && up != NO_PORT && across != NO_PORT)
                        {
                            detours[DetourKey(oa, j)] = up;
                            detours[DetourKey(ec, j)] = across;
                            break;
                        }
                    }
                }
                continue;
            }
            // Core links O_a -> E_b dead: O_a -> E_c -> O_d -> E_b -> j, where O_d is chosen
            // from (c, j) only and has a live link to E_b (so O_d has no detour for j).
            for (uint32_t a = 0; a < m; ++a)
            {
                const uint32_t oa = m_layout.OddNode(a);
                if (!v.IsNodeUp(oa) || FirstUsable(v, oa, m_layout.OddCorePort(b)) != NO_PORT)
                {
                    continue;
                }
                if (m_shape == REVERSE_PLANE)
                {
                    // Each affected pair (i in O_a) on its reverse-plane path if it works; the
                    // paper detour at O_a below serves the others and what reaches O_a still.
                    for (uint32_t i = a; i < n; i += m)
                    {
                        if (i != j && !AddReversePlane(v, i, j, pairs))
                        {
                            ++fallbacks;
                        }
                    }
                }
                for (uint32_t i = 0; i < m; ++i)
                {
                    const uint32_t c = (j + a + i) % m;
                    const uint32_t ec = m_layout.EvenNode(c);
                    const uint32_t up = FirstUsable(v, oa, m_layout.OddCorePort(c));
                    if (c == b || up == NO_PORT)
                    {
                        continue;
                    }
                    uint32_t across = NO_PORT;
                    for (uint32_t t = 0; t < m && across == NO_PORT; ++t)
                    {
                        const uint32_t d = (j + c + t) % m;
                        if (FirstUsable(v, m_layout.OddNode(d), m_layout.OddCorePort(b)) != NO_PORT)
                        {
                            across = FirstUsable(v, ec, EvenCorePort(d));
                        }
                    }
                    if (across != NO_PORT)
                    {
                        detours[DetourKey(oa, j)] = up;
                        detours[DetourKey(ec, j)] = across;
                        break;
                    }
                }
            }
        }
    }
    uint32_t installed = 0;
    uint32_t removed = 0;
    for (const auto& [key, port] : detours)
    {
        auto it = m_detours.find(key);
        installed += (it == m_detours.end() || it->second != port) ? 1 : 0;
    }
    for (const auto& [key, port] : m_detours)
    {
        removed += detours.count(key) ? 0 : 1;
    }
    // Per-pair entries; the hosts whose own entries changed are told (cached routes).
    std::vector<uint32_t> hostsChanged;
    const uint64_t n = m_layout.GetN();
    for (const auto& [key, port] : pairs)
    {
        auto it = m_pairDetours.find(key);
        if (it == m_pairDetours.end() || it->second != port)
        {
            ++installed;
            if ((key >> 31) < n)
            {
                hostsChanged.push_back(static_cast<uint32_t>(key >> 31));
            }
        }
    }
    for (const auto& [key, port] : m_pairDetours)
    {
        if (!pairs.count(key))
        {
            ++removed;
            if ((key >> 31) < n)
            {
                hostsChanged.push_back(static_cast<uint32_t>(key >> 31));
            }
        }
    }
    m_detours = std::move(detours);
    m_pairDetours = std::move(pairs);
    const size_t inForce = m_detours.size() + m_pairDetours.size();
    if (installed + removed > 0)
    {
        NS_LOG_INFO("controller: " << installed << " detour entries installed, " << removed
                                   << " removed, " << inForce << " in force");
        if (m_shape == REVERSE_PLANE)
        {
            NS_LOG_INFO("controller: " << m_pairDetours.size()
                                       << " of them per pair (reverse-plane), " << fallbacks
                                       << " affected pairs on the paper detour");
        }
        m_detourTrace(installed, removed, static_cast<uint32_t>(inForce));
    }
    std::sort(hostsChanged.begin(), hostsChanged.end());
    hostsChanged.erase(std::unique(hostsChanged.begin(), hostsChanged.end()), hostsChanged.end());
    for (uint32_t h : hostsChanged)
    {
        NotifyNodeListeners(h);
    }
}

std::vector<double>
ZCubeCoreLoadMatrix(const ZCubeLayout& layout,
                    const std::vector<FlowSpec>& flows,
                    const std::vector<double>& weight)
{
    if (weight.size() != flows.size())
    {
        throw std::invalid_argument("ZCubeCoreLoadMatrix: one weight per flow expected");
    }
    const uint32_t m = layout.GetM();
    std::vector<double> L(static_cast<size_t>(m) * m, 0.0);
    for (size_t f = 0; f < flows.size(); ++f)
    {
        L[layout.OddGroup(flows[f].src) * m + layout.EvenGroup(flows[f].dst)] += weight[f];
    }
    return L;
}

bool
ZCubeWalkMatchesEq3(const ZCubeLayout& layout,
                    const FabricGraph& graph,
                    const std::vector<FlowSpec>& flows,
                    const std::vector<double>& weight,
                    const std::vector<double>& walked)
{
    const auto L = ZCubeCoreLoadMatrix(layout, flows, weight);
    const uint32_t m = layout.GetM();
    for (uint32_t a = 0; a < m; ++a)
    {
        for (uint32_t b = 0; b < m; ++b)
        {
            double sum = 0;
            for (uint32_t r = 0; r < layout.GetParallel(); ++r)
            {
                sum += walked[graph.GetEgressDirLink(layout.OddNode(a), layout.OddCorePort(b, r))];
            }
            // Exact for one link per pair (the same additions); a tolerance for the split sum.
            const double tol = layout.GetParallel() == 1 ? 0 : 1e-9 * std::max(1.0, L[a * m + b]);
            if (std::fabs(sum - L[a * m + b]) > tol)
            {
                return false;
            }
        }
    }
    return true;
}

} // namespace ns3
