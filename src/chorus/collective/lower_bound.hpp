// Lower bounds on the time of a collective on a Topology: the "physical limit" that a schedule is judged against.
//
// Notation: G = (V, E) directed, V_c = the N NPUs (switches only forward), B+(S) / B-(S) = bandwidth of the links
// leaving / entering a node set S. Size convention (NCCL, see collective.hpp): AG M = gathered output (each NPU
// owns M/N), RS M = input, AR M = vector. Sources: Zhao & Krishnamurthy, arXiv:2305.18461 §1.1 and ForestColl
// (cut bound, proven achievable by spanning-tree packing); Dinkelbach (1967) for the fractional minimisation; the
// reference values in shared/reference/tacos.md §7 and tacos-bounds.csv.
//
//   All-Gather      T*_AG = (M/N) * max_{S ⊂ V, S ⊉ V_c} |S ∩ V_c| / B+(S)       latency: max_{u,v} dist_α(u, v)
//   Reduce-Scatter  T*_RS = the same on the transposed graph (B-(S))               latency: the same
//   All-Reduce      T*_RS + T*_AG (valid for every RS-then-AG algorithm: ring, RHD, TACOS, TACCL, ForestColl);
//                   `bound` = max(T*_RS, α-diam) + max(T*_AG, α-diam), tacos-bounds.csv's ar_cont_bound_us, so the
//                   latency part is 2 x α-diameter (one per phase). The weaker, always valid information bound
//                   max(M / min_S min(B+(S), B-(S)), α-diam) is reported as `information_bound`.
//   All-to-All      (M/N) * max_S |S ∩ V_c| |V_c \ S| / B+(S); exact by enumeration only, otherwise evaluated on
//                   the single-NPU cuts (still sound, maybe not tight).
//   Broadcast       M / min_v maxflow(root -> v) (Edmonds: achievable by arborescence packing); latency
//                   max_v dist_α(root, v). Reduce: the same on the transposed graph.
// `bound` = max(bandwidth bound, latency bound) except for All-Reduce (above). Times are rounded DOWN to whole
// picoseconds, so every reported Time stays a valid lower bound.
//
//   LowerBound b = lower_bound(topology, Collective{CollectiveKind::AllGather, Bytes::gib(1), topology.npu_count()});
//   fmt::print("{} (cut of {} NPUs)\n", to_string(b.bound), b.worst_cut_npus);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

class Progress;

// How the cut maximisation is done.
enum class BoundMethod : uint8_t {
  Auto,            // Symmetric when npu_orbits() proves the symmetry, else OneSink when translations do, else AllSinks
  AllSinks,        // exact on any graph: Dinkelbach iteration on max-flow, one sink per NPU
  OneSink,         // only cuts that exclude NPU 0: exact on NPU-transitive graphs, a valid (maybe loose) bound always
  BruteForce,      // enumerate every node subset (at most 20 nodes, switches included); a certificate for tests
  SingleNodeCuts,  // reported for All-to-All without BruteForce: only the cuts around one NPU are evaluated
  Symmetric,       // one sink, max-flows on the quotient by NPU 0's stabiliser (symmetric_bound.hpp): exact, fast
};

std::string to_string(BoundMethod method);
// "auto", "all", "one", "brute", "symmetric"; nullopt otherwise.
std::optional<BoundMethod> parse_bound_method(std::string_view text);

// Numerical tolerances of the max-flow solver. Capacities are normalised to the largest link bandwidth, so both
// are scale-free. A looser tolerance can only make a bound weaker, never invalid: every reported cut is evaluated
// exactly from the links.
struct Tolerance {
  double residual = 1e-12;  // a residual capacity at or below this is saturated
  double relative = 1e-9;   // a cut must beat the current ratio by this fraction to count as better
};

struct BoundOptions {
  BoundMethod method = BoundMethod::Auto;
  NodeId root{0};                 // Broadcast / Reduce root (an NPU)
  bool information_bound = true;  // All-Reduce only; costs 2(N-1) extra max-flows
  Tolerance tolerance;
  Progress* progress = nullptr;  // hears of each max-flow (core/progress.hpp); none: silent
};

// One cut-type (bandwidth) bound: the worst cut S and what it implies.
struct CutBound {
  Time time;                 // the bandwidth bound, rounded down
  double seconds = 0;        // the same, unrounded
  std::vector<NodeId> cut;   // the node set S (switches included)
  uint32_t cut_npus = 0;     // |S ∩ V_c|
  double cut_bandwidth = 0;  // B+(S) in bytes/s (B-(S) for transposed bounds)
};

struct LowerBound {
  CollectiveKind collective = CollectiveKind::AllReduce;
  Bytes size;
  uint32_t npus = 0;
  BoundMethod method = BoundMethod::AllSinks;  // as resolved (never Auto)

  Time bandwidth_bound;  // All-Reduce: T*_RS + T*_AG
  Time latency_bound;    // All-Reduce: 2 x α-diameter
  Time bound;            // see the table at the top

  // The binding cut (All-Reduce: the All-Gather one; Reduce-Scatter/Reduce: a cut of the transposed graph, i.e.
  // data must enter S).
  std::vector<NodeId> worst_cut;
  uint32_t worst_cut_npus = 0;
  double worst_cut_bandwidth = 0;        // B+(S) of the binding cut in bytes/s (All-Reduce: unused, see the CutBounds)
  double information_cut_bandwidth = 0;  // the separating cut behind information_bound, bytes/s

  std::optional<CutBound> all_gather;      // All-Gather, All-Reduce
  std::optional<CutBound> reduce_scatter;  // Reduce-Scatter, All-Reduce
  std::optional<Time> information_bound;   // All-Reduce with BoundOptions::information_bound

  uint32_t max_flows = 0;  // max-flow computations done (for benchmarks)
};

// Thrown when the bound would take minutes (max-flows on more than limits::kMaxBoundNpus NPUs); callers that only
// report a bound next to a result print "bound: not computed (what())" instead of failing.
class BoundNotComputed : public Error {
 public:
  using Error::Error;
};

// Throws chorus::Error if the NPUs are not strongly connected, the size is negative, the root is not an NPU, or
// BruteForce is asked for more than 20 nodes.
LowerBound lower_bound(const Topology& topology, const Collective& collective, const BoundOptions& options = {});

// The bound of the same collective at another size, from a bound already computed (no max-flow): every worst cut
// is independent of the size, the bandwidth terms scale linearly and the latency terms stay. Equal to
// lower_bound() at `size`, to the picosecond (same rounding); what a size sweep uses.
LowerBound lower_bound_at_size(const LowerBound& reference, Bytes size);

// Whether a reported time is physically possible: time >= bound, compared exactly in integer picoseconds (a zero
// bound, i.e. none computed, is always met). Every report that flags results below their bound uses this rule.
inline bool physically_feasible(Time time, Time bound) {
  return time.picoseconds() >= bound.picoseconds();
}

// Why lower_bound() would throw BoundNotComputed for this input (nullopt: it computes the bound). Cheap next to
// the bound itself when the answer is nullopt only through symmetry (one pass over the links).
std::optional<std::string> bound_not_computable(const Topology& topology, const Collective& collective,
                                                const BoundOptions& options = {});

// True if translations along every dimension are verified automorphisms (bandwidth and latency preserved) of a
// switch-less dimensional topology; then one sink is exact. Exposed for tests and the CLI's report.
bool npus_provably_symmetric(const Topology& topology);

}  // namespace chorus
