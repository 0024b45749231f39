// SPDX-License-Identifier: GPL-2.0-only
// FabricCli, RunFabricProgram and the output and limit checks, in process (issue 15): values
// taken whole, empty values and duplicates refused, exact fractional times, TypeIds checked
// against their base class, cross-attribute constraints, bad_alloc at the program boundary,
// atomic and checked writes, the resolution check and the packet accounting.
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#ifdef AIFABRIC_WITH_ROCE
#    include "ns3/roce-sender.h"
#endif

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <new>
#include <regex>
#include <utility>

using namespace ns3;

namespace
{

/// Parse \p args (after a program name) into a FabricCli with a few typical flags.
FabricCli
Parsed(std::vector<std::string> args)
{
    FabricCli cli("test");
    cli.Add("n", "count", "32");
    cli.Add("out", "folder", "results/x");
    cli.Add("stop-ms", "horizon", "100");
    cli.Add("full", "switch", "false");
    cli.Add("frac", "fraction", "0.25");
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    cli.Parse(static_cast<int>(argv.size()), argv.data());
    return cli;
}

/// The message of the std::invalid_argument \p f throws ("" if none).
template<typename F>
std::string
InvalidArgument(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

#ifdef AIFABRIC_WITH_ROCE
/// A call into libroce: without one the linker (--as-needed) drops the library and the
/// ns3::RoceSender TypeId is unknown in this process.
#    define LOAD_ROCE_TYPEIDS() RoceSender::GetTypeId()
#else
#    define LOAD_ROCE_TYPEIDS()
#endif

/// Skip a test that needs the roce module's TypeIds when they are not linked in (the
/// standalone sanitized hardening-unit-tests; fabric-unit-tests always has them).
#define REQUIRE_ROCE_TYPEIDS()                                      \
    do                                                              \
    {                                                               \
        LOAD_ROCE_TYPEIDS();                                        \
        TypeId tid;                                                 \
        if (!TypeId::LookupByNameFailSafe("ns3::RoceSender", &tid)) \
        {                                                           \
            GTEST_SKIP() << "ns3::RoceSender not linked in";        \
        }                                                           \
    } while (false)

/// The resolution RunFabricProgram sets; ns-3 allows setting it only once per process.
void
UsePicoseconds()
{
    if (Time::GetResolution() != Time::PS)
    {
        Time::SetResolution(Time::PS);
    }
}

std::string
TempPath(const std::string& name)
{
    return (std::filesystem::temp_directory_path()
            / ("aifabric-cli-" + name + "-" + std::to_string(::getpid())))
        .string();
}

} // namespace

TEST(FabricCli, ValuesAreTakenWhole)
{
    EXPECT_EQ(Parsed({"--out=sp ace/x y"}).GetString("out"), "sp ace/x y");
    // "--n=32 junk" as one argument: the whole value is checked, so it is an error.
    const std::string e = InvalidArgument([] { Parsed({"--n=32 junk"}).GetUint("n", 1, 100); });
    EXPECT_NE(e.find("--n='32 junk' must be an integer"), std::string::npos) << e;
    EXPECT_NE(InvalidArgument([] { Parsed({"--frac=0.5x"}).GetDouble("frac", 0, 1); }), "");
    EXPECT_NE(InvalidArgument([] { Parsed({"--frac= 0.5"}).GetDouble("frac", 0, 1); }), "");
    EXPECT_NE(InvalidArgument([] { Parsed({"--frac=nan"}).GetDouble("frac", 0, 1); }), "");
    EXPECT_NE(InvalidArgument([] { Parsed({"--frac=0x1p-2"}).GetDouble("frac", 0, 1); }), "");
}

TEST(FabricCli, EmptyValuesDuplicatesAndStrayArgumentsAreErrors)
{
    for (const std::string arg : {"--n=", "--out=", "--full=", "--RngRun="})
    {
        const std::string e = InvalidArgument([&] { Parsed({arg}); });
        EXPECT_NE(e.find("needs a value"), std::string::npos) << arg << ": " << e;
    }
    EXPECT_NE(InvalidArgument([] { Parsed({"--n"}); }).find("needs a value"), std::string::npos);
    EXPECT_NE(InvalidArgument(
                  [] {
                      Parsed({"--n=3", "--n=4"});
                  })
                  .find("given twice"),
              std::string::npos);
    EXPECT_NE(InvalidArgument([] { Parsed({"junk"}); }).find("unexpected argument"),
              std::string::npos);
    EXPECT_NE(InvalidArgument([] { Parsed({"--"}); }).find("unexpected argument"),
              std::string::npos);
    EXPECT_NE(InvalidArgument([] { Parsed({"--PrintHelp=1"}); }).find("takes no value"),
              std::string::npos);
    EXPECT_TRUE(Parsed({"--full"}).GetBool("full"));
}

TEST(FabricCli, IsSetMeansGivenNotDifferentFromTheDefault)
{
    EXPECT_TRUE(Parsed({"--n=32"}).IsSet("n")); // same text as the default, still given
    EXPECT_FALSE(Parsed({}).IsSet("n"));
}

TEST(FabricCli, ErrorsDoNotBlameFlagsTheUserDidNotSet)
{
    const std::string e = InvalidArgument([] { Parsed({}).GetUint("n", 1, 8); });
    EXPECT_NE(e.find("the default --n=32"), std::string::npos) << e;
    const std::string e2 = InvalidArgument([] { Parsed({"--n=9"}).GetUint("n", 1, 8); });
    EXPECT_EQ(e2.rfind("--n=9 is out of range [1, 8]", 0), 0u) << e2;
}

TEST(FabricCli, RangesPrintCompactlyWithOpenBounds)
{
    const std::string e
        = InvalidArgument([] { Parsed({"--frac=1"}).GetDouble("frac", 0, 1, FabricCli::OPEN); });
    EXPECT_NE(e.find("out of range (0, 1)"), std::string::npos) << e;
    EXPECT_NE(
        InvalidArgument([] { Parsed({"--frac=0"}).GetDouble("frac", 0, 1, FabricCli::OPEN); }), "");
    EXPECT_DOUBLE_EQ(Parsed({"--frac=0.999"}).GetDouble("frac", 0, 1, FabricCli::OPEN), 0.999);
}

TEST(FabricCli, FractionalTimesAreExact)
{
    UsePicoseconds();
    auto get = [](const std::string& v)
    {
        return Parsed({"--stop-ms=" + v}).GetTime("stop-ms", Time::MS, PicoSeconds(1), Seconds(10));
    };
    EXPECT_EQ(get("0.5"), MicroSeconds(500));
    EXPECT_EQ(get("1.9"), MicroSeconds(1900));
    EXPECT_EQ(get("0.000001"), NanoSeconds(1));
    EXPECT_EQ(get("0.000000001"), PicoSeconds(1));
    EXPECT_EQ(get("2"), MilliSeconds(2));
    EXPECT_EQ(get(".25"), MicroSeconds(250));
    EXPECT_NE(InvalidArgument([&] { get("0.0000000001"); }).find("finer"), std::string::npos);
    for (const std::string bad : {"1e-3", "-1", "0.5ms", "1,5", "abc", "1.2.3", "."})
    {
        EXPECT_NE(InvalidArgument([&] { get(bad); }), "") << bad;
    }
    EXPECT_NE(InvalidArgument([&] { get("0"); }).find("out of range [1e-09, 10000]"),
              std::string::npos)
        << InvalidArgument([&] { get("0"); });
    EXPECT_NE(InvalidArgument([&] { get("99999999999999999"); }), "");
}

TEST(FabricCli, BindsTheFabricEventCoreUnlessTheUserChoosesAnother)
{
    const auto current = [](const std::string& name)
    {
        StringValue v;
        GlobalValue::GetValueByName(name, v);
        return v.Get();
    };
    Parsed({});
    EXPECT_EQ(current("SimulatorImplementationType"), kFabricSimulatorImplName);
    EXPECT_EQ(current("SchedulerType"), kFabricSchedulerName);
    // The direct receive paths and the fabric's device queue too (false in the library), as
    // attribute defaults.
    for (const auto& [name, attribute] :
         {std::pair<const char*, const char*>{"ns3::FabricSwitchForwarder", "DirectReceive"},
          {"ns3::FabricHostPath", "DirectReceive"},
          {"ns3::FabricNetwork", "FastQueue"}})
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(name, &tid))
        {
            continue; // the sanitized hardening-unit-tests do not link the fabric's models
        }
        TypeId::AttributeInformation info;
        ASSERT_TRUE(tid.LookupAttributeByName(attribute, &info));
        EXPECT_EQ(info.initialValue->SerializeToString(info.checker), "true") << name;
        EXPECT_EQ(info.originalInitialValue->SerializeToString(info.checker), "false") << name;
    }
    // The user's flags are applied after the binding, and recorded as overrides.
    Parsed({"--SimulatorImplementationType=ns3::DefaultSimulatorImpl",
            "--SchedulerType=ns3::MapScheduler"});
    EXPECT_EQ(current("SimulatorImplementationType"), "ns3::DefaultSimulatorImpl");
    EXPECT_EQ(current("SchedulerType"), "ns3::MapScheduler");
    ASSERT_EQ(FabricNs3Overrides().size(), 2u);
    EXPECT_EQ(FabricNs3Overrides()[0].first, "SimulatorImplementationType");
    // ns-3's realtime core stays selectable.
    Parsed({"--SimulatorImplementationType=ns3::RealtimeSimulatorImpl"});
    EXPECT_EQ(current("SimulatorImplementationType"), "ns3::RealtimeSimulatorImpl");
    // A global value set in NS_GLOBAL_VALUE (ns-3 applied it when the value was created;
    // here by hand) is the user's choice and is not bound over.
    EXPECT_TRUE(SetInNsGlobalValueEnv("SchedulerType=ns3::HeapScheduler", "SchedulerType"));
    EXPECT_TRUE(SetInNsGlobalValueEnv("RngRun=2;SchedulerType=x", "SchedulerType"));
    EXPECT_FALSE(SetInNsGlobalValueEnv("RngRun=2", "SchedulerType"));
    EXPECT_FALSE(SetInNsGlobalValueEnv("SchedulerTypeX=1", "SchedulerType"));
    EXPECT_FALSE(SetInNsGlobalValueEnv(nullptr, "SchedulerType"));
    ASSERT_EQ(setenv("NS_GLOBAL_VALUE", "SchedulerType=ns3::HeapScheduler", 1), 0);
    GlobalValue::Bind("SchedulerType", StringValue("ns3::HeapScheduler"));
    Parsed({});
    EXPECT_EQ(current("SchedulerType"), "ns3::HeapScheduler");
    EXPECT_EQ(current("SimulatorImplementationType"), kFabricSimulatorImplName);
    ASSERT_EQ(unsetenv("NS_GLOBAL_VALUE"), 0);
    Parsed({}); // later writes in this process record nothing
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
}

