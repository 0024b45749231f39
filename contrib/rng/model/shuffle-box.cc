// SPDX-License-Identifier: GPL-2.0-only
#include "shuffle-box.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

std::vector<uint32_t>
ShuffleBoxFabric::EvenRooms(uint32_t routers, uint32_t rooms)
{
    if (rooms == 0)
    {
        throw std::invalid_argument("ShuffleBoxFabric: rooms must be >= 1");
    }
    std::vector<uint32_t> perRoom(rooms, routers / rooms);
    for (uint32_t i = 0; i < routers % rooms; ++i)
    {
        perRoom[i]++;
    }
    return perRoom;
}

ShuffleBoxFabric::ShuffleBoxFabric(const std::vector<uint32_t>& routersPerRoom,
                                   uint32_t d,
                                   uint32_t boxesPerPanel,
                                   uint64_t seed,
                                   uint32_t maxConnectors)
    : m_d(d),
      m_c(boxesPerPanel),
      m_maxConnectors(maxConnectors),
      m_rng(seed ^ 0x5348554646ULL)
{
    if (routersPerRoom.empty())
    {
        throw std::invalid_argument("ShuffleBoxFabric: rooms must be >= 1");
    }
    if (d == 0 || d % FR != 0)
    {
        throw std::invalid_argument("ShuffleBoxFabric: d=" + std::to_string(d)
                                    + " must be a positive multiple of 4 (breakout lanes)");
    }
    if (maxConnectors < 3)
    {
        throw std::invalid_argument("ShuffleBoxFabric: maxConnectors must be >= 3");
    }
    const uint32_t largest = *std::max_element(routersPerRoom.begin(), routersPerRoom.end());
    const uint32_t minBoxes = std::max(1u, (largest * (d / FR) + DR - 1) / DR);
    if (m_c == 0)
    {
        m_c = minBoxes;
    }
    if (m_c < minBoxes)
    {
        throw std::invalid_argument("ShuffleBoxFabric: boxesPerPanel=" + std::to_string(m_c)
                                    + " cannot hold " + std::to_string(largest)
                                    + " routers of d=" + std::to_string(d)
                                    + "; must be >= " + std::to_string(minBoxes));
    }
    const uint32_t rooms = static_cast<uint32_t>(routersPerRoom.size());
    m_rooms.resize(rooms);
    for (auto& p : m_rooms)
    {
        p.rportRouter.assign(m_c * DR, -1);
        p.rportPhys.assign(m_c * DR, 0);
        p.cports.assign(m_c * DC, CPort{});
    }
    // Random balanced inter-panel trunks.
    if (rooms > 1)
    {
        const uint32_t perPair = m_c * DC / rooms;
        std::vector<std::vector<uint32_t>> order(rooms);
        for (uint32_t a = 0; a < rooms; ++a)
        {
            order[a].resize(m_c * DC);
            for (uint32_t i = 0; i < order[a].size(); ++i)
            {
                order[a][i] = i;
            }
            for (size_t i = order[a].size(); i > 1; --i)
            {
                std::swap(order[a][i - 1], order[a][m_rng.Below(i)]);
            }
        }
        std::vector<uint32_t> next(rooms, 0);
        for (uint32_t a = 0; a < rooms; ++a)
        {
            for (uint32_t b = a + 1; b < rooms; ++b)
            {
                for (uint32_t k = 0; k < perPair; ++k)
                {
                    const uint32_t ia = order[a][next[a]++];
                    const uint32_t ib = order[b][next[b]++];
                    m_rooms[a].cports[ia] = CPort{int32_t(b), ib};
                    m_rooms[b].cports[ib] = CPort{int32_t(a), ia};
                }
            }
        }
    }
    uint32_t first = 0;
    for (uint32_t r = 0; r < rooms; ++r)
    {
        PlugRouters(r, first, routersPerRoom[r], nullptr);
        first += routersPerRoom[r];
    }
}

