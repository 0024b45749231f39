// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-controller.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/ocs-logical-solver.h"
#include "ns3/ocs-setup.h"
#include "ns3/simulator.h"

#include <chrono>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OcsController");
NS_OBJECT_ENSURE_REGISTERED(OcsController);

TypeId
OcsController::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::OcsController")
              .SetParent<Object>()
              .SetGroupName("OcsNet")
              .AddConstructor<OcsController>()
              .AddAttribute("Algorithm",
                            "OCS configuration algorithm (exact is refused on Uniform)",
                            EnumValue(static_cast<int>(OcsAlgorithm::EXACT)),
                            MakeEnumAccessor(&OcsController::m_algorithm),
                            MakeOcsAlgorithmChecker())
              .AddAttribute("TimeLimitMs",
                            "Time bound of the DFS and ILP algorithms (ms, > 0)",
                            DoubleValue(1000),
                            MakeDoubleAccessor(&OcsController::m_timeLimitMs),
                            MakeDoubleChecker<double>(1e-3))
              .AddAttribute("SolveTime",
                            "Solve time counted in simulated time (unless MeasureSolveTime)",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&OcsController::m_solveTime),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("MeasureSolveTime",
                            "Count the measured wall time of the solve instead of SolveTime "
                            "(results then vary from run to run)",
                            BooleanValue(false),
                            MakeBooleanAccessor(&OcsController::m_measureSolveTime),
                            MakeBooleanChecker())
              .AddAttribute("Overlap",
                            "Computation overlapping the solve (MoE pipelining): only the solve "
                            "time beyond it delays the reconfiguration",
                            TimeValue(Time(0)),
                            MakeTimeAccessor(&OcsController::m_overlap),
                            MakeTimeChecker(Time(0)));
    return tid;
}

OcsController::OcsController()
    : m_algorithm(static_cast<int>(OcsAlgorithm::EXACT))
{
    NS_LOG_FUNCTION(this);
}

void
OcsController::DoDispose()
{
    m_applyEvent.Cancel();
    m_done = MakeNullCallback<void, const OcsControllerStep&>();
    m_fabric = nullptr;
    Object::DoDispose();
}

OcsConfigResult
OcsController::Plan(const std::vector<double>& demand, double* mlu, OcsMatrix* logical) const
{
    if (!m_fabric)
    {
        throw std::logic_error("OcsController: SetFabric first");
    }
    const OcsWiring& w = m_fabric->GetWiring();
    const auto t0 = std::chrono::steady_clock::now();
    const OcsLogicalSolution sol = SolveLogicalTopologyMlu(demand, w.GetEgs(), w.GetPortsPerEg());
    OcsConfigResult r = OcsConfigurator(w).Configure(sol.logical, GetAlgorithm(), m_timeLimitMs);
    r.solveUs
        = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (mlu)
    {
        *mlu = sol.mlu;
    }
    if (logical)
    {
        *logical = sol.logical;
    }
    return r;
}

OcsControllerStep
OcsController::Install(const std::vector<double>& demand)
{
    NS_LOG_FUNCTION(this);
    OcsControllerStep step;
    const OcsConfigResult r = Plan(demand, &step.mlu, &step.logical);
    m_fabric->SetCircuits(r.circuits);
    step.requested = Simulator::Now();
    step.measuredSolveUs = r.solveUs;
    step.ltcr = r.ltcr;
    step.realized = r.realized;
    step.reconfig.requested = step.reconfig.switchStart = step.reconfig.end = Simulator::Now();
    m_steps.push_back(step);
    return step;
}

void
OcsController::Apply(const std::vector<double>& demand,
                     Callback<void, const OcsControllerStep&> done)
{
    NS_LOG_FUNCTION(this);
    if (m_busy)
    {
        throw std::logic_error("OcsController: a reconfiguration is already under way");
    }
    m_current = OcsControllerStep{};
    const OcsConfigResult r = Plan(demand, &m_current.mlu, &m_current.logical);
    m_current.requested = Simulator::Now();
    m_current.measuredSolveUs = r.solveUs;
    m_current.solveTime = m_measureSolveTime ? Time::FromDouble(r.solveUs, Time::US) : m_solveTime;
    m_current.unhiddenSolve
        = m_current.solveTime > m_overlap ? m_current.solveTime - m_overlap : Time(0);
    m_current.ltcr = r.ltcr;
    m_current.realized = r.realized;
    m_pending = r.circuits;
    m_done = done;
    m_busy = true;
    m_fabric->SetReconfigurationDoneCallback(MakeCallback(&OcsController::Reconfigured, this));
    m_applyEvent = Simulator::Schedule(m_current.unhiddenSolve,
                                       [this]() { m_fabric->Reconfigure(m_pending); });
}

void
OcsController::Reconfigured(const OcsReconfigRecord& rec)
{
    NS_LOG_FUNCTION(this);
    m_busy = false;
    m_current.reconfig = rec;
    m_steps.push_back(m_current);
    if (!m_done.IsNull())
    {
        m_done(m_current);
    }
}

} // namespace ns3
