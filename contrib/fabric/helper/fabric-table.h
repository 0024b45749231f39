// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TABLE_H
#define FABRIC_TABLE_H

#include <iostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * A fixed-width text table as the scenarios print them: each column has a width and is left-
 * or right-aligned; a row is its cells (already formatted) and an optional free tail.
 */
class FabricTextTable
{
  public:
    /// One column.
    struct Column
    {
        std::string name;
        int width;
        bool left{false}; //!< left-aligned (default right)
    };

    /// \param os where the rows go
    explicit FabricTextTable(std::vector<Column> columns, std::ostream& os = std::cout);

    /// The column names, then \p tail, then a newline.
    void PrintHeader(const std::string& tail = "") const;

    /**
     * One row: \p cells (one per column), then \p tail, then a newline.
     * \throws std::invalid_argument if the number of cells differs from the columns'
     */
    void PrintRow(const std::vector<std::string>& cells, const std::string& tail = "") const;

    /// \p x in fixed notation with \p decimals decimals.
    static std::string Fixed(double x, int decimals);

  private:
    std::vector<Column> m_columns;
    std::ostream& m_os;
};

} // namespace ns3

#endif // FABRIC_TABLE_H