void
ShuffleBoxFabric::PlugRouters(uint32_t panel,
                              uint32_t firstRouter,
                              uint32_t count,
                              std::vector<ShuffleChange>* changes)
{
    Panel& p = m_rooms[panel];
    std::vector<uint32_t> freePorts;
    for (uint32_t i = 0; i < p.rportRouter.size(); ++i)
    {
        if (p.rportRouter[i] < 0)
        {
            freePorts.push_back(i);
        }
    }
    const uint32_t phys = m_d / FR;
    if (static_cast<uint64_t>(count) * phys > freePorts.size())
    {
        throw std::invalid_argument("ShuffleBoxFabric: " + std::to_string(count) + " routers need "
                                    + std::to_string(count * phys) + " r-ports, the panel has "
                                    + std::to_string(freePorts.size()) + " free");
    }
    for (size_t i = freePorts.size(); i > 1; --i)
    {
        std::swap(freePorts[i - 1], freePorts[m_rng.Below(i)]);
    }
    size_t next = 0;
    for (uint32_t r = firstRouter; r < firstRouter + count; ++r)
    {
        m_routerRoom.push_back(panel);
        m_routerRPorts.emplace_back();
        for (uint32_t q = 0; q < phys; ++q)
        {
            const uint32_t rp = freePorts[next++];
            p.rportRouter[rp] = int32_t(r);
            p.rportPhys[rp] = q;
            m_routerRPorts.back().push_back(rp);
            if (changes)
            {
                const std::string at = "P" + std::to_string(panel) + ".B" + std::to_string(rp / DR)
                                     + ".r" + std::to_string(rp % DR);
                changes->push_back({ShuffleChange::SHUFFLEBACK_REMOVED, at});
                changes->push_back(
                    {ShuffleChange::ROUTER_CONNECTED,
                     "R" + std::to_string(r) + ".port" + std::to_string(q) + " -> " + at});
            }
        }
    }
}

std::string
ShuffleBoxFabric::CName(uint32_t panel, uint32_t idx) const
{
    return "P" + std::to_string(panel) + ".B" + std::to_string(idx / DC) + ".c"
         + std::to_string(idx % DC);
}

void
ShuffleBoxFabric::Trace(std::vector<ShuffleLaneLink>* links, ShuffleCounts* c) const
{
    const uint32_t phys = m_d / FR;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> seen;
    for (uint32_t r = 0; r < m_routerRPorts.size(); ++r)
    {
        for (uint32_t q = 0; q < phys; ++q)
        {
            for (uint32_t k = 0; k < FR; ++k)
            {
                const uint32_t laneA = r * m_d + q * FR + k;
                // Enter the box at r-port rp, FP k: it leaves by c-port k, FP rp%32.
                uint32_t panel = m_routerRoom[r];
                uint32_t rp = m_routerRPorts[r][q];
                uint32_t box = rp / DR;
                uint32_t cport = k;
                uint32_t fp = rp % DR;
                uint32_t connectors = 1;
                int64_t laneB = -1;
                for (uint32_t step = 0; step < 64; ++step)
                {
                    const CPort& cp = m_rooms[panel].cports[box * DC + cport];
                    uint32_t rIdx;
                    uint32_t rFp;
                    if (cp.peerPanel < 0)
                    {
                        connectors += 1; // ShuffleBack on the c-port
                        rIdx = box * DR + (fp ^ 1);
                        rFp = cport;
                    }
                    else
                    {
                        connectors += 2; // trunk, one connector at each end
                        panel = cp.peerPanel;
                        box = cp.peerIndex / DC;
                        rIdx = box * DR + fp;
                        rFp = cp.peerIndex % DC;
                    }
                    const int32_t router = m_rooms[panel].rportRouter[rIdx];
                    if (router >= 0)
                    {
                        connectors += 1;
                        laneB = int64_t(router) * m_d + m_rooms[panel].rportPhys[rIdx] * FR + rFp;
                        break;
                    }
                    connectors += 1; // ShuffleBack on the r-port: FP rFp <-> rFp^1
                    cport = rFp ^ 1;
                    fp = rIdx % DR;
                }
                if (laneB < 0 || uint64_t(laneB) < laneA)
                {
                    continue; // counted from the other end
                }
                const uint32_t b = uint32_t(laneB) / m_d;
                if (c)
                {
                    if (c->connectorHistogram.size() <= connectors)
                    {
                        c->connectorHistogram.resize(connectors + 1, 0);
                    }
                    c->connectorHistogram[connectors]++;
                }
                if (connectors > m_maxConnectors)
                {
                    if (c)
                    {
                        c->overConnectorLimit++;
                    }
                    continue;
                }
                if (b == r)
                {
                    if (c)
                    {
                        c->selfLoops++;
                    }
                    continue;
                }
                if (c && seen[{std::min(r, b), std::max(r, b)}]++ > 0)
                {
                    c->multiEdgeLinks++;
                }
                if (links)
                {
                    // laneA < laneB as global lane numbers, so (r, laneA) is the smaller end.
                    links->push_back({r,
                                      laneA - r * m_d,
                                      b,
                                      static_cast<uint32_t>(uint32_t(laneB) - b * m_d),
                                      connectors});
                }
            }
        }
    }
}

