// SPDX-License-Identifier: GPL-2.0-only
// Shared by the end-to-end tests that run the built programs as a user would.
#ifndef PROGRAM_TEST_UTIL_H
#define PROGRAM_TEST_UTIL_H

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace programtest
{

/// Folder of the built programs (set by CMake).
inline const std::string BIN = AIFABRIC_BIN_DIR;

/// Exit code and standard error of a program run.
struct Outcome
{
    int exitCode;
    std::string stderrText;
};

/// Run a shell command line (standard output discarded).
inline Outcome
RunProgram(const std::string& args)
{
    const std::string errFile = (std::filesystem::temp_directory_path()
                                 / ("aifabric-stderr-" + std::to_string(::getpid())))
                                    .string();
    const std::string cmd = args + " > /dev/null 2> " + errFile;
    const int status = std::system(cmd.c_str());
    std::ifstream in(errFile);
    std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(errFile);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}

/// Parse a JSON file (a test failure, and null, if it cannot be read).
inline nlohmann::json
ReadJson(const std::string& path)
{
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    return in.good() ? nlohmann::json::parse(in) : nlohmann::json();
}

/// A whole text file ("" if it cannot be read).
inline std::string
ReadText(const std::string& path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// A folder path under the system's temporary folder, removed first; created when \p create
/// (programs create their --out folder themselves, and must not on bad input).
inline std::string
TempDir(const std::string& name, bool create = false)
{
    const auto d = std::filesystem::temp_directory_path()
                 / ("aifabric-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    if (create)
    {
        std::filesystem::create_directories(d);
    }
    return d.string();
}

} // namespace programtest

#endif // PROGRAM_TEST_UTIL_H
