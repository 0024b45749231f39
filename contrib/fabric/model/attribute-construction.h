// SPDX-License-Identifier: GPL-2.0-only
#ifndef ATTRIBUTE_CONSTRUCTION_H
#define ATTRIBUTE_CONSTRUCTION_H

#include "ns3/attribute.h"
#include "ns3/object-base.h"
#include "ns3/type-id.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fabric
 * True if the environment sets attribute defaults (NS_ATTRIBUTE_DEFAULT), which only ns-3's
 * own construction (ObjectFactory, CreateObject) applies: SetConstructionAttributes' callers
 * then construct through it instead.
 */
bool AttributeDefaultsFromEnvironment();

/**
 * \ingroup fabric
 * Stops the program with the message ObjectBase::SetAttribute gives for a value an attribute
 * refuses (\p where: the type and attribute).
 */
[[noreturn]] void AttributeConstructionFailed(const std::string& where);

/**
 * \ingroup fabric
 * Set every construction attribute (TypeId::ATTR_CONSTRUCT) of \p tid and its parents on
 * \p object as ObjectBase::ConstructSelf does, in its order and with its precedence: this
 * type's attributes, then its parents'; the value \p valueOf gives for an attribute (a
 * Ptr<const AttributeValue>, null for none), else its initial value (where Config::SetDefault
 * and the command line put theirs); each made valid as ObjectBase::DoSet does (a value its
 * checker accepts is set as it is, a string is parsed). Without ConstructSelf's string work
 * per attribute (full names, serialized values): objects made once per run of a small
 * experiment spent a sizeable part of the run there. The caller completes the construction
 * (ObjectBase::NotifyConstructionCompleted) and, when AttributeDefaultsFromEnvironment(),
 * constructs through ObjectFactory instead.
 */
template<typename ValueOf>
void
SetConstructionAttributes(ObjectBase& object, TypeId tid, ValueOf valueOf)
{
    while (true)
    {
        const std::size_t count = tid.GetAttributeN(); // (a look-up in ns-3's registry)
        for (std::size_t i = 0; i < count; ++i)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            Ptr<const AttributeValue> value = valueOf(info);
            if (!(info.flags & TypeId::ATTR_CONSTRUCT))
            {
                if (value)
                {
                    AttributeConstructionFailed(tid.GetName() + "::" + info.name
                                                + " (its initial value cannot be set)");
                }
                continue;
            }
            if (!value)
            {
                value = info.initialValue;
            }
            bool set = false;
            if (info.checker->Check(*value))
            {
                set = info.accessor->Set(&object, *value);
            }
            else if (Ptr<AttributeValue> valid = info.checker->CreateValidValue(*value))
            {
                set = info.accessor->Set(&object, *valid);
            }
            if (!set)
            {
                AttributeConstructionFailed(tid.GetName() + "::" + info.name);
            }
        }
        const TypeId parent = tid.GetParent();
        if (parent == tid)
        {
            break;
        }
        tid = parent;
    }
}

} // namespace ns3

#endif // ATTRIBUTE_CONSTRUCTION_H
