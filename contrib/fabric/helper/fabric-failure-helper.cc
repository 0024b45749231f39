// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-failure-helper.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFailureHelper");

namespace
{

/// The time units of the spec grammar: printed (ToString, at the resolution's unit) and
/// parsed (ParseTime) from one table.
struct SpecTimeUnit
{
    const char* name;
    Time::Unit unit;
    long double seconds;
};

constexpr SpecTimeUnit SPEC_TIME_UNITS[] = {{"s", Time::S, 1e0L},
                                            {"ms", Time::MS, 1e-3L},
                                            {"us", Time::US, 1e-6L},
                                            {"ns", Time::NS, 1e-9L},
                                            {"ps", Time::PS, 1e-12L},
                                            {"fs", Time::FS, 1e-15L}};

} // namespace

std::string
FabricFailureEvent::Element() const
{
    switch (kind)
    {
    case Kind::LINK:
        return "link:" + std::to_string(id);
    case Kind::DIR_LINK:
        return "dirlink:" + std::to_string(id);
    case Kind::SWITCH:
        return "switch:" + std::to_string(id);
    case Kind::NODE:
        return "node:" + std::to_string(id);
    case Kind::NIC:
        return "nic:" + std::to_string(id) + "/" + std::to_string(port);
    }
    return "?";
}

std::string
FabricFailureEvent::ToString() const
{
    // Whole ticks of the resolution, with its unit, print exactly and parse back to the same
    // time (the unit was left out at any resolution but ns, which the parser refuses).
    const char* unit = nullptr;
    for (const auto& u : SPEC_TIME_UNITS)
    {
        unit = u.unit == Time::GetResolution() ? u.name : unit;
    }
    const std::string when
        = unit ? std::to_string(at.GetInteger()) + unit : std::to_string(at.GetSeconds()) + "s";
    return (repair ? "repair:" : "") + Element() + "@" + when;
}

namespace
{

[[noreturn]] void
Bad(const std::string& token, const std::string& expected)
{
    throw std::invalid_argument("failure spec: token '" + token + "': expected " + expected);
}

const char* const GRAMMAR = "[repair:]link:L|dirlink:D|switch:N|node:N|nic:H/P@TIME";

uint32_t
ParseId(const std::string& token, const std::string& text, const std::string& what)
{
    if (text.empty() || text.size() > 9
        || text.find_first_not_of("0123456789") != std::string::npos)
    {
        Bad(token, what + " as a non-negative integer, got '" + text + "'");
    }
    return static_cast<uint32_t>(std::stoul(text));
}

Time
ParseTime(const std::string& token, const std::string& text)
{
    static const std::regex re(
        "^([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?(s|ms|us|ns|ps|fs)$");
    std::smatch m;
    if (!std::regex_match(text, m, re))
    {
        Bad(token,
            "a time >= 0 with a unit (s, ms, us, ns, ps, fs), e.g. 50us or 1.5ms, got '" + text
                + "'");
    }
    const std::string unit = m[4];
    long double factor = 0;
    for (const auto& u : SPEC_TIME_UNITS)
    {
        factor = unit == u.name ? u.seconds : factor;
    }
    const long double seconds = std::stold(text.substr(0, text.size() - unit.size())) * factor;
    if (seconds > 1e6L)
    {
        Bad(token, "a time of at most 1e6 s, got '" + text + "'");
    }
    // ns-3 truncates to its resolution: refuse a time that is not a whole number of it.
    // Ticks per second is an exact integer; Time::From(1).GetSeconds() is not exact (a 64-bit
    // fraction: at ps it is 4e-9 short, so 200us became 200000001 ps).
    const long double perSecond = static_cast<long double>(Seconds(1).GetTimeStep());
    const long double res = 1.0L / perSecond;
    const long double ticks = seconds * perSecond;
    if (std::fabs(ticks - std::round(ticks)) > 1e-6L * std::max(1.0L, ticks))
    {
        std::ostringstream r;
        r << static_cast<double>(res);
        Bad(token,
            "a time that is a whole number of the simulator's resolution (" + r.str() + " s), got '"
                + text + "'");
    }
    // From the whole number of ticks, not Time(text): ns-3 converts the text through a double
    // and truncates, e.g. Time("300us") is 299999999 ps at picosecond resolution.
    return Time::From(static_cast<int64_t>(std::llround(ticks)));
}

} // namespace

