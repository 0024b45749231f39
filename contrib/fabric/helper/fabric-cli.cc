// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-cli.h"

#include "fabric-checks.h"
#include "fabric-results.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricCli");

namespace
{

std::vector<std::pair<std::string, std::string>>&
Ns3Overrides()
{
    static std::vector<std::pair<std::string, std::string>> overrides;
    return overrides;
}

std::optional<std::vector<std::pair<std::string, std::string>>>&
ProgramFlags()
{
    static std::optional<std::vector<std::pair<std::string, std::string>>> flags;
    return flags;
}

/// Compact number for messages: 0.5, 1e-06, 100000 (not 0.500000).
std::string
Fmt(double x)
{
    std::ostringstream s;
    s.precision(9);
    s << x;
    return s.str();
}

/// Whether \p text is a finite decimal number with nothing around it.
bool
IsFiniteNumber(const std::string& text)
{
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    {
        return false;
    }
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    return *end == '\0' && std::isfinite(x)
        && text.find_first_of("xX") == std::string::npos; // no hex floats
}

/// Base class a TypeId-valued attribute or global value must derive from ("" = any).
std::string
TypeIdBaseOf(const std::string& name)
{
    static const std::map<std::string, std::string> bases = {
        {"ns3::RoceSender::RateControl", "ns3::RoceRateControl"},
        {"SchedulerType", "ns3::Scheduler"},
        {"SimulatorImplementationType", "ns3::SimulatorImpl"},
    };
    auto it = bases.find(name);
    return it == bases.end() ? "" : it->second;
}

/// Check \p text as a value of \p checker's type, for the types whose ns-3 string conversion
/// aborts (or overflows) instead of failing: numbers, booleans, times and TypeIds. Other
/// types are left to ns-3's own (fail-safe) parsing.
void
CheckValueText(Ptr<const AttributeChecker> checker,
               const std::string& name,
               const std::string& text)
{
    // Some checkers name their type "ns3::XValue", those made by ns-3's macros "XValue".
    std::string type = checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) != 0)
    {
        type = "ns3::" + type;
    }
    const std::string bad = "--" + name + "='" + text + "' is not a valid value: ";
    // TypeIds with a known base class, whatever the value type (SimulatorImplementationType
    // is a string).
    if (const std::string base = TypeIdBaseOf(name); !base.empty())
    {
        CheckTypeIdName(text, base, "--" + name);
        return;
    }
    if (type == "ns3::UintegerValue")
    {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos
            || text.size() > 20)
        {
            throw std::invalid_argument(bad + "expected a non-negative integer");
        }
    }
    else if (type == "ns3::IntegerValue")
    {
        const std::string digits = text.rfind('-', 0) == 0 ? text.substr(1) : text;
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos
            || digits.size() > 19)
        {
            throw std::invalid_argument(bad + "expected an integer");
        }
    }
    else if (type == "ns3::DoubleValue")
    {
        if (!IsFiniteNumber(text))
        {
            throw std::invalid_argument(bad + "expected a finite number");
        }
    }
    else if (type == "ns3::TimeValue")
    {
        const size_t unitPos = text.find_first_not_of("0123456789.+-eE");
        const std::string number = text.substr(0, unitPos);
        const std::string unit = unitPos == std::string::npos ? "" : text.substr(unitPos);
        static const std::map<std::string, double> seconds = {{"", 1},
                                                              {"s", 1},
                                                              {"ms", 1e-3},
                                                              {"us", 1e-6},
                                                              {"ns", 1e-9},
                                                              {"ps", 1e-12},
                                                              {"fs", 1e-15},
                                                              {"min", 60},
                                                              {"h", 3600},
                                                              {"d", 86400}};
        auto it = seconds.find(unit);
        // Within about 11 days: far beyond any run, far below the 106 days a 64-bit count of
        // picoseconds holds (ns-3 would overflow silently).
        if (!IsFiniteNumber(number) || it == seconds.end()
            || std::fabs(std::strtod(number.c_str(), nullptr) * it->second) > 1e6)
        {
            throw std::invalid_argument(bad
                                        + "expected a time such as 5us, 1.5ms or 0.001s "
                                          "(units s|ms|us|ns|ps|fs|min|h|d, at most 1e6 s)");
        }
    }
    else if (type == "ns3::BooleanValue")
    {
        if (text != "true" && text != "false" && text != "1" && text != "0")
        {
            throw std::invalid_argument(bad + "expected true|false");
        }
    }
    else if (type == "ns3::TypeIdValue")
    {
        CheckTypeIdName(text, "ns3::ObjectBase", "--" + name);
    }
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

