// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_NETWORK_HELPER_H
#define FABRIC_NETWORK_HELPER_H

#include "ns3/enum.h"
#include "ns3/fabric-network.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// Factories of the FastP2pNetDevice links of a network (FabricNetworkHelper).
struct FastLinkFactories
{
    ObjectFactory device;
    ObjectFactory channel;
    ObjectFactory queue;
};

/**
 * \ingroup fabric
 * Builds a FabricNetwork from a FabricGraph and a FabricRouting: nodes, point-to-point links,
 * IPv4 on hosts (FabricAddressing plan, FabricIpv4Routing), and on switches either the
 * device-level fast path or IPv4 with FabricIpv4Routing. No queue disc is installed: each
 * port has one drop-tail device queue. Every switch gets an EcnMarker (attributes settable
 * with Config::SetDefault("ns3::EcnMarker::...")); it only acts on ECN-capable packets.
 *
 * Link attributes. Every link is a PointToPointNetDevice pair (DataRate, Mtu, ...), a
 * PointToPointChannel (Delay) and a DropTailQueue<Packet> per device (MaxSize). Four of them
 * have datacenter defaults here, because ns-3's own (32768 bps, 1500 bytes, 0 s, 100 packets)
 * do not describe a GPU fabric:
 *
 * | attribute                                | datacenter default |
 * |------------------------------------------|--------------------|
 * | ns3::PointToPointNetDevice::DataRate     | 400Gbps            |
 * | ns3::PointToPointNetDevice::Mtu          | 4200 (RoCE 4096-byte payload plus headers) |
 * | ns3::PointToPointChannel::Delay          | 1us                |
 * | ns3::DropTailQueue<Packet>::MaxSize      | 2MB                |
 *
 * Which value a link gets, first match wins, decided when Install() runs (so a
 * Config::SetDefault or command-line argument given after the helper was constructed counts):
 *  1. the link's own FabricLink::rateBps, if non-zero (DataRate only);
 *  2. SetDeviceAttribute / SetChannelAttribute / SetQueueAttribute on this helper;
 *  3. the ns-3 attribute default, if the program changed it: Config::SetDefault or
 *     --ns3::PointToPointNetDevice::DataRate=10Gbps on the command line (CommandLine or
 *     FabricCli);
 *  4. the datacenter default above.
 * With ns3::FabricNetwork::LinkDevice=fast (SetNetworkAttribute or the command line), links
 * are FastP2pNetDevice pairs on a FastP2pChannel instead, with the same attributes resolved
 * the same way (the names above, ns3::PointToPointNetDevice's and ns3::PointToPointChannel's
 * defaults included): the same links, fewer events per hop (doc/fabric.md, Devices).
 * (A changed default is one whose value differs from ns-3's built-in one: setting an attribute
 * default back to exactly ns-3's built-in value selects the datacenter default.) Other
 * attributes of these classes are ns-3's, changed the usual ways.
 */
class FabricNetworkHelper
{
  public:
    FabricNetworkHelper();

    /// Set an attribute of every PointToPointNetDevice (e.g. "DataRate", "Mtu"); overrides
    /// the ns-3 and datacenter defaults (see the class description).
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every PointToPointChannel (e.g. "Delay").
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every device queue, a DropTailQueue<Packet> (e.g. "MaxSize").
    void SetQueueAttribute(const std::string& name, const AttributeValue& value);
    /**
     * The TypeId of every device queue (default "ns3::DropTailQueue<Packet>"), a
     * Queue<Packet> with a MaxSize attribute; queue attributes (SetQueueAttribute, the
     * datacenter MaxSize default) apply to it. Lossless fabrics use "ns3::PfcQueue".
     * ns3::FabricNetwork::ControlPriority=true turns the default into
     * "ns3::DscpPriorityQueue<Packet>" (control packets first, lossy).
     */
    void SetQueueType(const std::string& typeId) { m_queueType = typeId; }

    /**
     * The value a link of a network installed now would get for one of the link attributes
     * (ns-3 TypeId name and attribute name, e.g. "ns3::PointToPointNetDevice", "DataRate"),
     * following the order in the class description (without a link's own rateBps), as text.
     * The queue's MaxSize is answered for "ns3::DropTailQueue<Packet>" whatever the queue
     * type: a DscpPriorityQueue (ControlPriority) gets the same value unless its own MaxSize
     * default was changed, which this does not report.
     */
    std::string GetLinkAttribute(const std::string& typeId, const std::string& name) const;

