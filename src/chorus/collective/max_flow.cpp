// Maximum flow: highest-label push-relabel with global relabelling and the gap heuristic (Goldberg & Tarjan 1988;
// Cherkassky & Goldberg, Algorithmica 19(4), 1997), and Dinic's algorithm (1970) as a reference. See max_flow.hpp.
//
// Why push-relabel: the lower bounds send flow from a super source into every NPU towards one sink. Dinic needs one
// phase per distinct shortest-path length, ~N/2 phases of O(E) on an N-ring. With exact distance labels from a
// global relabel, highest-label processing discharges the NPUs from the farthest inwards, each about once, so the
// same flow costs a few passes over the arcs.
#include "chorus/collective/max_flow.hpp"

#include <algorithm>

#include "chorus/core/assert.hpp"

namespace chorus {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Cherkassky & Goldberg's global-update frequency: relabel globally once the relabel work (each relabel costs
// kRelabelWork plus the node's degree) exceeds kNodeWeight * n + m, scaled by 1 / kUpdateFrequency.
constexpr uint64_t kRelabelWork = 12;
constexpr uint64_t kNodeWeight = 6;
constexpr uint64_t kUpdateFrequencyInverse = 2;

}  // namespace

MaxFlow::MaxFlow(uint32_t nodes, std::span<const FlowArc> arcs, double epsilon, MaxFlowAlgorithm algorithm)
    : node_count_(nodes), epsilon_(epsilon), algorithm_(algorithm) {
  build(arcs);
  excess_.assign(nodes, 0);
  label_.assign(nodes, nodes);
  current_.assign(nodes, 0);
  active_head_.assign(nodes, kNone);
  active_next_.assign(nodes, kNone);
  label_head_.assign(nodes + 1, kNone);
  label_next_.assign(nodes, kNone);
  label_prev_.assign(nodes, kNone);
  level_.assign(nodes, -1);
  queue_.reserve(nodes);
}

void MaxFlow::set_capacity(size_t arc, double capacity) {
  CHORUS_ASSERT(arc < forward_slot_.size(), "arc {} out of range", arc);
  capacity_[forward_slot_[arc]] = capacity;
}

double MaxFlow::run(uint32_t source, uint32_t sink, double enough) {
  CHORUS_ASSERT(source < node_count_ && sink < node_count_ && source != sink, "bad terminals {} -> {}", source, sink);
  residual_ = capacity_;
  source_ = source;
  sink_ = sink;
  flow_pending_ = false;
  return algorithm_ == MaxFlowAlgorithm::PushRelabel ? run_push_relabel(source, sink, enough)
                                                     : run_dinic(source, sink, enough);
}

double MaxFlow::move_sink(uint32_t sink, double enough) {
  CHORUS_ASSERT(algorithm_ == MaxFlowAlgorithm::PushRelabel && flow_pending_,
                "move_sink needs a push-relabel preflow from run() or move_sink()");
  CHORUS_ASSERT(sink < node_count_ && sink != source_, "bad sink {}", sink);
  sink_ = sink;
  stopped_early_ = false;
  drain(sink, source_, enough);  // its global relabel makes the old sink, holding excess, active
  return excess_[sink];
}

std::vector<char> MaxFlow::source_side() {
  complete_flow();
  std::vector<char> seen(node_count_, 0);
  std::vector<uint32_t> stack{source_};
  seen[source_] = 1;
  while (!stack.empty()) {
    const uint32_t u = stack.back();
    stack.pop_back();
    for (uint32_t a = offset_[u]; a < arc_end(u); ++a) {
      if (residual_[a] > epsilon_ && !seen[to_[a]]) {
        seen[to_[a]] = 1;
        stack.push_back(to_[a]);
      }
    }
  }
  return seen;
}

double MaxFlow::arc_flow(size_t arc) {
  CHORUS_ASSERT(arc < forward_slot_.size(), "arc {} out of range", arc);
  complete_flow();
  const uint32_t slot = forward_slot_[arc];
  return capacity_[slot] - residual_[slot];
}

// CSR arc arrays: every arc has a forward slot at its tail and a reverse slot (capacity 0) at its head.
void MaxFlow::build(std::span<const FlowArc> arcs) {
  offset_.assign(node_count_ + 1, 0);
  for (const FlowArc& arc : arcs) {
    CHORUS_ASSERT(arc.from < node_count_ && arc.to < node_count_, "arc {} -> {} out of range", arc.from, arc.to);
    ++offset_[arc.from + 1];
    ++offset_[arc.to + 1];
  }
  for (uint32_t n = 0; n < node_count_; ++n)
    offset_[n + 1] += offset_[n];
  const size_t slots = offset_[node_count_];
  to_.resize(slots);
  reverse_.resize(slots);
  capacity_.assign(slots, 0);
  forward_slot_.resize(arcs.size());
  std::vector<uint32_t> cursor(offset_.begin(), offset_.end() - 1);
  for (size_t a = 0; a < arcs.size(); ++a) {
    const uint32_t forward = cursor[arcs[a].from]++, backward = cursor[arcs[a].to]++;
    to_[forward] = arcs[a].to;
    to_[backward] = arcs[a].from;
    reverse_[forward] = backward;
    reverse_[backward] = forward;
    capacity_[forward] = arcs[a].capacity;
    forward_slot_[a] = forward;
  }
}

