// DagTracker: which ops of a Schedule become ready when others finish (shared by the event-driven models).
//
// Holds the successor lists (CSR) and the count of unfinished dependencies of every op. finish(op, t) returns,
// through `ready`, the ops whose last dependency just finished; each may start at t + pre_delay.
#pragma once

#include <vector>

#include "chorus/collective/schedule.hpp"

namespace chorus {

class DagTracker {
 public:
  explicit DagTracker(const Schedule& schedule);
  // Ops with no dependencies.
  const std::vector<OpId>& sources() const { return sources_; }
  void finish(OpId op, std::vector<OpId>& ready);
  size_t unfinished() const { return unfinished_; }

 private:
  std::vector<uint32_t> succ_begin_;
  std::vector<OpId> succ_;
  std::vector<uint32_t> pending_;
  std::vector<OpId> sources_;
  size_t unfinished_ = 0;
};

// A min-heap of timed events with a sequence number, so that equal times pop in insertion order.
struct TimedEvent {
  int64_t time = 0;
  uint64_t seq = 0;
  uint32_t kind = 0;
  uint32_t a = 0;
  uint32_t b = 0;
  bool operator>(const TimedEvent& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

}  // namespace chorus
