// Rooted collectives (Broadcast from member 0, Reduce to member 0) as a chain or a star.
//
// - Chain (`ring`): the data hops 0 -> 1 -> ... -> p-1 (Reduce: p-1 -> ... -> 0, reducing at every hop), one
//   whole chunk per hop; chunking (`splits`) pipelines the chain, the classic pipelined broadcast
//   (Thakur et al. 2005): time ~ (p - 1 + k - 1) (alpha + D/(kB)) for k chunks.
// - Star (`direct`): the root sends to (Reduce: receives from) every member directly, `window` at a time.
// These programs are not rotation-symmetric; they always run through the full schedule.
#include <algorithm>

#include <fmt/format.h>

#include "chorus/collective/algorithms/algorithms.hpp"
#include "chorus/core/error.hpp"

namespace chorus::algorithms {

namespace {

MemberProgram chain_broadcast(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  const Time forward = overheads.endpoint_delay;
  if (member + 1 < p) {
    ProgramSend send{member + 1, phase.data, forward, {}};
    if (member > 0)
      send.after.push_back({member - 1, 0});
    program.sends.push_back(send);
  }
  if (member > 0)
    program.finish.push_back({{member - 1, 0}, forward});
  return program;
}

MemberProgram chain_reduce(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  const Time reduce = overheads.endpoint_delay + overheads.reduction(phase.data);
  if (member > 0) {
    ProgramSend send{member - 1, phase.data, member + 1 < p ? reduce : overheads.endpoint_delay, {}};
    if (member + 1 < p)
      send.after.push_back({member + 1, 0});
    program.sends.push_back(send);
  }
  if (member + 1 < p)
    program.finish.push_back({{member + 1, 0}, reduce});
  return program;
}

MemberProgram star_broadcast(const PhaseSpec& phase, const Overheads& overheads, uint32_t member, uint32_t window) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (member == 0) {
    for (uint32_t peer = 1; peer < p; ++peer) {
      ProgramSend send{peer, phase.data, overheads.endpoint_delay, {}};
      // Only `window` messages in flight: the (k + window)-th waits until the k-th has arrived.
      if (peer > window)
        send.after.push_back({0, peer - 1 - window});
      program.sends.push_back(send);
    }
    return program;
  }
  program.finish.push_back({{0, member - 1}, overheads.endpoint_delay});
  return program;
}

MemberProgram star_reduce(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  const uint32_t p = phase.group_size;
  MemberProgram program;
  if (member > 0) {
    program.sends.push_back({0, phase.data, overheads.endpoint_delay, {}});
    return program;
  }
  const Time reduce = overheads.endpoint_delay + overheads.reduction(phase.data);
  for (uint32_t peer = 1; peer < p; ++peer) program.finish.push_back({{peer, 0}, reduce});
  return program;
}

}  // namespace

MemberProgram rooted(const PhaseSpec& phase, const Overheads& overheads, uint32_t member) {
  if (phase.group_size <= 1)
    return {};
  const bool broadcast = phase.kind == CollectiveKind::Broadcast;
  switch (phase.algorithm.kind) {
    case AlgorithmKind::Ring:
      return broadcast ? chain_broadcast(phase, overheads, member) : chain_reduce(phase, overheads, member);
    case AlgorithmKind::Direct: {
      const uint32_t peers = phase.group_size - 1;
      const uint32_t window = phase.algorithm.window == 0 ? peers : std::min(phase.algorithm.window, peers);
      return broadcast ? star_broadcast(phase, overheads, member, window) : star_reduce(phase, overheads, member);
    }
    default:
      throw Error("", "algorithm",
                  fmt::format("{} does not implement {}; use ring or direct", to_string(phase.algorithm.kind),
                              to_string(phase.kind)));
  }
}

}  // namespace chorus::algorithms