void
FabricFailureHelper::Check(const FabricFailureEvent& e,
                           const FabricGraph& g,
                           const std::string& spelled)
{
    const std::string token = spelled.empty() ? e.ToString() : spelled;
    auto range = [&](uint32_t v, uint32_t n, const std::string& what)
    {
        if (v >= n)
        {
            Bad(token, what + " in [0, " + std::to_string(n) + ")");
        }
    };
    switch (e.kind)
    {
    case FabricFailureEvent::Kind::LINK:
        range(e.id, g.GetNLinks(), "a link id");
        break;
    case FabricFailureEvent::Kind::DIR_LINK:
        range(e.id, 2 * g.GetNLinks(), "a directed link id");
        break;
    case FabricFailureEvent::Kind::SWITCH:
        if (e.id < g.GetNHosts() || e.id >= g.GetNNodes())
        {
            Bad(token,
                "a switch node id in [" + std::to_string(g.GetNHosts()) + ", "
                    + std::to_string(g.GetNNodes()) + ") (use node:N for a host)");
        }
        break;
    case FabricFailureEvent::Kind::NODE:
        range(e.id, g.GetNNodes(), "a node id");
        break;
    case FabricFailureEvent::Kind::NIC:
        range(e.id, g.GetNHosts(), "a host id");
        range(e.port, g.GetNPorts(e.id), "a port of host " + std::to_string(e.id));
        break;
    }
    if (e.at.IsStrictlyNegative())
    {
        Bad(token, "a time >= 0");
    }
}

void
FabricFailureHelper::Apply(const FabricFailureEvent& e, FabricState& s)
{
    switch (e.kind)
    {
    case FabricFailureEvent::Kind::LINK:
        e.repair ? s.RepairLink(e.id) : s.FailLink(e.id);
        break;
    case FabricFailureEvent::Kind::DIR_LINK:
        e.repair ? s.RepairDirLink(e.id) : s.FailDirLink(e.id);
        break;
    case FabricFailureEvent::Kind::SWITCH:
    case FabricFailureEvent::Kind::NODE:
        e.repair ? s.RepairNode(e.id) : s.FailNode(e.id);
        break;
    case FabricFailureEvent::Kind::NIC:
    {
        const uint32_t link = s.GetGraph().GetPortLink(e.id, e.port);
        e.repair ? s.RepairLink(link) : s.FailLink(link);
        break;
    }
    }
}

void
FabricFailureHelper::ReplayPlan(std::vector<PlannedEvent> plan,
                                FabricState& scratch,
                                std::map<std::string, uint32_t> inForce)
{
    // Stable: at one time, the events run in the order given (a new one last).
    std::stable_sort(plan.begin(),
                     plan.end(),
                     [](const PlannedEvent& a, const PlannedEvent& b)
                     { return a.event.at < b.event.at; });
    for (const auto& [e, token] : plan)
    {
        try
        {
            Apply(e, scratch);
        }
        catch (const std::invalid_argument&)
        {
            Bad(token,
                "a repair of an element failed earlier (" + e.Element()
                    + " is not down at that time)");
        }
        // The state alone would take repair:dirlink:D for one direction of a failed link:L
        // (and leave the link half down), or repair:node:N for switch:N.
        if (!CountInForce(e, inForce))
        {
            Bad(token,
                "a repair naming a failed element as its failure did, same kind and id (no "
                "failure of "
                    + e.Element() + " is in force at that time)");
        }
    }
}

bool
FabricFailureHelper::CountInForce(const FabricFailureEvent& e,
                                  std::map<std::string, uint32_t>& inForce)
{
    uint32_t& n = inForce[e.Element()];
    if (!e.repair)
    {
        ++n;
        return true;
    }
    if (n == 0)
    {
        return false;
    }
    --n;
    return true;
}