RouterGraph
ShuffleBoxFabric::GetRouterGraph() const
{
    std::vector<ShuffleLaneLink> links;
    Trace(&links, nullptr);
    RouterGraph g(GetNRouters());
    for (const auto& l : links)
    {
        g.AddEdge(l.routerA, l.routerB);
    }
    return g;
}

std::vector<ShuffleLaneLink>
ShuffleBoxFabric::GetLaneLinks() const
{
    std::vector<ShuffleLaneLink> links;
    Trace(&links, nullptr);
    std::sort(links.begin(), links.end());
    return links;
}

ShuffleCounts
ShuffleBoxFabric::GetCounts() const
{
    ShuffleCounts c;
    std::vector<ShuffleLaneLink> links;
    Trace(&links, &c);
    c.rooms = GetRooms();
    c.routers = GetNRouters();
    c.boxes = c.rooms * m_c;
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t a = 0; a < m_rooms.size(); ++a)
    {
        for (uint32_t i = 0; i < m_rooms[a].cports.size(); ++i)
        {
            const CPort& cp = m_rooms[a].cports[i];
            if (cp.peerPanel < 0)
            {
                c.cPortShuffleBacks++;
            }
            else if (uint32_t(cp.peerPanel) > a)
            {
                c.trunks++;
                pairs.insert({a, uint32_t(cp.peerPanel)});
            }
        }
        for (int32_t r : m_rooms[a].rportRouter)
        {
            c.rPortShuffleBacks += (r < 0) ? 1 : 0;
        }
    }
    c.connectedPanelPairs = static_cast<uint32_t>(pairs.size());
    c.endpointPairs = c.routers + c.connectedPanelPairs;
    c.endpointPairsFormula = c.routers + c.rooms * (c.rooms - 1) / 2;
    c.lanes = c.routers * m_d;
    c.links = static_cast<uint32_t>(links.size());
    std::vector<uint32_t> deg(c.routers, 0);
    for (const auto& l : links)
    {
        deg[l.routerA]++;
        deg[l.routerB]++;
    }
    c.minDegree = deg.empty() ? 0 : *std::min_element(deg.begin(), deg.end());
    c.maxDegree = deg.empty() ? 0 : *std::max_element(deg.begin(), deg.end());
    return c;
}

