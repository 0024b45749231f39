// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-cli.h"

#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/string.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Whether \p text parses as a value of \p checker's type, for the types whose ns-3 string
/// conversion aborts instead of failing (numbers and booleans). Other types are left to ns-3.
bool
WellFormed(Ptr<const AttributeChecker> checker, const std::string& text)
{
    const std::string type = checker->GetValueTypeName();
    const char* s = text.c_str();
    char* end = nullptr;
    if (type == "ns3::UintegerValue")
    {
        return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    }
    if (type == "ns3::IntegerValue")
    {
        std::strtoll(s, &end, 10);
        return !text.empty() && *end == '\0';
    }
    if (type == "ns3::DoubleValue")
    {
        std::strtod(s, &end);
        return !text.empty() && *end == '\0';
    }
    if (type == "ns3::TimeValue")
    {
        std::strtod(s, &end);
        const std::string unit(end);
        return end != s
            && (unit.empty() || unit == "s" || unit == "ms" || unit == "us" || unit == "ns"
                || unit == "ps" || unit == "fs" || unit == "min" || unit == "h" || unit == "d"
                || unit == "y");
    }
    if (type == "ns3::BooleanValue")
    {
        return text == "true" || text == "false" || text == "1" || text == "0";
    }
    return true;
}

/// The checker of attribute "ns3::Type::Attribute", or null.
Ptr<const AttributeChecker>
AttributeCheckerOf(const std::string& path)
{
    const size_t sep = path.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (sep == std::string::npos || !TypeId::LookupByNameFailSafe(path.substr(0, sep), &tid)
        || !tid.LookupAttributeByName(path.substr(sep + 2), &info))
    {
        return nullptr;
    }
    return info.checker;
}

/// The checker of global value \p name, or null.
Ptr<const AttributeChecker>
GlobalCheckerOf(const std::string& name)
{
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() == name)
        {
            return (*it)->GetChecker();
        }
    }
    return nullptr;
}

} // namespace

FabricCli::FabricCli(const std::string& file, const std::string& usage)
    : m_cmd(file)
{
    if (!usage.empty())
    {
        m_cmd.Usage(usage);
    }
}

void
FabricCli::Add(const std::string& name, const std::string& help, const std::string& defaultValue)
{
    m_values[name] = defaultValue;
    m_defaults[name] = defaultValue;
    m_cmd.AddValue(name, help + " [default: " + defaultValue + "]", m_values[name]);
}

void
FabricCli::Parse(int argc, char* argv[])
{
    static const char* builtin[] = {"PrintHelp",
                                    "help",
                                    "PrintGlobals",
                                    "PrintGroups",
                                    "PrintGroup",
                                    "PrintTypeIds",
                                    "PrintAttributes",
                                    "PrintVersion",
                                    "version"};
    std::vector<std::string> args(argv, argv + argc);
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg(argv[i]);
        const size_t dashes = arg.rfind("--", 0) == 0 ? 2 : (arg.rfind('-', 0) == 0 ? 1 : 0);
        if (dashes == 0)
        {
            throw std::invalid_argument("unexpected argument '" + arg
                                        + "' (flags are --name=value)");
        }
        const std::string name = arg.substr(dashes, arg.find('=') - dashes);
        if (name.rfind("ns3::", 0) == 0)
        {
            // Check attribute defaults here, so a typo is an "error:" with exit code 2 rather
            // than CommandLine's usage dump.
            const size_t eq = arg.find('=');
            const Ptr<const AttributeChecker> checker = AttributeCheckerOf(name);
            if (eq == std::string::npos || !checker || !WellFormed(checker, arg.substr(eq + 1))
                || !Config::SetDefaultFailSafe(name, StringValue(arg.substr(eq + 1))))
            {
                throw std::invalid_argument("--" + name
                                            + (eq == std::string::npos ? "" : arg.substr(eq))
                                            + ": no such attribute (ns3::Type::Attribute), or "
                                              "not a valid value for it");
            }
        }
        bool known = m_values.count(name) > 0 || name.rfind("ns3::", 0) == 0;
        for (const char* b : builtin)
        {
            known = known || name == b;
        }
        // ns-3 global values (--RngRun=3, --SchedulerType=...), checked like attributes.
        const Ptr<const AttributeChecker> global = known ? nullptr : GlobalCheckerOf(name);
        if (global)
        {
            const size_t eq = arg.find('=');
            if (eq == std::string::npos || !WellFormed(global, arg.substr(eq + 1))
                || !GlobalValue::BindFailSafe(name, StringValue(arg.substr(eq + 1))))
            {
                throw std::invalid_argument("--" + name
                                            + ": not a valid value for this ns-3 "
                                              "global value");
            }
            known = true;
        }
        if (!known)
        {
            std::string list;
            for (const auto& [n, v] : m_values)
            {
                list += (list.empty() ? "--" : ", --") + n;
            }
            throw std::invalid_argument("unknown flag '--" + name + "'; valid flags: " + list);
        }
        if (m_values.count(name) && arg.find('=') == std::string::npos)
        {
            const std::string& def = m_defaults.at(name);
            if (def != "true" && def != "false")
            {
                throw std::invalid_argument("flag --" + name + " needs a value: --" + name
                                            + "=...");
            }
            args[i] = "--" + name + "=true"; // a bare boolean flag switches it on
        }
    }
    std::vector<char*> rewritten;
    for (auto& a : args)
    {
        rewritten.push_back(a.data());
    }
    m_cmd.Parse(static_cast<int>(rewritten.size()), rewritten.data());
}