std::vector<FabricFailureEvent>
FabricFailureHelper::Parse(const std::string& spec, const FabricGraph& g)
{
    std::vector<FabricFailureEvent> out;
    std::vector<std::string> tokens; // as spelt, for the errors
    if (spec.empty())
    {
        Bad(spec, std::string("at least one event ") + GRAMMAR);
    }
    size_t start = 0;
    while (start <= spec.size())
    {
        const size_t comma = spec.find(',', start);
        const std::string token
            = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
        if (token.empty())
        {
            Bad(token, std::string("an event ") + GRAMMAR + " between commas");
        }
        FabricFailureEvent e;
        std::string rest = token;
        if (rest.rfind("repair:", 0) == 0)
        {
            e.repair = true;
            rest = rest.substr(7);
        }
        const size_t at = rest.find('@');
        if (at == std::string::npos || rest.find('@', at + 1) != std::string::npos)
        {
            Bad(token, std::string("one '@' before the time: ") + GRAMMAR);
        }
        const std::string element = rest.substr(0, at);
        e.at = ParseTime(token, rest.substr(at + 1));
        const size_t colon = element.find(':');
        const std::string kind = element.substr(0, colon);
        const std::string id = colon == std::string::npos ? "" : element.substr(colon + 1);
        if (colon == std::string::npos)
        {
            Bad(token, std::string("an element kind:id, one of ") + GRAMMAR);
        }
        if (kind == "link")
        {
            e.kind = FabricFailureEvent::Kind::LINK;
            e.id = ParseId(token, id, "a link id");
        }
        else if (kind == "dirlink")
        {
            e.kind = FabricFailureEvent::Kind::DIR_LINK;
            e.id = ParseId(token, id, "a directed link id");
        }
        else if (kind == "switch")
        {
            e.kind = FabricFailureEvent::Kind::SWITCH;
            e.id = ParseId(token, id, "a switch node id");
        }
        else if (kind == "node")
        {
            e.kind = FabricFailureEvent::Kind::NODE;
            e.id = ParseId(token, id, "a node id");
        }
        else if (kind == "nic")
        {
            e.kind = FabricFailureEvent::Kind::NIC;
            const size_t slash = id.find('/');
            if (slash == std::string::npos)
            {
                Bad(token, "nic:HOST/PORT");
            }
            e.id = ParseId(token, id.substr(0, slash), "a host id");
            e.port = ParseId(token, id.substr(slash + 1), "a port number");
        }
        else
        {
            Bad(token, "an element kind link, dirlink, switch, node or nic, got '" + kind + "'");
        }
        Check(e, g, token);
        out.push_back(e);
        tokens.push_back(token);
    }
    // Every repair must follow a failure of the same element, in time order, named the same
    // way (ReplayPlan).
    std::vector<PlannedEvent> plan;
    for (size_t i = 0; i < out.size(); ++i)
    {
        plan.push_back({out[i], tokens[i]});
    }
    FabricState scratch(std::make_shared<FabricGraph>(g));
    ReplayPlan(std::move(plan), scratch, {});
    return out;
}

FabricFailureHelper::FabricFailureHelper(Ptr<FabricNetwork> net)
    : m_net(net),
      m_truth(net->GetState()),
      m_learners(std::make_shared<std::vector<Learner>>()),
      m_applied(std::make_shared<std::vector<uint8_t>>())
{
    if (!m_truth)
    {
        throw std::invalid_argument("FabricFailureHelper: the network has no state");
    }
}

void
FabricFailureHelper::Schedule(const std::string& spec)
{
    for (const auto& e : Parse(spec, m_net->GetGraph()))
    {
        Schedule(e);
    }
}

