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
