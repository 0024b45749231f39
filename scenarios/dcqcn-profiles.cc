// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN per link speed: how long the reaction point takes to return to line rate after a burst
// of cuts, on an otherwise empty link, under three published parameter profiles.
//
// Experiment. One DcqcnRateControl (the model every RoCE queue pair uses, with its own timers)
// starts at line rate; --cuts CNPs arrive --cnp-interval-us apart (one per receiver CNP
// interval, as in a short incast); then none. A sender sends full data packets back to back at
// the current rate, so the byte counter advances as on an empty link. Reported: the rate after
// the cuts and the time from the last cut until the rate is back at 50%, 90% and 100% of line
// rate, per profile and link speed.
//
// Profiles (attributes of ns3::DcqcnRateControl; sources in doc/roce.md):
//   paper    DCQCN paper constants, increase steps not scaled with the line rate
//            (R_AI 40 Mb/s, R_HAI 200 Mb/s, timers 55 us, byte counter 10 MB, F = 5)
//   default  this project's defaults: the paper's, with R_AI and R_HAI x line rate / 40 Gb/s
//   fast     a what-if, not published: the defaults with a 10x faster rate-increase timer
//            (5.5 us)
// HPCC's run.py "dcqcn" constants are not offered: its code enters hyper increase on the timer
// alone, this model (the paper's rule) only once the byte counter is past F too, so its
// constants here would not behave as in HPCC.
//
//   ./build/bin/dcqcn-profiles --out=results/dcqcn-profiles
#include "ns3/core-module.h"
#include "ns3/fabric-checks.h"
#include "ns3/fabric-cli.h"
#include "ns3/fabric-results.h"
#include "ns3/roce-rate-control.h"

#include <iomanip>
#include <iostream>
#include <numeric>

using namespace ns3;
using json = nlohmann::json;