ShuffleExpansion
ShuffleBoxFabric::AddRoom(uint32_t routers)
{
    // Check before touching anything, so a rejected expansion leaves the fabric as it was.
    if (routers == 0)
    {
        throw std::invalid_argument("ShuffleBoxFabric::AddRoom: routers=0 must be >= 1");
    }
    if (static_cast<uint64_t>(routers) * (m_d / FR) > static_cast<uint64_t>(m_c) * DR)
    {
        throw std::invalid_argument(
            "ShuffleBoxFabric::AddRoom: routers=" + std::to_string(routers) + " need "
            + std::to_string(static_cast<uint64_t>(routers) * (m_d / FR)) + " r-ports; a panel of "
            + std::to_string(m_c) + " boxes has " + std::to_string(m_c * DR)
            + ", so routers must be in [1, " + std::to_string(m_c * DR / (m_d / FR)) + "]");
    }
    const std::vector<ShuffleLaneLink> before = GetLaneLinks();
    std::vector<ShuffleChange> changes;
    const uint32_t rooms = GetRooms() + 1;
    const uint32_t perPair = m_c * DC / rooms;
    const uint32_t np = rooms - 1;
    Panel fresh;
    fresh.rportRouter.assign(m_c * DR, -1);
    fresh.rportPhys.assign(m_c * DR, 0);
    fresh.cports.assign(m_c * DC, CPort{});
    m_rooms.push_back(fresh);
    // 1. Rebalance: unplug random trunks so every old pair keeps perPair.
    std::vector<std::vector<uint32_t>> opened(np);
    for (uint32_t a = 0; a < np; ++a)
    {
        for (uint32_t b = a + 1; b < np; ++b)
        {
            std::vector<uint32_t> trunks;
            for (uint32_t i = 0; i < m_rooms[a].cports.size(); ++i)
            {
                if (m_rooms[a].cports[i].peerPanel == int32_t(b))
                {
                    trunks.push_back(i);
                }
            }
            while (trunks.size() > perPair)
            {
                const size_t pick = m_rng.Below(trunks.size());
                const uint32_t ia = trunks[pick];
                const uint32_t ib = m_rooms[a].cports[ia].peerIndex;
                changes.push_back(
                    {ShuffleChange::TRUNK_REMOVED, CName(a, ia) + " <-> " + CName(b, ib)});
                m_rooms[a].cports[ia] = CPort{-2, 0}; // opened, not yet re-used
                m_rooms[b].cports[ib] = CPort{-2, 0};
                opened[a].push_back(ia);
                opened[b].push_back(ib);
                trunks.erase(trunks.begin() + pick);
            }
        }
    }
    // 2. Old panels plug opened c-ports first, then ShuffleBacked ones, into the new panel.
    std::vector<uint32_t> newOrder(m_c * DC);
    for (uint32_t i = 0; i < newOrder.size(); ++i)
    {
        newOrder[i] = i;
    }
    for (size_t i = newOrder.size(); i > 1; --i)
    {
        std::swap(newOrder[i - 1], newOrder[m_rng.Below(i)]);
    }
    size_t nextNew = 0;
    for (uint32_t a = 0; a < np; ++a)
    {
        std::vector<uint32_t> pool = opened[a];
        std::vector<uint32_t> backed;
        for (uint32_t i = 0; i < m_rooms[a].cports.size(); ++i)
        {
            if (m_rooms[a].cports[i].peerPanel == -1)
            {
                backed.push_back(i);
            }
        }
        for (size_t i = backed.size(); i > 1; --i)
        {
            std::swap(backed[i - 1], backed[m_rng.Below(i)]);
        }
        pool.insert(pool.end(), backed.begin(), backed.end());
        for (uint32_t k = 0; k < perPair && k < pool.size(); ++k)
        {
            const uint32_t ia = pool[k];
            const uint32_t ib = newOrder[nextNew++];
            if (m_rooms[a].cports[ia].peerPanel == -1)
            {
                changes.push_back({ShuffleChange::SHUFFLEBACK_REMOVED, CName(a, ia)});
            }
            m_rooms[a].cports[ia] = CPort{int32_t(np), ib};
            m_rooms[np].cports[ib] = CPort{int32_t(a), ia};
            changes.push_back({ShuffleChange::TRUNK_ADDED, CName(a, ia) + " <-> " + CName(np, ib)});
        }
        for (uint32_t ia : opened[a])
        {
            if (m_rooms[a].cports[ia].peerPanel == -2)
            {
                m_rooms[a].cports[ia] = CPort{};
                changes.push_back({ShuffleChange::SHUFFLEBACK_ADDED, CName(a, ia)});
            }
        }
    }
    // 3. New routers.
    PlugRouters(np, GetNRouters(), routers, &changes);

    // 4. Logical consequence: lane pairs that no longer meet, and new ones.
    ShuffleExpansion x;
    x.physical = std::move(changes);
    const std::vector<ShuffleLaneLink> after = GetLaneLinks();
    std::set_difference(before.begin(),
                        before.end(),
                        after.begin(),
                        after.end(),
                        std::back_inserter(x.linksRemoved));
    std::set_difference(
        after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(x.linksAdded));
    x.linksKept = static_cast<uint32_t>(after.size() - x.linksAdded.size());
    return x;
}

} // namespace ns3