// ---- Push-relabel ---------------------------------------------------------------------------------------------

// Phase 1: a maximum preflow; its value (the excess that reached the sink) is the max-flow value. The excess
// parked at nodes that cannot reach the sink is only returned (phase 2) if a cut or the flow is asked for.
double MaxFlow::run_push_relabel(uint32_t source, uint32_t sink, double enough) {
  std::fill(excess_.begin(), excess_.end(), 0.0);
  stopped_early_ = false;
  saturate_source_arcs(source);
  drain(sink, source, enough);
  flow_pending_ = true;
  return excess_[sink];
}

// Phase 2: the same discharge loop with the source as the target and the sink blocked. Nodes holding excess
// cannot reach the sink (phase 1 parked them), so their residual paths lead back only to the source.
void MaxFlow::complete_flow() {
  if (!flow_pending_)
    return;
  flow_pending_ = false;
  drain(source_, sink_, std::numeric_limits<double>::infinity());
}

void MaxFlow::saturate_source_arcs(uint32_t source) {
  for (uint32_t a = offset_[source]; a < arc_end(source); ++a) {
    const uint32_t v = to_[a];
    if (v == source || residual_[a] <= epsilon_)
      continue;
    const double delta = residual_[a];
    residual_[a] = 0;
    residual_[reverse_[a]] += delta;
    excess_[v] += delta;
    excess_[source] -= delta;
  }
}

// Discharges active nodes, highest label first, until none can reach `target`; `blocked` never takes flow.
void MaxFlow::drain(uint32_t target, uint32_t blocked, double enough) {
  const uint64_t relabel_budget = kUpdateFrequencyInverse * (kNodeWeight * node_count_ + to_.size() / 2);
  global_relabel(target, blocked);
  for (;;) {
    while (highest_active_ > 0 && active_head_[highest_active_] == kNone)
      --highest_active_;
    if (highest_active_ == 0)
      return;  // nothing is active at label 0: only the target has it
    const uint32_t u = active_head_[highest_active_];
    active_head_[highest_active_] = active_next_[u];
    if (label_[u] != highest_active_ || excess_[u] <= epsilon_)
      continue;  // stale entry: u was lifted by a gap or has been drained since
    discharge(u, target, enough);
    if (stopped_early_)
      return;
    if (work_since_relabel_ > relabel_budget)
      global_relabel(target, blocked);
  }
}

// Exact distance labels to `target` by a backward BFS over residual slots; unreachable nodes get n (parked).
// Rebuilds the label lists and active stacks from scratch, which also drops every stale entry.
void MaxFlow::global_relabel(uint32_t target, uint32_t blocked) {
  const uint32_t n = node_count_;
  std::fill(active_head_.begin(), active_head_.begin() + highest_active_ + 1, kNone);
  std::fill(label_.begin(), label_.end(), n);
  std::fill(label_head_.begin(), label_head_.end(), kNone);
  highest_active_ = 0;
  highest_label_ = 0;
  work_since_relabel_ = 0;
  queue_.clear();
  queue_.push_back(target);
  label_[target] = 0;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const uint32_t w = queue_[head];
    for (uint32_t a = offset_[w]; a < arc_end(w); ++a) {
      const uint32_t u = to_[a];  // the residual slot reverse_[a] runs u -> w
      if (label_[u] == n && u != blocked && residual_[reverse_[a]] > epsilon_) {
        label_[u] = label_[w] + 1;
        queue_.push_back(u);
        current_[u] = offset_[u];
        link_label(u);
        if (excess_[u] > epsilon_)
          add_active(u);
      }
    }
  }
}

// Pushes u's excess along admissible slots (label drops by one), relabelling when none is left, until u is empty,
// parked (label n), or the sink holds `enough`.
void MaxFlow::discharge(uint32_t u, uint32_t target, double enough) {
  for (;;) {
    for (uint32_t& a = current_[u]; a < arc_end(u); ++a) {
      if (residual_[a] <= epsilon_ || label_[to_[a]] + 1 != label_[u])
        continue;
      push(u, a, target);
      if (to_[a] == target && excess_[target] >= enough) {
        stopped_early_ = true;
        return;
      }
      if (excess_[u] <= epsilon_)
        return;  // keep the current slot: it may have room left
    }
    relabel(u);
    if (label_[u] >= node_count_)
      return;
  }
}

