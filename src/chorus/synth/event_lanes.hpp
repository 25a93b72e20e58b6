// EventLanes: a priority queue of timed events for event-driven schedulers whose every event is pushed at
// now + a duration, `now` never decreasing (a transfer starts now and ends a link's duration later). The events of
// one duration then come out of a FIFO already in time order, so the next event is the earliest of a few FIFO
// heads: O(1) per event instead of a heap's O(log n). Beyond kMaxLanes distinct durations every event moves to a
// binary heap. Order: by time, then the lower id, in both forms (ids pushed in increasing order keep each lane
// sorted on ties too).
//
//   EventLanes q;
//   q.push(duration_ps, {now + duration_ps, transfer});
//   while (!q.empty()) { const auto e = q.top(); q.pop(); ... }
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace chorus {

class EventLanes {
 public:
  struct Event {
    int64_t time;
    uint32_t id;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : id > o.id; }
  };

  void push(int64_t duration, Event e) {
    if (heap_mode_) {
      heap_.push(e);
      return;
    }
    uint32_t lane = 0;
    while (lane < durations_.size() && durations_[lane] != duration)
      ++lane;
    if (lane == durations_.size()) {
      if (lane == kMaxLanes) {
        to_heap();
        heap_.push(e);
        return;
      }
      durations_.push_back(duration);
      lanes_.emplace_back();
      heads_.push_back(0);
    }
    lanes_[lane].push_back(e);
  }

  bool empty() const { return heap_mode_ ? heap_.empty() : size() == 0; }

  // The earliest event (the queue must not be empty).
  Event top() const {
    if (heap_mode_)
      return heap_.top();
    return lanes_[best_lane()][heads_[best_lane()]];
  }

  void pop() {
    if (heap_mode_) {
      heap_.pop();
      return;
    }
    const uint32_t lane = best_lane();
    if (++heads_[lane] == lanes_[lane].size()) {
      lanes_[lane].clear();
      heads_[lane] = 0;
    } else if (heads_[lane] >= 4096 && heads_[lane] * 2 >= lanes_[lane].size()) {
      // Reclaim the consumed front so a lane's memory follows its live events, not all events ever pushed.
      lanes_[lane].erase(lanes_[lane].begin(), lanes_[lane].begin() + static_cast<std::ptrdiff_t>(heads_[lane]));
      heads_[lane] = 0;
    }
  }

 private:
  static constexpr uint32_t kMaxLanes = 16;

  size_t size() const {
    size_t s = 0;
    for (uint32_t i = 0; i < lanes_.size(); ++i)
      s += lanes_[i].size() - heads_[i];
    return s;
  }
  uint32_t best_lane() const {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < lanes_.size(); ++i) {
      if (heads_[i] < lanes_[i].size() && (best == UINT32_MAX || lanes_[best][heads_[best]] > lanes_[i][heads_[i]]))
        best = i;
    }
    return best;
  }
  void to_heap() {
    for (uint32_t i = 0; i < lanes_.size(); ++i) {
      for (size_t k = heads_[i]; k < lanes_[i].size(); ++k)
        heap_.push(lanes_[i][k]);
    }
    lanes_.clear();
    heads_.clear();
    heap_mode_ = true;
  }

  std::vector<int64_t> durations_;
  std::vector<std::vector<Event>> lanes_;
  std::vector<size_t> heads_;
  bool heap_mode_ = false;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
};

}  // namespace chorus