void
FabricFailureHelper::Schedule(const FabricFailureEvent& event)
{
    NS_LOG_FUNCTION(this << event.ToString());
    Check(event, m_net->GetGraph());
    if (event.at < Simulator::Now())
    {
        Bad(event.ToString(),
            "a time not before now (" + std::to_string(Simulator::Now().GetSeconds()) + " s)");
    }
    // Check the rest of the plan again in time order from the truth, as Parse checks a spec.
    // The events already applied are in the truth and are skipped by their flag, not by their
    // time: at the instant of an event, it may have run or not yet. They also say which
    // failures are in force, by the kind and id that named them.
    std::vector<PlannedEvent> plan;
    std::map<std::string, uint32_t> inForce;
    for (size_t i = 0; i < m_events.size(); ++i)
    {
        if ((*m_applied)[i])
        {
            CountInForce(m_events[i], inForce); // (a repair applied was checked: it counts)
        }
        else
        {
            plan.push_back({m_events[i], m_events[i].ToString()});
        }
    }
    plan.push_back({event, event.ToString()});
    FabricState scratch(m_truth->GetGraphPtr());
    scratch.CopyFrom(*m_truth);
    ReplayPlan(std::move(plan), scratch, std::move(inForce));
    const size_t index = m_events.size();
    m_events.push_back(event);
    m_applied->push_back(0);
    std::shared_ptr<FabricState> truth = m_truth;
    std::shared_ptr<std::vector<Learner>> learners = m_learners;
    std::shared_ptr<std::vector<uint8_t>> applied = m_applied;
    Simulator::Schedule(
        event.at - Simulator::Now(),
        [truth, learners, applied, index, event]()
        {
            NS_LOG_INFO("t=" << Simulator::Now().As(Time::US) << " " << event.ToString());
            Apply(event, *truth);
            (*applied)[index] = 1;
            for (const auto& l : *learners)
            {
                std::shared_ptr<FabricState> view = l.view;
                Simulator::Schedule(l.delay, [view, event]() { Apply(event, *view); });
            }
        });
}

void
FabricFailureHelper::LearnAfter(Ptr<FabricRouting> routing, Time delay)
{
    if (!routing || !routing->GetView()
        || routing->GetGraphPtr().get() != m_truth->GetGraphPtr().get())
    {
        throw std::invalid_argument("FabricFailureHelper::LearnAfter: routing must be bound to "
                                    "the network's graph");
    }
    if (delay.IsStrictlyNegative())
    {
        throw std::invalid_argument("FabricFailureHelper::LearnAfter: delay must be >= 0");
    }
    if (routing->GetView() == m_truth)
    {
        throw std::invalid_argument("FabricFailureHelper::LearnAfter: the routing's view is the "
                                    "physical state itself; give it a view of its own");
    }
    // A view that learns from now on first catches up with the failures already in force, so
    // that a later repair never repairs what the view never saw failed.
    routing->GetView()->CopyFrom(*m_truth);
    m_learners->push_back({routing->GetView(), delay});
}

namespace
{
FabricFailureEvent
MakeEvent(FabricFailureEvent::Kind kind, uint32_t id, bool repair, Time at)
{
    FabricFailureEvent e;
    e.kind = kind;
    e.id = id;
    e.repair = repair;
    e.at = at;
    return e;
}
} // namespace

void
FabricFailureHelper::FailLink(uint32_t link, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::LINK, link, false, at));
}

void
FabricFailureHelper::RepairLink(uint32_t link, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::LINK, link, true, at));
}

void
FabricFailureHelper::FailDirLink(uint32_t dirLink, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::DIR_LINK, dirLink, false, at));
}

void
FabricFailureHelper::RepairDirLink(uint32_t dirLink, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::DIR_LINK, dirLink, true, at));
}

void
FabricFailureHelper::FailSwitch(uint32_t node, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::SWITCH, node, false, at));
}

void
FabricFailureHelper::RepairSwitch(uint32_t node, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::SWITCH, node, true, at));
}

void
FabricFailureHelper::FailNode(uint32_t node, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::NODE, node, false, at));
}

void
FabricFailureHelper::RepairNode(uint32_t node, Time at)
{
    Schedule(MakeEvent(FabricFailureEvent::Kind::NODE, node, true, at));
}

void
FabricFailureHelper::FailNicPort(uint32_t host, uint32_t port, Time at)
{
    FabricFailureEvent e;
    e.kind = FabricFailureEvent::Kind::NIC;
    e.id = host;
    e.port = port;
    e.at = at;
    Schedule(e);
}

void
FabricFailureHelper::RepairNicPort(uint32_t host, uint32_t port, Time at)
{
    FabricFailureEvent e;
    e.kind = FabricFailureEvent::Kind::NIC;
    e.id = host;
    e.port = port;
    e.repair = true;
    e.at = at;
    Schedule(e);
}

} // namespace ns3