TEST(FabricCli, TypeIdsMustExistAndDeriveFromTheirBase)
{
    REQUIRE_ROCE_TYPEIDS();
    EXPECT_NE(InvalidArgument([] { Parsed({"--PrintAttributes=ns3::NoSuchType"}); })
                  .find("not a known ns-3 TypeId"),
              std::string::npos);
    EXPECT_NE(InvalidArgument([] { Parsed({"--SchedulerType=ns3::Object"}); })
                  .find("is not a ns3::Scheduler"),
              std::string::npos);
    EXPECT_NE(InvalidArgument([] { Parsed({"--SimulatorImplementationType=ns3::Object"}); }), "");
    EXPECT_NE(InvalidArgument([] { Parsed({"--SchedulerType=ns3::Nope"}); }), "");
    EXPECT_NE(InvalidArgument([] { Parsed({"--ns3::RoceSender::RateControl=ns3::Object"}); })
                  .find("is not a ns3::RoceRateControl"),
              std::string::npos);
    EXPECT_NE(InvalidArgument([] { CheckTypeIdName("ns3::Scheduler", "ns3::Scheduler", "--x"); })
                  .find("no constructor"),
              std::string::npos);
    EXPECT_EQ(CheckTypeIdName("ns3::HeapScheduler", "ns3::Scheduler", "--x").GetName(),
              "ns3::HeapScheduler");
}

