// SPDX-License-Identifier: GPL-2.0-only
#ifndef MAX_MIN_FAIR_H
#define MAX_MIN_FAIR_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup flow
 * One flow of a max-min fair allocation: the links it loads, each with a weight (the share of
 * the flow's rate that crosses the link: 1 on a single path, less on the branches of a fluid
 * multipath split), and an optional rate cap.
 */
struct MaxMinFlow
{
    std::vector<std::pair<uint32_t, double>> links;      //!< (link index, weight in (0, 1])
    double cap{std::numeric_limits<double>::infinity()}; //!< rate cap (same unit as capacities)
};

/**
 * \ingroup flow
 * The flows of one instance in flat arrays, without a vector per flow (the flow simulator
 * builds many small instances): flow f loads links[start[f]] .. links[start[f + 1] - 1], as
 * MaxMinFlow::links, and is capped at cap[f].
 */
struct MaxMinFlowSet
{
    std::vector<std::pair<uint32_t, double>> links; //!< (link index, weight in (0, 1])
    std::vector<uint32_t> start{0};                 //!< flow f's links begin at start[f]
    std::vector<double> cap;                        //!< rate cap of each flow

    /// No flows.
    void Clear()
    {
        links.clear();
        start.assign(1, 0);
        cap.clear();
    }

    /// Room for \p flows more flows loading \p links links in all (storage only; grows at
    /// least geometrically, so instances of slowly growing sizes do not reallocate each time).
    void Reserve(size_t flows, size_t links)
    {
        Grow(this->links, this->links.size() + links);
        Grow(start, start.size() + flows);
        Grow(cap, cap.size() + flows);
    }

    /// Append a link to the flow being added.
    void AddLink(uint32_t link, double weight) { links.emplace_back(link, weight); }

    /// Close the flow being added (its links are those added since the last EndFlow).
    void EndFlow(double flowCap)
    {
        start.push_back(static_cast<uint32_t>(links.size()));
        cap.push_back(flowCap);
    }

    /// Number of flows.
    size_t Size() const { return cap.size(); }

  private:
    template<class V>
    static void Grow(V& v, size_t n)
    {
        if (n > v.capacity())
        {
            v.reserve(std::max(n, 2 * v.capacity()));
        }
    }
};

/**
 * \ingroup flow
 * Exact weighted max-min fair rates by water-filling (progressive filling done in one pass):
 * every unfrozen flow's rate rises together; the link whose spare capacity per unit of
 * unfrozen weight is smallest saturates first and freezes its flows at that level; a flow
 * whose cap is reached first freezes at its cap. A heap of links keyed by their saturation
 * level makes it O((F h + L) log L) for F flows of h links over L links.
 *
 * Plain C++, no simulator inside.
 *
 * \param capacity capacity of each link (>= 0; 0 stalls every flow crossing it)
 * \param flows the flows
 * \return the rate of each flow
 * \throws std::invalid_argument on a link index out of range, a weight outside (0, 1], a
 *         negative capacity or a negative cap
 */
std::vector<double> MaxMinFairRates(const std::vector<double>& capacity,
                                    const std::vector<MaxMinFlow>& flows);

/**
 * \ingroup flow
 * MaxMinFairRates with its working memory kept between calls (the flow simulator solves
 * many instances of similar size).
 */
class MaxMinFairSolver
{
  public:
    /// As MaxMinFairRates; the result is valid until the next call.
    const std::vector<double>& Solve(const std::vector<double>& capacity,
                                     const std::vector<MaxMinFlow>& flows);

    /// The same over the first \p nFlows flows of \p flows (the caller keeps a pool of
    /// MaxMinFlow objects, their link vectors allocated once).
    const std::vector<double>& Solve(const std::vector<double>& capacity,
                                     const std::vector<MaxMinFlow>& flows,
                                     size_t nFlows);

    /// The same over flows in flat arrays (same rates, bit for bit, as the MaxMinFlow form).
    const std::vector<double>& Solve(const std::vector<double>& capacity,
                                     const MaxMinFlowSet& flows);

  private:
    /// The algorithm over nf flows: linksOf(f) is a range of (link, weight), capOf(f) the cap.
    template<typename LinksOf, typename CapOf>
    const std::vector<double>& SolveImpl(const std::vector<double>& capacity,
                                         size_t nf,
                                         LinksOf linksOf,
                                         CapOf capOf);

    /// What the algorithm keeps per link.
    struct LinkState
    {
        double spare;   //!< capacity left
        double weight;  //!< weight of the unfrozen flows
        double level;   //!< spare per unit of unfrozen weight (current while count > 0)
        uint32_t count; //!< unfrozen flows
    };

    std::vector<LinkState> m_links;
    std::vector<uint32_t> m_start;
    std::vector<uint32_t> m_members;
    std::vector<uint32_t> m_fill;
    std::vector<double> m_rate;
    std::vector<uint8_t> m_frozen;
    std::vector<uint32_t> m_byCap;
    std::vector<uint32_t> m_active;
    /// A link in the heap of levels.
    struct HeapEntry
    {
        double level;
        uint32_t link;
    };

    std::vector<HeapEntry> m_heap;
};

} // namespace ns3

#endif // MAX_MIN_FAIR_H
