// Cut bounds through symmetry: on a topology whose automorphisms act transitively on the NPUs, the All-Gather cut
// bound needs only cuts that exclude NPU 0 (one sink), and the minimum cuts against NPU 0 are unions of orbits of
// NPU 0's stabiliser, so the max-flows run on the quotient graph (one node per orbit) instead of the whole network.
//
// Why exact: for a fixed Dinkelbach λ, the parametric min cut (super source -> every NPU with capacity λ, sink NPU 0)
// has a unique source side with the fewest nodes; every automorphism fixing NPU 0 maps min cuts to min cuts, so that
// side is a union of orbits. The quotient graph (arc A -> B = the summed bandwidth of the links from members of A
// to members of B, super-source arc to A = λ |A ∩ V_c|) gives every union of orbits exactly its B+(S), so its min
// cut value equals the full graph's.
//
//   std::optional<NpuOrbits> orbits = npu_orbits(topology);   // nullopt: no proven symmetry, use max-flows
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "chorus/topology/topology.hpp"

namespace chorus {

// A partition of the nodes into orbits of a group of automorphisms that fixes NPU 0 (class 0 = {NPU 0}), on a
// topology whose automorphism group is transitive on the NPUs.
struct NpuOrbits {
  std::vector<uint32_t> class_of;  // per node
  std::vector<uint32_t> npus;      // per class: the NPUs it holds (switch classes hold none)
  uint32_t classes = 0;
};

// The orbits of a dimensional topology built by compose() (generators.hpp) from Ring, UniRing, FullyConnected
// and Switch dimensions: translations along each dimension make it NPU-transitive, and per dimension the
// reflection c -> -c (Ring) and the permutations of the coordinates other than 0 (FullyConnected, Switch) fix
// NPU 0. The links are checked against compose() of the declared dimensions, so a topology whose links disagree
// with its dimensions gets nullopt, as do Mesh dimensions (not NPU-transitive).
// Also the k-ary fat-trees of fat_tree() (cluster_generators.hpp), recognised by name and checked link by link
// against a rebuild: 4 host, 3 edge, 2 aggregation and 1 core orbit. Other graphs: nullopt.
std::optional<NpuOrbits> npu_orbits(const Topology& topology);

// The quotient of a directed graph (arcs src[a] -> dst[a] with `capacity`) by `orbits`, with the Dinkelbach
// super source of lower_bound.cpp. improve(λ) returns the classes of a union of orbits S ∌ NPU 0 with
// B+(S) < λ |S ∩ V_c| (the source side of the parametric min cut), or nullopt when none beats λ by the
// relative margin `keep`.
class QuotientCutSearch {
 public:
  QuotientCutSearch(const NpuOrbits& orbits, std::span<const uint32_t> src, std::span<const uint32_t> dst,
                    std::span<const double> capacity, double epsilon);
  std::optional<std::vector<char>> improve(double lambda, double keep);

 private:
  struct Arc {
    uint32_t from = 0, to = 0;
    double capacity = 0;
  };
  const NpuOrbits& orbits_;
  std::vector<Arc> arcs_;  // aggregated, normalised by scale_
  double scale_ = 1;
  double epsilon_;
};

}  // namespace chorus
