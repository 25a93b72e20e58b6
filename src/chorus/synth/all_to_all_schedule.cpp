// List scheduling of routed All-to-All chunks (see all_to_all_schedule.hpp).
#include "chorus/synth/all_to_all_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>
#include <type_traits>

#include "chorus/core/assert.hpp"
#include "chorus/synth/event_lanes.hpp"

namespace chorus {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// What the scheduler touches of a route at each hop, in one place (a route is visited at random; one cache miss).
struct RouteState {
  uint32_t at = 0;   // its next hop, an index into AllToAllRoutes::links
  uint32_t end = 0;  // one past its last hop
  uint32_t last_hop = kNone;
  uint32_t next = kNone;  // the next route waiting at the same link (FifoWaiting)
  uint32_t chunk = 0;
  uint32_t chunk_class = 0;
  int64_t ahead() const { return int64_t{end} - int64_t{at}; }
};

// Fifo waiting: per link a list threaded through the routes (a chunk waits at one link at a time). Arrivals come
// in time order, so a new arrival goes to the tail, except that the arrivals of one instant are ordered among
// themselves (most hops ahead first, then the lower route id): `batch_prev` is the element before the first
// arrival of the current instant.
class FifoWaiting {
 public:
  FifoWaiting(uint32_t links, std::vector<RouteState>& routes)
      : head_(links, kNone), tail_(links, kNone), batch_time_(links, -1), batch_prev_(links, kNone), r_(routes) {}

  bool empty(uint32_t l) const { return head_[l] == kNone; }
  uint32_t front(uint32_t l) const { return head_[l]; }

  // `before(a, b)`: whether route a goes before route b when both arrive at the same instant.
  template <class Before>
  void push(uint32_t l, uint32_t q, int64_t now, Before before) {
    if (batch_time_[l] != now) {
      batch_time_[l] = now;
      batch_prev_[l] = tail_[l];
      append(l, q);
      return;
    }
    if (tail_[l] == kNone || before(tail_[l], q)) {  // the common case, and sorted input stays linear
      append(l, q);
      return;
    }
    uint32_t prev = batch_prev_[l];
    uint32_t at = prev == kNone ? head_[l] : r_[prev].next;
    while (at != kNone && before(at, q)) {
      prev = at;
      at = r_[at].next;
    }
    if (at == kNone) {
      append(l, q);
      return;
    }
    r_[q].next = at;
    if (prev == kNone)
      head_[l] = q;
    else
      r_[prev].next = q;
  }

  uint32_t pop(uint32_t l) {
    const uint32_t q = head_[l];
    head_[l] = r_[q].next;
    if (head_[l] == kNone)
      tail_[l] = kNone;
    if (batch_prev_[l] == q)
      batch_prev_[l] = kNone;  // the batch now starts at the head
    r_[q].next = kNone;
    return q;
  }

 private:
  void append(uint32_t l, uint32_t q) {
    r_[q].next = kNone;
    if (tail_[l] == kNone)
      head_[l] = q;
    else
      r_[tail_[l]].next = q;
    tail_[l] = q;
  }

  std::vector<uint32_t> head_, tail_;
  std::vector<int64_t> batch_time_;
  std::vector<uint32_t> batch_prev_;
  std::vector<RouteState>& r_;
};

// Critical waiting: a heap per link of (hops ahead, -route id).
class CriticalWaiting {
 public:
  CriticalWaiting(uint32_t links, std::vector<RouteState>& /*routes*/) : queue_(links) {}
  bool empty(uint32_t l) const { return queue_[l].empty(); }
  void push(uint32_t l, uint32_t q, int64_t ahead) { queue_[l].push({ahead, -static_cast<int64_t>(q), q}); }
  uint32_t pop(uint32_t l) {
    const uint32_t q = std::get<2>(queue_[l].top());
    queue_[l].pop();
    return q;
  }

