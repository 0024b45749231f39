// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_ADDRESSING_H
#define FABRIC_ADDRESSING_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * The IPv4 plan of a fabric network (host byte order). Host h's NIC port p has
 * 10.0.0.0 + 8h + p + 1 (/29 per host, at most 7 NIC ports); its primary address is port 0's
 * and is the address flows are sent from and to, whichever NIC carries them. Switch
 * interfaces (when switches run IPv4) have 11.0.0.0 + 1024*s + p + 1.
 * Arithmetic, not tables: the address of a packet gives its host in O(1).
 */
class FabricAddressing
{
  public:
    static constexpr uint32_t HOST_BASE = 0x0A000000;   //!< 10.0.0.0
    static constexpr uint32_t SWITCH_BASE = 0x0B000000; //!< 11.0.0.0
    static constexpr uint32_t HOST_STRIDE = 8;
    static constexpr uint32_t MAX_HOST_PORTS = 7;
    static constexpr uint32_t MAX_HOSTS = (1u << 24) / HOST_STRIDE;
    static constexpr uint32_t SWITCH_STRIDE = 1024;
    static constexpr uint32_t MAX_SWITCH_PORTS = 1023;
    static constexpr uint32_t MAX_SWITCHES = (1u << 24) / SWITCH_STRIDE;
    static constexpr uint32_t NOT_A_HOST = UINT32_MAX;

    /// Address of NIC port \p port of host \p host.
    static uint32_t HostAddress(uint32_t host, uint32_t port = 0)
    {
        return HOST_BASE + host * HOST_STRIDE + port + 1;
    }

    /// Host owning \p addr, or NOT_A_HOST.
    static uint32_t HostOf(uint32_t addr)
    {
        if ((addr & 0xFF000000u) != HOST_BASE || (addr & (HOST_STRIDE - 1)) == 0)
        {
            return NOT_A_HOST;
        }
        return (addr - HOST_BASE) / HOST_STRIDE;
    }

    /// Address of port \p port of the switch with ordinal \p switchIndex.
    static uint32_t SwitchAddress(uint32_t switchIndex, uint32_t port)
    {
        return SWITCH_BASE + switchIndex * SWITCH_STRIDE + port + 1;
    }
};

} // namespace ns3

#endif // FABRIC_ADDRESSING_H
