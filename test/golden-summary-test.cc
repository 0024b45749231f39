// SPDX-License-Identifier: GPL-2.0-only
// Golden runs: each case of test/golden/cases.json runs one scenario program of the current
// build at a small size and compares the JSON it writes with the copy stored from the code
// before a refactoring. Keys measured from the clock (listed per case) are removed from both
// sides first; everything else must be identical, so a refactoring that changes any result
// fails here with the first differing JSON pointers.
#include "program-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using json = nlohmann::json;

namespace
{

using namespace programtest;

/// Folder of the golden files (set by CMake): cases.json and one folder per case.
const std::string GOLDEN = AIFABRIC_GOLDEN_DIR;

/// Modules left out of this build (AIFABRIC_SKIP, ','-separated).
const std::string SKIPPED = AIFABRIC_SKIPPED_MODULES;

/// One golden run, as read from cases.json.
struct GoldenCase
{
    std::string name;                 ///< folder under test/golden
    std::string program;              ///< program in the build's bin folder
    std::vector<std::string> args;    ///< arguments; {out} and {golden} are substituted
    std::vector<std::string> outputs; ///< JSON files compared (relative to {out})
    std::set<std::string> ignore;     ///< key names (any depth) or JSON pointers (leading '/')
};

/// gtest prints a case by its name.
void
PrintTo(const GoldenCase& c, std::ostream* os)
{
    *os << c.name;
}

std::vector<GoldenCase>
LoadCases()
{
    std::ifstream in(GOLDEN + "/cases.json");
    if (!in.good())
    {
        return {};
    }
    const json j = json::parse(in);
    std::vector<GoldenCase> cases;
    const json always = j.value("ignore_in_every_case", json::array());
    for (const json& c : j.at("cases"))
    {
        GoldenCase g;
        g.name = c.at("name").get<std::string>();
        g.program = c.at("program").get<std::string>();
        g.args = c.at("args").get<std::vector<std::string>>();
        g.outputs = c.value("outputs", std::vector<std::string>{"summary.json"});
        for (const json& k : c.value("ignore", json::array()))
        {
            g.ignore.insert(k.get<std::string>());
        }
        for (const json& k : always)
        {
            g.ignore.insert(k.get<std::string>());
        }
        cases.push_back(g);
    }
    return cases;
}

/// Replace every "{key}" in \p s by \p value.
std::string
Substitute(std::string s, const std::string& key, const std::string& value)
{
    for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
    {
        s.replace(at, key.size(), value);
    }
    return s;
}

/// Escape a key for a JSON pointer (RFC 6901).
std::string
PointerToken(const std::string& key)
{
    return Substitute(Substitute(key, "~", "~0"), "/", "~1");
}

/// \p j without the ignored keys, at any depth; \p at is j's JSON pointer.
json
Strip(const json& j, const std::set<std::string>& ignore, const std::string& at = "")
{
    if (j.is_object())
    {
        json out = json::object();
        for (const auto& [key, value] : j.items())
        {
            const std::string path = at + "/" + PointerToken(key);
            if (!ignore.count(key) && !ignore.count(path))
            {
                out[key] = Strip(value, ignore, path);
            }
        }
        return out;
    }
    if (j.is_array())
    {
        json out = json::array();
        for (size_t i = 0; i < j.size(); ++i)
        {
            out.push_back(Strip(j[i], ignore, at + "/" + std::to_string(i)));
        }
        return out;
    }
    return j;
}

/// Append to \p diffs the JSON pointers where \p want and \p got differ (with both values).
void
Diff(const json& want, const json& got, const std::string& at, std::vector<std::string>& diffs)
{
    if (want.is_object() && got.is_object())
    {
        std::set<std::string> keys;
        for (const auto& [k, v] : want.items())
        {
            keys.insert(k);
        }
        for (const auto& [k, v] : got.items())
        {
            keys.insert(k);
        }
        for (const std::string& k : keys)
        {
            const std::string path = at + "/" + PointerToken(k);
            if (!want.contains(k))
            {
                diffs.push_back(path + ": not in golden, now " + got[k].dump());
            }
            else if (!got.contains(k))
            {
                diffs.push_back(path + ": golden " + want[k].dump() + ", now missing");
            }
            else
            {
                Diff(want[k], got[k], path, diffs);
            }
        }
        return;
    }
    if (want.is_array() && got.is_array())
    {
        if (want.size() != got.size())
        {
            diffs.push_back(at + ": golden has " + std::to_string(want.size()) + " elements, now "
                            + std::to_string(got.size()));
        }
        for (size_t i = 0; i < std::min(want.size(), got.size()); ++i)
        {
            Diff(want[i], got[i], at + "/" + std::to_string(i), diffs);
        }
        return;
    }
    if (want != got)
    {
        diffs.push_back((at.empty() ? "/" : at) + ": golden " + want.dump() + ", now "
                        + got.dump());
    }
}

/// True if \p program belongs to a module left out of this build (same rules as scenarios/).
bool
ProgramSkipped(const std::string& program)
{
    std::stringstream ss(SKIPPED);
    std::string module;
    while (std::getline(ss, module, ','))
    {
        if (!module.empty() && std::regex_search(program, std::regex("^(bench-)?" + module)))
        {
            return true;
        }
        // packet-vs-flow needs the compare module, built only with roce, flow, rng and zcube.
        if (program == "packet-vs-flow"
            && (module == "roce" || module == "flow" || module == "rng" || module == "zcube"))
        {
            return true;
        }
    }
    return false;
}

class GoldenSummary : public ::testing::TestWithParam<GoldenCase>
{
};

TEST_P(GoldenSummary, SameAsBeforeRefactoring)
{
    const GoldenCase& c = GetParam();
    if (ProgramSkipped(c.program))
    {
        GTEST_SKIP() << c.program << " is not built (AIFABRIC_SKIP)";
    }
    const std::string out = TempDir("golden-" + c.name);
    std::vector<std::string> argv{BIN + "/" + c.program};
    for (const std::string& a : c.args)
    {
        argv.push_back(Substitute(Substitute(a, "{out}", out), "{golden}", GOLDEN + "/" + c.name));
    }
    std::filesystem::create_directories(out);
    const Outcome o = RunProgramArgs(argv);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    for (const std::string& file : c.outputs)
    {
        const json want = Strip(ReadJson(GOLDEN + "/" + c.name + "/" + file), c.ignore);
        const json got = Strip(ReadJson(out + "/" + file), c.ignore);
        std::vector<std::string> diffs;
        Diff(want, got, "", diffs);
        std::ostringstream msg;
        const size_t shown = std::min<size_t>(diffs.size(), 20);
        for (size_t i = 0; i < shown; ++i)
        {
            msg << "  " << diffs[i] << "\n";
        }
        if (shown < diffs.size())
        {
            msg << "  ... and " << diffs.size() - shown << " more\n";
        }
        EXPECT_TRUE(diffs.empty()) << c.name << "/" << file << " differs from the golden copy in "
                                   << diffs.size() << " place(s):\n"
                                   << msg.str();
    }
    std::filesystem::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(Golden,
                         GoldenSummary,
                         ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info)
                         {
                             std::string n = info.param.name;
                             for (char& ch : n)
                             {
                                 if (!std::isalnum(static_cast<unsigned char>(ch)))
                                 {
                                     ch = '_';
                                 }
                             }
                             return n;
                         });

TEST(GoldenCases, FileListsCases)
{
    const auto cases = LoadCases();
    EXPECT_FALSE(cases.empty()) << GOLDEN << "/cases.json missing or empty";
    for (const GoldenCase& c : cases)
    {
        for (const std::string& file : c.outputs)
        {
            EXPECT_TRUE(std::filesystem::exists(GOLDEN + "/" + c.name + "/" + file))
                << c.name << "/" << file;
        }
    }
}

} // namespace
