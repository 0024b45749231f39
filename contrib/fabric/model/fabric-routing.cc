// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-routing.h"

#include "ns3/attribute-construction.h"
#include "ns3/log.h"

#include <algorithm>
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
                              "ns3::FabricRouting::ViewChangeTracedCallback")
              .AddTraceSource("NodeViewChange",
                              "A node with a view of its own learnt a change and the scheme "
                              "reacted at that node (rehash, fallback): (node, is a node, "
                              "directed link or node id, up).",
                              MakeTraceSourceAccessor(&FabricRouting::m_nodeViewChangeTrace),
                              "ns3::FabricRouting::NodeViewChangeTracedCallback")
              .AddTraceSource("RoutesChanged",
                              "The scheme's decisions may have changed: a view it decides from "
                              "learnt a change, the controller view changed (detours), or a "
                              "node converged: (node, or UINT32_MAX for every node). Whoever "
                              "caches paths traces them again.",
                              MakeTraceSourceAccessor(&FabricRouting::m_routesChangedTrace),
                              "ns3::FabricRouting::RoutesChangedTracedCallback");
    return tid;
}

FabricRouting::FabricRouting()
{
    NS_LOG_FUNCTION(this);
}

Ptr<FabricRouting>
FabricRouting::CreateByTypeId(TypeId tid, const std::vector<AttributeSetting>& attributes)
{
    NS_LOG_FUNCTION(tid.GetName() << attributes.size());
    if (!tid.IsChildOf(GetTypeId()) || !tid.HasConstructor())
    {
        throw std::invalid_argument("FabricRouting::CreateByTypeId: " + tid.GetName()
                                    + " is not a routing scheme with a constructor");
    }
    // Each name resolved once, as ObjectFactory::Set resolves it (the most derived attribute
    // of that name), its value made valid up front: a bad name or value throws before anything
    // is made. A later setting of a name replaces an earlier one.
    std::vector<std::pair<Ptr<const AttributeChecker>, Ptr<const AttributeValue>>> given;
    for (const auto& [name, value] : attributes)
    {
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw std::invalid_argument("FabricRouting::CreateByTypeId: " + tid.GetName()
                                        + " has no attribute '" + name + "'");
        }
        Ptr<const AttributeValue> valid = value ? info.checker->CreateValidValue(*value) : nullptr;
        if (!valid)
        {
            throw std::invalid_argument("FabricRouting::CreateByTypeId: " + tid.GetName()
                                        + "::" + name + " cannot take the value given");
        }
        auto same = std::find_if(
            given.begin(), given.end(), [&info](const auto& g) { return g.first == info.checker; });
        if (same != given.end())
        {
            same->second = valid;
        }
        else
        {
            given.emplace_back(info.checker, valid);
        }
    }
    if (AttributeDefaultsFromEnvironment())
    {
        ObjectFactory factory;
        factory.SetTypeId(tid);
        for (const auto& [name, value] : attributes)
        {
            factory.Set(name, *value); // (checked above)
        }
        return factory.Create<FabricRouting>();
    }
    auto* made = dynamic_cast<FabricRouting*>(tid.GetConstructor()());
    if (!made)
    {
        throw std::invalid_argument("FabricRouting::CreateByTypeId: " + tid.GetName()
                                    + "'s constructor made no FabricRouting");
    }
    Ptr<FabricRouting> routing(made, false);
    routing->m_createdAs = tid;
    SetConstructionAttributes(*routing,
                              tid,
                              [&given](const TypeId::AttributeInformation& info)
                              {
                                  for (const auto& [checker, value] : given)
                                  {
                                      if (checker == info.checker)
                                      {
                                          return value;
                                      }
                                  }
                                  return Ptr<const AttributeValue>();
                              });
    routing->NotifyConstructionCompleted();
    return routing;
}

TypeId
FabricRouting::GetInstanceTypeId() const
{
    return m_createdAs ? *m_createdAs : Object::GetInstanceTypeId();
}

FabricRouting::~FabricRouting()
{
    Unlisten();
}

