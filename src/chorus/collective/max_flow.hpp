// Maximum flow and minimum cut on a directed graph with double capacities, for the cut-type lower bounds
// (lower_bound.cpp).
//
// Default solver: highest-label push-relabel (Goldberg & Tarjan, J. ACM 35(4), 1988) with the global-relabel and gap
// heuristics of Cherkassky & Goldberg, "On implementing the push-relabel method for the maximum flow problem",
// Algorithmica 19(4), 1997. Phase 1 computes a maximum preflow (the flow value); phase 2, run only when a cut or the
// arc flows are asked for, returns the stranded excess to the source so that the minimum cut reported is the same
// as for any maximum flow: the nodes reachable from the source in the residual graph. Dinic's algorithm (Dinic 1970)
// is kept as an independent reference for tests; it needs one phase per distinct augmenting-path length, which is
// quadratic on large rings and tori.
//
// Capacities should be normalised (largest about 1): a residual capacity or an excess at or below `epsilon` counts
// as zero, which keeps floating-point crumbs from being pushed around forever.
//
//   std::vector<FlowArc> arcs{{0, 1, 1.0}, {1, 2, 0.5}};
//   MaxFlow flow(3, arcs, 1e-12);
//   double value = flow.run(0, 2);                      // 0.5
//   std::vector<char> side = flow.source_side();        // {1, 1, 0}
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace chorus {

struct FlowArc {
  uint32_t from = 0;
  uint32_t to = 0;
  double capacity = 0;
};

enum class MaxFlowAlgorithm : uint8_t {
  PushRelabel,  // highest label, global relabel and gap heuristics: near-linear on rings and tori
  Dinic,        // blocking flows on BFS levels: a reference implementation for tests
};

class MaxFlow {
 public:
  // Arcs keep their index in `arcs` for set_capacity() and arc_flow(). Parallel arcs and self-loops are allowed.
  MaxFlow(uint32_t nodes, std::span<const FlowArc> arcs, double epsilon,
          MaxFlowAlgorithm algorithm = MaxFlowAlgorithm::PushRelabel);

  uint32_t node_count() const { return node_count_; }
  void set_capacity(size_t arc, double capacity);

  // The maximum flow value from source to sink (source != sink). Stops early once `enough` is reached; then the
  // value returned is >= `enough` and the flow and cut are not maximal/minimal.
  double run(uint32_t source, uint32_t sink, double enough = std::numeric_limits<double>::infinity());

  // Push-relabel only, right after run() or move_sink() and before source_side() / arc_flow(): the same source and
  // capacities towards another sink, starting from the last run's preflow (the flow that reached the old sink
  // becomes that node's excess) instead of from zero. The source's arcs stay saturated, so the preflow found is
  // again maximum (or stops at `enough`); when many sinks are checked against one source, most of the flow is
  // already in place.
  double move_sink(uint32_t sink, double enough = std::numeric_limits<double>::infinity());

  // After run(): the nodes reachable from the source in the residual graph (1 = reachable), i.e. the source side of
  // the minimum cut with the fewest nodes. Not const: push-relabel completes its preflow into a flow lazily here.
  std::vector<char> source_side();
  // After run(): the flow on arc `arc` (index in the constructor's list). Completes the flow as source_side() does.
  double arc_flow(size_t arc);

 private:
  // ---- shared residual graph (CSR, each slot's partner in reverse_) ----
  void build(std::span<const FlowArc> arcs);
  uint32_t arc_end(uint32_t u) const { return offset_[u + 1]; }

  // ---- push-relabel ----
  double run_push_relabel(uint32_t source, uint32_t sink, double enough);
  void complete_flow();
  void drain(uint32_t target, uint32_t blocked, double enough);
  void saturate_source_arcs(uint32_t source);
  void global_relabel(uint32_t target, uint32_t blocked);
  void discharge(uint32_t u, uint32_t target, double enough);
  void push(uint32_t u, uint32_t slot, uint32_t target);
  void relabel(uint32_t u);
  void gap(uint32_t empty_label);
  void add_active(uint32_t u);
  void link_label(uint32_t u);
  void unlink_label(uint32_t u);

  // ---- Dinic ----
  double run_dinic(uint32_t source, uint32_t sink, double enough);
  bool build_levels(uint32_t source, uint32_t sink);
  double augment(uint32_t u, uint32_t sink, double limit);

  uint32_t node_count_;
  double epsilon_;
  MaxFlowAlgorithm algorithm_;
  uint32_t source_ = 0, sink_ = 0;
  bool flow_pending_ = false;  // push-relabel: phase 2 (preflow -> flow) not yet run

  std::vector<uint32_t> offset_, to_, reverse_, forward_slot_;
  std::vector<double> capacity_, residual_;

  // Push-relabel state. Labels lie in [0, n]; n means "cannot reach the target" (parked). Active nodes sit in one
  // intrusive stack per label (entries made stale by a gap are skipped when popped); every labelled node is also in
  // a doubly linked list per label so that a gap can be found and cleared in time proportional to the nodes it lifts.
  std::vector<double> excess_;
  std::vector<uint32_t> label_, current_;
  std::vector<uint32_t> active_head_, active_next_;
  std::vector<uint32_t> label_head_, label_next_, label_prev_;
  uint32_t highest_active_ = 0, highest_label_ = 0;
  uint64_t work_since_relabel_ = 0;
  bool stopped_early_ = false;

  // Dinic state.
  std::vector<int32_t> level_;
  std::vector<uint32_t> queue_;
};

}  // namespace chorus
