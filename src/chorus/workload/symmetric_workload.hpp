// Symmetric workloads: one Chakra trace per rank class instead of one per rank, and classes.json describing the
// classes and the communicator groups (docs/workload.md, "Symmetric workloads"). A 98,304-GPU training iteration
// becomes 16 traces, one per pipeline stage.
//
// Loading checks that the description is consistent: the classes partition the ranks, each collective's group
// holds the representative of every class it touches, its replicas cover those classes exactly once, the
// representatives of a group issue the same number of collectives on it, and point-to-point peers are
// representatives. It does not check that the classes' programs and network positions are equivalent; that is
// the writer's promise (the LLM generator keeps it; the tests compare against the full simulation).
//
//   if (is_symmetric_workload("traces/l405")) Workload w = load_symmetric_workload("traces/l405");
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

inline constexpr const char* kClassesFile = "classes.json";

struct SymmetricGroup {
  std::string name;
  std::vector<uint32_t> npus;
  GroupReplicas replicas;
};

// A directory holding classes.json, or a path to a classes.json.
bool is_symmetric_workload(const std::string& workload);

Workload load_symmetric_workload(const std::string& workload);

// Writes <directory>/classes.json and every class's trace under <directory>/<class.trace> (a file name);
// `traces[k]` is class k's representative's trace. Returns the path of classes.json.
std::string write_symmetric_workload(const std::string& directory, uint32_t npus, const std::vector<RankClass>& classes,
                                     const std::vector<chakra::ChakraTrace>& traces,
                                     const std::vector<SymmetricGroup>& groups, bool gzip);

}  // namespace chorus