void
FabricRouting::DoDispose()
{
    Unlisten();
    m_nodeViewListeners.clear();
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
        m_routesChangedTrace(UINT32_MAX);
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
            if (m_batchDepth > 0)
            {
                m_batchChanged = true; // reacted to once, at EndViewBatch
                m_viewChangeTrace(c.element == FabricStateChange::Element::NODE, c.id, c.up);
                return;
            }
            DoViewChanged(c);
            m_viewChangeTrace(c.element == FabricStateChange::Element::NODE, c.id, c.up);
            m_routesChangedTrace(UINT32_MAX);
        });
}

void
FabricRouting::BeginViewBatch()
{
    ++m_batchDepth;
}

void
FabricRouting::EndViewBatch()
{
    if (m_batchDepth == 0)
    {
        throw std::logic_error(GetName() + " routing: EndViewBatch without BeginViewBatch");
    }
    if (--m_batchDepth > 0 || !m_batchChanged)
    {
        return;
    }
    m_batchChanged = false;
    DoViewChanged(FabricStateChange{
        FabricStateChange::Element::DIR_LINK, UINT32_MAX, false, m_view->GetVersion()});
    m_routesChangedTrace(UINT32_MAX);
}

void
FabricRouting::Unlisten()
{
    if (m_view && m_listener != UINT32_MAX)
    {
        m_view->RemoveListener(m_listener);
    }
    m_listener = UINT32_MAX;
    for (uint32_t v = 0; v < m_nodeListeners.size(); ++v)
    {
        if (m_nodeViews[v] && m_nodeListeners[v] != UINT32_MAX)
        {
            m_nodeViews[v]->RemoveListener(m_nodeListeners[v]);
        }
    }
    m_nodeListeners.assign(m_nodeListeners.size(), UINT32_MAX);
    if (m_controllerView && m_controllerListener != UINT32_MAX)
    {
        m_controllerView->RemoveListener(m_controllerListener);
    }
    m_controllerListener = UINT32_MAX;
}

void
FabricRouting::CheckView(const std::shared_ptr<FabricState>& view, const char* what) const
{
    if (!m_graph)
    {
        throw std::logic_error(std::string("FabricRouting::") + what + " before SetGraph");
    }
    if (view && view->GetGraphPtr().get() != m_graph.get())
    {
        throw std::invalid_argument(std::string("FabricRouting::") + what
                                    + ": the view must be a state of the routing's graph");
    }
}

void
FabricRouting::SetNodeView(uint32_t node, std::shared_ptr<FabricState> view)
{
    NS_LOG_FUNCTION(this << node);
    CheckView(view, "SetNodeView");
    if (node >= m_graph->GetNNodes())
    {
        throw std::invalid_argument("FabricRouting::SetNodeView: node " + std::to_string(node)
                                    + " outside [0, " + std::to_string(m_graph->GetNNodes()) + ")");
    }
    if (m_nodeViews.empty())
    {
        m_nodeViews.resize(m_graph->GetNNodes());
        m_nodeListeners.assign(m_graph->GetNNodes(), UINT32_MAX);
    }
    if (m_nodeViews[node] && m_nodeListeners[node] != UINT32_MAX)
    {
        m_nodeViews[node]->RemoveListener(m_nodeListeners[node]);
        m_nodeListeners[node] = UINT32_MAX;
    }
    m_nodeViews[node] = std::move(view);
    const FabricState& now = ViewAt(node);
    if (m_nodeViews[node])
    {
        m_nodeListeners[node] = m_nodeViews[node]->AddListener(
            [this, node](const FabricStateChange& c)
            {
                NS_LOG_LOGIC(GetName()
                             << " node " << node << " view: "
                             << (c.element == FabricStateChange::Element::NODE ? "node " : "link ")
                             << c.id << (c.up ? " up" : " down"));
                DoNodeViewChanged(node, c);
                const bool isNode = c.element == FabricStateChange::Element::NODE;
                m_nodeViewChangeTrace(node, isNode, c.id, c.up);
                CallNodeViewListeners(node, isNode, c.id, c.up);
                m_routesChangedTrace(node);
            });
    }
    // React to the view's current state as to one change (schemes rebuild from the view).
    DoNodeViewChanged(
        node,
        FabricStateChange{
            FabricStateChange::Element::DIR_LINK, UINT32_MAX, false, now.GetVersion()});
    m_routesChangedTrace(node);
}

