// Dimension-wise collective synthesis for dimensional topologies too large for the flat engine (a 200x200 mesh
// All-Reduce needs 1.6e9 chunk deliveries flat).
//
// A dimensional topology (Topology::dimensions(): NPU id = mixed-radix address, dimension 0 fastest) is a product
// of lines: the NPUs that differ only in dimension d form a line, a copy of the one-dimensional topology
// compose({d}), and different lines of the same dimension share no link. So one line per dimension is
// synthesized with the flat engine (synthesize.hpp) and its schedule is replicated to every parallel line with
// translated NPU ids, as hierarchical All-Reduce composes per-dimension phases (ASTRA-sim's LocalBandwidthAware
// composition, collective/hierarchical.hpp; Rabenseifner's RS / AR / AG decomposition):
//
//   All-Reduce of D on dims o(0..n-1):  RS on o(0), ..., RS on o(n-2)  (D shrinks by p_d each),
//                                        AR on o(n-1), AG on o(n-2), ..., AG on o(0)  (D grows back)
//   Reduce-Scatter: RS on o(0..n-1);  All-Gather: AG on o(0..n-1).
//
// Rotations: the buffer is split into n equal parts (n = dimensions of size > 1) and part i runs the phases above
// with the dimension order rotated by i, o_i(s) = dims[(i + s) mod n]. At every stage s the parts use different
// dimensions, hence disjoint links, so all of them run at once, and every dimension's links work in every stage
// (on a mesh the corner NPU's two links both carry data, where one dimension at a time would use one: about 2x
// faster, near the single-NPU cut bound; 2D-ring All-Reduce uses the same idea).
//
// Time: the stages run one after another with a barrier between them (every line of a stage starts when the
// previous stage has ended everywhere, a conservative but achievable composition: the line schedules are certified
// by check_synthesis() on their line topology); stage time = the slowest part's line time; the collective's time =
// the sum of stage times. Transfers are counted (line transfers x lines); materialize_dimensional() builds them.
//
//   DimensionalSynthResult r = synthesize_dimensional(mesh2d(200, 200, link, link), options);
//   fmt::print("{} in {} transfers\n", to_string(r.time), r.transfers);
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

// One line synthesis used by a stage: `lines` parallel copies of it run at once.
struct DimensionalPhase {
  uint32_t stage = 0;
  uint32_t part = 0;       // rotation (buffer part) index
  uint32_t dimension = 0;  // index into Topology::dimensions()
  CollectiveKind kind = CollectiveKind::AllGather;
  Bytes size;  // NCCL convention for `kind`, per line
  uint32_t line_npus = 0;
  uint64_t lines = 0;
  Time time;                    // the line synthesis's time
  uint64_t line_transfers = 0;  // transfers of one line
  uint32_t chunks_per_npu = 0;  // chosen by the line synthesis
  uint32_t line = 0;            // index of the line synthesis in DimensionalSynthResult::lines
};

struct DimensionalSynthResult {
  CollectiveKind kind = CollectiveKind::AllReduce;
  Bytes size;
  uint32_t npus = 0;
  Time time;  // sum of stage times
  std::vector<Time> stage_times;
  uint64_t transfers = 0;  // sum over phases of line_transfers x lines
  std::vector<DimensionalPhase> phases;
  uint32_t line_syntheses = 0;     // distinct (dimension, collective, size) lines synthesized
  std::vector<SynthResult> lines;  // those line syntheses (on dimension_line()), for materialize_dimensional()
  double synthesis_s = 0;
};

// True when synthesize_dimensional() applies: All-Gather, Reduce-Scatter or All-Reduce on a dimensional topology
// with at least two dimensions of size > 1, every NPU taking part and nothing failed.
bool dimensional_synthesis_applies(const Topology& topology, const SynthOptions& options);

// True when the flat engine would refuse the group (more than 2^30 chunk deliveries) and dimension-wise synthesis
// applies: `chorus synth` then switches to it.
bool dimensional_synthesis_needed(const Topology& topology, const SynthOptions& options);

// Throws chorus::Error when it does not apply (see above) or a line synthesis fails.
DimensionalSynthResult synthesize_dimensional(const Topology& topology, const SynthOptions& options);

// How materialize_dimensional() joins the stages.
enum class DimensionalComposition {
  Pipelined,  // a transfer waits only for the transfers that brought (or reduced) the units it carries at its sender
  Barriers,   // the same, plus a barrier per NPU after each stage (the composition before pipelining; comparisons)
};

// The composed collective as one Schedule over the topology (small topologies only: at most 2^22 transfers and
// 2^28 unit deliveries, else chorus::Error): every line schedule replicated to every parallel line with translated
// NPU ids and links, every transfer carrying a bundle of unit chunks (SynthResult::bundle_units).
//
// Units: part i's piece of NPU w (the part_size / N bytes w contributes to, or ends with, in part i) is cut into L
// units; unit (w, i, u) has id w K + i L + u, K = parts x L = chunks_per_npu (the MSCCL in-place layout: rank w's
// slice), except for All-Reduce, whose buffer has no owner layout: there ids run part by part in the part's
// dimension order, last dimension fastest, so every transfer's units are consecutive. A stage's line chunk (j, r) is
// the j-th of k equal slices of rank r's block (the pieces that rank holds or owns in that stage, in mixed-radix order
// of the dimensions they differ in, each piece's L units in a row), so L is the least number making every slice a
// whole number of units: L = lcm over phases of k / gcd(k, block pieces). chunk_bytes = ceil(piece / L); a
// transfer keeps its line synthesis's bytes (the composed time stays the line times'), within 2 bytes per unit of
// units x chunk_bytes.
//
// Dependencies: the line's own (translated), the previous transfer on the same link (op order = each link's order),
// and for every unit an op carries, the ops of earlier stages that delivered it (gathers) or a partial of it
// (reductions) at the op's sender. Timing: each op as soon as those allow, for its line duration (a list schedule:
// the link dependency keeps links single-booked), so the aware network model (SynthRoutes) runs it in exactly
// `time`. With the same link order and a subset of the barrier composition's dependencies the pipelined time is at
// most the barrier composition's, which is at most synthesize_dimensional()'s (whole-network barriers).
// check_synthesis() certifies either composition. A switch dimension's lines route through their own switches
// (the line topology's switch mapped to the line's switch in `topology`); a hop leaving a switch waits only for its
// line's dependencies, since a switch holds nothing from one stage to the next.
SynthResult materialize_dimensional(const Topology& topology, const SynthOptions& options,
                                    DimensionalComposition composition = DimensionalComposition::Pipelined);
// The same from a synthesize_dimensional() result of `topology` (its line syntheses are reused).
SynthResult materialize_dimensional(const Topology& topology, const DimensionalSynthResult& synthesized,
                                    DimensionalComposition composition = DimensionalComposition::Pipelined);

// The topology of one line of dimension `dimension`: compose() of that dimension alone.
Topology dimension_line(const Topology& topology, uint32_t dimension);

// A lower bound for dimensional topologies of any size, without max-flows (lower_bound.hpp's cut bound restricted
// to the single-NPU cuts S = V \ {v}, plus the latency diameter, sum over dimensions of the line's hop diameter
// times its latency): All-Gather (M/N) (N-1) / min_v B-(v); Reduce-Scatter the same with B+(v); All-Reduce
// max(T_RS, α) + max(T_AG, α) as in lower_bound.hpp. Rounded down.
Time dimensional_lower_bound(const Topology& topology, CollectiveKind kind, Bytes size);

}  // namespace chorus
