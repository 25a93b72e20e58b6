// Event loop of the flow-level model (see flow_model.hpp).
#include "chorus/network/flow_model.hpp"

#include <cmath>

#include "chorus/core/assert.hpp"
#include "chorus/network/dag_tracker.hpp"
#include "chorus/network/flow/maxmin.hpp"

namespace chorus {

namespace {

enum EventKind : uint32_t { kStart, kTransmit, kDone };

class FlowSimulation {
 public:
  FlowSimulation(const Schedule& schedule, const ResourceRoutes& routes)
      : schedule_(schedule), routes_(routes), dag_(schedule) {
    const uint32_t n = routes.resource_count();
    for (uint32_t r = 0; r < n; ++r)
      system_.add_resource(routes.bandwidth(r).bytes_per_second());
    result_.links.resize(n);
    active_on_link_.assign(n, 0);
    busy_since_.assign(n, 0);
    result_.finish.assign(schedule.size(), Time::zero());
  }

  FlowRunResult run() {
    dag_.schedule_sources(schedule_, events_, kStart);
    while (!events_.empty()) {
      const int64_t now = events_.top().time;
      while (!events_.empty() && events_.top().time == now) {
        const TimedEvent e = events_.pop();
        handle(e, now);
      }
      resolve_rates(now);
    }
    CHORUS_ASSERT(dag_.unfinished() == 0, "{} ops never ran (a dependency was never met)", dag_.unfinished());
    return std::move(result_);
  }

 private:
  void handle(const TimedEvent& e, int64_t now) {
    ++result_.events;
    switch (e.kind) {
      case kStart:
        start(OpId{e.a}, now);
        break;
      case kTransmit:
        transmit(OpId{e.a}, now);
        break;
      case kDone:
        if (e.b == flow_version_[e.a])
          complete_flow(e.a, now);
        break;
    }
  }

  void start(OpId op, int64_t now) {
    if (!schedule_.is_transfer(op)) {
      finish(op, now);
      return;
    }
    Time latency = Time::zero();
    for (uint32_t r : routes_.route(op))
      latency += routes_.latency(r);
    events_.push(now + latency.picoseconds(), kTransmit, op.value, 0);
  }

  void transmit(OpId op, int64_t now) {
    if (schedule_.bytes(op).count() == 0) {
      finish(op, now);
      return;
    }
    const std::span<const uint32_t> resources = routes_.route(op);
    const uint32_t flow = system_.add_flow(resources);
    if (flow >= flow_op_.size()) {
      flow_op_.resize(flow + 1);
      flow_remaining_.resize(flow + 1);
      flow_rate_.resize(flow + 1);
      flow_last_.resize(flow + 1);
      flow_version_.resize(flow + 1, 0);
    }
    flow_op_[flow] = op.value;
    flow_remaining_[flow] = static_cast<double>(schedule_.bytes(op).count());
    flow_rate_[flow] = 0;
    flow_last_[flow] = now;
    ++flow_version_[flow];
    for (uint32_t l : resources) {
      if (active_on_link_[l]++ == 0)
        busy_since_[l] = now;
      result_.links.peak_flows[l] = std::max(result_.links.peak_flows[l], active_on_link_[l]);
    }
  }

  void complete_flow(uint32_t flow, int64_t now) {
    const OpId op{flow_op_[flow]};
    for (uint32_t l : routes_.route(op)) {
      result_.links.bytes[l] += static_cast<double>(schedule_.bytes(op).count());
      if (--active_on_link_[l] == 0)
        result_.links.busy[l] += Time::ps(now - busy_since_[l]);
    }
    ++flow_version_[flow];
    system_.remove_flow(flow);
    finish(op, now);
  }

  void finish(OpId op, int64_t now) {
    result_.makespan = std::max(result_.makespan, Time::ps(now));
    result_.finish[op.value] = Time::ps(now);
    dag_.finish_and_schedule(op, now, schedule_, events_, kStart);
  }

  // After all events of one instant: new max-min rates, and new completion times for the flows they changed.
  void resolve_rates(int64_t now) {
    changed_.clear();
    system_.solve(changed_);
    result_.rate_updates += changed_.size();
    for (uint32_t flow : changed_) {
      flow_remaining_[flow] -= flow_rate_[flow] * static_cast<double>(now - flow_last_[flow]) * 1e-12;
      flow_remaining_[flow] = std::max(0.0, flow_remaining_[flow]);
      flow_last_[flow] = now;
      flow_rate_[flow] = system_.rate(flow);
      ++flow_version_[flow];
      CHORUS_ASSERT(flow_rate_[flow] > 0, "flow {} got no bandwidth", flow);
      const double ps = std::ceil(flow_remaining_[flow] / flow_rate_[flow] * 1e12 - 1e-6);
      events_.push(now + static_cast<int64_t>(std::max(0.0, ps)), kDone, flow, flow_version_[flow]);
    }
  }

  const Schedule& schedule_;
  const ResourceRoutes& routes_;
  DagTracker dag_;
  MaxMinSystem system_;
  EventQueue events_;
  std::vector<uint32_t> flow_op_;
  std::vector<double> flow_remaining_, flow_rate_;
  std::vector<int64_t> flow_last_;
  std::vector<uint32_t> flow_version_;
  std::vector<uint32_t> active_on_link_;
  std::vector<int64_t> busy_since_;
  std::vector<uint32_t> changed_;
  FlowRunResult result_;
};

}  // namespace

FlowRunResult run_flow(const Schedule& schedule, const ResourceRoutes& routes) {
  return FlowSimulation(schedule, routes).run();
}

}  // namespace chorus
