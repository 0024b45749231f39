// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-table.h"

#include "ns3/log.h"

#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricTable");

FabricTextTable::FabricTextTable(std::vector<Column> columns, std::ostream& os)
    : m_columns(std::move(columns)),
      m_os(os)
{
}

void
FabricTextTable::PrintHeader(const std::string& tail) const
{
    std::vector<std::string> names;
    for (const auto& c : m_columns)
    {
        names.push_back(c.name);
    }
    PrintRow(names, tail);
}

void
FabricTextTable::PrintRow(const std::vector<std::string>& cells, const std::string& tail) const
{
    if (cells.size() != m_columns.size())
    {
        throw std::invalid_argument("FabricTextTable: " + std::to_string(cells.size())
                                    + " cells for " + std::to_string(m_columns.size())
                                    + " columns");
    }
    for (size_t i = 0; i < cells.size(); ++i)
    {
        m_os << (m_columns[i].left ? std::left : std::right) << std::setw(m_columns[i].width)
             << cells[i];
    }
    m_os << tail << "\n";
}

std::string
FabricTextTable::Fixed(double x, int decimals)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(decimals) << x;
    return s.str();
}

} // namespace ns3