TEST(FabricCli, AttributeValuesThatNs3WouldAbortOnAreErrors)
{
    REQUIRE_ROCE_TYPEIDS();
    for (const std::string arg : {"--ns3::RoceSender::PacketSize=abc",
                                  "--ns3::RoceSender::PacketSize=-1",
                                  "--ns3::RoceSender::RtoHigh=1e300s",
                                  "--ns3::RoceSender::RtoHigh=5parsecs",
                                  "--ns3::EcnMarker::Pmax=nan",
                                  "--ns3::EcnMarker::Enabled=maybe",
                                  "--RngRun=abc"})
    {
        EXPECT_NE(InvalidArgument([&] { Parsed({arg}); }), "") << arg;
    }
}

TEST(FabricCli, CrossAttributeConstraintsAreCheckedBeforeTheRun)
{
    REQUIRE_ROCE_TYPEIDS();
    const std::string e = InvalidArgument([] { Parsed({"--ns3::EcnMarker::KminTime=50us"}); });
    EXPECT_NE(e.find("must not exceed --ns3::EcnMarker::KmaxTime"), std::string::npos) << e;
    Config::SetDefault("ns3::EcnMarker::KminTime", TimeValue(MicroSeconds(1)));
    const std::string e2 = InvalidArgument([] { Parsed({"--ns3::RoceSender::PacketSize=4200"}); });
    EXPECT_NE(e2.find("MTU"), std::string::npos) << e2;
    Config::SetDefault("ns3::RoceSender::PacketSize", UintegerValue(4096));
    EXPECT_EQ(InvalidArgument([] { Parsed({"--ns3::RoceSender::PacketSize=4160"}); }), "");
}