/// The current default of attribute \p attr of \p tidName, or null if there is no such
/// TypeId or attribute (the module is not linked in).
Ptr<const AttributeValue>
DefaultOf(const std::string& tidName, const std::string& attr)
{
    TypeId tid;
    TypeId::AttributeInformation info;
    if (!TypeId::LookupByNameFailSafe(tidName, &tid) || !tid.LookupAttributeByName(attr, &info))
    {
        return nullptr;
    }
    return info.initialValue;
}

/// Femtoseconds in one \p unit (seconds and below).
int64_t
FsPer(Time::Unit unit)
{
    static const std::map<Time::Unit, int64_t> fsPer = {{Time::S, 1000000000000000},
                                                        {Time::MS, 1000000000000},
                                                        {Time::US, 1000000000},
                                                        {Time::NS, 1000000},
                                                        {Time::PS, 1000},
                                                        {Time::FS, 1}};
    auto it = fsPer.find(unit);
    if (it == fsPer.end())
    {
        throw std::logic_error("FabricCli: time unit above seconds");
    }
    return it->second;
}

/// A decimal number of \p unit, exactly, in femtoseconds; throws on anything else.
__int128
ExactFemtoseconds(const std::string& text, Time::Unit unit, const std::string& what)
{
    const size_t dot = text.find('.');
    const std::string ip = text.substr(0, dot);
    const std::string fp = dot == std::string::npos ? "" : text.substr(dot + 1);
    if ((ip.empty() && fp.empty()) || ip.find_first_not_of("0123456789") != std::string::npos
        || fp.find_first_not_of("0123456789") != std::string::npos)
    {
        throw std::invalid_argument(what + " must be a plain decimal number (e.g. 0.5)");
    }
    if (ip.size() > 15 || fp.size() > 18)
    {
        throw std::invalid_argument(what + " has too many digits");
    }
    const __int128 factor = FsPer(unit);
    __int128 fs = (ip.empty() ? 0 : std::stoll(ip)) * factor;
    __int128 pow10 = 1;
    __int128 frac = 0;
    for (char c : fp)
    {
        frac = frac * 10 + (c - '0');
        pow10 *= 10;
    }
    if ((frac * factor) % pow10 != 0)
    {
        throw std::invalid_argument(what + " is finer than a femtosecond");
    }
    return fs + frac * factor / pow10;
}

} // namespace

TypeId
CheckTypeIdName(const std::string& tidName, const std::string& base, const std::string& what)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(tidName, &tid))
    {
        throw std::invalid_argument(what + "='" + tidName + "' is not a known ns-3 TypeId"
                                    + (base.empty() ? "" : " (expected a " + base + ")"));
    }
    TypeId b;
    if (!base.empty() && TypeId::LookupByNameFailSafe(base, &b) && tid != b && !tid.IsChildOf(b))
    {
        throw std::invalid_argument(what + "='" + tidName + "' is not a " + base);
    }
    if (!tid.HasConstructor())
    {
        throw std::invalid_argument(what + "='" + tidName
                                    + "' cannot be created (it has no constructor)");
    }
    if (base == "ns3::SimulatorImpl" && tidName != "ns3::DefaultSimulatorImpl"
        && tidName != "ns3::RealtimeSimulatorImpl" && tidName != "ns3::FabricSimulatorImpl")
    {
        throw std::invalid_argument(what + "='" + tidName
                                    + "' is not supported here (valid: ns3::FabricSimulatorImpl"
                                      "|ns3::DefaultSimulatorImpl|ns3::RealtimeSimulatorImpl)");
    }
    return tid;
}

