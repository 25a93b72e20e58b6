// Hierarchical (multi-dimensional) collectives: a collective split into chunks, each chunk going through
// one phase per network dimension, as ASTRA-sim's system layer composes them.
//
// - Chunking (`preferred-dataset-splits` = splits): each NPU's buffer is cut into `splits` equal chunks;
//   with ASTRA-sim's rule a non-All-Gather chunk is at least one byte per NPU.
// - Phases of one chunk (D = the chunk entering the phase, p_i = NPUs along dimension i):
//     All-Reduce, LocalBandwidthAware: RS on dims 0..n-2, AR on dim n-1, AG on dims n-2..0
//     All-Reduce, Baseline: AR on every dim, ascending
//     Reduce-Scatter: RS ascending; All-Gather: AG descending; All-to-All: A2A ascending.
//   Each RS divides D by p_i, each AG multiplies it by p_i. Dimensions of size 1 are skipped.
// - Scheduling: each phase is a queue on every NPU that serves at most `active_chunks` chunks at a time, in
//   chunk order; so chunks pipeline across dimensions, and with one active chunk a 1-D collective runs its
//   chunks back to back.
// - build_schedule() materialises the whole collective as a Schedule over the topology's NPU ids.
//
//   CollectivePlan plan = plan_collective(topology, {CollectiveKind::AllReduce, Bytes::mib(64), n}, config);
//   Schedule s = build_schedule(plan);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/collective/program.hpp"
#include "chorus/collective/schedule.hpp"
#include "chorus/core/error.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

enum class Composition : uint8_t { Baseline, LocalBandwidthAware };

struct CollectivePlanConfig {
  // One algorithm per dimension used (ASTRA-sim: a list shorter than the network's dimensions uses only the
  // first dimensions). A single entry applies to every dimension when `repeat_single_algorithm` is set.
  std::vector<AlgorithmChoice> algorithms{AlgorithmChoice{}};
  bool repeat_single_algorithm = true;
  bool flatten = false;  // one logical dimension of all NPUs (ASTRA-sim's oneRing/oneDirect/...)
  Composition composition = Composition::LocalBandwidthAware;
  uint32_t splits = 1;
  uint32_t active_chunks = 1;
  Overheads overheads;
  // Where the algorithm choice came from, for error messages: a file and its key, or an argument.
  std::string source;
  Field algorithm_field = Argument{"algorithm"};
};

// A logical dimension: `size` members, NPU id = base + member * stride.
struct LogicalDimension {
  uint32_t size = 1;
  uint32_t stride = 1;
  int32_t network_dimension = -1;  // index into Topology::dimensions(); -1 when flattened or not dimensional
};

struct PlannedPhase {
  uint32_t dim = 0;  // index into CollectivePlan::dims
  PhaseSpec spec;
};

struct CollectivePlan {
  Collective collective;
  uint32_t npus = 0;
  std::vector<LogicalDimension> dims;
  uint32_t chunks = 1;
  Bytes chunk_bytes;  // per NPU entering the first phase (All-Gather: its contribution)
  std::vector<PlannedPhase> phases;
  uint32_t active_chunks = 1;
  Overheads overheads;
};

CollectivePlan plan_collective(const Topology& topology, const Collective& collective,
                               const CollectivePlanConfig& config);

// The algorithm of each dimension the plan uses, in first-use order, for reports: "ring" or "ring,direct,...".
std::string algorithm_label(const CollectivePlan& plan);

// Number of transfers the plan makes in total (without building it).
uint64_t count_transfers(const CollectivePlan& plan);

// The whole collective as a DAG of transfers between NPU ids. Its size is count_transfers(plan) plus one or
// more local ops per NPU, phase and chunk.
Schedule build_schedule(const CollectivePlan& plan);

}  // namespace chorus
