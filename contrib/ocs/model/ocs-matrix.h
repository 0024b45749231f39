// SPDX-License-Identifier: GPL-2.0-only
#ifndef OCS_MATRIX_H
#define OCS_MATRIX_H

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ocs
 * A dense square integer matrix (row-major): logical topologies (links per EG pair), their
 * directional halves A of L = A + A^T, and realized topologies.
 */
class OcsMatrix
{
  public:
    OcsMatrix() = default;
    /// An n x n matrix of zeros.
    explicit OcsMatrix(uint32_t n)
        : m_n(n),
          m_a(size_t(n) * n, 0)
    {
    }

    uint32_t GetN() const { return m_n; }
    int64_t& operator()(uint32_t i, uint32_t j) { return m_a[size_t(i) * m_n + j]; }
    int64_t operator()(uint32_t i, uint32_t j) const { return m_a[size_t(i) * m_n + j]; }
    /// Sum of row i.
    int64_t RowSum(uint32_t i) const;
    /// Sum of column j.
    int64_t ColSum(uint32_t j) const;
    /// Sum of all entries.
    int64_t Total() const;
    /// The transpose.
    OcsMatrix Transposed() const;
    bool operator==(const OcsMatrix& o) const { return m_n == o.m_n && m_a == o.m_a; }
    bool operator!=(const OcsMatrix& o) const { return !(*this == o); }

    /**
     * Read the text format of ocs-configure: first the size n, then n lines of n integers.
     * \throws std::invalid_argument (naming \p what) on a missing, non-integer or extra value
     */
    static OcsMatrix Read(std::istream& in, const std::string& what = "matrix");
    /// Write in the same format.
    void Write(std::ostream& out) const;

  private:
    uint32_t m_n{0};
    std::vector<int64_t> m_a;
};

/**
 * \ingroup ocs
 * Check that \p l is a valid logical topology for \p egs EGs with \p ports OCS-facing ports
 * each: size egs x egs, non-negative, symmetric, zero diagonal, every row sum at most ports.
 * \throws std::invalid_argument naming the first violation (entry, row and bound)
 */
void ValidateLogicalTopology(const OcsMatrix& l, uint32_t egs, uint32_t ports);

/**
 * \ingroup ocs
 * Logical Topology Compatibility Rate, Eq. (1) of the OCS paper:
 * LTCR = (1 / |{(i,j) : L[i,j] > 0}|) * sum over (i,j) with L[i,j] > 0 of
 * min(R[i,j] / L[i,j], 1), where R is the realized topology. Ordered pairs (i, j), as in the
 * paper. A target with no non-zero entry has LTCR 1 (nothing is asked, nothing is lost).
 * \throws std::invalid_argument if the sizes differ
 */
double ComputeLtcr(const OcsMatrix& target, const OcsMatrix& realized);

} // namespace ns3

#endif // OCS_MATRIX_H