void
CheckAttributeConstraints()
{
    auto kmin = DynamicCast<const TimeValue>(DefaultOf("ns3::EcnMarker", "KminTime"));
    auto kmax = DynamicCast<const TimeValue>(DefaultOf("ns3::EcnMarker", "KmaxTime"));
    if (kmin && kmax && kmin->Get() > kmax->Get())
    {
        throw std::invalid_argument(
            "--ns3::EcnMarker::KminTime=" + Fmt(kmin->Get().GetSeconds() * 1e6)
            + "us must not exceed --ns3::EcnMarker::KmaxTime=" + Fmt(kmax->Get().GetSeconds() * 1e6)
            + "us");
    }
    // The fabric's devices have MTU 4200 (FabricNetworkHelper); a RoCE packet carries
    // 40 header bytes (IPv4 20, UDP 8, RoCE 12) in front of its payload.
    auto payload = DynamicCast<const UintegerValue>(DefaultOf("ns3::RoceSender", "PacketSize"));
    if (payload && payload->Get() + 40 > 4200)
    {
        throw std::invalid_argument("--ns3::RoceSender::PacketSize="
                                    + std::to_string(payload->Get())
                                    + " does not fit the fabric MTU of 4200 bytes with 40 header "
                                      "bytes; valid: [1, 4160]");
    }
}

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
    // CommandLine only prints the help of our flags; it never parses them (it would cut a
    // value at its first space and dump the usage on an empty one).
    m_cmd.AddValue(name, help + " [default: " + defaultValue + "]", m_values[name]);
}

std::optional<std::string>
LastSettingIn(const char* list, char separator, const std::string& name)
{
    if (list == nullptr)
    {
        return std::nullopt;
    }
    std::optional<std::string> value;
    std::istringstream items(list);
    std::string item;
    const std::string prefix = name + "=";
    while (std::getline(items, item, separator))
    {
        if (item.compare(0, prefix.size(), prefix) == 0)
        {
            value = item.substr(prefix.size());
        }
    }
    return value;
}

bool
SetInNsGlobalValueEnv(const char* env, const std::string& name)
{
    // ns-3's format: name=value pairs separated by ';'
    return LastSettingIn(env, ';', name).has_value();
}

