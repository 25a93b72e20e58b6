// The scaffolding shared by the event-driven network models (aware, flow):
// - EventQueue: timed events popped in time order, equal times in insertion order (deterministic runs);
// - DagTracker: which ops of a Schedule become ready when others finish: successor lists (CSR) and the count
//   of unfinished dependencies of every op.
#pragma once

#include <queue>
#include <vector>

#include "chorus/collective/schedule.hpp"

namespace chorus {

struct TimedEvent;
class EventQueue;

class DagTracker {
 public:
  explicit DagTracker(const Schedule& schedule);
  // Ops with no dependencies.
  const std::vector<OpId>& sources() const { return sources_; }
  void finish(OpId op, std::vector<OpId>& ready);
  // Marks `op` finished at `now` and queues, for every op that became ready, an event of kind `start_kind` at
  // now + its pre_delay.
  void finish_and_schedule(OpId op, int64_t now, const Schedule& schedule, EventQueue& events, uint32_t start_kind);
  // Queues the start events of the ops without dependencies.
  void schedule_sources(const Schedule& schedule, EventQueue& events, uint32_t start_kind) const;
  size_t unfinished() const { return unfinished_; }

 private:
  std::vector<uint32_t> succ_begin_;
  std::vector<OpId> succ_;
  std::vector<uint32_t> pending_;
  std::vector<OpId> sources_;
  size_t unfinished_ = 0;
  std::vector<OpId> ready_;
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

class EventQueue {
 public:
  void push(int64_t time, uint32_t kind, uint32_t a, uint32_t b) { heap_.push({time, seq_++, kind, a, b}); }
  bool empty() const { return heap_.empty(); }
  const TimedEvent& top() const { return heap_.top(); }
  TimedEvent pop() {
    const TimedEvent e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  std::priority_queue<TimedEvent, std::vector<TimedEvent>, std::greater<>> heap_;
  uint64_t seq_ = 0;
};

}  // namespace chorus
