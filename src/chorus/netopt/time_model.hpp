// The end-to-end training-step time of a workload on a multi-dimensional network, as a function of the
// per-NPU bandwidth B_d of each dimension (GB/s, 1 GB = 1e9 B, so bytes / (GB/s) = ns).
//
// LIBRA's closed form (Won et al., "LIBRA: Enabling Workload-aware Multi-dimensional Network Topology
// Optimization for Distributed Training of Large AI Models", arXiv:2109.11762; restated in
// /work/shared/reference/netopt.md §1.3):
// - a collective of m bytes over groups k_d moves, per NPU, in dimension d:
//     All-Reduce (d ascending)     s_d = 2 m (k_d-1)/k_d, then m <- m / k_d
//     Reduce-Scatter (ascending)   s_d = m (k_d-1)/k_d,   then m <- m / k_d
//     All-Gather (d descending)    s_d = m (k_d-1),       then m <- m * k_d   (m = each NPU's contribution)
//     All-to-All (ascending)       s_d = m (k_d-1)/k_d
// - its time is max_d s_d / B_d (chunks pipelined across dimensions);
// - no-overlap loop: every compute time and every collective is serialised.
// Options LIBRA lacks (ModelOptions):
// - block factors: the time chorus's collective simulation gives on the dimension's building block, with
//   B_d split over the links as LIBRA's cost model does (Ring: 2 links of B/2, FullyConnected: n-1 links of
//   B/(n-1), Switch: one link of B) and the algorithm chorus runs there (Ring and Switch: ring, unidirectional;
//   FullyConnected: direct). Time in d = steps * hops * latency_d + factor * s_d / B_d, e.g. factor 2 on a Ring
//   because a unidirectional ring algorithm uses one of the two links.
// - overlap loop: weight-gradient collectives run on a communication stream, overlapping the rest of the
//   backward pass; forward and input-gradient collectives stay blocking. (Contention between the stream and
//   blocking collectives is ignored, so this is optimistic.)
//
//   TrainingStep step = build_training_step(network, workload, comm, ModelOptions{});
//   double ms = step.time_ms({500, 300, 151.18, 48.82});
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "chorus/netopt/libra_inputs.hpp"

namespace chorus::netopt {

enum class TrainingLoop { NoOverlap, Overlap };

struct ModelOptions {
  bool block_factors = false;      // false: LIBRA's bytes-only model
  std::vector<double> latency_ns;  // one per dimension, or empty (no latency, as LIBRA)
  TrainingLoop loop = TrainingLoop::NoOverlap;
};

// LIBRA's per-dimension bytes (index d = dimension d); groups of 1 move nothing.
std::vector<double> dimension_bytes(CollectiveKind kind, double bytes, const std::vector<uint32_t>& groups);

// time_ms = latency_ms + coefficient / B_d (B_d in GB/s; coefficient in ms * GB/s).
struct DimensionTerm {
  double latency_ms = 0;
  double coefficient = 0;
};

struct CollectiveTerms {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;
  std::vector<uint32_t> groups;
  std::vector<DimensionTerm> dims;  // one per network dimension
  double time_ms(const std::vector<double>& bandwidth_gbps) const;
};

CollectiveTerms collective_terms(CollectiveKind kind, double bytes, const std::vector<uint32_t>& groups,
                                 const NetworkShape& network, const ModelOptions& options);

// One item of the training loop, in execution order.
struct LoopItem {
  enum class Kind { Compute, Blocking, Stream } kind = Kind::Compute;
  double compute_ms = 0;  // Compute
  size_t collective = 0;  // Blocking / Stream: index into TrainingStep::collectives
};

struct TrainingStep {
  std::vector<CollectiveTerms> collectives;  // distinct (kind, bytes, groups)
  std::vector<LoopItem> items;
  TrainingLoop loop = TrainingLoop::NoOverlap;
  double compute_ms() const;
  double time_ms(const std::vector<double>& bandwidth_gbps) const;
  // The loop's time when collective k takes collective_ms[k] (e.g. simulated times).
  double time_with(const std::vector<double>& collective_ms) const;
  // Communication time on the critical path: time_ms - compute_ms.
  double communication_ms(const std::vector<double>& bandwidth_gbps) const;
};

TrainingStep build_training_step(const NetworkShape& network, const Workload& workload, const Communicator& comm,
                                 const ModelOptions& options);

}  // namespace chorus::netopt
