// Collective synthesis: a topology-aware algorithm for any topology, as a Schedule with its own time estimate.
//
// All-Gather and Broadcast are spread problems (spread.hpp). Reduce-Scatter and Reduce are the time reversal of an
// All-Gather / Broadcast synthesized on the transposed graph (a link u->v of the reversed schedule was v->u there;
// TACOS's RS(G) = reverse(AG(G^T)), tacos.md §3): a node that forwarded a chunk to several nodes now receives
// their partial sums and reduces them, and a relay that never multicasts never reduces. All-Reduce is that
// Reduce-Scatter followed by an All-Gather that overlaps it: each chunk starts spreading as soon as its own
// reduction is done and each link as soon as its last Reduce-Scatter transfer ends. All-to-All routes every
// (source, destination) chunk on a shortest path, balancing links, and list-schedules the hops (all_to_all.hpp).
//
// Time model (TACOS's, tacos.md §2): a chunk of c bytes occupies link e for latency_e + c / bandwidth_e, one chunk
// per link at a time, store-and-forward. The Schedule carries, per transfer, a dependency on the transfer that
// brought its chunk (all of them, for reductions) and on the previous transfer on the same link, so the aware
// network model (store-and-forward, one message per link) reproduces the estimate, or beats it when a transfer
// could start earlier than the synthesizer started it.
//
// Chunks: k per NPU (--chunks), or chosen (chunks_per_npu = 0): candidate k are ordered by a chunk-model lower
// bound (the worst NPU's in-link capacity, discrete, and the hop diameter) and tried until that bound cannot beat
// the best time found (or the search effort is spent); each run gives up as soon as it cannot beat the best.
//
//   SynthOptions o;
//   o.kind = CollectiveKind::AllGather;
//   o.size = Bytes::gib(1);
//   SynthResult r = synthesize(topology, o);
//   fmt::print("{} in {} transfers\n", to_string(r.time), r.schedule.transfer_count());
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/collective/schedule.hpp"
#include "chorus/synth/demand.hpp"
#include "chorus/synth/spread.hpp"
#include "chorus/synth/synth_graph.hpp"