std::string
FabricCli::GetString(const std::string& name) const
{
    auto it = m_values.find(name);
    if (it == m_values.end())
    {
        throw std::logic_error("FabricCli: flag --" + name + " was never declared");
    }
    return it->second;
}

bool
FabricCli::IsSet(const std::string& name) const
{
    return GetString(name) != m_defaults.at(name);
}

std::string
FabricCli::GetChoice(const std::string& name, const std::vector<std::string>& allowed) const
{
    const std::string v = GetString(name);
    std::string list;
    for (const auto& a : allowed)
    {
        if (v == a)
        {
            return v;
        }
        list += (list.empty() ? "" : "|") + a;
    }
    throw std::invalid_argument("--" + name + "='" + v + "' is not valid; valid: " + list);
}

uint64_t
FabricCli::GetUint(const std::string& name, uint64_t lo, uint64_t hi) const
{
    const std::string v = GetString(name);
    const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
    {
        throw std::invalid_argument("--" + name + "='" + v + "' must be an integer in " + range);
    }
    errno = 0;
    const unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
    if (errno == ERANGE || x < lo || x > hi)
    {
        throw std::invalid_argument("--" + name + "=" + v + " is out of range " + range);
    }
    return x;
}

double
FabricCli::GetDouble(const std::string& name, double lo, double hi) const
{
    const std::string v = GetString(name);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.empty() || *end != '\0' || !std::isfinite(x))
    {
        throw std::invalid_argument("--" + name + "='" + v + "' must be a number in " + range);
    }
    if (x < lo || x > hi)
    {
        throw std::invalid_argument("--" + name + "=" + v + " is out of range " + range);
    }
    return x;
}

bool
FabricCli::GetBool(const std::string& name) const
{
    const std::string v = GetString(name);
    if (v == "1" || v == "true")
    {
        return true;
    }
    if (v == "0" || v == "false")
    {
        return false;
    }
    throw std::invalid_argument("--" + name + "='" + v + "' must be true|false");
}

int
RunFabricProgram(int argc, char* argv[], int (*body)(int, char*[]))
{
    try
    {
        return body(argc, argv);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    catch (const std::runtime_error& e)
    {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: internal: " << e.what() << "\n";
        return 1;
    }
}

std::vector<std::string>
FabricCli::GetList(const std::string& name) const
{
    const std::string v = GetString(name);
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= v.size())
    {
        const size_t comma = std::min(v.find(',', start), v.size());
        const std::string item = v.substr(start, comma - start);
        if (item.empty())
        {
            throw std::invalid_argument("--" + name + "='" + v + "' has an empty list entry");
        }
        out.push_back(item);
        start = comma + 1;
    }
    return out;
}

} // namespace ns3
