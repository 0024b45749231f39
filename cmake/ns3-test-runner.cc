// SPDX-License-Identifier: GPL-2.0-only
// Runs the ns-3 TestSuites linked into this binary (what ns-3's test.py runner does in-tree).
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
