// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-results.h"

#include "fabric-cli.h"

#include "ns3/log.h"

// Generated at build time by cmake/code-version.cmake (out-of-tree builds only).
#if __has_include("aifabric-code-version.h")
#    include "aifabric-code-version.h"
#endif
#ifndef AIFABRIC_CODE_VERSION
#    define AIFABRIC_CODE_VERSION "unknown"
#endif

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricResults");

namespace
{

/// Output files that could not be written, for RunFabricProgram.
std::string g_outputErrors;

void
RecordOutputError(const std::string& message)
{
    g_outputErrors += (g_outputErrors.empty() ? "" : "\n") + message;
}

/// A temporary name beside \p path (same folder, so the rename is atomic).
std::string
TempNameFor(const std::string& path)
{
    const std::filesystem::path p(path);
    return (p.parent_path() / ("." + p.filename().string() + ".tmp-" + std::to_string(::getpid())))
        .string();
}

/// Whether \p path exists and is something other than a regular file (a device, a pipe).
bool
IsSpecialFile(const std::string& path)
{
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)
        && !std::filesystem::is_directory(st);
}

} // namespace

std::string
TakeFabricOutputErrors()
{
    std::string out;
    std::swap(out, g_outputErrors);
    return out;
}

void
WriteFileAtomically(const std::string& path, const std::string& content, const std::string& what)
{
    const std::string name = what.empty() ? path : what;
    if (IsSpecialFile(path))
    {
        std::ofstream out(path, std::ios::binary);
        out << content;
        out.close();
        if (!out)
        {
            throw std::runtime_error("cannot write " + name + ": write failed");
        }
        return;
    }
    const std::string tmp = TempNameFor(path);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
    {
        throw std::runtime_error("cannot write " + name + ": cannot create a file in its folder");
    }
    out << content;
    out.close();
    std::error_code ec;
    if (!out)
    {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error("cannot write " + name + ": write failed (disk full?)");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec)
    {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw std::runtime_error("cannot write " + name + ": " + ec.message());
    }
}

void
WriteFilesAtomically(const std::vector<FabricOutputFile>& files)
{
    std::vector<std::pair<std::string, const FabricOutputFile*>> staged; // temp, file
    auto cleanup = [&staged]()
    {
        for (const auto& [tmp, f] : staged)
        {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
        }
    };
    try
    {
        for (const auto& f : files)
        {
            if (IsSpecialFile(f.path))
            {
                WriteFileAtomically(f.path, f.content, f.what);
                continue;
            }
            const std::string tmp = TempNameFor(f.path) + "-" + std::to_string(staged.size());
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out)
            {
                throw std::runtime_error("cannot write " + f.what
                                         + ": cannot create a file in its folder");
            }
            staged.emplace_back(tmp, &f);
            out << f.content;
            out.close();
            if (!out)
            {
                throw std::runtime_error("cannot write " + f.what + ": write failed (disk full?)");
            }
        }
        for (size_t i = 0; i < staged.size(); ++i)
        {
            std::error_code ec;
            std::filesystem::rename(staged[i].first, staged[i].second->path, ec);
            if (ec)
            {
                throw std::runtime_error("cannot write " + staged[i].second->what + ": "
                                         + ec.message());
            }
        }
    }
    catch (...)
    {
        cleanup();
        throw;
    }
}

