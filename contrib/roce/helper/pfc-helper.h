// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_HELPER_H
#define PFC_HELPER_H

#include "ns3/fabric-network-helper.h"
#include "ns3/object-factory.h"
#include "ns3/pfc-network.h"

namespace ns3
{

/**
 * \ingroup roce
 * Makes a fabric lossless (PFC). Two steps, around the topology's Install:
 * \code
 *   FabricNetworkHelper links;
 *   PfcHelper pfc;
 *   pfc.SetSwitchAttribute("PauseMode", StringValue("on-off"));
 *   pfc.ConfigureLinks(links);            // every device queue a PfcQueue
 *   Ptr<FabricNetwork> net = roft.Install(links);
 *   Ptr<PfcNetwork> lossless = pfc.Install(net); // before a FabricLinkMonitor is installed
 * \endcode
 * Without these calls the fabric is lossy exactly as before (drop-tail device queues).
 */
class PfcHelper
{
  public:
    PfcHelper();

    /// An attribute of every PfcSwitch (BufferSize, Alpha, HeadroomBytes, PauseMode, ...).
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /// An attribute of the PfcNetwork (StormTime, DeadlockTime, WatchdogPolicy, ...).
    void SetNetworkAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Every device queue of networks \p links builds becomes a PfcQueue whose capacity is
     * the switches' BufferSize (the buffer, not the queue, limits a lossless port).
     * \throws std::invalid_argument if BufferSize exceeds what a device queue holds
     *         (2^32 - 1 bytes)
     */
    void ConfigureLinks(FabricNetworkHelper& links) const;

    /// Install PFC on \p net (built with ConfigureLinks' link helper).
    Ptr<PfcNetwork> Install(Ptr<FabricNetwork> net) const;

  private:
    ObjectFactory m_switch;
    ObjectFactory m_network;
};

} // namespace ns3

#endif // PFC_HELPER_H