namespace
{
int
ThrowsBadAlloc(int, char*[])
{
    throw std::bad_alloc();
}

int
ThrowsLogicError(int, char*[])
{
    throw std::logic_error("bug");
}

/// Lowers the file size limit (ulimit -f) while alive: larger writes fail like a full disk.
class FileSizeLimit
{
  public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        std::signal(SIGXFSZ, SIG_IGN);
        ::getrlimit(RLIMIT_FSIZE, &m_old);
        rlimit rl{bytes, m_old.rlim_max};
        ::setrlimit(RLIMIT_FSIZE, &rl);
    }

    ~FileSizeLimit() { ::setrlimit(RLIMIT_FSIZE, &m_old); }

  private:
    rlimit m_old{};
};

std::string g_csvPath;

int
FailsToWriteACsv(int, char*[])
{
    FileSizeLimit limit(64);
    CsvWriter csv(g_csvPath, {"a"});
    csv.Row({std::string(1000, 'x')});
    return 0;
}
} // namespace

TEST(RunFabricProgram, OutOfMemoryIsACleanError)
{
    UsePicoseconds(); // as RunFabricProgram does, outside the capture
    char prog[] = "prog";
    char* argv[] = {prog, nullptr};
    testing::internal::CaptureStderr();
    const int code = RunFabricProgram(1, argv, ThrowsBadAlloc);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 2);
    EXPECT_EQ(err.rfind("error: out of memory", 0), 0u) << err;
    testing::internal::CaptureStderr();
    EXPECT_EQ(RunFabricProgram(1, argv, ThrowsLogicError), 1);
    EXPECT_EQ(testing::internal::GetCapturedStderr().rfind("error: internal: bug", 0), 0u);
}