 private:
  std::vector<std::priority_queue<std::tuple<int64_t, int64_t, uint32_t>>> queue_;
};

template <class Waiting>
ListSchedule run(const SynthGraph& g, const AllToAllRoutes& routes, const HopDurations& durations) {
  ListSchedule r;
  const uint32_t count = routes.size();
  std::vector<RouteState> state(count);
  for (uint32_t q = 0; q < count; ++q)
    state[q] = {routes.begin[q], routes.begin[q + 1], kNone, kNone, routes.chunk[q], routes.chunk_class[q]};
  std::vector<uint32_t> hop_route;  // per hop: its route
  std::vector<char> busy(g.link_count(), 0);
  Waiting waiting(g.link_count(), state);
  auto before = [&](uint32_t a, uint32_t b) {
    return state[a].ahead() != state[b].ahead() ? state[a].ahead() > state[b].ahead() : a < b;
  };
  auto wait = [&](uint32_t q, int64_t now) {
    if constexpr (std::is_same_v<Waiting, FifoWaiting>)
      waiting.push(routes.links[state[q].at], q, now, before);
    else
      waiting.push(routes.links[state[q].at], q, state[q].ahead());
  };
  // At time 0 every chunk waits at its first link: sorted once (by link, then the arrival order) instead of
  // inserted one by one.
  std::vector<uint32_t> initial;
  for (uint32_t q = 0; q < count; ++q) {
    if (state[q].at != state[q].end)
      initial.push_back(q);
  }
  std::sort(initial.begin(), initial.end(), [&](uint32_t a, uint32_t b) {
    const uint32_t la = routes.links[state[a].at], lb = routes.links[state[b].at];
    return la != lb ? la < lb : before(a, b);
  });
  for (uint32_t q : initial)
    wait(q, 0);
  r.hops.reserve(routes.links.size());
  hop_route.reserve(routes.links.size());
  EventLanes events;
  std::vector<uint32_t> touched(g.link_count());
  std::iota(touched.begin(), touched.end(), 0);
  int64_t now = 0;
  while (true) {
    for (uint32_t l : touched) {
      if (busy[l] || waiting.empty(l))
        continue;
      const uint32_t q = waiting.pop(l);
      RouteState& s = state[q];
      const int64_t tau = durations(l, s.chunk_class);
      CHORUS_ASSERT(tau > 0, "all-to-all: a hop of no duration on link {}", l);
      busy[l] = 1;
      const uint32_t hop = static_cast<uint32_t>(r.hops.size());
      r.hops.push_back({l, s.chunk, Time::ps(now), Time::ps(now + tau), s.last_hop});
      hop_route.push_back(q);
      s.last_hop = hop;
      ++s.at;
      r.makespan = std::max(r.makespan, Time::ps(now + tau));
      events.push(tau, {now + tau, hop});
      // Routes are visited at random (one cache miss each): ask now for what this hop's end will read (the
      // chunk's next link) and for the link's next waiting chunk, so the misses overlap with other hops.
      if (s.at < s.end)
        __builtin_prefetch(&routes.links[s.at]);
      if constexpr (std::is_same_v<Waiting, FifoWaiting>) {
        if (!waiting.empty(l))
          __builtin_prefetch(&state[waiting.front(l)]);
      }
    }
    if (events.empty())
      break;
    now = events.top().time;
    touched.clear();
    while (!events.empty() && events.top().time == now) {
      const uint32_t hop = events.top().id;
      events.pop();
      const uint32_t l = r.hops[hop].link, q = hop_route[hop];
      busy[l] = 0;
      touched.push_back(l);
      if (state[q].at < state[q].end) {
        wait(q, now);
        touched.push_back(routes.links[state[q].at]);
      }
    }
  }
  return r;
}

}  // namespace

HopDurations::HopDurations(const SynthGraph& graph, std::vector<int64_t> class_bytes)
    : graph_(graph), links_(graph.link_count()), bytes_(std::move(class_bytes)) {
  if (uint64_t{links_} * bytes_.size() > kMaxTable)
    return;  // computed per hop instead
  ps_.resize(size_t{links_} * bytes_.size());
  for (uint32_t c = 0; c < bytes_.size(); ++c) {
    for (uint32_t l = 0; l < links_; ++l)
      ps_[size_t{c} * links_ + l] =
          (graph.latency(l) + transfer_time(Bytes(bytes_[c]), graph.bandwidth(l))).picoseconds();
  }
}

ListSchedule list_schedule(const SynthGraph& graph, const AllToAllRoutes& routes, const HopDurations& durations,
                           WaitOrder order) {
  CHORUS_ASSERT(routes.begin.size() == size_t{routes.size()} + 1 && routes.chunk_class.size() == routes.size(),
                "all-to-all: inconsistent routes");
  return order == WaitOrder::Fifo ? run<FifoWaiting>(graph, routes, durations)
                                  : run<CriticalWaiting>(graph, routes, durations);
}

}  // namespace chorus
