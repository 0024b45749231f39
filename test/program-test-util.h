// SPDX-License-Identifier: GPL-2.0-only
// Shared by the end-to-end tests that run the built programs as a user would.
#ifndef PROGRAM_TEST_UTIL_H
#define PROGRAM_TEST_UTIL_H

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

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

/**
 * Run \p argv[0] with the arguments \p argv, without a shell (posix_spawn), standard output
 * discarded and standard error captured.
 * \return exit code (-1 if the program could not be started or did not exit normally) and
 *         standard error (or the reason it could not be started)
 */
inline Outcome
RunProgramArgs(const std::vector<std::string>& argv)
{
    if (argv.empty())
    {
        return {-1, "no program given"};
    }
    const std::string errFile = (std::filesystem::temp_directory_path()
                                 / ("aifabric-stderr-" + std::to_string(::getpid())))
                                    .string();
    std::vector<char*> args;
    for (const std::string& a : argv)
    {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(
        &actions, STDERR_FILENO, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
    {
        return {-1, "cannot start " + argv[0] + ": " + std::strerror(rc)};
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
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
