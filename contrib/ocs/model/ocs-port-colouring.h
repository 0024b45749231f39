// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_PORT_COLOURING_H
#define OCS_PORT_COLOURING_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ocs
 * The combinatorial core of OCS configuration: give each demanded link a colour (an OCS, or an
 * OCS pair) so that no vertex uses a colour twice.
 *
 * - shared = true (Uniform): vertices are EGs, pairs are undirected {u, v}; a link of colour k
 *   uses port k of both u and v (one colour slot per vertex). Realizing a logical topology
 *   exactly is a proper edge colouring of a multigraph with P colours (NP-complete, §3.2).
 * - shared = false (2-Uniform, Cross Wiring after L = A + A^T): pairs are directed (u, v) of A;
 *   a link of colour k uses the "row" slot k of u and the "column" slot k of v. A bipartite
 *   multigraph with maximum degree <= colours always has such a colouring (König).
 */
struct OcsColouringProblem
{
    /// One demanded vertex pair with its number of links.
    struct Pair
    {
        uint32_t u;
        uint32_t v;
        uint32_t count;
    };

    uint32_t vertices{0};
    uint32_t colours{0};
    bool shared{true};
    std::vector<Pair> pairs;

    /// \throws std::invalid_argument if a pair is out of range, a self pair, or a count is 0
    void Validate() const;
};

/// \ingroup ocs The answer: for every pair, the colours of its realized links.
struct OcsColouring
{
    std::vector<std::vector<uint32_t>> colours; //!< per pair, one colour per realized link
    bool timedOut{false};                       //!< DFS / ILP stopped at the time limit
    bool provedOptimal{false};                  //!< the search finished (DFS) or ILP optimal
    std::string note;                           //!< solver remark (e.g. ILP status)
};

/**
 * \ingroup ocs
 * Check a colouring against its problem: at most count links per pair, colours in range, no
 * colour twice at a vertex slot. \return "" if valid, else the first violation
 */
std::string CheckColouring(const OcsColouringProblem& p, const OcsColouring& c);

/// \ingroup ocs Realized links over demanded links, weighted as LTCR (each pair weight 1).
double ColouringScore(const OcsColouringProblem& p, const OcsColouring& c);

/**
 * \ingroup ocs
 * Exact bipartite edge colouring (shared = false) with alternating-path (Kempe chain) swaps:
 * each link takes a colour free at both ends, or, if the free colours a (at u) and b (at v)
 * differ, the a/b path from v is swapped first. Realizes every link whenever every vertex has
 * at most \c colours links per side. O(links * (colours + vertices)).
 * \throws std::invalid_argument if shared, or a vertex side has more links than colours
 */
OcsColouring ColourBipartiteExact(const OcsColouringProblem& p);

/**
 * \ingroup ocs
 * Greedy port pairing in the spirit of MixNet: round robin over the pairs (largest demand
 * first), one link per pair per round, each on the lowest colour free at both ends; a link
 * with no common free colour is given up.
 */
OcsColouring ColourGreedy(const OcsColouringProblem& p);

/**
 * \ingroup ocs
 * Birkhoff-von Neumann: pad the demand matrix to a colours-regular one (idle ports as
 * dummies), then peel off one permutation per colour as a perfect matching of its support
 * (Boost.Graph Edmonds augmenting paths from a greedy start). For shared (Uniform) only the
 * 2-cycles of each permutation become links (a one-way circuit is no link), and the greedy
 * start prefers pairs matched both ways.
 */
OcsColouring ColourBvn(const OcsColouringProblem& p);

/**
 * \ingroup ocs
 * Depth-first branch and bound: links in greedy's order (round robin over the pairs, largest
 * demand first), each tries every common free colour, then "give up the link"; the greedy
 * colouring is the first incumbent, and a branch is cut when its best possible score cannot
 * beat the best found. Symmetry pruning: a pair's links take increasing colours (and once one
 * is given up so are the later ones); among colours no link uses yet only the first is tried.
 * Stops at \p timeLimitMs and returns the best found; a search that finishes is exhaustive.
 */
OcsColouring ColourDfs(const OcsColouringProblem& p, double timeLimitMs);

/**
 * \ingroup ocs
 * Integer linear program solved with GLPK (branch and cut, presolve) under \p timeLimitMs:
 * binary x[pair][colour]; one link per vertex slot and colour; at most count links per pair;
 * maximize sum x / count (the LTCR). The greedy colouring is offered as the first incumbent;
 * if GLPK finds no integer solution in time the greedy one is returned.
 */
OcsColouring ColourIlp(const OcsColouringProblem& p, double timeLimitMs);

} // namespace ns3

#endif // OCS_PORT_COLOURING_H