void
FabricRouting::CallNodeViewListeners(uint32_t node, bool isNode, uint32_t id, bool up)
{
    auto it = m_nodeViewListeners.find(node);
    if (it != m_nodeViewListeners.end() && !it->second.empty())
    {
        // A copy: a listener may add or remove listeners.
        std::vector<NodeViewListener> now;
        now.reserve(it->second.size());
        for (const auto& [lid, cb] : it->second)
        {
            now.push_back(cb);
        }
        for (const auto& cb : now)
        {
            cb(node, isNode, id, up);
        }
    }
}

uint64_t
FabricRouting::AddNodeViewListener(uint32_t node, NodeViewListener cb)
{
    const FabricGraph& g = GetGraph();
    if (node >= g.GetNNodes())
    {
        throw std::invalid_argument("FabricRouting::AddNodeViewListener: node "
                                    + std::to_string(node) + " outside [0, "
                                    + std::to_string(g.GetNNodes()) + ")");
    }
    if (cb.IsNull())
    {
        throw std::invalid_argument("FabricRouting::AddNodeViewListener: null callback");
    }
    const uint64_t id = m_nextListenerId++;
    m_nodeViewListeners[node].emplace(id, std::move(cb));
    return id;
}

void
FabricRouting::RemoveNodeViewListener(uint32_t node, uint64_t id)
{
    auto it = m_nodeViewListeners.find(node);
    if (it != m_nodeViewListeners.end())
    {
        it->second.erase(id);
        if (it->second.empty())
        {
            m_nodeViewListeners.erase(it);
        }
    }
}

std::shared_ptr<FabricState>
FabricRouting::GetNodeView(uint32_t node) const
{
    if (!m_nodeViews.empty() && node < m_nodeViews.size() && m_nodeViews[node])
    {
        return m_nodeViews[node];
    }
    return m_view;
}

void
FabricRouting::SetControllerView(std::shared_ptr<FabricState> view)
{
    NS_LOG_FUNCTION(this);
    CheckView(view, "SetControllerView");
    if (m_controllerView && m_controllerListener != UINT32_MAX)
    {
        m_controllerView->RemoveListener(m_controllerListener);
        m_controllerListener = UINT32_MAX;
    }
    m_controllerView = std::move(view);
    if (m_controllerView)
    {
        m_controllerListener = m_controllerView->AddListener(
            [this](const FabricStateChange& c)
            {
                DoControllerViewChanged(c);
                m_routesChangedTrace(UINT32_MAX);
            });
    }
    DoControllerViewChanged(
        FabricStateChange{FabricStateChange::Element::DIR_LINK,
                          UINT32_MAX,
                          false,
                          m_controllerView ? m_controllerView->GetVersion() : 0});
    m_routesChangedTrace(UINT32_MAX);
}

void
FabricRouting::NotifyNodeConverged(uint32_t node)
{
    NS_LOG_FUNCTION(this << node);
    if (!m_graph || node >= m_graph->GetNNodes())
    {
        throw std::invalid_argument("FabricRouting::NotifyNodeConverged: node "
                                    + std::to_string(node) + " outside the graph");
    }
    DoNodeConverged(node);
    m_routesChangedTrace(node);
}

void
FabricRouting::DoNodeConverged(uint32_t /*node*/)
{
}

void
FabricRouting::DoViewChanged(const FabricStateChange& /*change*/)
{
}

void
FabricRouting::DoNodeViewChanged(uint32_t /*node*/, const FabricStateChange& /*change*/)
{
}

void
FabricRouting::DoControllerViewChanged(const FabricStateChange& /*change*/)
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