namespace chorus {

class Progress;

struct SynthOptions {
  CollectiveKind kind = CollectiveKind::AllGather;
  Bytes size;                   // NCCL convention (collective.hpp): All-Gather = the gathered output
  uint32_t chunks_per_npu = 0;  // 0: choose
  uint32_t root = 0;            // Broadcast / Reduce root (a global NPU id in the group)
  SynthGraphOptions graph;      // group, failures
  uint64_t seed = 1;
  std::optional<ChunkPriority> priority;  // none: try every priority and keep the best
  // Work cap of the chunk / priority search, in (member, chunk) deliveries summed over runs: a run is started only
  // if its n (n-1) k deliveries fit (the first always runs). Work, not wall time, so results never depend on the
  // machine: the same seed gives the same algorithm.
  uint64_t search_effort = uint64_t{1} << 21;
  uint32_t all_priorities_up_to = 128;  // with no priority given, try every priority on groups up to this size
                                        // (only Unique otherwise: it won every comparison, docs/synthesis.md)
  uint32_t max_chunks_per_npu = 64;
  // Tiered graphs (a DGX's rails): the search tries the rail restriction (rail_restriction.hpp) and,
  // on groups up to this size, the unrestricted engine as well.
  uint32_t unrestricted_with_rails_up_to = 256;
  uint32_t scan_cap = 0;  // options scored per link choice (SpreadProblem::scan_cap); 0: 48 up to 256 NPUs, else 8
  Progress* progress = nullptr;  // hears of each search run (core/progress.hpp); none: silent
  // Switches (non-member relays) multicast in All-Gather and Broadcast phases (one copy in, several out). Off for
  // MSCCL XML (chorus synth --out): MSCCL has no multicast, every copy is a GPU's own send through the switch.
  bool switches_multicast = true;
  // On a star (one switch, every member's only links to and from it) where the switch cannot replicate, also try
  // the direct exchange through the switch (star_direct.hpp) for every k; off: the matching engine alone.
  bool direct_through_switch = true;
  // All-to-All only: the largest concurrent-flow LP its lower bound solves exactly, in flow variables (sources with
  // traffic x links; ConcurrentFlowOptions::exact_variables); larger graphs get the bracket. 0: never.
  uint64_t exact_bound_limit = uint64_t{1} << 14;
  // All-to-All only: bytes per (source, destination) NPU (--demand FILE.csv); none: size / N to every NPU.
  std::optional<DemandMatrix> demand;
};

// One run the search made.
struct SynthAttempt {
  uint32_t chunks_per_npu = 0;
  ChunkPriority priority = ChunkPriority::Unique;
  Time model_bound;  // chunk-model lower bound for this k (skip the run when it cannot beat the best)
  Time time;         // Time::max() when skipped or given up
  bool skipped = false;
  bool gave_up = false;
  bool rails = false;   // with the rail restriction (slow links carry only their own tier component's chunks)
  bool direct = false;  // the direct exchange through the switch of a star (star_direct.hpp), not the matching
};

// One operation's role, for writers (MSCCL) and checks.
// 24 bytes (the flag beside the link id, not after the times): a 1,024-NPU All-Gather has a million of them.
struct SynthOp {
  LinkId link;          // the physical link a transfer crosses (local steps: unused)
  bool reduce = false;  // the receiver adds what it receives to its own partial (Reduce-Scatter / Reduce phases)
  Time start, finish;   // the synthesizer's own timing
};

struct SynthResult {
  CollectiveKind kind = CollectiveKind::AllGather;
  Bytes size;
  Schedule schedule;        // global node ids; chunk ids: j * members + rank (see chunk_origin)
  HugeVector<SynthOp> ops;  // per schedule op (huge-page backed, as the Schedule)
  Time time;                // the synthesized collective time (estimate)
  uint32_t chunks_per_npu = 0;
  uint32_t chunk_count = 0;
  Bytes chunk_bytes;
  ChunkPriority priority = ChunkPriority::Unique;
  bool rails = false;             // the rail restriction won (see rail_restriction.hpp)
  bool direct = false;            // the direct exchange through a star's switch won (star_direct.hpp)
  std::vector<uint32_t> members;  // global NPU ids; rank r = members[r]
  uint32_t root_rank = 0;
  std::vector<SynthAttempt> attempts;
  double synthesis_s = 0;
  uint64_t events = 0;
  // All-to-All: bytes per (source rank, destination rank), member_count^2 (a chunk of pair (s, d) carries
  // all_to_all_chunk_bytes(pair_bytes[s * n + d], chunks_per_npu)); and the busiest link's busy time.
  std::vector<int64_t> pair_bytes;
  Time max_link_load;
  // Bundles (dimension-wise schedules, dimensional.hpp; empty otherwise): op i carries the unit chunks
  // bundle_units[bundle_start[i] .. bundle_start[i + 1]), sorted, instead of the one chunk schedule.chunk(op). A unit
  // is chunk_bytes (rounded up), unit x belongs to (originates at / is reduced at) rank x / chunks_per_npu, the
  // MSCCL in-place layout; a transfer's bytes are its units' bytes, less the rounding.
  std::vector<uint64_t> bundle_start;
  std::vector<uint32_t> bundle_units;
};

// The units op `op` of a bundled result carries (empty for ordinary results).
inline std::span<const uint32_t> op_units(const SynthResult& r, uint32_t op) {
  if (r.bundle_start.empty())
    return {};
  return {r.bundle_units.data() + r.bundle_start[op], r.bundle_start[op + 1] - r.bundle_start[op]};
}

// All-to-All groups up to 4096 NPUs: a route is kept per (source, destination) chunk.
inline constexpr uint64_t kMaxAllToAllPairs = uint64_t{1} << 24;

// Throws chorus::Error on bad input (see synth_graph.hpp; also: size <= 0, a root outside the group, more
// chunks than the limit).
SynthResult synthesize(const Topology& topology, const SynthOptions& options);

// Lower bound on the collective's time in the synthesizer's chunk model for k chunks per NPU, from each member's
// in-link (All-Gather-like) or out-link (Reduce-Scatter-like) capacity; 0 when it does not apply. `root` is the
// local id of a Broadcast / Reduce root; `hops` the most hops a chunk must cross (every hop takes at least the
// smallest tau).
Time chunk_model_bound(const SynthGraph& graph, CollectiveKind kind, Bytes size, uint32_t k, uint32_t root = 0,
                       uint32_t hops = 0);

}  // namespace chorus
