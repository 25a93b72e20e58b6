// Halving-doubling (Rabenseifner's recursive halving / doubling; Thakur et al. 2005) on 2^m members.
//
// Reduce-Scatter: m steps with partners at distance 1, 2, 4, ... exchanging D/2, D/4, ...;
// All-Gather: m steps with partners at distance p/2, ..., 1 exchanging D, 2D, ... (D = contribution);
// All-Reduce: the reduce-scatter steps then the all-gather steps in reverse.
// The message sizes, partners and per-message local delays follow ASTRA-sim's `halvingDoubling` stream
// state machine: its All-Reduce turns around when the partner distance reaches p, and it charges a
// reduction only to the received packets of its first round (InsertRule with rounds of m packets).
#include <bit>

#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus::algorithms {

MemberProgram halving_doubling(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (p <= 1)
    return program;
  if (!std::has_single_bit(p)) {
    throw Error("", "algorithm", fmt::format("halvingDoubling needs a power-of-two group; this one has {} NPUs", p));
  }
  const uint32_t m = static_cast<uint32_t>(std::countr_zero(p));
  uint64_t sends = m;
  uint64_t message = static_cast<uint64_t>(phase.data.count()) / 2;
  uint64_t distance = 1;
  bool doubling_distance = true;  // distance grows (reduce-scatter half) or shrinks (gather half)
  switch (phase.kind) {
    case CollectiveKind::AllReduce:
      sends = 2 * uint64_t{m};
      break;
    case CollectiveKind::ReduceScatter:
      break;
    case CollectiveKind::AllGather:
      message = static_cast<uint64_t>(phase.data.count());
      distance = p / 2;
      doubling_distance = false;
      break;
    default:
      throw Error("", "algorithm", fmt::format("halvingDoubling does not implement {}", to_string(phase.kind)));
  }
  const InsertRule rule{1, m - 1, phase.kind == CollectiveKind::ReduceScatter, phase.kind == CollectiveKind::AllReduce};
  program.sends.resize(sends);
  uint32_t previous_partner = 0;
  for (uint64_t s = 0; s < sends; ++s) {
    ProgramSend& send = program.sends[s];
    send.to = static_cast<uint32_t>(member ^ distance);
    send.bytes = Bytes(static_cast<int64_t>(message));
    send.pre_delay = rule.delay(s, send.bytes, overheads);
    if (s > 0)
      send.after.push_back({previous_partner, static_cast<uint32_t>(s - 1)});
    previous_partner = send.to;
    if (doubling_distance) {
      distance *= 2;
      message /= 2;
      if (distance == p && phase.kind == CollectiveKind::AllReduce) {
        // Turn around: the gather half starts at distance p/2 with the message size of the last step.
        doubling_distance = false;
        distance /= 2;
        message *= 2;
      }
    } else {
      distance /= 2;
      message *= 2;
    }
  }
  program.finish.push_back({{previous_partner, static_cast<uint32_t>(sends - 1)},
                            rule.delay(sends, Bytes(static_cast<int64_t>(message)), overheads)});
  return program;
}

}  // namespace chorus::algorithms
