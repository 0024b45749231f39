// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-switch.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-drop-reason.h"
#include "ns3/fabric-link-device.h"
#include "ns3/fabric-warning.h"
#include "ns3/log.h"
#include "ns3/pfc-dependency.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcSwitch");
NS_OBJECT_ENSURE_REGISTERED(PfcSwitch);

namespace
{
constexpr uint32_t PPP_HEADER = 2;
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
} // namespace

TypeId
PfcSwitch::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PfcSwitch")
              .SetParent<Object>()
              .SetGroupName("Roce")
              .AddConstructor<PfcSwitch>()
              .AddAttribute("BufferSize",
                            "Shared packet buffer of the switch in bytes, headroom included "
                            "(assumed 32 MB: 400G merchant switches have tens of MB).",
                            UintegerValue(32 * 1024 * 1024),
                            MakeUintegerAccessor(&PfcSwitch::m_bufferSize),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("Alpha",
                            "Dynamic threshold: a port pauses its upstream when its shared bytes "
                            "pass Alpha x (free shared buffer). 0: the static XoffBytes.",
                            DoubleValue(0.125),
                            MakeDoubleAccessor(&PfcSwitch::m_alpha),
                            MakeDoubleChecker<double>(0, 64))
              .AddAttribute("XoffBytes",
                            "Static XOFF threshold per port in bytes (used when Alpha is 0).",
                            UintegerValue(512 * 1024),
                            MakeUintegerAccessor(&PfcSwitch::m_xoffStatic),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("XonOffsetBytes",
                            "A paused port resumes when its shared bytes are this far below the "
                            "XOFF threshold (or zero) and its headroom is empty.",
                            UintegerValue(2 * 4202),
                            MakeUintegerAccessor(&PfcSwitch::m_xonOffset),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("HeadroomBytes",
                            "Headroom per port in bytes; 0: sized per port from its rate, delay "
                            "and MTU (RequiredHeadroom). A smaller value than a port needs is "
                            "warned about at start and may drop (headroom-overflow).",
                            UintegerValue(0),
                            MakeUintegerAccessor(&PfcSwitch::m_headroomAttr),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("PauseMode",
                            "on-off: pause until a resume frame; quanta: pause for PauseQuanta x "
                            "512 bit times, refreshed every half of it while XOFF lasts.",
                            EnumValue(QUANTA),
                            MakeEnumAccessor(&PfcSwitch::m_mode),
                            MakeEnumChecker(ON_OFF, "on-off", QUANTA, "quanta"))
              .AddAttribute("PauseQuanta",
                            "Pause duration of a pause frame in quanta of 512 bit times "
                            "(802.1Qbb), 1..65535.",
                            UintegerValue(0xffff),
                            MakeUintegerAccessor(&PfcSwitch::m_quanta),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("PauseFrameBytes",
                            "Size of a pause frame on the wire (its serialization delays it).",
                            UintegerValue(64),
                            MakeUintegerAccessor(&PfcSwitch::m_pauseFrameBytes),
                            MakeUintegerChecker<uint32_t>(1, 1518))
              .AddTraceSource("Pause",
                              "A pause frame left a port: node, port, class, XOFF or XON.",
                              MakeTraceSourceAccessor(&PfcSwitch::m_pauseTrace),
                              "ns3::PfcSwitch::PauseTracedCallback");
    return tid;
}

PfcSwitch::PfcSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
PfcSwitch::DoDispose()
{
    for (auto& p : m_ports)
    {
        p.refresh.Cancel();
    }
    m_ports.clear();
    if (m_truth && m_listener != UINT32_MAX)
    {
        m_truth->RemoveListener(m_listener);
    }
    m_truth = nullptr;
    if (m_forwarder)
    {
        m_forwarder->SetEgressCallback(FabricSwitchForwarder::EgressCallback());
    }
    m_forwarder = nullptr;
    Object::DoDispose();
}

uint64_t
PfcSwitch::RequiredHeadroom(uint64_t rateBps, Time delay, uint32_t mtu)
{
    // Rounded up: 2 x 1 us x 400 Gb/s is 100000 bytes, not 99999.99...
    const double inFlight = std::ceil(2.0 * delay.GetSeconds() * double(rateBps) / 8.0 - 1e-6);
    // Three frames: the one that crossed the threshold (charged to the headroom), the one the
    // upstream is sending when the pause arrives, and the one a host NIC has already queued.
    return static_cast<uint64_t>(inFlight) + 3 * (uint64_t(mtu) + PPP_HEADER) + 64;
}

void
PfcSwitch::Install(Ptr<FabricNetwork> net, uint32_t fabricNode)
{
    NS_LOG_FUNCTION(this << fabricNode);
    const FabricGraph& g = net->GetGraph();
    m_fabricNode = fabricNode;
    m_forwarder = net->GetNode(fabricNode)->GetObject<FabricSwitchForwarder>();
    if (!m_forwarder)
    {
        throw std::invalid_argument("PfcSwitch: node " + g.GetName(fabricNode)
                                    + " has no FabricSwitchForwarder (PFC needs the "
                                      "device-level switch mode)");
    }
    m_ports.assign(g.GetNPorts(fabricNode), Port{});
    uint64_t reserved = 0;
    uint32_t shortPorts = 0;
    uint64_t worstNeed = 0;
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        Port& port = m_ports[p];
        port.device = net->GetDevice(fabricNode, p);
        port.queue = DynamicCast<PfcQueue>(FabricLinkDevice::GetQueue(port.device));
        Ptr<NetDevice> peer = FabricLinkDevice::GetPeer(port.device);
        port.upstream = peer && FabricLinkDevice::IsLinkDevice(peer)
                          ? DynamicCast<PfcQueue>(FabricLinkDevice::GetQueue(peer))
                          : nullptr;
        if (!port.queue || !port.upstream)
        {
            throw std::invalid_argument(
                "PfcSwitch: port " + std::to_string(p) + " of " + g.GetName(fabricNode)
                + " or its peer has no ns3::PfcQueue (FabricNetworkHelper::SetQueueType)");
        }
        port.inDirLink = g.GetEgressDirLink(g.GetPeer(fabricNode, p), g.GetPeerPort(fabricNode, p));
        port.outDirLink = g.GetEgressDirLink(fabricNode, p);
        port.queue->SetDevice(port.device);
        port.queue->SetLeaveCallback(MakeCallback(&PfcSwitch::Leave, this));
        port.delay = FabricLinkDevice::GetDelay(port.device);
        port.rateBps = FabricLinkDevice::GetDataRate(port.device).GetBitRate();
        const uint64_t need = RequiredHeadroom(port.rateBps, port.delay, port.device->GetMtu());
        port.headroomSize = m_headroomAttr > 0 ? m_headroomAttr : need;
        if (m_headroomAttr > 0 && m_headroomAttr < need)
        {
            ++shortPorts;
            worstNeed = std::max(worstNeed, need);
        }
        reserved += port.headroomSize;
    }
    if (shortPorts > 0)
    {
        FabricWarn("PfcSwitch",
                   "HeadroomBytes " + std::to_string(m_headroomAttr) + " is below what "
                       + std::to_string(shortPorts) + " port(s) of " + g.GetName(fabricNode)
                       + " need (up to " + std::to_string(worstNeed)
                       + " bytes: rate x 2 x delay + 3 frames of MTU + pause frame): this "
                         "lossless fabric may drop (headroom-overflow)");
    }
    if (reserved >= m_bufferSize)
    {
        throw std::invalid_argument("PfcSwitch: BufferSize " + std::to_string(m_bufferSize)
                                    + " bytes of " + g.GetName(fabricNode)
                                    + " does not exceed the headroom reserved for its ports ("
                                    + std::to_string(reserved) + " bytes)");
    }
    m_pool = m_bufferSize - reserved;
    m_forwarder->SetEgressCallback(MakeCallback(&PfcSwitch::Egress, this));
    m_truth = net->GetState();
    if (m_truth)
    {
        for (Port& port : m_ports)
        {
            port.linkUp = PortUsable(port);
        }
        m_listener = m_truth->AddListener(
            [this](const FabricStateChange& c)
            {
                const FabricGraph& graph = m_truth->GetGraph();
                if (c.element == FabricStateChange::Element::NODE
                    || graph.GetDirLinkTail(c.id) == m_fabricNode
                    || graph.GetDirLinkHead(c.id) == m_fabricNode)
                {
                    LinkStateChanged();
                }
            });
    }
}

uint64_t
PfcSwitch::GetIngressBytes(uint32_t port) const
{
    return m_ports[port].shared + m_ports[port].headroom;
}

PfcSwitchBuffer
PfcSwitch::GetBufferState() const
{
    PfcSwitchBuffer b;
    b.pool = m_pool;
    b.alpha = m_alpha;
    b.xoffBytes = m_xoffStatic;
    b.xonOffset = m_xonOffset;
    for (const Port& p : m_ports)
    {
        b.ports.push_back({p.xoff, p.shared, p.headroom, p.inDirLink});
    }
    return b;
}

std::vector<PfcSwitch::HeldFrame>
PfcSwitch::HoldQueued(uint32_t outPort)
{
    NS_LOG_FUNCTION(this << outPort);
    std::vector<HeldFrame> held;
    const Ptr<PfcQueue>& q = m_ports.at(outPort).queue;
    uint32_t inPort = PfcQueue::NO_INGRESS;
    while (Ptr<Packet> p = q->RemoveKeepingCharge(inPort))
    {
        if (inPort != PfcQueue::NO_INGRESS)
        {
            m_heldBytes += p->GetSize();
        }
        PppHeader ppp;
        p->RemoveHeader(ppp);
        held.push_back({p, inPort});
    }
    return held;
}

void
PfcSwitch::ForwardHeld(Ptr<Packet> ipv4, uint32_t inPort)
{
    NS_LOG_FUNCTION(this << ipv4 << inPort);
    const uint64_t n = ipv4->GetSize() + PPP_HEADER;
    m_heldBytes -= std::min(m_heldBytes, n);
    // Discharged and charged again by Egress in this same instant, as a frame arriving on
    // inPort: the bytes never leave the buffer, but the forwarder may still drop the frame
    // (no route, dead egress) before Egress sees it, and then they must be gone. The resume
    // check waits until the frame is placed, so that no XON goes out just before an XOFF.
    const uint64_t fromShared = Discharge(inPort, n);
    m_forwarder->Forward(ipv4, inPort);
    MaybeResume(inPort);
    if (fromShared > 0)
    {
        ResumeAfterPoolFell(); // likewise after the frame is placed (charged again or gone)
    }
}

uint64_t
PfcSwitch::Threshold() const
{
    return PfcXoffThreshold(m_alpha, m_xoffStatic, m_pool, m_sharedUsed);
}

bool
PfcSwitch::Egress(Ptr<Packet> p, uint32_t inPort, uint32_t outPort)
{
    Port& out = m_ports[outPort];
    const uint8_t cls = out.queue->ClassOf(p);
    const uint64_t n = p->GetSize() + PPP_HEADER;
    if (cls == PfcQueue::DATA)
    {
        Port& in = m_ports[inPort];
        bool admitted = false;
        if (!in.xoff)
        {
            if (in.shared + n <= Threshold() && m_sharedUsed + n <= m_pool)
            {
                in.shared += n;
                m_sharedUsed += n;
                admitted = true;
            }
            else
            {
                SendPause(inPort, true);
            }
        }
        if (!admitted)
        {
            if (in.headroom + n > in.headroomSize)
            {
                ++m_headroomDrops;
                m_forwarder->ReportDrop(p, FabricDropReason::HEADROOM_OVERFLOW);
                return false;
            }
            in.headroom += n;
            in.maxHeadroom = std::max(in.maxHeadroom, in.headroom);
        }
    }
    const uint64_t before = out.queue->GetTotalReceivedPackets();
    out.queue->SetNextIngress(cls == PfcQueue::DATA ? inPort : PfcQueue::NO_INGRESS);
    bool ok;
    if (out.queue->IsIdle() && !out.queue->CanSend(cls) && out.device->IsLinkUp())
    {
        // The device would find nothing to send: keep the packet until the resume.
        ok = out.queue->Hold(p);
        if (!ok)
        {
            // Full queue: the device's MacTxDrop does not see this one; count it here.
            m_forwarder->ReportDrop(p, FabricDropReason::QUEUE_OVERFLOW);
        }
    }
    else
    {
        ok = out.device->Send(p, out.device->GetBroadcast(), ETHERTYPE_IPV4);
    }
    out.queue->SetNextIngress(PfcQueue::NO_INGRESS);
    if (cls == PfcQueue::DATA && out.queue->GetTotalReceivedPackets() == before)
    {
        Release(inPort, n); // never queued (full queue or dead port): not in the buffer
    }
    return ok;
}

void
PfcSwitch::Leave(uint32_t inPort, uint8_t /*cls*/, uint32_t bytes)
{
    Release(inPort, bytes);
}

void
PfcSwitch::Release(uint32_t inPort, uint64_t bytes)
{
    const uint64_t fromShared = Discharge(inPort, bytes);
    MaybeResume(inPort);
    if (fromShared > 0)
    {
        ResumeAfterPoolFell();
    }
}

uint64_t
PfcSwitch::Discharge(uint32_t inPort, uint64_t bytes)
{
    Port& in = m_ports[inPort];
    // Headroom drains first: it is what made the port pause.
    const uint64_t fromHeadroom = std::min(in.headroom, bytes);
    in.headroom -= fromHeadroom;
    const uint64_t fromShared = std::min(in.shared, bytes - fromHeadroom);
    in.shared -= fromShared;
    m_sharedUsed -= std::min(m_sharedUsed, fromShared);
    return fromShared;
}

void
PfcSwitch::MaybeResume(uint32_t inPort)
{
    const Port& in = m_ports[inPort];
    if (in.xoff && PfcMayResume(in.headroom, in.shared, m_xonOffset, Threshold()))
    {
        SendPause(inPort, false);
    }
}

void
PfcSwitch::ResumeAfterPoolFell()
{
    // With the dynamic threshold, bytes of any port leaving the pool raise every port's
    // threshold: a paused port whose own bytes do not move (stuck behind a paused egress, or
    // held) would otherwise stay paused until its own next departure, with on-off pauses
    // for ever. One comparison per departure while no port pauses; a static threshold
    // (Alpha 0) does not depend on the pool.
    if (m_xoffPorts.empty() || m_alpha <= 0)
    {
        return;
    }
    // Backwards: a port that resumes leaves the list by a swap with its last entry, which
    // has been looked at already.
    for (size_t i = m_xoffPorts.size(); i-- > 0;)
    {
        MaybeResume(m_xoffPorts[i]);
    }
}

Time
PfcSwitch::PauseDuration(const Port& port) const
{
    if (m_mode == ON_OFF)
    {
        return Time::Max();
    }
    return Seconds(double(m_quanta) * 512.0 / double(port.rateBps));
}

void
PfcSwitch::SendPause(uint32_t portIndex, bool xoff)
{
    Port& port = m_ports[portIndex];
    NS_LOG_LOGIC("node " << m_fabricNode << " port " << portIndex << (xoff ? " XOFF" : " XON"));
    if (port.xoff != xoff) // a refresh or a repeated XOFF is no change
    {
        if (xoff)
        {
            m_xoffPorts.push_back(portIndex);
        }
        else
        {
            auto it = std::find(m_xoffPorts.begin(), m_xoffPorts.end(), portIndex);
            *it = m_xoffPorts.back();
            m_xoffPorts.pop_back();
        }
    }
    port.xoff = xoff;
    m_pauseTrace(m_fabricNode, portIndex, PfcQueue::DATA, xoff);
    port.refresh.Cancel();
    if (!PortUsable(port))
    {
        // The port is down: the frame goes nowhere (counted lost, not sent), and no refresh
        // while it stays down (the upstream's pause state was cleared when the link went
        // down; see LinkStateChanged).
        ++m_lostPauseFrames;
        return;
    }
    ++port.frames;
    const Time flight = port.delay + Seconds(8.0 * m_pauseFrameBytes / double(port.rateBps));
    Simulator::Schedule(
        flight, &PfcSwitch::DeliverPause, this, portIndex, xoff ? PauseDuration(port) : Time(0));
    if (xoff && m_mode == QUANTA)
    {
        port.refresh
            = Simulator::Schedule(PauseDuration(port) / 2, &PfcSwitch::Refresh, this, portIndex);
    }
}

bool
PfcSwitch::PortUsable(const Port& port) const
{
    return !m_truth || m_truth->IsDirLinkUsable(port.outDirLink);
}

void
PfcSwitch::DeliverPause(uint32_t portIndex, Time duration)
{
    if (portIndex >= m_ports.size())
    {
        return; // disposed
    }
    const Port& port = m_ports[portIndex];
    if (!PortUsable(port))
    {
        ++m_lostPauseFrames; // the link went down while the frame was on it
        return;
    }
    port.upstream->ReceivePause(PfcQueue::DATA, duration);
}

void
PfcSwitch::LinkStateChanged()
{
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        Port& port = m_ports[p];
        const bool up
            = m_truth->IsDirLinkUsable(port.outDirLink) && m_truth->IsDirLinkUsable(port.inDirLink);
        if (up == port.linkUp)
        {
            continue;
        }
        port.linkUp = up;
        if (!up)
        {
            // Link down resets the MACs: the upstream forgets the pause this port sent (with
            // on-off pauses it would otherwise wait for a resume that can never arrive).
            port.upstream->ReceivePause(PfcQueue::DATA, Time(0));
            port.refresh.Cancel();
        }
        else if (port.xoff)
        {
            SendPause(p, true); // still over the threshold: pause the upstream again
        }
    }
}

void
PfcSwitch::Refresh(uint32_t portIndex)
{
    if (m_ports[portIndex].xoff)
    {
        SendPause(portIndex, true);
    }
}

} // namespace ns3