namespace
{

/// A profile: DcqcnRateControl attributes that differ from the defaults.
struct Profile
{
    std::string name;
    std::vector<std::pair<std::string, std::shared_ptr<AttributeValue>>> attributes;
};

std::vector<Profile>
Profiles()
{
    auto v = [](const auto& value)
    {
        return std::make_shared<std::decay_t<decltype(value)>>(value);
    };
    return {{"paper", {{"ScaleIncreaseWithLineRate", v(BooleanValue(false))}}},
            {"default", {}},
            {"fast", {{"RateIncreaseInterval", v(TimeValue(NanoSeconds(5500)))}}}};
}

/// One recovery: rate samples and the times (from the last cut) to reach fractions of line.
struct Recovery
{
    double afterCutsBps{0};
    std::vector<double> reachS{-1, -1, -1};         //!< 50%, 90%, 100% (-1: not within the horizon)
    std::vector<std::pair<double, double>> samples; //!< (t since last cut in us, Gb/s)
};

const std::vector<double> kFractions{0.5, 0.9, 1.0};

Recovery
Measure(const Profile& profile,
        double lineBps,
        uint32_t cuts,
        Time cnpInterval,
        Time horizon,
        Time sampleEvery,
        uint32_t wireBytes)
{
    ObjectFactory f("ns3::DcqcnRateControl");
    for (const auto& [name, value] : profile.attributes)
    {
        f.Set(name, *value);
    }
    Ptr<RoceRateControl> rc = f.Create<RoceRateControl>();
    rc->Start(lineBps);
    Recovery r;
    const Time lastCut = cnpInterval * (cuts - 1);
    for (uint32_t c = 0; c < cuts; ++c)
    {
        Simulator::Schedule(cnpInterval * c, &RoceRateControl::OnCnp, rc);
    }
    Simulator::Schedule(lastCut, [&] { r.afterCutsBps = rc->GetRateBps(); });
    // The sender: one full packet at a time, paced at the current rate.
    std::function<void()> send = [&]
    {
        rc->OnSent(wireBytes);
        Simulator::Schedule(Seconds(8.0 * wireBytes / rc->GetRateBps()), send);
    };
    Simulator::Schedule(Seconds(0), send);
    std::function<void()> sample = [&]
    {
        const double t = (Simulator::Now() - lastCut).GetSeconds();
        const double rate = rc->GetRateBps();
        r.samples.emplace_back(t * 1e6, rate / 1e9);
        for (size_t i = 0; i < kFractions.size(); ++i)
        {
            if (r.reachS[i] < 0 && rate >= kFractions[i] * lineBps * (1 - 1e-12))
            {
                r.reachS[i] = t;
            }
        }
        if (r.reachS.back() < 0)
        {
            Simulator::Schedule(sampleEvery, sample);
        }
    };
    Simulator::Schedule(lastCut + sampleEvery, sample);
    Simulator::Stop(lastCut + horizon);
    Simulator::Run();
    rc->Stop();
    Simulator::Destroy();
    return r;
}

std::string
Ms(double s)
{
    return s < 0 ? "never" : FormatNumber(s * 1e3, 3);
}

int
Run(int argc, char* argv[])
{
    FabricCli cli(__FILE__, "DCQCN recovery after a burst of cuts, per profile and link speed.");
    cli.Add("rates-gbps", "comma list of line rates in Gb/s", "25,100,200,400");
    cli.Add("cuts", "CNPs in the burst", "3");
    cli.Add("cnp-interval-us", "time between the burst's CNPs (microseconds)", "50");
    cli.Add("horizon-ms", "how long to wait for line rate after the last cut (ms)", "20");
    cli.Add("sample-us", "rate sampling period (microseconds)", "5");
    cli.Add("out", "results folder", "results/dcqcn-profiles");
    cli.Parse(argc, argv);
    // The profiles set these; a command-line default would be silently overridden.
    for (const char* attribute : {"ns3::DcqcnRateControl::RateIncreaseInterval",
                                  "ns3::DcqcnRateControl::ScaleIncreaseWithLineRate"})
    {
        cli.ReserveAttribute(attribute, "the profile table (edit Profiles() for others)");
    }
    std::vector<double> rates;
    for (const auto& item : cli.GetList("rates-gbps"))
    {
        try
        {
            size_t used = 0;
            const double g = std::stod(item, &used);
            if (used != item.size() || !(g >= 1 && g <= 1600))
            {
                throw std::invalid_argument("");
            }
            rates.push_back(g * 1e9);
        }
        catch (const std::exception&)
        {
            throw std::invalid_argument("--rates-gbps: '" + item
                                        + "' must be a number in [1, 1600]");
        }
    }
    const auto cuts = static_cast<uint32_t>(cli.GetUint("cuts", 1, 100));
    const Time cnpInterval
        = cli.GetTime("cnp-interval-us", Time::US, NanoSeconds(1), MilliSeconds(10));
    const Time horizon = cli.GetTime("horizon-ms", Time::MS, MicroSeconds(10), Seconds(10));
    const Time sampleEvery = cli.GetTime("sample-us", Time::US, NanoSeconds(100), MilliSeconds(1));
    CheckFabricRunTime(1e-6 * rates.size() * 3 * horizon.GetSeconds() / sampleEvery.GetSeconds()
                           + 2e-7 * 3 * horizon.GetSeconds()
                                 * std::accumulate(rates.begin(), rates.end(), 0.0) / 8 / 4138,
                       "--rates-gbps, --horizon-ms, --sample-us");
    FabricResults out(cli.GetString("out"));
    const uint32_t wireBytes = static_cast<uint32_t>(RoceDataWireBytes());

    json summary;
    summary["params"] = {{"cuts", cuts},
                         {"cnp_interval_us", cnpInterval.ToDouble(Time::US)},
                         {"horizon_ms", horizon.ToDouble(Time::MS)},
                         {"packet_wire_bytes", wireBytes}};
    CsvWriter csv(out.Path("recovery.csv"), {"profile", "line_gbps", "t_us", "gbps"});
    std::cout << "DCQCN recovery after " << cuts << " cuts " << cnpInterval.ToDouble(Time::US)
              << " us apart, empty link; time from the last cut (ms)\n"
              << std::left << std::setw(9) << "profile" << std::right << std::setw(8) << "line"
              << std::setw(13) << "after cuts" << std::setw(9) << "50%" << std::setw(9) << "90%"
              << std::setw(9) << "100%"
              << "\n";
    Gnuplot plot;
    plot.SetTerminal("pngcairo size 900,500");
    plot.SetTitle("DCQCN rate after " + std::to_string(cuts) + " cuts, "
                  + FormatNumber(rates.back() / 1e9) + " Gb/s line");
    plot.SetLegend("time since the last cut (us)", "rate (Gb/s)");
    plot.AppendExtra("set key bottom right");
    for (const Profile& profile : Profiles())
    {
        for (double line : rates)
        {
            const Recovery r
                = Measure(profile, line, cuts, cnpInterval, horizon, sampleEvery, wireBytes);
            std::cout << std::left << std::setw(9) << profile.name << std::right << std::setw(8)
                      << FormatNumber(line / 1e9) << std::setw(13)
                      << FormatNumber(r.afterCutsBps / 1e9, 4) << std::setw(9) << Ms(r.reachS[0])
                      << std::setw(9) << Ms(r.reachS[1]) << std::setw(9) << Ms(r.reachS[2]) << "\n";
            json reach;
            for (size_t i = 0; i < kFractions.size(); ++i)
            {
                reach[FormatNumber(kFractions[i] * 100) + "%"]
                    = r.reachS[i] < 0 ? json(nullptr) : json(r.reachS[i] * 1e6);
            }
            summary["runs"].push_back({{"profile", profile.name},
                                       {"line_gbps", line / 1e9},
                                       {"rate_after_cuts_gbps", r.afterCutsBps / 1e9},
                                       {"reach_us", reach}});
            for (const auto& [t, g] : r.samples)
            {
                csv.Row({profile.name, FormatNumber(line / 1e9), FormatNumber(t), FormatNumber(g)});
            }
            if (line == rates.back())
            {
                Gnuplot2dDataset ds(profile.name);
                ds.SetStyle(Gnuplot2dDataset::LINES);
                for (const auto& [t, g] : r.samples)
                {
                    ds.Add(t, g);
                }
                plot.AddDataset(ds);
            }
        }
    }
    csv.Close();
    out.WritePng("recovery.png", plot);
    out.WriteSummary(summary);
    std::cout << "'never': not back within --horizon-ms\nwrote " << out.Path("summary.json")
              << ", recovery.csv, recovery.png\n";
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return RunFabricProgram(argc, argv, Run);
}
