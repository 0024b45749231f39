// SPDX-License-Identifier: GPL-2.0-only
// Shared by the end-to-end tests that run the built programs as a user would.
#ifndef PROGRAM_TEST_UTIL_H
#define PROGRAM_TEST_UTIL_H

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
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

/// How RunArgs runs a program.
struct RunOptions
{
    RunOptions(double timeout = 600,
               std::map<std::string, std::string> environment = {},
               std::string folder = "")
        : timeoutSeconds(timeout),
          env(std::move(environment)),
          cwd(std::move(folder))
    {
    }

    double timeoutSeconds;                  //!< killed (timedOut) after this
    std::map<std::string, std::string> env; //!< added to the environment
    std::string cwd;                        //!< working folder ("" = inherit)
    bool closeStdoutEarly{false};           //!< stdout is a pipe closed before the run
    uint64_t addressSpaceLimitBytes{0};     //!< ulimit -v, 0 = none
    uint64_t fileSizeLimitBytes{0};         //!< ulimit -f: larger writes fail, 0 = none
};

/// What RunArgs saw.
struct RunResult
{
    int exitCode; //!< exit status, or 128 + signal number, or -1 when timed out
    std::string stderrText;
    bool timedOut;
    double seconds; //!< wall time
};

/**
 * Run BIN/argv[0] with the arguments argv[1..] exactly as given (no shell: no quoting, no
 * word splitting), standard output discarded, standard error captured.
 */
inline RunResult
RunArgs(const std::vector<std::string>& argv, const RunOptions& opt = RunOptions())
{
    const std::string exe = BIN + "/" + argv.at(0);
    int outPipe[2] = {-1, -1};
    int errPipe[2] = {-1, -1};
    // Standard error through a pipe: not subject to a file size limit, read while running.
    if ((opt.closeStdoutEarly && ::pipe(outPipe) != 0) || ::pipe(errPipe) != 0)
    {
        return {-2, "pipe failed", false, 0};
    }
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        ::setpgid(0, 0);
        if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0)
        {
            ::_exit(125);
        }
        for (const auto& [k, v] : opt.env)
        {
            ::setenv(k.c_str(), v.c_str(), 1);
        }
        if (opt.addressSpaceLimitBytes)
        {
            rlimit rl{opt.addressSpaceLimitBytes, opt.addressSpaceLimitBytes};
            ::setrlimit(RLIMIT_AS, &rl);
        }
        if (opt.fileSizeLimitBytes)
        {
            // A write past the limit then fails with EFBIG, like a full disk.
            ::signal(SIGXFSZ, SIG_IGN);
            rlimit rl{opt.fileSizeLimitBytes, opt.fileSizeLimitBytes};
            ::setrlimit(RLIMIT_FSIZE, &rl);
        }
        ::close(errPipe[0]);
        const int out = opt.closeStdoutEarly ? outPipe[1] : ::open("/dev/null", O_WRONLY);
        if (opt.closeStdoutEarly)
        {
            ::close(outPipe[0]);
        }
        const int in = ::open("/dev/null", O_RDONLY);
        if (out < 0 || in < 0 || ::dup2(errPipe[1], 2) < 0 || ::dup2(out, 1) < 0
            || ::dup2(in, 0) < 0)
        {
            ::_exit(125);
        }
        // Exit codes must not depend on how the test runner treats SIGPIPE.
        ::signal(SIGPIPE, SIG_DFL);
        std::vector<char*> args;
        args.push_back(const_cast<char*>(exe.c_str()));
        for (size_t i = 1; i < argv.size(); ++i)
        {
            args.push_back(const_cast<char*>(argv[i].c_str()));
        }
        args.push_back(nullptr);
        ::execv(exe.c_str(), args.data());
        ::_exit(127);
    }
    if (opt.closeStdoutEarly)
    {
        ::close(outPipe[0]); // the reader goes away at once, as `| head` would
        ::close(outPipe[1]);
    }
    ::close(errPipe[1]);
    ::fcntl(errPipe[0], F_SETFL, ::fcntl(errPipe[0], F_GETFL) | O_NONBLOCK);
    std::string err;
    auto drain = [&]()
    {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(errPipe[0], buf, sizeof(buf))) > 0)
        {
            err.append(buf, static_cast<size_t>(n));
        }
    };
    int status = 0;
    bool timedOut = false;
    while (true)
    {
        drain();
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid)
        {
            break;
        }
        const double el
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (el > opt.timeoutSeconds)
        {
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            timedOut = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    drain();
    ::close(errPipe[0]);
    const double seconds
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int code = -1;
    if (!timedOut)
    {
        code = WIFEXITED(status) ? WEXITSTATUS(status)
                                 : (WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1);
    }
    return {code, err, timedOut, seconds};
}

/// Whether a run ended as bad input should: exit code 2 and a first line "error: ...".
inline bool
IsCleanError(const RunResult& r)
{
    return r.exitCode == 2 && r.stderrText.find("error: ") != std::string::npos;
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
