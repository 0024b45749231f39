// SPDX-License-Identifier: GPL-2.0-only
// FabricTextTable: widths, alignment, tails, and a row of the wrong size refused.
#include "ns3/fabric-table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

using namespace ns3;

TEST(FabricTextTable, AlignsCellsInTheirWidths)
{
    std::ostringstream os;
    const FabricTextTable t({{"name", 6, true}, {"x", 5}, {"y", 4}}, os);
    t.PrintHeader("  tail");
    t.PrintRow({"ab", FabricTextTable::Fixed(1.25, 1), "7"});
    EXPECT_EQ(os.str(),
              "name      x   y  tail\n"
              "ab      1.2   7\n");
    EXPECT_EQ(FabricTextTable::Fixed(2.0 / 3, 3), "0.667");
    EXPECT_THROW(t.PrintRow({"a", "b"}), std::invalid_argument);
}