void MaxFlow::push(uint32_t u, uint32_t slot, uint32_t target) {
  const uint32_t v = to_[slot];
  const double delta = std::min(excess_[u], residual_[slot]);
  residual_[slot] -= delta;
  residual_[reverse_[slot]] += delta;
  excess_[u] -= delta;
  const bool was_active = excess_[v] > epsilon_;
  excess_[v] += delta;
  if (!was_active && v != target && excess_[v] > epsilon_)
    add_active(v);
}

// New label = 1 + the lowest label across a residual slot. If u was the last node at its label, nothing above that
// label can reach the target any more (gap heuristic): u and all of them are parked at once.
void MaxFlow::relabel(uint32_t u) {
  const uint32_t old_label = label_[u];
  unlink_label(u);
  if (label_head_[old_label] == kNone) {
    label_[u] = node_count_;
    gap(old_label);
    return;
  }
  uint32_t lowest = node_count_, lowest_slot = offset_[u];
  for (uint32_t a = offset_[u]; a < arc_end(u); ++a) {
    if (residual_[a] > epsilon_ && label_[to_[a]] + 1 < lowest) {
      lowest = label_[to_[a]] + 1;
      lowest_slot = a;
    }
  }
  work_since_relabel_ += kRelabelWork + (arc_end(u) - offset_[u]);
  label_[u] = lowest;
  current_[u] = lowest_slot;  // slots before it are not admissible at the new label
  if (lowest < node_count_)
    link_label(u);
}

void MaxFlow::gap(uint32_t empty_label) {
  for (uint32_t l = empty_label + 1; l <= highest_label_; ++l) {
    for (uint32_t v = label_head_[l]; v != kNone; v = label_next_[v])
      label_[v] = node_count_;
    label_head_[l] = kNone;
  }
  highest_label_ = empty_label - 1;  // empty_label >= 1: only the target has label 0 and it is never relabelled
}

// u is not in any active stack here: it is pushed only on becoming active, and only popped nodes lose excess.
void MaxFlow::add_active(uint32_t u) {
  active_next_[u] = active_head_[label_[u]];
  active_head_[label_[u]] = u;
  highest_active_ = std::max(highest_active_, label_[u]);
}

void MaxFlow::link_label(uint32_t u) {
  const uint32_t l = label_[u];
  label_prev_[u] = kNone;
  label_next_[u] = label_head_[l];
  if (label_head_[l] != kNone)
    label_prev_[label_head_[l]] = u;
  label_head_[l] = u;
  highest_label_ = std::max(highest_label_, l);
}

void MaxFlow::unlink_label(uint32_t u) {
  if (label_prev_[u] != kNone) {
    label_next_[label_prev_[u]] = label_next_[u];
  } else {
    label_head_[label_[u]] = label_next_[u];
  }
  if (label_next_[u] != kNone)
    label_prev_[label_next_[u]] = label_prev_[u];
}

// ---- Dinic ----------------------------------------------------------------------------------------------------

double MaxFlow::run_dinic(uint32_t source, uint32_t sink, double enough) {
  double total = 0;
  while (total < enough && build_levels(source, sink)) {
    std::copy(offset_.begin(), offset_.end() - 1, current_.begin());
    for (double pushed; (pushed = augment(source, sink, enough - total)) > epsilon_;)
      total += pushed;
  }
  return total;
}

// BFS levels over residual slots; true if the sink is reachable.
bool MaxFlow::build_levels(uint32_t source, uint32_t sink) {
  std::fill(level_.begin(), level_.end(), -1);
  queue_.clear();
  queue_.push_back(source);
  level_[source] = 0;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const uint32_t u = queue_[head];
    if (level_[sink] >= 0 && level_[u] >= level_[sink])
      break;  // deeper nodes cannot be on a shortest path
    for (uint32_t a = offset_[u]; a < arc_end(u); ++a) {
      if (residual_[a] > epsilon_ && level_[to_[a]] < 0) {
        level_[to_[a]] = level_[u] + 1;
        queue_.push_back(to_[a]);
      }
    }
  }
  return level_[sink] >= 0;
}

// Pushes up to `limit` along level-increasing residual slots (a blocking-flow DFS with current slots).
double MaxFlow::augment(uint32_t u, uint32_t sink, double limit) {
  if (u == sink)
    return limit;
  double pushed = 0;
  for (uint32_t& a = current_[u]; a < arc_end(u); ++a) {
    const uint32_t v = to_[a];
    if (level_[v] != level_[u] + 1 || residual_[a] <= epsilon_)
      continue;
    const double got = augment(v, sink, std::min(limit - pushed, residual_[a]));
    if (got <= 0)
      continue;
    residual_[a] -= got;
    residual_[reverse_[a]] += got;
    pushed += got;
    if (limit - pushed <= epsilon_)
      return pushed;  // keep the current slot: it may have room left
  }
  return pushed;
}

}  // namespace chorus