    /**
     * Write a pcap file for every port of \p net (or, with \p hostsOnly, of every host),
     * named <prefix>-<fabric node name>-<port>.pcap, e.g. "out/trace-gpu3-0.pcap" (node names
     * as FabricGraph::GetName, characters other than letters, digits, '-', '_' and '.' as '_').
     * Call after Install and before Simulator::Run.
     */
    void EnablePcap(const std::string& prefix, Ptr<FabricNetwork> net, bool hostsOnly = false);
    /// One port's pcap file, <prefix>-<fabric node name>-<port>.pcap.
    void EnablePcap(const std::string& prefix,
                    Ptr<FabricNetwork> net,
                    uint32_t fabricNode,
                    uint32_t port);
    /**
     * ns-3 ASCII traces (enqueue, dequeue, drop, receive) of every port of \p net (or every
     * host), one file per port named <prefix>-<fabric node name>-<port>.tr.
     */
    void EnableAscii(const std::string& prefix, Ptr<FabricNetwork> net, bool hostsOnly = false);
    /// How switches forward (default: the ns3::FabricNetwork::SwitchMode attribute's value).
    void SetSwitchMode(FabricSwitchMode mode)
    {
        m_networkFactory.Set("SwitchMode", EnumValue(static_cast<int>(mode)));
    }
    /// Set an attribute of the FabricNetwork objects built (e.g. "SwitchMode").
    void SetNetworkAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Choose the routing scheme by TypeId for Install(graph), with its attributes, e.g.
     * SetRouting("ns3::EcmpRouting", "Seed", UintegerValue(7)). Default: ns3::EcmpRouting.
     */
    template<typename... Ts>
    void SetRouting(const std::string& typeId, Ts&&... args)
    {
        m_routingFactory = ObjectFactory(typeId, std::forward<Ts>(args)...);
    }

    /**
     * A routing object from the factory set by SetRouting, bound to \p graph: the same
     * instance can serve analytic walks before (or instead of) a packet-level Install.
     * \throws std::invalid_argument if the TypeId is not a FabricRouting or cannot route
     *         the graph
     */
    Ptr<FabricRouting> CreateRouting(std::shared_ptr<const FabricGraph> graph) const;
    /**
     * First random stream for the network's random elements (switch ECN markers); Install
     * assigns them from here, so the same network in the same program gives the same
     * output however many runs came before it. Default 1000000.
     */
    void SetStreamBase(int64_t base) { m_streamBase = base; }

    /**
     * Build the network. Links whose FabricLink::rateBps is non-zero get that rate.
     * \throws std::invalid_argument if the graph exceeds the addressing plan
     */
    Ptr<FabricNetwork> Install(std::shared_ptr<const FabricGraph> graph,
                               Ptr<FabricRouting> routing);

    /// Build the network with a routing object from the SetRouting factory.
    Ptr<FabricNetwork> Install(std::shared_ptr<const FabricGraph> graph);

    /**
     * Build the same links with ns-3's own IPv4 stack on every node and
     * Ipv4GlobalRouting (a /30 per link), for comparisons against stock ns-3.
     * A host's address is the one of its port 0. The device queues are ns-3's
     * DropTailQueue<Packet> whatever ns3::FabricNetwork::FastQueue says; the network's
     * LinkDevice still applies (a stock comparison sets it to p2p).
     */
    Ptr<FabricNetwork> InstallGlobalRouting(std::shared_ptr<const FabricGraph> graph);

  private:
    /**
     * The nodes and links of \p graph. Switch ports get a NetDeviceQueueInterface (flow
     * control) only if \p stockSwitches or SwitchMode is ipv4: a FabricSwitchForwarder
     * does not use it. Host ports always get one.
     */
    Ptr<FabricNetwork> BuildLinks(std::shared_ptr<const FabricGraph> graph, bool stockSwitches);
    /// The link helper with every attribute resolved as in the class description, device
    /// queues of \p queueType.
    PointToPointHelper MakeLinkHelper(const std::string& queueType) const;
    /// The same for LinkDevice=fast: FastP2pNetDevice, FastP2pChannel and queue factories.
    FastLinkFactories MakeFastLinkFactories(const std::string& queueType) const;
    /// Call \p apply(typeId, name, value) for every link attribute resolved as in the class
    /// description (datacenter defaults first, then this helper's own settings); the queue's
    /// attributes go to \p queueType.
    void ForEachLinkAttribute(
        const std::string& queueType,
        const std::function<void(const std::string&, const std::string&, const AttributeValue&)>&
            apply) const;
    /// The device queue's TypeId for \p net: SetQueueType's, or DscpPriorityQueue with the
    /// network's ControlPriority; FabricDropTailQueue for the default queue with FastQueue,
    /// except on a \p stock network (InstallGlobalRouting: the comparison with stock ns-3).
    /// \throws std::invalid_argument for ControlPriority with a queue type it cannot replace
    std::string QueueTypeFor(const FabricNetwork& net, bool stock) const;

    /// Attributes set on this helper, by "TypeId name::attribute name".
    std::map<std::string, Ptr<const AttributeValue>> m_linkAttributes;
    PointToPointHelper m_p2p; //!< used for pcap/ascii file output only
    ObjectFactory m_networkFactory;
    ObjectFactory m_routingFactory;
    int64_t m_streamBase{1000000};
    std::string m_queueType{"ns3::DropTailQueue<Packet>"};
};

} // namespace ns3

#endif // FABRIC_NETWORK_HELPER_H