TEST(FabricResults, WritesAreAtomicAndChecked)
{
    const std::string dir = TempPath("atomic");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    {
        // A full disk: writes past a file size limit fail (EFBIG).
        FileSizeLimit limit(64);
        EXPECT_THROW(WriteFilesAtomically({{dir + "/a.json", "{}", "--a"},
                                           {dir + "/big.json", std::string(1000, 'x'), "--big"},
                                           {dir + "/b.json", "{}", "--b"}}),
                     std::runtime_error);
        EXPECT_THROW(WriteFileAtomically(dir + "/big.json", std::string(1000, 'x')),
                     std::runtime_error);
    }
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                            std::filesystem::directory_iterator()),
              0);
    // A device is written in place, not replaced by a file.
    WriteFileAtomically("/dev/null", "{}");
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
    EXPECT_THROW(WriteFileAtomically(dir + "/missing/x.json", "{}"), std::runtime_error);
    WriteFilesAtomically({{dir + "/a.json", "1", "--a"}, {dir + "/b.json", "2", "--b"}});
    EXPECT_TRUE(std::filesystem::exists(dir + "/a.json"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/b.json"));
    // A CSV appears only when complete; an exception in flight leaves none.
    try
    {
        CsvWriter csv(dir + "/t.csv", {"a", "b"});
        csv.Row({"1", "2"});
        EXPECT_FALSE(std::filesystem::exists(dir + "/t.csv"));
        throw std::invalid_argument("late validation error");
    }
    catch (const std::invalid_argument&)
    {
    }
    EXPECT_FALSE(std::filesystem::exists(dir + "/t.csv"));
    {
        CsvWriter csv(dir + "/t.csv", {"a", "b"});
        csv.Row({"1", "2"});
    }
    std::ifstream in(dir + "/t.csv");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(all, "a,b\n1,2\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                            std::filesystem::directory_iterator()),
              3); // a.json, b.json, t.csv: no temporary files left
    // A CSV whose write failed makes the program exit with 2.
    UsePicoseconds();
    char prog[] = "prog";
    char* argv[] = {prog, nullptr};
    g_csvPath = dir + "/fail.csv";
    testing::internal::CaptureStderr();
    EXPECT_EQ(RunFabricProgram(1, argv, FailsToWriteACsv), 2);
    EXPECT_NE(testing::internal::GetCapturedStderr().find("error: cannot write " + g_csvPath),
              std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(g_csvPath));
    std::filesystem::remove_all(dir);
}

TEST(FabricResults, SummaryRecordsTheNs3OverridesOfTheRun)
{
    const std::string dir = TempPath("overrides");
    std::filesystem::remove_all(dir);
    FabricResults out(dir);
    const auto read = [&](const std::string& file)
    {
        std::ifstream in(out.Path(file));
        return nlohmann::json::parse(in);
    };
    Parsed({"--n=8"});
    out.WriteSummary({{"a", 1}});
    EXPECT_FALSE(read("summary.json").contains("ns3_overrides")); // none given: unchanged
    EXPECT_EQ(read("summary.json")["program_flags"], (nlohmann::json{{"n", "8"}}));
    // Defaults only: an empty record (the run used every default), not a missing one.
    Parsed({});
    out.WriteSummary({{"a", 1}});
    EXPECT_EQ(read("summary.json")["program_flags"], nlohmann::json::object());
    // --out is where results go, not a parameter of them; a bare boolean reads "true"; values
    // are kept as written (the doc-tables check compares them with its registry's text).
    Parsed({"--out=" + dir, "--full", "--stop-ms=0.50", "--n=8"});
    out.WriteSummary({{"a", 1}});
    EXPECT_EQ(read("summary.json")["program_flags"],
              (nlohmann::json{{"full", "true"}, {"stop-ms", "0.50"}, {"n", "8"}}));
    nlohmann::json notAnObject = nlohmann::json::array({1});
    EXPECT_NE(InvalidArgument([&] { AddProgramFlags(notAnObject); }).find("JSON object"),
              std::string::npos);
    Parsed({"--n=8"});
    Parsed({"--ns3::UniformRandomVariable::Max=9",
            "--n=8",
            "--RngRun=3",
            "--ns3::UniformRandomVariable::Max=8"});
    out.WriteSummary({{"a", 1}});
    out.WriteSummary({{"b", 2}}, "run-2.json");
    // WriteJson writes what it is given, whatever the file's name; only WriteSummary adds.
    out.WriteJson("summary-as-is.json", {{"a", 1}});
    const nlohmann::json s = read("summary.json");
    EXPECT_EQ(s["a"], 1);
    // The last value of a name given twice is the one ns-3 applied.
    const nlohmann::json expected{{"ns3::UniformRandomVariable::Max", "8"}, {"RngRun", "3"}};
    EXPECT_EQ(s["ns3_overrides"], expected);
    const nlohmann::json flags{{"n", "8"}};
    EXPECT_EQ(read("run-2.json"),
              (nlohmann::json{{"b", 2},
                              {"program_flags", flags},
                              {"ns3_overrides", expected},
                              {"code_version", AiFabricCodeVersion()}}));
    // git describe --long of the checkout (12 hex digits, maybe a tag and a count before
    // them, maybe -dirty); "unknown" only where the build was not made from a git checkout
    const std::string version = AiFabricCodeVersion();
    EXPECT_TRUE(
        std::regex_match(version, std::regex("unknown|(.+-[0-9]+-g)?[0-9a-f]{12}(-dirty)?")))
        << version;
    if (std::filesystem::exists(std::string(AIFABRIC_SOURCE_DIR) + "/.git")
        && std::system("git --version > /dev/null 2>&1") == 0)
    {
        EXPECT_NE(version, "unknown") << "built from a git checkout, yet no code version";
    }
    EXPECT_EQ(read("summary-as-is.json"), (nlohmann::json{{"a", 1}}));
    nlohmann::json j{{"c", 3}};
    AddNs3Overrides(j);
    EXPECT_EQ(j, (nlohmann::json{{"c", 3}, {"ns3_overrides", expected}}));
    nlohmann::json notObject = nlohmann::json::array({1, 2});
    EXPECT_NE(InvalidArgument([&] { AddNs3Overrides(notObject); }).find("JSON object"),
              std::string::npos);
    // An attribute the program sets itself is refused, naming the flag to use.
    FabricCli cli = Parsed({"--ns3::UniformRandomVariable::Max=9"});
    const std::string e = InvalidArgument(
        [&] { cli.ReserveAttribute("ns3::UniformRandomVariable::Max", "--seeds"); });
    EXPECT_NE(e.find("--ns3::UniformRandomVariable::Max=9: this program sets"), std::string::npos)
        << e;
    EXPECT_NE(e.find("use --seeds"), std::string::npos) << e;
    EXPECT_EQ(
        InvalidArgument([&] { cli.ReserveAttribute("ns3::UniformRandomVariable::Min", "x"); }), "");
    Parsed({}); // later writes in this process record nothing
    Config::SetDefault("ns3::UniformRandomVariable::Max", DoubleValue(1.0));
    GlobalValue::Bind("RngRun", UintegerValue(1));
    std::filesystem::remove_all(dir);
}

TEST(FabricChecks, SerializationResolution)
{
    UsePicoseconds();
    // 4138 bytes at 100 Tb/s: 331 ps, within 0.25% at 1 ps steps.
    EXPECT_NO_THROW(CheckSerializationResolution(100e12, 4138, "--link-rate-gbps"));
    const std::string e
        = InvalidArgument([] { CheckSerializationResolution(100e12, 94, "--link-rate-gbps"); });
    EXPECT_NE(e.find("--link-rate-gbps is too fast"), std::string::npos) << e;
}

TEST(FabricChecks, MemoryBudget)
{
    ::setenv("AIFABRIC_MEMORY_LIMIT_MB", "100", 1);
    EXPECT_EQ(FabricMemoryBudgetBytes(), 100000000u);
    const std::string e = InvalidArgument([] { CheckFabricMemory(2e8, "--n=9"); });
    EXPECT_NE(e.find("--n=9 would need about 0.2 GB"), std::string::npos) << e;
    EXPECT_NO_THROW(CheckFabricMemory(5e7, "--n=9"));
    ::unsetenv("AIFABRIC_MEMORY_LIMIT_MB");
    EXPECT_GT(FabricMemoryBudgetBytes(), 100000000u);
    EXPECT_NE(InvalidArgument([] { CheckFabricRunTime(1e6, "--n=9"); }).find("hours"),
              std::string::npos);
}

TEST(FabricChecks, PacketAccounting)
{
    const auto j = PacketAccountingJson(100, 90, {{"queue-full", 4}, {"no-route", 1}}, true);
    EXPECT_EQ(j["sent_packets"], 100);
    EXPECT_EQ(j["dropped_packets"], 5);
    EXPECT_EQ(j["dropped_by_reason"]["queue-full"], 4);
    EXPECT_EQ(j["in_flight_at_stop"], 5);
    EXPECT_EQ(j["stopped_at_horizon"], true);
    EXPECT_THROW(PacketAccountingJson(10, 9, {{"x", 2}}, false), std::logic_error);
}