void
FabricCli::Parse(int argc, char* argv[])
{
    static const std::set<std::string> bare = {"PrintHelp",
                                               "help",
                                               "PrintGlobals",
                                               "PrintGroups",
                                               "PrintTypeIds",
                                               "PrintVersion",
                                               "version"};
    std::vector<std::string> forCommandLine{argc > 0 ? argv[0] : "program"};
    // The project's programs run on the fabric's event core (same event order as ns-3's
    // default core and MapScheduler, fewer instructions per event); bound before the user's
    // flags so --SimulatorImplementationType and --SchedulerType still override it.
    // A value the user set in the environment (NS_GLOBAL_VALUE, which ns-3 applies when the
    // global values are created) is the user's choice too and is kept.
    for (const auto& [global, value] :
         {std::pair<const char*, const char*>{"SimulatorImplementationType",
                                              kFabricSimulatorImplName},
          {"SchedulerType", kFabricSchedulerName}})
    {
        if (!SetInNsGlobalValueEnv(std::getenv("NS_GLOBAL_VALUE"), global))
        {
            GlobalValue::Bind(global, StringValue(value));
        }
    }
    // Devices hand frames to the switch forwarder and the host path directly (DirectReceive):
    // the project's programs register no handlers of their own on switches or hosts. Defaults
    // set here, before the user's flags, which can turn them off again.
    // (Fail-safe: a program built without the fabric's models has nothing to set.)
    Config::SetDefaultFailSafe("ns3::FabricSwitchForwarder::DirectReceive", BooleanValue(true));
    Config::SetDefaultFailSafe("ns3::FabricHostPath::DirectReceive", BooleanValue(true));
    // Device queues: the fabric's drop-tail queue (same semantics and traces, less work per
    // packet) where ns-3's DropTailQueue<Packet> would be.
    Config::SetDefaultFailSafe("ns3::FabricNetwork::FastQueue", BooleanValue(true));
    Ns3Overrides().clear();
    ProgramFlags().emplace();
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg(argv[i]);
        const size_t dashes = arg.rfind("--", 0) == 0 ? 2 : (arg.rfind('-', 0) == 0 ? 1 : 0);
        const size_t eq = arg.find('=');
        const std::string name = arg.substr(dashes, eq == std::string::npos ? eq : eq - dashes);
        const bool hasValue = eq != std::string::npos;
        const std::string value = hasValue ? arg.substr(eq + 1) : "";
        if (dashes == 0 || name.empty())
        {
            throw std::invalid_argument("unexpected argument '" + arg
                                        + "' (flags are --name=value)");
        }
        if (bare.count(name))
        {
            if (hasValue)
            {
                throw std::invalid_argument("--" + name + " takes no value");
            }
            forCommandLine.push_back("--" + name);
            continue;
        }
        if (name == "PrintAttributes" || name == "PrintGroup")
        {
            if (value.empty())
            {
                throw std::invalid_argument("--" + name + " needs a value: --" + name + "=...");
            }
            if (name == "PrintAttributes")
            {
                CheckTypeIdName(value, "", "--PrintAttributes");
            }
            forCommandLine.push_back("--" + name + "=" + value);
            continue;
        }
        if (name.rfind("ns3::", 0) == 0)
        {
            const Ptr<const AttributeChecker> checker = AttributeCheckerOf(name);
            if (!checker)
            {
                throw std::invalid_argument("--" + name
                                            + ": no such attribute (flags of this kind are "
                                              "--ns3::Type::Attribute=value)");
            }
            if (value.empty())
            {
                throw std::invalid_argument("--" + name + " needs a value: --" + name + "=...");
            }
            CheckValueText(checker, name, value);
            if (!Config::SetDefaultFailSafe(name, StringValue(value)))
            {
                throw std::invalid_argument("--" + name + "='" + value
                                            + "' is not a valid value for this attribute");
            }
            Ns3Overrides().emplace_back(name, value);
            continue;
        }
        if (m_values.count(name))
        {
            if (m_set.count(name))
            {
                throw std::invalid_argument("flag --" + name + " is given twice");
            }
            const std::string& def = m_defaults.at(name);
            if (!hasValue && (def == "true" || def == "false"))
            {
                m_values[name] = "true"; // a bare boolean flag switches it on
            }
            else if (value.empty())
            {
                throw std::invalid_argument("flag --" + name + " needs a value: --" + name
                                            + "=...");
            }
            else
            {
                m_values[name] = value;
            }
            m_set.insert(name);
            if (name != "out")
            {
                ProgramFlags()->emplace_back(name, m_values[name]);
            }
            continue;
        }
        // ns-3 global values (--RngRun=3, --SchedulerType=...), checked like attributes.
        if (const Ptr<const AttributeChecker> global = GlobalCheckerOf(name))
        {
            if (value.empty())
            {
                throw std::invalid_argument("--" + name + " needs a value: --" + name + "=...");
            }
            CheckValueText(global, name, value);
            if (!GlobalValue::BindFailSafe(name, StringValue(value)))
            {
                throw std::invalid_argument("--" + name + "='" + value
                                            + "' is not a valid value for this ns-3 global "
                                              "value");
            }
            Ns3Overrides().emplace_back(name, value);
            continue;
        }
        std::string list;
        for (const auto& [n, v] : m_values)
        {
            list += (list.empty() ? "--" : ", --") + n;
        }
        throw std::invalid_argument("unknown flag '--" + name + "'; valid flags: " + list);
    }
    CheckAttributeConstraints();
    if (forCommandLine.size() > 1)
    {
        // --PrintHelp and friends: CommandLine prints and exits.
        std::vector<char*> args;
        for (auto& a : forCommandLine)
        {
            args.push_back(a.data());
        }
        m_cmd.Parse(static_cast<int>(args.size()), args.data());
    }
}

