// SPDX-License-Identifier: GPL-2.0-only
// The fixture of every GoogleTest that runs the ns-3 simulator (NS3-NOTES, "Tests"): seed and
// run fixed before each test, simulator and attribute defaults reset after it, so tests do not
// see each other's state when gtest runs several in one process.
#ifndef NS3_SIM_FIXTURE_H
#define NS3_SIM_FIXTURE_H

#include "ns3/config.h"
#include "ns3/fabric-checks.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace ns3
{

/**
 * Sets the project's 1 ps resolution before the first test of a binary that includes this
 * header runs: ns-3 converts every Time it knows of when the resolution changes, and after a
 * simulation has run in the process that conversion crashes, so a plain test (no fixture) that
 * runs first at ns-3's default 1 ns and a later one that raises the resolution could not share
 * a process (ctest runs one test per process; a whole binary run at once did crash).
 */
class FabricTimeResolutionEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override { UseFabricTimeResolution(); }
};

/// Registered once per program (an inline variable), before main runs the tests.
inline ::testing::Environment* const g_fabricTimeResolution
    = ::testing::AddGlobalTestEnvironment(new FabricTimeResolutionEnvironment);

/// \p Base: ::testing::Test, or ::testing::TestWithParam<T> for parameterized tests.
template<typename Base = ::testing::Test>
class Ns3SimFixture : public Base
{
  protected:
    void SetUp() override
    {
        // The resolution of the project's programs (RunFabricProgram); the run drivers refuse
        // 1 ns with fast links. ns-3 allows setting it once per process, before the first
        // network: the first test sets it.
        UseFabricTimeResolution();
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

/// The plain (not parameterized) fixture.
using Ns3SimTest = Ns3SimFixture<>;

} // namespace ns3

#endif // NS3_SIM_FIXTURE_H
