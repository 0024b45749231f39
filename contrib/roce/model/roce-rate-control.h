// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_RATE_CONTROL_H
#define ROCE_RATE_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/dcqcn.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <memory>
#include <string>
#include <typeinfo>

namespace ns3
{

/**
 * \ingroup roce
 * Rate control of a RoCE queue pair, chosen by TypeId (RoceSender's "RateControl"
 * attribute), as TCP congestion control is in ns-3.
 */
class RoceRateControl : public Object
{
  public:
    static TypeId GetTypeId();

    /// The flow starts at \p lineBps.
    virtual void Start(double lineBps) = 0;
    /// The flow is over: cancel timers.
    virtual void Stop() = 0;
    virtual double GetRateBps() const = 0;
    /// A congestion notification packet arrived.
    virtual void OnCnp() = 0;
    /// \p bytes went on the wire.
    virtual void OnSent(uint32_t bytes) = 0;

    /**
     * What a queue pair asks its rate control per packet, kept in the queue pair's own
     * object: with a thousand queue pairs their rate controls do not stay in cache, and
     * reading one per packet costs a cache miss or more (doc/scaling.md).
     */
    struct SendState
    {
        bool mirrored{false};  //!< rateBps and callOnSent are kept up to date
        bool callOnSent{true}; //!< OnSent has work to do (always true when not mirrored)
        double rateBps{0};     //!< GetRateBps(), when mirrored
    };

    /**
     * Keep \p state equal to GetRateBps() and to whether OnSent has work to do, from now
     * on, if this rate control supports it (PublishesSendState); null stops it.
     * \return whether \p state is kept up to date (state->mirrored): if not, the caller
     * calls GetRateBps and OnSent per packet.
     */
    bool MirrorSendState(SendState* state);

    /**
     * Connect \p sink to the Rate trace, as TraceConnectWithoutContext("Rate", sink) does,
     * without looking the trace source up by name: every queue pair does it when it starts
     * (RoceSender::OnRateChange), and the lookup by name costs thousands of instructions.
     */
    void ConnectRateSink(const Callback<void, double, double>& sink);
    /// Disconnect a sink connected by ConnectRateSink.
    void DisconnectRateSink(const Callback<void, double, double>& sink);

  protected:
    void DoDispose() override;

    /**
     * Whether this object's class calls PublishSendState whenever GetRateBps or NeedsOnSent
     * may change (default false: its queue pair asks GetRateBps and calls OnSent per packet,
     * as before). The built-in classes answer true for their own type only, so that a user's
     * subclass of them, which may override OnSent or change the rate elsewhere, is asked per
     * packet unless it opts in by overriding this to return true (and publishing).
     */
    virtual bool PublishesSendState() const { return false; }

    /// Whether OnSent has work to do now (read by PublishSendState only).
    virtual bool NeedsOnSent() const { return true; }

    /// Copy GetRateBps() and NeedsOnSent() into the mirrored SendState, if any.
    void PublishSendState();

    TracedValue<double> m_rate{0}; //!< current sending rate (bit/s)

  private:
    SendState* m_mirror{nullptr}; //!< the queue pair's copy (MirrorSendState)
};

/**
 * \ingroup roce
 * No congestion control: always line rate.
 */
class NoRateControl : public RoceRateControl
{
  public:
    static TypeId GetTypeId();

    void Start(double lineBps) override
    {
        m_rate = lineBps;
        PublishSendState();
    }

    void Stop() override {}
    double GetRateBps() const override { return m_rate; }
    void OnCnp() override {}
    void OnSent(uint32_t) override {}

  protected:
    /// True for NoRateControl itself; a subclass opts in by overriding (RoceRateControl).
    bool PublishesSendState() const override { return typeid(*this) == typeid(NoRateControl); }

    bool NeedsOnSent() const override { return false; }
};

/**
 * \ingroup roce
 * DCQCN reaction point (see Dcqcn) with its timers. Defaults are the DCQCN paper's
 * (Zhu et al., SIGCOMM'15; as listed in REFERENCE-NUMBERS, recalled values): alpha timer 55 us,
 * rate-increase timer 55 us, byte counter 10 MB, F = 5, g = 1/256, additive increase 40 Mb/s;
 * hyper increase 200 Mb/s and minimum rate 100 Mb/s as in public DCQCN ns-3 configurations.
 * The increase steps are stated at 40 Gb/s (the paper's link rate) and, with
 * ScaleIncreaseWithLineRate, multiplied by line rate / 40 Gb/s so that the recovery time
 * does not change with the link speed.
 */
class DcqcnRateControl : public RoceRateControl
{
  public:
    static TypeId GetTypeId();
    DcqcnRateControl();

    void Start(double lineBps) override;
    void Stop() override;
    double GetRateBps() const override;
    void OnCnp() override;
    void OnSent(uint32_t bytes) override;

    double GetAlpha() const { return m_dcqcn ? m_dcqcn->GetAlpha() : 1.0; }
    uint32_t GetCnps() const { return m_dcqcn ? m_dcqcn->GetCnps() : 0; }

  protected:
    void DoDispose() override;
    /// True for DcqcnRateControl itself; a subclass opts in by overriding (RoceRateControl).
    bool PublishesSendState() const override { return typeid(*this) == typeid(DcqcnRateControl); }

    /// Below line rate the byte counter counts (Dcqcn::OnBytes); at line rate nothing does.
    bool NeedsOnSent() const override { return m_dcqcn && !m_dcqcn->AtLineRate(); }

  private:
    void AlphaTimer();
    void IncreaseTimer();
    void Update();

    DataRate m_minRate;
    double m_g;
    uint32_t m_fastRecovery;
    DataRate m_ai;
    DataRate m_hai;
    uint64_t m_byteCounter;
    Time m_alphaInterval;
    Time m_increaseInterval;
    bool m_scale;

    std::unique_ptr<Dcqcn> m_dcqcn;
    bool m_cnpInPeriod{false};
    EventId m_alphaEvent;
    EventId m_increaseEvent;
};

/**
 * \ingroup roce
 * The rate control a program's flag names: "dcqcn" (ns3::DcqcnRateControl), "none"
 * (ns3::NoRateControl), or the name of any constructible TypeId derived from
 * ns3::RoceRateControl (a user's own, registered by linking it in).
 * \param name the flag's value
 * \param what the flag, for the message ("--rate-control")
 * \throws std::invalid_argument naming \p what and the valid values
 */
TypeId RoceRateControlTypeId(const std::string& name, const std::string& what);

} // namespace ns3

#endif // ROCE_RATE_CONTROL_H
