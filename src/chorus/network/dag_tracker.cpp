// Successor lists and readiness counting for event-driven network models (see dag_tracker.hpp).
#include "chorus/network/dag_tracker.hpp"

#include "chorus/core/assert.hpp"

namespace chorus {

DagTracker::DagTracker(const Schedule& schedule) {
  const size_t n = schedule.size();
  succ_begin_.assign(n + 1, 0);
  pending_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    for (OpId d : schedule.deps(OpId{i}))
      ++succ_begin_[d.value + 1];
    pending_[i] = static_cast<uint32_t>(schedule.deps(OpId{i}).size());
    if (pending_[i] == 0)
      sources_.push_back(OpId{i});
  }
  for (size_t i = 0; i < n; ++i)
    succ_begin_[i + 1] += succ_begin_[i];
  succ_.resize(succ_begin_[n]);
  std::vector<uint32_t> cursor(succ_begin_.begin(), succ_begin_.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    for (OpId d : schedule.deps(OpId{i}))
      succ_[cursor[d.value]++] = OpId{i};
  }
  unfinished_ = n;
}

void DagTracker::finish(OpId op, std::vector<OpId>& ready) {
  CHORUS_ASSERT(unfinished_ > 0, "op {} finished twice", op.value);
  --unfinished_;
  for (uint32_t k = succ_begin_[op.value]; k < succ_begin_[op.value + 1]; ++k) {
    const OpId s = succ_[k];
    if (--pending_[s.value] == 0)
      ready.push_back(s);
  }
}

void DagTracker::finish_and_schedule(OpId op, int64_t now, const Schedule& schedule, EventQueue& events,
                                     uint32_t start_kind) {
  ready_.clear();
  finish(op, ready_);
  for (OpId next : ready_)
    events.push(now + schedule.pre_delay(next).picoseconds(), start_kind, next.value, 0);
}

void DagTracker::schedule_sources(const Schedule& schedule, EventQueue& events, uint32_t start_kind) const {
  for (OpId op : sources_)
    events.push(schedule.pre_delay(op).picoseconds(), start_kind, op.value, 0);
}

}  // namespace chorus
