// Event loop of the store-and-forward model (see aware_model.hpp).
#include "chorus/network/aware_model.hpp"

#include <deque>
#include <unordered_map>

#include "chorus/core/assert.hpp"
#include "chorus/network/dag_tracker.hpp"

namespace chorus {

HopTime hop_time(Bandwidth bw, Time latency, Bytes bytes, AstraCompat astra) {
  if (astra.whole_ns_rounding) {
    // ASTRA-sim: busy for (int)(size / bw) ns, next hop after (int)(latency + size / bw) ns, bw in B/ns.
    const double serial_ns = static_cast<double>(bytes.count()) / (bw.bytes_per_second() / 1e9);
    const double latency_ns = static_cast<double>(latency.picoseconds()) / 1e3;
    return {Time::ns(static_cast<int64_t>(serial_ns)), Time::ns(static_cast<int64_t>(latency_ns + serial_ns))};
  }
  const Time serial = transfer_time(bytes, bw);
  return {serial, latency + serial};
}

namespace {

enum EventKind : uint32_t { kStart, kHop };

class AwareSimulation {
 public:
  AwareSimulation(const Schedule& schedule, const ResourceRoutes& routes, AstraCompat astra)
      : schedule_(schedule), routes_(routes), dag_(schedule), astra_(astra) {
    free_at_.assign(routes.resource_count(), 0);
    result_.links.resize(routes.resource_count());
    result_.finish.assign(schedule.size(), Time::zero());
  }

  AwareRunResult run() {
    dag_.schedule_sources(schedule_, events_, kStart);
    while (!events_.empty()) {
      const TimedEvent e = events_.pop();
      ++result_.events;
      if (e.kind == kStart) {
        start(OpId{e.a}, e.time);
      } else {
        hop(OpId{e.a}, e.b, e.time);
      }
    }
    CHORUS_ASSERT(dag_.unfinished() == 0, "{} ops never ran (a dependency was never met)", dag_.unfinished());
    return std::move(result_);
  }

 private:
  void start(OpId op, int64_t now) {
    if (!schedule_.is_transfer(op)) {
      finish(op, now);
      return;
    }
    hop(op, 0, now);
  }

  // The message of `op` reaches hop `index` of its route at `now`.
  void hop(OpId op, uint32_t index, int64_t now) {
    const std::span<const uint32_t> route = routes_.route(op);
    if (index == route.size()) {
      finish(op, now);
      return;
    }
    const uint32_t link = route[index];
    const HopTime t = hop_time(routes_.bandwidth(link), routes_.latency(link), schedule_.bytes(op), astra_);
    const int64_t begin = std::max(now, free_at_[link]);
    free_at_[link] = begin + t.serialization.picoseconds();
    record(link, now, begin, t, schedule_.bytes(op));
    events_.push(begin + t.delay.picoseconds(), kHop, op.value, index + 1);
  }

  void record(uint32_t l, int64_t now, int64_t begin, const HopTime& t, Bytes bytes) {
    std::deque<int64_t>& queue = in_service_[l];
    while (!queue.empty() && queue.front() <= now)
      queue.pop_front();
    queue.push_back(begin + t.serialization.picoseconds());
    result_.links.peak_flows[l] = std::max(result_.links.peak_flows[l], static_cast<uint32_t>(queue.size()));
    result_.links.bytes[l] += static_cast<double>(bytes.count());
    result_.links.busy[l] += t.serialization;
  }

  void finish(OpId op, int64_t now) {
    result_.makespan = std::max(result_.makespan, Time::ps(now));
    result_.finish[op.value] = Time::ps(now);
    dag_.finish_and_schedule(op, now, schedule_, events_, kStart);
  }

  const Schedule& schedule_;
  const ResourceRoutes& routes_;
  DagTracker dag_;
  AstraCompat astra_;
  EventQueue events_;
  std::vector<int64_t> free_at_;
  // Service end times of the messages each used link holds or queues (only links that carried traffic).
  std::unordered_map<uint32_t, std::deque<int64_t>> in_service_;
  AwareRunResult result_;
};

}  // namespace

AwareRunResult run_aware(const Schedule& schedule, const ResourceRoutes& routes, AstraCompat astra) {
  return AwareSimulation(schedule, routes, astra).run();
}

}  // namespace chorus
