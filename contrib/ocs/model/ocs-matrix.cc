// SPDX-License-Identifier: GPL-2.0-only
#include "ocs-matrix.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace ns3
{

int64_t
OcsMatrix::RowSum(uint32_t i) const
{
    int64_t s = 0;
    for (uint32_t j = 0; j < m_n; ++j)
    {
        s += (*this)(i, j);
    }
    return s;
}

int64_t
OcsMatrix::ColSum(uint32_t j) const
{
    int64_t s = 0;
    for (uint32_t i = 0; i < m_n; ++i)
    {
        s += (*this)(i, j);
    }
    return s;
}

int64_t
OcsMatrix::Total() const
{
    int64_t s = 0;
    for (int64_t x : m_a)
    {
        s += x;
    }
    return s;
}

OcsMatrix
OcsMatrix::Transposed() const
{
    OcsMatrix t(m_n);
    for (uint32_t i = 0; i < m_n; ++i)
    {
        for (uint32_t j = 0; j < m_n; ++j)
        {
            t(j, i) = (*this)(i, j);
        }
    }
    return t;
}

namespace
{

/// Longest token read (and shown in an error): no integer here needs more.
constexpr size_t MAX_TOKEN = 24;

/**
 * The next whitespace-separated token of \p in, or false at the end. A token longer than
 * MAX_TOKEN or a byte that is not printable text fails at once (a 50 MB token, /dev/zero),
 * quoting at most MAX_TOKEN characters.
 */
bool
ReadToken(std::istream& in, std::string& token)
{
    token.clear();
    std::istream::int_type c;
    while ((c = in.get()) != std::istream::traits_type::eof()
           && std::isspace(static_cast<unsigned char>(c)))
    {
    }
    while (c != std::istream::traits_type::eof() && !std::isspace(static_cast<unsigned char>(c)))
    {
        if (c < 0x21 || c > 0x7e)
        {
            std::ostringstream s;
            s << "byte 0x" << std::hex << c << " is not text"
              << (token.empty() ? "" : " (after '" + token + "')") << "; expected integers";
            throw std::invalid_argument(s.str());
        }
        if (token.size() == MAX_TOKEN)
        {
            throw std::invalid_argument("'" + token + "...' is not an integer (longer than "
                                        + std::to_string(MAX_TOKEN) + " characters)");
        }
        token.push_back(static_cast<char>(c));
        c = in.get();
    }
    return !token.empty();
}

bool
ReadInteger(std::istream& in, int64_t& x, std::string& token)
{
    if (!ReadToken(in, token))
    {
        return false;
    }
    size_t pos = 0;
    const bool neg = !token.empty() && token[0] == '-';
    const std::string digits = neg ? token.substr(1) : token;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos
        || digits.size() > 12)
    {
        throw std::invalid_argument("'" + token + "' is not an integer");
    }
    x = std::stoll(token, &pos);
    return true;
}

} // namespace

OcsMatrix
OcsMatrix::Read(std::istream& in, const std::string& what)
{
    int64_t n = 0;
    std::string token;
    try
    {
        if (!ReadInteger(in, n, token))
        {
            throw std::invalid_argument("empty input; the first value must be the size E");
        }
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(what + ": size: " + e.what());
    }
    if (n < 1 || n > 8192)
    {
        throw std::invalid_argument(what + ": size " + std::to_string(n)
                                    + " is out of range [1, 8192]");
    }
    OcsMatrix m(static_cast<uint32_t>(n));
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            int64_t x = 0;
            try
            {
                if (!ReadInteger(in, x, token))
                {
                    throw std::invalid_argument("missing");
                }
            }
            catch (const std::invalid_argument& e)
            {
                throw std::invalid_argument(what + ": entry [" + std::to_string(i) + "]["
                                            + std::to_string(j) + "]: " + e.what() + " (expected "
                                            + std::to_string(n) + " rows of " + std::to_string(n)
                                            + " integers after the size)");
            }
            m(i, j) = x;
        }
    }
    bool extra = false;
    try
    {
        extra = ReadToken(in, token);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(what + ": after " + std::to_string(n) + " rows of "
                                    + std::to_string(n) + " integers: " + e.what());
    }
    if (extra)
    {
        throw std::invalid_argument(what + ": extra value '" + token + "' after "
                                    + std::to_string(n) + " rows of " + std::to_string(n)
                                    + " integers (wrong size?)");
    }
    return m;
}

void
OcsMatrix::Write(std::ostream& out) const
{
    out << m_n << "\n";
    for (uint32_t i = 0; i < m_n; ++i)
    {
        for (uint32_t j = 0; j < m_n; ++j)
        {
            out << (j ? " " : "") << (*this)(i, j);
        }
        out << "\n";
    }
}

void
ValidateLogicalTopology(const OcsMatrix& l, uint32_t egs, uint32_t ports)
{
    if (l.GetN() != egs)
    {
        throw std::invalid_argument("logical topology: size " + std::to_string(l.GetN())
                                    + " does not match --egs=" + std::to_string(egs)
                                    + " (must be egs x egs)");
    }
    auto at = [](uint32_t i, uint32_t j)
    {
        return "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
    };
    for (uint32_t i = 0; i < egs; ++i)
    {
        if (l(i, i) != 0)
        {
            throw std::invalid_argument("logical topology: diagonal entry " + at(i, i) + " = "
                                        + std::to_string(l(i, i)) + " must be 0");
        }
        int64_t row = 0;
        for (uint32_t j = 0; j < egs; ++j)
        {
            if (l(i, j) < 0)
            {
                throw std::invalid_argument("logical topology: entry " + at(i, j) + " = "
                                            + std::to_string(l(i, j)) + " is negative");
            }
            if (l(i, j) != 0 && l(i, j) != l(j, i))
            {
                throw std::invalid_argument("logical topology: not symmetric: " + at(i, j) + " = "
                                            + std::to_string(l(i, j)) + " but " + at(j, i) + " = "
                                            + std::to_string(l(j, i)));
            }
            row += l(i, j);
        }
        if (row > ports)
        {
            throw std::invalid_argument("logical topology: row " + std::to_string(i) + " sums to "
                                        + std::to_string(row) + ", over the "
                                        + std::to_string(ports) + " ports per EG (range [0, "
                                        + std::to_string(ports) + "])");
        }
    }
}

double
ComputeLtcr(const OcsMatrix& target, const OcsMatrix& realized)
{
    if (target.GetN() != realized.GetN())
    {
        throw std::invalid_argument("LTCR: target is " + std::to_string(target.GetN()) + " x "
                                    + std::to_string(target.GetN()) + " but realized is "
                                    + std::to_string(realized.GetN()) + " x "
                                    + std::to_string(realized.GetN()));
    }
    const uint32_t n = target.GetN();
    uint64_t nonZero = 0;
    double sum = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (target(i, j) > 0)
            {
                ++nonZero;
                sum += std::min(double(realized(i, j)) / double(target(i, j)), 1.0);
            }
        }
    }
    return nonZero == 0 ? 1.0 : sum / double(nonZero);
}

} // namespace ns3
