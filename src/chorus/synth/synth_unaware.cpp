// Unaware replay of a synthesized Schedule on its own links (see synth_unaware.hpp).
#include "chorus/synth/synth_unaware.hpp"

#include <algorithm>
#include <vector>

namespace chorus {

Time synth_unaware_time(const Topology& topology, const SynthResult& result) {
  const Schedule& schedule = result.schedule;
  std::vector<Time> finish(schedule.size());
  Time makespan = Time::zero();
  for (uint32_t i = 0; i < schedule.size(); ++i) {
    const OpId op{i};
    Time ready = Time::zero();
    for (OpId dep : schedule.deps(op))
      ready = std::max(ready, finish[dep.value]);
    Time end = ready + schedule.pre_delay(op);
    if (schedule.is_transfer(op)) {
      const LinkId link = result.ops[i].link;
      end += topology.link_latency(link) + transfer_time(schedule.bytes(op), topology.link_bandwidth(link));
    }
    finish[i] = end;
    makespan = std::max(makespan, end);
  }
  return makespan;
}

}  // namespace chorus
