// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CLI_H
#define FABRIC_CLI_H

#include "ns3/command-line.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * Command-line parsing for scenario programs on top of ns-3's CommandLine (so --PrintHelp
 * and --ns3::Type::Attribute=value keep working), with strict value checking: an unknown
 * flag or a value outside its range throws std::invalid_argument naming the flag and the
 * valid range, which programs report as "error: ..." with exit code 2. A flag whose default
 * is true or false may be given bare (--full means --full=true).
 */
class FabricCli
{
  public:
    explicit FabricCli(const std::string& file, const std::string& usage = "");

    /// Declare a flag --name with a default value (as text) and a help line.
    void Add(const std::string& name, const std::string& help, const std::string& defaultValue);

    /// Parse; \throws std::invalid_argument on an unknown flag.
    void Parse(int argc, char* argv[]);

    std::string GetString(const std::string& name) const;
    /// One of \p allowed.
    std::string GetChoice(const std::string& name, const std::vector<std::string>& allowed) const;
    uint64_t GetUint(const std::string& name, uint64_t lo, uint64_t hi) const;
    double GetDouble(const std::string& name, double lo, double hi) const;
    bool GetBool(const std::string& name) const;
    /// Comma-separated list, each entry non-empty.
    std::vector<std::string> GetList(const std::string& name) const;
    /// Whether the user gave --name explicitly.
    bool IsSet(const std::string& name) const;

  private:
    CommandLine m_cmd;
    std::map<std::string, std::string> m_values;
    std::map<std::string, std::string> m_defaults;
};

/**
 * \ingroup fabric
 * Run a command-line program's body: std::invalid_argument (bad input) and
 * std::runtime_error (e.g. an output folder that cannot be written) end it with
 * "error: ..." on standard error and exit code 2; any other exception with
 * "error: internal: ..." and exit code 1. Nothing escapes as an abort.
 */
int RunFabricProgram(int argc, char* argv[], int (*body)(int, char*[]));

} // namespace ns3

#endif // FABRIC_CLI_H
