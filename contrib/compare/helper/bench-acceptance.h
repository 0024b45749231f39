// SPDX-License-Identifier: GPL-2.0-only
#ifndef BENCH_ACCEPTANCE_H
#define BENCH_ACCEPTANCE_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>

namespace ns3
{

/**
 * \ingroup compare
 * The acceptance lines of issue #12 that a bench-packet-rate run measured, judged, printed to
 * \p os and returned as its summary.json "acceptance" object.
 *
 * The lines, defined at the default 128 GPUs (at another \p n each is reported with
 * applies = false and met = false):
 * - `roce_vs_global_<fabric>_permutation` (at least 7) and
 *   `roce_hop_packets_per_s_<fabric>_permutation` (at least 700k) for ZCube and ROFT, from
 *   `roce.<fabric>.permutation` (the medians of the rounds);
 * - `udp_fast_vs_global` (at least 6), from `variants.fast.ratio_vs_global`;
 * - the same two RoCE lines on the opt-in fast link device (key suffix `_fast_device`,
 *   `link_device: "fast"`), shown beside the default device's lines, not counted in all_met.
 *
 * A RoCE row whose rounds simulated different runs (`rounds_same_hop_packets` false) is not a
 * measurement of one run: its lines have met = false and rounds_differ = true. all_met is true
 * only when every one of the five default-device lines was measured, applies and is met; the
 * ones this run did not measure (e.g. --roce=false, or no global variant) are listed in
 * `missing`.
 *
 * \param summary the run's summary (its "roce" and "variants" objects; either may be absent)
 * \param n the run's GPU count (--n)
 * \param os where the lines are printed
 */
nlohmann::json Issue12Acceptance(const nlohmann::json& summary, uint32_t n, std::ostream& os);

} // namespace ns3

#endif // BENCH_ACCEPTANCE_H