const std::vector<std::pair<std::string, std::string>>&
FabricNs3Overrides()
{
    return Ns3Overrides();
}

const std::vector<std::pair<std::string, std::string>>*
FabricProgramFlags()
{
    return ProgramFlags() ? &*ProgramFlags() : nullptr;
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

void
FabricCli::ReserveAttribute(const std::string& attribute, const std::string& instead) const
{
    for (const auto& [name, value] : Ns3Overrides())
    {
        if (name == attribute)
        {
            throw std::invalid_argument("--" + name + "=" + value + ": this program sets " + name
                                        + " itself on every run; use " + instead);
        }
    }
}

bool
FabricCli::IsSet(const std::string& name) const
{
    GetString(name); // declared?
    return m_set.count(name) > 0;
}

std::string
FabricCli::Show(const std::string& name) const
{
    const std::string v = GetString(name);
    return IsSet(name) ? "--" + name + "=" + v
                       : "the default --" + name + "=" + v + " (set --" + name + " to fit)";
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
        throw std::invalid_argument(Show(name) + " is out of range " + range);
    }
    return x;
}

double
FabricCli::GetDouble(const std::string& name, double lo, double hi, Bounds b) const
{
    const std::string v = GetString(name);
    const bool openLo = b == OPEN_LOW || b == OPEN;
    const bool openHi = b == OPEN_HIGH || b == OPEN;
    const std::string range
        = (openLo ? "(" : "[") + Fmt(lo) + ", " + Fmt(hi) + (openHi ? ")" : "]");
    if (!IsFiniteNumber(v))
    {
        throw std::invalid_argument("--" + name + "='" + v + "' must be a number in " + range);
    }
    const double x = std::strtod(v.c_str(), nullptr);
    if (x < lo || x > hi || (openLo && x == lo) || (openHi && x == hi))
    {
        throw std::invalid_argument(Show(name) + " is out of range " + range);
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

Time
FabricCli::GetTime(const std::string& name, Time::Unit unit, Time lo, Time hi) const
{
    const std::string v = GetString(name);
    const std::string range = "[" + Fmt(lo.ToDouble(unit)) + ", " + Fmt(hi.ToDouble(unit)) + "]";
    const __int128 fs = ExactFemtoseconds(v, unit, "--" + name + "='" + v + "'");
    const __int128 step = FsPer(Time::GetResolution());
    if (fs % step != 0)
    {
        throw std::invalid_argument("--" + name + "=" + v
                                    + " is finer than the simulator's time resolution");
    }
    if (fs / step > INT64_MAX)
    {
        throw std::invalid_argument(Show(name) + " is out of range " + range);
    }
    const Time t = TimeStep(static_cast<uint64_t>(fs / step));
    if (t < lo || t > hi)
    {
        throw std::invalid_argument(Show(name) + " is out of range " + range);
    }
    return t;
}

TypeId
FabricCli::GetTypeId(const std::string& name, const std::string& base) const
{
    return CheckTypeIdName(GetString(name), base, "--" + name);
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

int
RunFabricProgram(int argc, char* argv[], int (*body)(int, char*[]))
{
    // A reader that goes away (| head) must not kill the run before it writes its results;
    // writes to the closed pipe then just fail.
    std::signal(SIGPIPE, SIG_IGN);
    // Serialization times at 100 Gb/s and beyond are fractions of a nanosecond.
    UseFabricTimeResolution();
    int code = 0;
    try
    {
        code = body(argc, argv);
        const std::string failed = TakeFabricOutputErrors();
        if (!failed.empty())
        {
            throw std::runtime_error(failed);
        }
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
    catch (const std::bad_alloc&)
    {
        std::cerr << "error: out of memory; try smaller sizes\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: internal: " << e.what() << "\n";
        return 1;
    }
    catch (...)
    {
        std::cerr << "error: internal: unknown exception\n";
        return 1;
    }
    return code;
}

} // namespace ns3
