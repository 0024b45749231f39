// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-routing.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRouting");
NS_OBJECT_ENSURE_REGISTERED(FabricRouting);

TypeId
FabricRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FabricRouting")
              .SetParent<Object>()
              .SetGroupName("Fabric")
              .AddTraceSource("ViewChange",
                              "The scheme's view learnt a change: (is a node, "
                              "directed link or node id, up).",
                              MakeTraceSourceAccessor(&FabricRouting::m_viewChangeTrace),
                              "ns3::FabricRouting::ViewChangeTracedCallback");
    return tid;
}

FabricRouting::FabricRouting()
{
    NS_LOG_FUNCTION(this);
}

FabricRouting::~FabricRouting()
{
    Unlisten();
}

void
FabricRouting::DoDispose()
{
    Unlisten();
    Object::DoDispose();
}

const FabricGraph&
FabricRouting::GetGraph() const
{
    if (!m_graph)
    {
        throw std::logic_error(GetName() + " routing: SetGraph was not called");
    }
    return *m_graph;
}

void
FabricRouting::SetGraph(std::shared_ptr<const FabricGraph> graph)
{
    NS_LOG_FUNCTION(this);
    if (!graph)
    {
        throw std::invalid_argument("FabricRouting::SetGraph: graph must not be null");
    }
    if (m_graph)
    {
        throw std::invalid_argument("FabricRouting::SetGraph: the scheme is bound to a graph "
                                    "already; create another instance");
    }
    m_graph = std::move(graph);
    m_view = std::make_shared<FabricState>(m_graph);
    DoSetGraph();
    Listen();
}

void
FabricRouting::SetView(std::shared_ptr<FabricState> view)
{
    NS_LOG_FUNCTION(this);
    if (!m_graph)
    {
        throw std::logic_error("FabricRouting::SetView before SetGraph");
    }
    if (!view || view->GetGraphPtr().get() != m_graph.get())
    {
        throw std::invalid_argument("FabricRouting::SetView: the view must be a state of the "
                                    "routing's graph");
    }
    Unlisten();
    const bool changed = view->GetVersion() != 0 || (m_view && m_view->GetVersion() != 0);
    m_view = std::move(view);
    Listen();
    if (changed)
    {
        // A view that is not all-up: react as to one change (schemes rebuild from the view).
        DoViewChanged(FabricStateChange{
            FabricStateChange::Element::DIR_LINK, UINT32_MAX, false, m_view->GetVersion()});
    }
}

void
FabricRouting::Listen()
{
    m_listener = m_view->AddListener(
        [this](const FabricStateChange& c)
        {
            NS_LOG_LOGIC(GetName()
                         << " view: "
                         << (c.element == FabricStateChange::Element::NODE ? "node " : "link ")
                         << c.id << (c.up ? " up" : " down"));
            DoViewChanged(c);
            m_viewChangeTrace(c.element == FabricStateChange::Element::NODE, c.id, c.up);
        });
}

void
FabricRouting::Unlisten()
{
    if (m_view && m_listener != UINT32_MAX)
    {
        m_view->RemoveListener(m_listener);
    }
    m_listener = UINT32_MAX;
}

void
FabricRouting::DoViewChanged(const FabricStateChange& /*change*/)
{
}

FabricPath
TracePath(const FabricRouting& routing,
          uint32_t srcHost,
          uint32_t dstHost,
          const FlowKey& key,
          uint32_t maxHops)
{
    const FabricGraph& g = routing.GetGraph();
    if (!g.IsHost(srcHost) || !g.IsHost(dstHost))
    {
        throw std::invalid_argument("TracePath: srcHost and dstHost must be hosts in [0, "
                                    + std::to_string(g.GetNHosts()) + ")");
    }
    FabricPath path;
    path.nodes.push_back(srcHost);
    uint32_t node = srcHost;
    uint32_t inPort = FabricRouting::NO_PORT;
    while (node != dstHost && path.dirLinks.size() < maxHops)
    {
        const uint32_t port = routing.SelectPort(node, inPort, dstHost, key);
        if (port == FabricRouting::NO_PORT)
        {
            return path;
        }
        path.dirLinks.push_back(g.GetEgressDirLink(node, port));
        inPort = g.GetPeerPort(node, port);
        node = g.GetPeer(node, port);
        path.nodes.push_back(node);
    }
    path.delivered = (node == dstHost);
    return path;
}

} // namespace ns3
