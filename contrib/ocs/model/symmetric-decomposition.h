// SPDX-License-Identifier: GPL-2.0-only
#ifndef SYMMETRIC_DECOMPOSITION_H
#define SYMMETRIC_DECOMPOSITION_H

#include "ns3/ocs-matrix.h"

#include <string>
#include <vector>

namespace ns3
{

/// \ingroup ocs A non-zero entry of a matrix.
struct OcsMatrixEntry
{
    uint32_t i;
    uint32_t j;
    int64_t value;
};

/**
 * \ingroup ocs
 * Balanced orientation of a multigraph by Euler walks: every odd-degree vertex is joined to
 * one extra vertex, closed walks are traced, and each edge is oriented along its walk, so
 * every vertex ends with |out-degree - in-degree| <= 1 over the given edges.
 * \param vertices number of vertices
 * \param eu first endpoints of the edges
 * \param ev second endpoints (same length as eu)
 * \return per edge 1 if oriented eu -> ev, 0 if ev -> eu
 */
std::vector<uint8_t> OrientBalanced(uint32_t vertices,
                                    const std::vector<uint32_t>& eu,
                                    const std::vector<uint32_t>& ev);

/**
 * \ingroup ocs
 * DecomposeSymmetricEuler returning the non-zero entries of A (what the configurator uses: no
 * dense n x n result to allocate and scan): for each non-zero L_ij, i <= j, in row-major order,
 * the entry (i, j) followed by (j, i); each (i, j) appears at most once.
 */
std::vector<OcsMatrixEntry> DecomposeSymmetricEulerSparse(const OcsMatrix& l);

/**
 * \ingroup ocs
 * Symmetric integer matrix decomposition (OCS paper Theorem 4.2), Euler-tour algorithm.
 *
 * Returns a non-negative integer A with L = A + A^T whose every row sum and column sum lies in
 * [floor(r/2), ceil(r/2)] for the sum r of the same row (column) of L. Method: split every
 * pair evenly, A_ij = A_ji = floor(L_ij / 2); the pairs with an odd L_ij form a simple graph;
 * join every odd-degree vertex of that graph to one extra vertex, so every degree is even,
 * and orient each edge along closed walks (Euler), so at every vertex in-degree equals
 * out-degree; dropping the extra edges leaves |out - in| <= 1. Orientation i -> j adds the odd
 * unit to A_ij. O(n^2) for the scan, O(n + edges) for the walks.
 *
 * \param l symmetric, non-negative, even diagonal (A_ii = L_ii / 2)
 * \throws std::invalid_argument if \p l is asymmetric, negative or has an odd diagonal entry
 */
OcsMatrix DecomposeSymmetricEuler(const OcsMatrix& l);

/**
 * \ingroup ocs
 * The same decomposition by max-flow (Boost.Graph push-relabel), the cross-check of the
 * Euler-tour one. Network: source -> pair node {i, j} (i < j, L_ij odd) with capacity 1 ->
 * EG i or EG j (the unit goes to A_ij or A_ji); EG i -> sink with capacity
 * floor(r'_i / 2) and, when r'_i is odd, EG i -> spare node with capacity 1; spare -> sink
 * with capacity (number of odd-r' EGs) / 2, where r' counts the odd pairs. A flow of value
 * (number of odd pairs) saturates every EG -> sink edge, which gives the lower bounds; the
 * theorem guarantees it exists. Even parts are split as in the Euler version.
 * \throws std::invalid_argument as DecomposeSymmetricEuler
 */
OcsMatrix DecomposeSymmetricMaxFlow(const OcsMatrix& l);

/**
 * \ingroup ocs
 * Check a decomposition: A >= 0, L = A + A^T, row and column sums within the Theorem 4.2
 * bounds. \return an empty string if it holds, else a description of the first violation
 */
std::string CheckSymmetricDecomposition(const OcsMatrix& l, const OcsMatrix& a);

} // namespace ns3

#endif // SYMMETRIC_DECOMPOSITION_H
