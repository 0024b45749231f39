// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CLI_H
#define FABRIC_CLI_H

#include "ns3/command-line.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * The simulator implementation FabricCli::Parse binds as SimulatorImplementationType before
 * the user's flags (FabricSimulatorImpl: the same event order as ns-3's DefaultSimulatorImpl
 * with MapScheduler, fewer instructions per event). Programs that do not parse a FabricCli
 * keep ns-3's defaults.
 */
inline constexpr char kFabricSimulatorImplName[] = "ns3::FabricSimulatorImpl";
/// The scheduler FabricCli::Parse binds as SchedulerType before the user's flags.
inline constexpr char kFabricSchedulerName[] = "ns3::FabricHeapScheduler";

/**
 * \ingroup fabric
 * The value of the last `name=value` item for \p name in \p list, whose items are separated
 * by \p separator (environment variables such as NS_GLOBAL_VALUE, ';', and GLIBC_TUNABLES,
 * ':'); nothing if \p list is null or has no such item.
 */
std::optional<std::string> LastSettingIn(const char* list, char separator, const std::string& name);

/**
 * \ingroup fabric
 * Whether \p env, a value of ns-3's NS_GLOBAL_VALUE ("name=value;name=value"; null: unset),
 * sets the global value \p name.
 */
bool SetInNsGlobalValueEnv(const char* env, const std::string& name);

/**
 * \ingroup fabric
 * Command-line parsing for scenario programs, strict about every value, with ns-3's
 * CommandLine behind it for --PrintHelp and friends and ns-3's attribute system for
 * --ns3::Type::Attribute=value and global values (--RngRun, --SchedulerType).
 *
 * A program's own flags are parsed here, value taken whole (spaces included): an unknown
 * flag, an empty value, a flag given twice, or a value outside its range throws
 * std::invalid_argument naming the flag and the valid range, which programs report as
 * "error: ..." with exit code 2. A flag whose default is true or false may be given bare
 * (--full means --full=true). TypeIds (in attribute values, global values and
 * --PrintAttributes) must exist and derive from the class the value is used as, and
 * attribute defaults that depend on each other are checked together (see
 * CheckAttributeConstraints), all before the program runs anything.
 *
 * Parse first binds the global values SimulatorImplementationType to
 * kFabricSimulatorImplName and SchedulerType to kFabricSchedulerName, so the program runs on
 * the fabric's event core unless the user gives --SimulatorImplementationType=... or
 * --SchedulerType=... (e.g. ns3::DefaultSimulatorImpl, ns3::MapScheduler), or sets either in
 * the environment variable NS_GLOBAL_VALUE (which ns-3 applies first; such a name is not
 * bound).
 */
class FabricCli
{
  public:
    /// Whether the ends of a GetDouble range are included.
    enum Bounds
    {
        CLOSED,    //!< [lo, hi]
        OPEN_LOW,  //!< (lo, hi]
        OPEN_HIGH, //!< [lo, hi)
        OPEN,      //!< (lo, hi)
    };

    explicit FabricCli(const std::string& file, const std::string& usage = "");

    /// Declare a flag --name with a default value (as text) and a help line.
    void Add(const std::string& name, const std::string& help, const std::string& defaultValue);

    /// Parse; \throws std::invalid_argument on any bad flag (see the class description).
    void Parse(int argc, char* argv[]);

    std::string GetString(const std::string& name) const;
    /// One of \p allowed.
    std::string GetChoice(const std::string& name, const std::vector<std::string>& allowed) const;
    uint64_t GetUint(const std::string& name, uint64_t lo, uint64_t hi) const;
    double GetDouble(const std::string& name, double lo, double hi, Bounds b = CLOSED) const;
    bool GetBool(const std::string& name) const;
    /**
     * A simulated time given as a plain decimal number of \p unit (--stop-ms=0.5), converted
     * exactly: no rounding, and a value finer than the time resolution is an error.
     * \param lo, hi inclusive range
     */
    Time GetTime(const std::string& name, Time::Unit unit, Time lo, Time hi) const;
    /// The TypeId named by the flag; it must exist, be constructible and derive from \p base.
    TypeId GetTypeId(const std::string& name, const std::string& base) const;
    /// Comma-separated list, each entry non-empty.
    std::vector<std::string> GetList(const std::string& name) const;
    /// Whether the user gave --name explicitly (whatever the value).
    bool IsSet(const std::string& name) const;
    /**
     * Refuse --\p attribute (an "ns3::Type::Attribute" the program sets itself on every run,
     * such as a hash seed swept by --seeds): silently overriding the user's value would be
     * worse than saying so.
     * \param attribute the full attribute name
     * \param instead the program flag that sets it, for the message
     * \throws std::invalid_argument if the command line set \p attribute
     */
    void ReserveAttribute(const std::string& attribute, const std::string& instead) const;

  private:
    /// "--name=value", or "--name (default value)" when the user did not set it: errors
    /// should not blame a flag the user never gave.
    std::string Show(const std::string& name) const;

    CommandLine m_cmd;
    std::map<std::string, std::string> m_values;
    std::map<std::string, std::string> m_defaults;
    std::set<std::string> m_set;
};

/**
 * \ingroup fabric
 * The ns-3 attribute defaults (--ns3::Type::Attribute=value) and global values (--RngRun,
 * --SchedulerType, ...) the last FabricCli::Parse applied, in command-line order, as the user
 * wrote them. FabricResults::WriteSummary (AddNs3Overrides) records them in a program's
 * summary.json under "ns3_overrides", so a result says which parameters made it.
 */
const std::vector<std::pair<std::string, std::string>>& FabricNs3Overrides();

/**
 * \ingroup fabric
 * The program's own flags the last FabricCli::Parse was given explicitly (--name=value, a
 * bare boolean as "true"), in command-line order, as the user wrote them, except --out (where
 * the results go is not a parameter of the result); nullptr when no FabricCli::Parse ran in
 * this process. FabricResults::WriteSummary (AddProgramFlags) records them in a program's
 * summary.json under "program_flags", so a result says which command line made it
 * (scripts/doc-tables.py checks them against the command its tables need).
 */
const std::vector<std::pair<std::string, std::string>>* FabricProgramFlags();

/**
 * \ingroup fabric
 * Check that \p tidName names a TypeId that has a constructor and derives from \p base.
 * \throws std::invalid_argument naming \p what
 */
TypeId CheckTypeIdName(const std::string& tidName,
                       const std::string& base,
                       const std::string& what);

/**
 * \ingroup fabric
 * Constraints between attribute defaults that ns-3 cannot check one attribute at a time and
 * that the models would otherwise abort on mid-run: EcnMarker KminTime <= KmaxTime,
 * RoceSender PacketSize + 40 header bytes within the fabric MTU (4200).
 * \throws std::invalid_argument naming the attributes
 */
void CheckAttributeConstraints();

/**
 * \ingroup fabric
 * Run a command-line program's body at the program boundary. Before it: SIGPIPE is
 * ignored (a closed standard output, as in `| head`, does not kill a run before it writes
 * its results) and the ns-3 time resolution is raised to picoseconds (see
 * CheckSerializationResolution). std::invalid_argument (bad input), std::runtime_error
 * (e.g. an output that cannot be written) and std::bad_alloc end it with "error: ..." on
 * standard error and exit code 2; any other exception with "error: internal: ..." and exit
 * code 1. An output file that failed to be written (FabricResults, CsvWriter) makes the exit
 * code 2 as well. Nothing escapes as an abort.
 */
int RunFabricProgram(int argc, char* argv[], int (*body)(int, char*[]));

} // namespace ns3

#endif // FABRIC_CLI_H
