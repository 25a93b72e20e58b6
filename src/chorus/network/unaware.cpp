// Forward pass of the congestion-unaware model over a Schedule (see unaware.hpp).
#include "chorus/network/unaware.hpp"

namespace chorus {

ScheduleTiming run_unaware(const Schedule& schedule, const MessageCost& cost) {
  ScheduleTiming timing;
  timing.finish.resize(schedule.size());
  for (uint32_t i = 0; i < schedule.size(); ++i) {
    const OpId op{i};
    Time ready = Time::zero();
    for (OpId dep : schedule.deps(op))
      ready = std::max(ready, timing.finish[dep.value]);
    Time finish = ready + schedule.pre_delay(op);
    if (schedule.is_transfer(op))
      finish += cost.delay(schedule.src(op), schedule.dst(op), schedule.bytes(op));
    timing.finish[i] = finish;
    timing.makespan = std::max(timing.makespan, finish);
  }
  return timing;
}

}  // namespace chorus
