// Direct: every member exchanges with every other member, up to `window` messages in flight.
//
// Follows ASTRA-sim's `direct[N]`: sizes as for the ring (D/p, All-Gather D), peers visited in ring order
// i+1, i+2, ...; the first `window` messages leave together; each later one leaves when an earlier one has
// arrived. An All-Reduce sends its gather half only after the whole reduce-scatter half has arrived and
// been reduced, so with the full window its time is 2 max_peer d(D/p) + 3 endpoint delays + one reduction.
#include <algorithm>

#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus::algorithms {

MemberProgram direct(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (p <= 1)
    return program;
  const uint32_t peers = p - 1;
  const uint32_t window = phase.algorithm.window == 0 ? peers : std::min(phase.algorithm.window, peers);
  uint64_t sends = peers;
  Bytes message = phase.data / static_cast<int64_t>(p);
  switch (phase.kind) {
    case CollectiveKind::AllReduce:
      sends = 2 * uint64_t{peers};
      break;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
      break;
    case CollectiveKind::AllGather:
      message = phase.data;
      break;
    default:
      throw Error("", "algorithm", fmt::format("direct does not implement {}", to_string(phase.kind)));
  }
  const InsertRule rule{window, window, phase.kind == CollectiveKind::ReduceScatter,
                        phase.kind == CollectiveKind::AllReduce};
  auto peer_at = [&](uint64_t k, int direction) {
    const uint64_t step = 1 + k % peers;
    return static_cast<uint32_t>(direction > 0 ? (member + step) % p : (member + p - step) % p);
  };
  // The k-th arrival at this member is the sender's k-th send (symmetry): it comes from peer_at(k, -1).
  auto arrival = [&](uint64_t k) { return Arrival{peer_at(k, -1), static_cast<uint32_t>(k)}; };
  const bool gated = phase.kind == CollectiveKind::AllReduce;
  program.sends.resize(sends);
  for (uint64_t s = 0; s < sends; ++s) {
    ProgramSend& send = program.sends[s];
    send.to = peer_at(s, +1);
    send.bytes = message;
    send.pre_delay = rule.delay(s, message, overheads);
    if (s >= window)
      send.after.push_back(arrival(s - window));
    if (gated && s >= peers) {
      for (uint64_t k = 0; k < peers; ++k) {
        if (k != s - window)
          send.after.push_back(arrival(k));
      }
    }
  }
  for (uint64_t k = 0; k < sends; ++k)
    program.finish.push_back({arrival(k), rule.delay(window + k, message, overheads)});
  return program;
}

}  // namespace chorus::algorithms