FabricResults::FabricResults(const std::string& dir)
    : m_dir(dir)
{
    if (dir.empty())
    {
        throw std::invalid_argument("--out must name a folder");
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
    {
        throw std::runtime_error("cannot create output folder '" + dir
                                 + "': " + (ec ? ec.message() : "not a folder"));
    }
}

void
FabricResults::WriteJson(const std::string& file, const nlohmann::json& j) const
{
    WriteFileAtomically(Path(file), j.dump(2) + "\n");
}

void
FabricResults::WriteSummary(const nlohmann::json& summary, const std::string& file) const
{
    nlohmann::json withOverrides = summary;
    AddProgramFlags(withOverrides);
    AddNs3Overrides(withOverrides);
    if (withOverrides.is_object())
    {
        withOverrides["code_version"] = AiFabricCodeVersion();
    }
    WriteJson(file, withOverrides);
}

std::string
AiFabricCodeVersion()
{
    return AIFABRIC_CODE_VERSION;
}

void
AddProgramFlags(nlohmann::json& summary)
{
    const auto* flags = FabricProgramFlags();
    if (!flags)
    {
        return;
    }
    if (!summary.is_object())
    {
        throw std::invalid_argument("AddProgramFlags: the summary must be a JSON object, not "
                                    + std::string(summary.type_name()));
    }
    nlohmann::json rec = nlohmann::json::object();
    for (const auto& [name, value] : *flags)
    {
        rec[name] = value;
    }
    summary["program_flags"] = rec;
}

void
AddNs3Overrides(nlohmann::json& summary)
{
    const auto& overrides = FabricNs3Overrides();
    if (overrides.empty())
    {
        return;
    }
    if (!summary.is_object())
    {
        throw std::invalid_argument("AddNs3Overrides: the summary must be a JSON object, not "
                                    + std::string(summary.type_name()));
    }
    // A given attribute or global value may appear more than once; the last one wins, as in
    // ns-3, and the record shows what the run used.
    nlohmann::json rec = nlohmann::json::object();
    for (const auto& [name, value] : overrides)
    {
        rec[name] = value;
    }
    summary["ns3_overrides"] = rec;
}

bool
FabricResults::WritePng(const std::string& file, Gnuplot& plot) const
{
    const std::string stem = file.substr(0, file.size() - (file.size() > 4 ? 4 : 0));
    // The script kept for the user names the final PNG; the one gnuplot runs names a
    // temporary one, renamed once gnuplot succeeded. Both by file name only.
    std::ostringstream kept;
    plot.SetOutputFilename(file);
    plot.GenerateOutput(kept);
    WriteFileAtomically(Path(stem + ".plt"), kept.str());
    const std::string tmpPng = "." + file + ".tmp-" + std::to_string(::getpid());
    std::ostringstream run;
    plot.SetOutputFilename(tmpPng);
    plot.GenerateOutput(run);
    plot.SetOutputFilename(file);
    const std::string script = run.str();

    int fds[2];
    if (::pipe(fds) != 0)
    {
        std::cerr << "note: cannot start gnuplot (pipe); wrote " << Path(stem + ".plt")
                  << " only\n";
        return false;
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid < 0)
    {
        ::close(fds[0]);
        ::close(fds[1]);
        std::cerr << "note: cannot start gnuplot (fork); wrote " << Path(stem + ".plt")
                  << " only\n";
        return false;
    }
    if (pid == 0)
    {
        // Child: only async-signal-safe calls until exec.
        ::close(fds[1]);
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (::chdir(m_dir.c_str()) != 0 || ::dup2(fds[0], 0) < 0 || devnull < 0
            || ::dup2(devnull, 1) < 0 || ::dup2(devnull, 2) < 0)
        {
            ::_exit(126);
        }
        char* const argv[] = {const_cast<char*>("gnuplot"), nullptr};
        ::execvp("gnuplot", argv);
        ::_exit(127);
    }
    ::close(fds[0]);
    // Feed the script; a gnuplot that exits early closes the pipe (EPIPE, SIGPIPE ignored by
    // RunFabricProgram), which the exit status then reports.
    size_t done = 0;
    while (done < script.size())
    {
        const ssize_t w = ::write(fds[1], script.data() + done, script.size() - done);
        if (w <= 0)
        {
            break;
        }
        done += static_cast<size_t>(w);
    }
    ::close(fds[1]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    std::error_code ec;
    const std::string tmpPath = Path(tmpPng);
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && done == script.size()
                 && std::filesystem::is_regular_file(tmpPath, ec)
                 && std::filesystem::file_size(tmpPath, ec) > 0;
    if (!ok)
    {
        std::filesystem::remove(tmpPath, ec);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        {
            std::cerr << "note: gnuplot not installed; wrote " << Path(stem + ".plt") << " only\n";
        }
        else
        {
            std::cerr << "note: gnuplot failed on " << Path(stem + ".plt") << "\n";
        }
        return false;
    }
    std::filesystem::rename(tmpPath, Path(file), ec);
    if (ec)
    {
        std::filesystem::remove(tmpPath, ec);
        throw std::runtime_error("cannot write " + Path(file) + ": " + ec.message());
    }
    return true;
}

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_path(path),
      m_tmp(TempNameFor(path)),
      m_columns(columns.size()),
      m_exceptions(std::uncaught_exceptions())
{
    m_out.open(m_tmp, std::ios::binary | std::ios::trunc);
    if (!m_out)
    {
        throw std::runtime_error("cannot write " + path + ": cannot create a file in its folder");
    }
    Row(columns);
}

CsvWriter::~CsvWriter()
{
    if (m_closed)
    {
        return;
    }
    if (std::uncaught_exceptions() > m_exceptions)
    {
        // The run failed: leave no partial table behind.
        m_out.close();
        std::error_code ec;
        std::filesystem::remove(m_tmp, ec);
        return;
    }
    try
    {
        Close();
    }
    catch (const std::exception& e)
    {
        RecordOutputError(e.what());
    }
}

void
CsvWriter::Close()
{
    if (m_closed)
    {
        return;
    }
    m_closed = true;
    m_out.close();
    std::error_code ec;
    if (!m_out)
    {
        std::filesystem::remove(m_tmp, ec);
        throw std::runtime_error("cannot write " + m_path + ": write failed (disk full?)");
    }
    std::filesystem::rename(m_tmp, m_path, ec);
    if (ec)
    {
        std::error_code ignored;
        std::filesystem::remove(m_tmp, ignored);
        throw std::runtime_error("cannot write " + m_path + ": " + ec.message());
    }
}

CsvWriter&
CsvWriter::Row(const std::vector<std::string>& values)
{
    if (values.size() != m_columns)
    {
        throw std::logic_error("CsvWriter: row has " + std::to_string(values.size())
                               + " values, header has " + std::to_string(m_columns));
    }
    if (m_closed)
    {
        throw std::logic_error("CsvWriter: row after Close()");
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
