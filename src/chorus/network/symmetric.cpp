// Symmetric evaluation of hierarchical collectives (see symmetric.hpp).
#include "chorus/network/symmetric.hpp"

#include <algorithm>

#include "chorus/core/assert.hpp"

namespace chorus {

bool can_evaluate_symmetrically(const CollectivePlan& plan, const Topology& topology) {
  if (!topology.is_dimensional())
    return false;
  for (const PlannedPhase& phase : plan.phases) {
    if (!is_rotation_symmetric(phase.spec))
      return false;
    const int32_t d = plan.dims[phase.dim].network_dimension;
    if (d < 0)
      return false;
    if (topology.dimensions()[d].kind == BlockKind::Mesh)
      return false;  // a line is not rotation-symmetric
  }
  return true;
}

Time symmetric_phase_time(const PhaseSpec& phase, const Overheads& overheads, const DimensionalCost& cost,
                          size_t network_dimension) {
  const MemberProgram program = member_program(phase, overheads, 0);
  std::vector<Time> sent(program.sends.size());
  // By symmetry the message "member f's send k" leaves at sent[k] and reaches member 0 after the cost of
  // the hop from f to 0 (the same as from 0 to 0 + (0 - f)).
  auto arrival = [&](const Arrival& a) {
    CHORUS_ASSERT(a.send_index < sent.size(), "arrival of send {} of {}", a.send_index, sent.size());
    return sent[a.send_index] + cost.member_delay(network_dimension, a.from, 0, program.sends[a.send_index].bytes);
  };
  for (size_t s = 0; s < program.sends.size(); ++s) {
    const ProgramSend& send = program.sends[s];
    Time ready = Time::zero();
    for (const Arrival& a : send.after) {
      CHORUS_ASSERT(a.send_index < s, "send {} waits for a later send {}", s, a.send_index);
      ready = std::max(ready, arrival(a));
    }
    sent[s] = ready + send.pre_delay;
  }
  Time end = Time::zero();
  for (const FinishStep& step : program.finish)
    end = std::max(end, arrival(step.after) + step.delay);
  if (program.finish.empty()) {
    for (size_t s = 0; s < program.sends.size(); ++s) {
      end =
          std::max(end, sent[s] + cost.member_delay(network_dimension, 0, program.sends[s].to, program.sends[s].bytes));
    }
  }
  return end;
}

Time symmetric_collective_time(const CollectivePlan& plan, const DimensionalCost& cost) {
  const size_t phases = plan.phases.size();
  std::vector<Time> duration(phases);
  for (size_t j = 0; j < phases; ++j) {
    const PlannedPhase& phase = plan.phases[j];
    duration[j] = symmetric_phase_time(phase.spec, plan.overheads, cost, plan.dims[phase.dim].network_dimension);
  }
  // Flow shop with a window of active chunks per phase queue.
  const uint32_t window = plan.active_chunks;
  std::vector<std::vector<Time>> done(window, std::vector<Time>(phases, Time::zero()));
  Time makespan = Time::zero();
  for (uint32_t c = 0; c < plan.chunks; ++c) {
    Time previous = Time::zero();
    for (size_t j = 0; j < phases; ++j) {
      const Time start = std::max(previous, c >= window ? done[c % window][j] : Time::zero());
      previous = start + duration[j];
      done[c % window][j] = previous;
    }
    makespan = std::max(makespan, previous);
  }
  return makespan;
}

}  // namespace chorus
