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

    /// Write \p j (pretty-printed) to dir/file, atomically (see WriteFileAtomically), as it is.
    void WriteJson(const std::string& file, const nlohmann::json& j) const;

    /**
     * Write a program's run summary: \p summary with the run's program flags and --ns3::
     * overrides recorded (AddProgramFlags, AddNs3Overrides) and, for an object, the code
     * version ("code_version": AiFabricCodeVersion()), to dir/\p file. Every program writes its
     * summary.json this way, so a result says which parameters made it. \throws
     * std::invalid_argument if overrides were given and \p summary is not an object
     */
    void WriteSummary(const nlohmann::json& summary,
                      const std::string& file = "summary.json") const;

    /**
     * Render \p plot to dir/file (PNG) with gnuplot; the .plt script is kept beside it.
     * gnuplot runs without a shell (fork and exec with an argument vector), in the output
     * folder, and the script names its output by file name only, so no user text (--out)
     * reaches a command line or the script. The PNG appears only when gnuplot succeeded.
     * \return false (with a note on stderr) when gnuplot is not installed or fails
     */
    bool WritePng(const std::string& file, Gnuplot& plot) const;

  private:
    std::string m_dir;
};

/**
 * \ingroup fabric
 * A CSV file with a header row; values are written as given. Rows go to a temporary file
 * beside \p path that is renamed to \p path when the writer is closed (Close, or the
 * destructor when no exception is in flight): a failed run leaves no partial CSV. A write
 * error found by the destructor is recorded for RunFabricProgram (exit code 2).
 */
class CsvWriter
{
  public:
    CsvWriter(const std::string& path, const std::vector<std::string>& columns);
    ~CsvWriter();
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;

    /// Append one row; it must have one value per column.
    CsvWriter& Row(const std::vector<std::string>& values);

    /// Finish the file; \throws std::runtime_error if anything failed to be written.
    void Close();

  private:
    std::string m_path;
    std::string m_tmp;
    std::ofstream m_out;
    size_t m_columns;
    bool m_closed{false};
    int m_exceptions; //!< std::uncaught_exceptions() at construction
};

/**
 * \ingroup fabric
 * Write \p content to \p path so that \p path is either the complete new content or
 * untouched: a temporary file in the same folder, checked writes and close, then a rename.
 * A path that exists and is not a regular file (a device, a pipe) is written in place, with
 * every write checked.
 * \throws std::runtime_error naming \p what (e.g. "--out=x") when anything fails
 */
void WriteFileAtomically(const std::string& path,
                         const std::string& content,
                         const std::string& what = "");

/// One file for WriteFilesAtomically.
struct FabricOutputFile
{
    std::string path;    //!< where
    std::string content; //!< what
    std::string what;    //!< name in errors, e.g. "--out=x.json"
};

/**
 * \ingroup fabric
 * Write several files all or nothing: every content goes to a temporary file beside its path
 * (a device or pipe is written in place, first), and only when all were written and closed
 * are they renamed into place. On any failure the temporary files are removed and nothing
 * new appears.
 * \throws std::runtime_error naming the file that failed
 */
void WriteFilesAtomically(const std::vector<FabricOutputFile>& files);

/**
 * \ingroup fabric
 * Output files that failed to be written since the last call (one per line), and clears the
 * record. RunFabricProgram checks it after a program's body.
 */
std::string TakeFabricOutputErrors();

/**
 * \ingroup fabric
 * Record the ns-3 attribute defaults and global values the last FabricCli::Parse applied
 * (FabricNs3Overrides) in \p summary as "ns3_overrides": {"<name>": "<value as given>"}; a
 * name given twice keeps its last value, as ns-3 applies it. Nothing is added when none was
 * given.
 * \throws std::invalid_argument if overrides were given and \p summary is not a JSON object
 */
void AddNs3Overrides(nlohmann::json& summary);

/**
 * \ingroup fabric
 * Record the program flags the last FabricCli::Parse was given explicitly
 * (FabricProgramFlags; --out excepted) in \p summary as "program_flags": {"<name>": "<value
 * as given>"}, an empty object when the program ran with its defaults. Nothing is added when
 * no FabricCli::Parse ran in this process.
 * \throws std::invalid_argument if \p summary is not a JSON object and flags are recorded
 */
void AddProgramFlags(nlohmann::json& summary);

/**
 * \ingroup fabric
 * The code this library was built from: `git describe --always --long --dirty --abbrev=12` of the
 * checkout at build time (e.g. "0424ff6a1b2c" or "0424ff6a1b2c-dirty"), "unknown" when it was
 * not built from a git checkout (a tarball, or inside an ns-3 source tree). WriteSummary
 * records it as "code_version", so a result says which code made it.
 */
std::string AiFabricCodeVersion();

/// Format a double compactly for CSV/tables (up to \p digits significant digits).
std::string FormatNumber(double x, int digits = 6);

} // namespace ns3

#endif // FABRIC_RESULTS_H
