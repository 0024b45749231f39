// SPDX-License-Identifier: GPL-2.0-only
// File fuzzer of OcsMatrix::Read, the reader of ocs-configure's --logical file (issue 15):
// mutated inputs either parse or throw std::invalid_argument with a short message, quickly;
// nothing else escapes and no token is echoed whole.
#include "ns3/ocs-matrix.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <sstream>

using namespace ns3;

TEST(OcsMatrixFileFuzzer, MutatedInputsParseOrFailCleanly)
{
    const std::vector<std::string> seeds = {
        "3\n0 1 1\n1 0 1\n1 1 0\n",
        "4\n0 1 0 1\n1 0 1 0\n0 1 0 1\n1 0 1 0\n",
        "2\n0 2\n2 0\n",
        "1\n0\n",
    };
    const std::vector<std::string> inserts = {"-",
                                              "9999999999999",
                                              std::string(1, '\0'),
                                              "\xff",
                                              " ",
                                              "\n",
                                              "1e3",
                                              "0x1",
                                              "+1",
                                              "\t",
                                              ",",
                                              "3.5",
                                              "a",
                                              std::string(1000, '7'),
                                              "-9223372036854775808",
                                              "8193"};
    std::mt19937_64 rng(15);
    auto pick = [&rng](size_t n)
    {
        return static_cast<size_t>(rng() % n);
    };
    int parsed = 0;
    int rejected = 0;
    for (int c = 0; c < 600; ++c)
    {
        std::string text = seeds[pick(seeds.size())];
        const int edits = 1 + static_cast<int>(pick(5));
        for (int e = 0; e < edits && !text.empty(); ++e)
        {
            const size_t at = pick(text.size());
            switch (pick(6))
            {
            case 0:
                text[at] = static_cast<char>(rng() & 0xff);
                break;
            case 1:
                text.erase(at, 1 + pick(4));
                break;
            case 2:
                text.insert(at, inserts[pick(inserts.size())]);
                break;
            case 3:
                text = text.substr(0, at);
                break;
            case 4:
                text += text.substr(at);
                break;
            default:
                text[at] = static_cast<char>('0' + pick(10));
            }
        }
        std::istringstream in(text);
        const auto t0 = std::chrono::steady_clock::now();
        try
        {
            const OcsMatrix m = OcsMatrix::Read(in, "--logical=f");
            EXPECT_GE(m.GetN(), 1u);
            ++parsed;
        }
        catch (const std::invalid_argument& e)
        {
            ++rejected;
            EXPECT_EQ(std::string(e.what()).rfind("--logical=f: ", 0), 0u) << e.what();
            EXPECT_LT(std::string(e.what()).size(), 300u) << "case " << c;
        }
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0)
            << "case " << c;
    }
    std::cout << "OcsMatrix::Read fuzz: " << parsed << " parsed, " << rejected << " rejected\n";
    EXPECT_GT(parsed, 0);
    EXPECT_GT(rejected, 0);
}

TEST(OcsMatrixFileFuzzer, HugeTokensAndBinaryAreRefusedAtOnce)
{
    std::istringstream big("3\n" + std::string(10000000, '7'));
    try
    {
        OcsMatrix::Read(big, "f");
        FAIL() << "accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_LT(std::string(e.what()).size(), 200u);
        EXPECT_NE(std::string(e.what()).find("longer than"), std::string::npos) << e.what();
    }
    std::istringstream zeros(std::string(1000, '\0'));
    try
    {
        OcsMatrix::Read(zeros, "f");
        FAIL() << "accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("is not text"), std::string::npos) << e.what();
    }
}
