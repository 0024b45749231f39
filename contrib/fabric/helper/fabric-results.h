// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_RESULTS_H
#define FABRIC_RESULTS_H

#include "ns3/gnuplot.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Writes a scenario's results folder: summary.json, CSV tables and gnuplot PNGs.
 * Every scenario uses the same writer so results read the same way.
 */
class FabricResults
{
  public:
    /// \param dir output folder, created if missing
    /// \throws std::runtime_error if it cannot be created
    explicit FabricResults(const std::string& dir);

    const std::string& GetDir() const { return m_dir; }
    std::string Path(const std::string& file) const { return m_dir + "/" + file; }

    /// Write \p j (pretty-printed) to dir/file.
    void WriteJson(const std::string& file, const nlohmann::json& j) const;

    /**
     * Render \p plot to dir/file (PNG) with gnuplot; the .plt script is kept beside it.
     * \return false (with a note on stderr) when gnuplot is not installed
     */
    bool WritePng(const std::string& file, Gnuplot& plot) const;

  private:
    std::string m_dir;
};

/**
 * \ingroup fabric
 * A CSV file with a header row; values are written as given.
 */
class CsvWriter
{
  public:
    CsvWriter(const std::string& path, const std::vector<std::string>& columns);

    /// Append one row; it must have one value per column.
    CsvWriter& Row(const std::vector<std::string>& values);

  private:
    std::ofstream m_out;
    size_t m_columns;
};

/// Format a double compactly for CSV/tables (up to \p digits significant digits).
std::string FormatNumber(double x, int digits = 6);

} // namespace ns3

#endif // FABRIC_RESULTS_H
