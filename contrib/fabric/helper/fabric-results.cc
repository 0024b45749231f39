// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-results.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

FabricResults::FabricResults(const std::string& dir)
    : m_dir(dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
    {
        throw std::runtime_error("cannot create output folder '" + dir + "': " + ec.message());
    }
}

void
FabricResults::WriteJson(const std::string& file, const nlohmann::json& j) const
{
    std::ofstream out(Path(file));
    if (!out)
    {
        throw std::runtime_error("cannot write " + Path(file));
    }
    out << j.dump(2) << "\n";
}

bool
FabricResults::WritePng(const std::string& file, Gnuplot& plot) const
{
    const std::string png = Path(file);
    const std::string script = png.substr(0, png.size() - (png.size() > 4 ? 4 : 0)) + ".plt";
    plot.SetOutputFilename(png);
    {
        std::ofstream out(script);
        plot.GenerateOutput(out);
    }
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        std::cerr << "note: gnuplot not installed; wrote " << script << " only\n";
        return false;
    }
    const std::string cmd = "gnuplot '" + script + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0)
    {
        std::cerr << "note: gnuplot failed on " << script << "\n";
        return false;
    }
    return true;
}

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_out(path),
      m_columns(columns.size())
{
    if (!m_out)
    {
        throw std::runtime_error("cannot write " + path);
    }
    Row(columns);
}

CsvWriter&
CsvWriter::Row(const std::vector<std::string>& values)
{
    if (values.size() != m_columns)
    {
        throw std::logic_error("CsvWriter: row has " + std::to_string(values.size())
                               + " values, header has " + std::to_string(m_columns));
    }
    for (size_t i = 0; i < values.size(); ++i)
    {
        m_out << (i ? "," : "") << values[i];
    }
    m_out << "\n";
    return *this;
}

std::string
FormatNumber(double x, int digits)
{
    std::ostringstream s;
    s.precision(digits);
    s << x;
    return s.str();
}

} // namespace ns3
