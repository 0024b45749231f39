// SPDX-License-Identifier: GPL-2.0-only
// FabricMemberCallback and FabricLambdaCallback (fabric-callback.h): they call their target,
// compare as MakeCallback's and Callback(lambda)'s do, and so connect to and disconnect from a
// trace source as those do.
#include "ns3/callback.h"
#include "ns3/fabric-callback.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// A trace sink counting its calls and the bytes it was given.
class CountingSink
{
  public:
    void Receive(Ptr<const Packet> p)
    {
        ++calls;
        bytes += p->GetSize();
    }

    int calls{0};      //!< Calls so far.
    uint32_t bytes{0}; //!< Sum of the packets' sizes.
};

} // namespace

TEST(FabricCallback, MemberCallbackComparesAsMakeCallback)
{
    CountingSink x;
    CountingSink y;
    Callback<void, Ptr<const Packet>> cb = FabricMemberCallback<&CountingSink::Receive>(&x);
    EXPECT_TRUE(cb.IsEqual(MakeCallback(&CountingSink::Receive, &x)));
    EXPECT_TRUE(MakeCallback(&CountingSink::Receive, &x).IsEqual(cb));
    EXPECT_FALSE(cb.IsEqual(MakeCallback(&CountingSink::Receive, &y)));
    cb(Create<Packet>(7));
    EXPECT_EQ(x.calls, 1);
    EXPECT_EQ(x.bytes, 7u);
    EXPECT_EQ(y.calls, 0);
}

TEST(FabricCallback, MemberCallbackDisconnectsFromATraceSource)
{
    // Connected inline, disconnected with the MakeCallback a user would write.
    TracedCallback<Ptr<const Packet>> trace;
    CountingSink x;
    CountingSink y;
    trace.ConnectWithoutContext(FabricMemberCallback<&CountingSink::Receive>(&x));
    trace.ConnectWithoutContext(FabricMemberCallback<&CountingSink::Receive>(&y));
    trace(Create<Packet>(3));
    trace.DisconnectWithoutContext(MakeCallback(&CountingSink::Receive, &x));
    trace(Create<Packet>(5));
    EXPECT_EQ(x.calls, 1);
    EXPECT_EQ(x.bytes, 3u);
    EXPECT_EQ(y.calls, 2);
    EXPECT_EQ(y.bytes, 8u);
}

TEST(FabricCallback, LambdaCallbackComparesAsCallbackOfALambda)
{
    // Like ns-3's Callback(lambda), it equals its copies only (they share its components), not
    // another callback made from the same lambda: a trace source disconnects it given a copy.
    int calls = 0;
    auto f = [&calls](Ptr<const Packet>)
    {
        ++calls;
    };
    Callback<void, Ptr<const Packet>> fabric = FabricLambdaCallback<void, Ptr<const Packet>>(f);
    const Callback<void, Ptr<const Packet>> copy = fabric;
    const Callback<void, Ptr<const Packet>> other
        = FabricLambdaCallback<void, Ptr<const Packet>>(f);
    const Callback<void, Ptr<const Packet>> plain(f);
    const Callback<void, Ptr<const Packet>> plainCopy = plain;
    EXPECT_TRUE(fabric.IsEqual(copy));
    EXPECT_FALSE(fabric.IsEqual(other));
    EXPECT_TRUE(plain.IsEqual(plainCopy));
    EXPECT_FALSE(plain.IsEqual(Callback<void, Ptr<const Packet>>(f)));
    TracedCallback<Ptr<const Packet>> trace;
    trace.ConnectWithoutContext(fabric);
    trace(Create<Packet>(1));
    trace.DisconnectWithoutContext(other); // not equal: stays connected
    trace(Create<Packet>(1));
    EXPECT_EQ(calls, 2);
    trace.DisconnectWithoutContext(copy);
    trace(Create<Packet>(1));
    EXPECT_EQ(calls, 2);
}
