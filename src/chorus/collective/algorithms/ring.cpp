// Ring: every member sends to its successor and receives from its predecessor, one message in flight.
//
// Message counts and sizes follow ASTRA-sim's `ring` (D = the member's buffer entering the phase):
//   All-Reduce 2(p-1) messages of D/p (the first p-1 are reduced on arrival), Reduce-Scatter p-1 of D/p
//   (reduced), All-Gather p-1 of D (D is the member's contribution), All-to-All p(p-1)/2 of D/p relayed
//   hop by hop. Each send waits for the previous arrival and the local bundle delay (InsertRule).
// Classic cost (Thakur et al. 2005): AR 2(p-1)(alpha + D/(pB)), AG/RS (p-1)(alpha + D/(pB)).
#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus::algorithms {

namespace {

struct RingShape {
  uint64_t sends = 0;
  Bytes message;
};

RingShape ring_shape(const PhaseSpec& phase) {
  const uint64_t p = phase.group_size;
  const Bytes d = phase.data;
  switch (phase.kind) {
    case CollectiveKind::AllReduce:
      return {2 * (p - 1), d / static_cast<int64_t>(p)};
    case CollectiveKind::ReduceScatter:
      return {p - 1, d / static_cast<int64_t>(p)};
    case CollectiveKind::AllGather:
      return {p - 1, d};
    case CollectiveKind::AllToAll:
      return {p * (p - 1) / 2, d / static_cast<int64_t>(p)};
    default:
      throw Error("", "algorithm", fmt::format("ring does not implement {}", to_string(phase.kind)));
  }
}

}  // namespace

MemberProgram ring(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (p <= 1)
    return program;
  const RingShape shape = ring_shape(phase);
  // Member programs are held in memory (about 64 bytes a send): 2^22 sends is a 2-million-NPU ring All-Reduce.
  if (shape.sends > (uint64_t{1} << 22)) {
    throw Error("", "algorithm",
                fmt::format("ring {} over {} NPUs needs {} sequential messages per NPU; use direct",
                            to_string(phase.kind), p, shape.sends));
  }
  const InsertRule rule{1, p - 1, phase.kind == CollectiveKind::ReduceScatter, phase.kind == CollectiveKind::AllReduce};
  const uint32_t successor = (member + 1) % p;
  const uint32_t predecessor = (member + p - 1) % p;
  program.sends.resize(shape.sends);
  for (uint64_t s = 0; s < shape.sends; ++s) {
    ProgramSend& send = program.sends[s];
    send.to = successor;
    send.bytes = shape.message;
    send.pre_delay = rule.delay(s, shape.message, overheads);
    if (s > 0)
      send.after.push_back({predecessor, static_cast<uint32_t>(s - 1)});
  }
  program.finish.push_back(
      {{predecessor, static_cast<uint32_t>(shape.sends - 1)}, rule.delay(shape.sends, shape.message, overheads)});
  return program;
}

}  // namespace chorus::algorithms
