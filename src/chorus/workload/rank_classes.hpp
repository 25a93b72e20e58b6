// Rank classes of a symmetric workload (docs/workload.md, "Symmetric workloads"): ranks whose programs and network
// positions are equivalent form a class, one representative of which is simulated; the others are accounted for
// through it. Kept apart from the reader (symmetric_workload.hpp) so that Workload can carry it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace chorus {

// Ranks start, start + stride, ..., start + (count - 1) * stride.
struct RankRange {
  uint32_t start = 0;
  uint32_t count = 1;
  uint32_t stride = 1;
};

struct RankClass {
  std::string name;
  std::string trace;  // the representative's Chakra trace, as a path
  uint32_t representative = 0;
  std::vector<RankRange> ranks;
  uint32_t size = 0;              // ranks in the class
  std::vector<uint32_t> members;  // its ranks in the order `ranks` lists them
};

// A message between the representatives of classes A and B stands for one from the i-th member of A to the i-th
// member of B, for every i (the classes have as many members, the representatives at the same position).

// The copies of a communicator group that the other ranks of its classes run at the same time: replica i is the
// group with `i * stride` added to every member, for i in 0..count-1 (replica 0 is the group itself).
struct GroupReplicas {
  uint32_t count = 1;
  uint32_t stride = 0;
};

struct RankClasses {
  std::vector<RankClass> classes;
  std::vector<uint32_t> class_of;       // per rank
  std::vector<uint32_t> position;       // per rank: its index in its class's members
  std::vector<GroupReplicas> replicas;  // per group of Workload::groups
  std::vector<uint32_t> issuers;        // per group: the representatives among its members (who issue its collectives)

  bool is_representative(uint32_t rank) const { return classes[class_of[rank]].representative == rank; }
};

}  // namespace chorus
