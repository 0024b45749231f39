// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CALLBACK_H
#define FABRIC_CALLBACK_H

#include "ns3/callback.h"
#include "ns3/ptr.h"

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace ns3
{

/**
 * \ingroup fabric
 * A Callback for a per-packet call (a device's receive callback, a trace sink) whose call
 * reads one object fewer than MakeCallback's. ns-3.37's Callback constructors store the
 * target in a lambda (the target's own std::function plus any bound arguments) that is too
 * large for std::function's inline buffer, so every call reads that separate allocation after
 * the CallbackImpl; at 1024 GPUs both are cache misses. Here \p f (at most 16 bytes and
 * trivially copyable, e.g. a lambda capturing one pointer) is stored inside the
 * CallbackImpl's std::function. \p components are what IsEqual compares (Disconnect), as
 * MakeCallback would give them (see FabricMemberCallback).
 *
 * \tparam R the return type
 * \tparam Args the argument types
 * \param f the target
 * \param components the callback's components
 * \return the callback
 */
template<typename R, typename... Args, typename F>
Callback<R, Args...>
FabricInlineCallback(F f, const CallbackComponentVector& components)
{
    static_assert(sizeof(F) <= 16 && std::is_trivially_copyable_v<F>,
                  "the target must fit std::function's inline buffer");
    return Callback<R, Args...>(
        Create<CallbackImpl<R, Args...>>(std::function<R(Args...)>(f), components));
}

/**
 * Callback<R, Args...>(f) for a lambda \p f (at most 16 bytes, trivially copyable) whose call
 * reads one object fewer (FabricInlineCallback); like that constructor's, the callback
 * compares equal only to its copies (they share its components), so only a copy disconnects it.
 */
template<typename R, typename... Args, typename F>
Callback<R, Args...>
FabricLambdaCallback(F f)
{
    return FabricInlineCallback<R, Args...>(
        f, CallbackComponentVector({std::make_shared<CallbackComponent<F, false>>(f)}));
}

/// FabricMemberCallback's work, by the member function's type.
template<typename M>
struct FabricMemberCallbackOf;

/// FabricMemberCallback's work for a non-const member function.
template<typename T, typename R, typename... Args>
struct FabricMemberCallbackOf<R (T::*)(Args...)>
{
    using Class = T; //!< The class that declares the member function.

    /// \return MakeCallback(MemPtr, obj), with the call stored inline
    template<R (T::*MemPtr)(Args...)>
    static Callback<R, Args...> Make(T* obj)
    {
        const CallbackComponentVector components(
            {std::make_shared<CallbackComponent<R (T::*)(Args...)>>(MemPtr),
             std::make_shared<CallbackComponent<T*>>(obj)});
        return FabricInlineCallback<R, Args...>(
            [obj](Args... args) -> R { return (obj->*MemPtr)(std::forward<Args>(args)...); },
            components);
    }
};

/**
 * MakeCallback(MemPtr, obj) whose call reads one object fewer (FabricInlineCallback: the
 * member function is a template argument, so the stored target is the object pointer only).
 *
 * It compares equal (IsEqual, so trace Disconnect finds it) to MakeCallback(MemPtr, obj) made
 * with the same raw pointer type: MakeCallback's bound-object component has the type it was
 * given, so MakeCallback(MemPtr, Ptr<T>) or one given a pointer to a derived class compares
 * unequal. Hence \p obj must be a raw pointer to the class that declares MemPtr (checked at
 * compile time; convert a derived class's pointer first).
 */
template<auto MemPtr, typename T>
auto
FabricMemberCallback(T* obj)
{
    static_assert(std::is_same_v<T, typename FabricMemberCallbackOf<decltype(MemPtr)>::Class>,
                  "obj must point to the class that declares the member function, or the "
                  "callback would not compare equal to MakeCallback's");
    return FabricMemberCallbackOf<decltype(MemPtr)>::template Make<MemPtr>(obj);
}

} // namespace ns3

#endif // FABRIC_CALLBACK_H
