// Per-instruction times (roofline over a System; collectives through chorus's collective layer on a physical
// network when one is given, each replica group a communication group, else over ring steps on the System's
// network bandwidth), the critical path of each computation, totals per op category, and collective bytes per
// replica group.
//
//   hlo::Analysis a = hlo::analyze(module, hlo::system_by_name("tpuv3"), {.npus = 64});
//   a.computations[k].critical_path_s  // one execution of computation k, loops and calls included
#pragma once

#include <string>
#include <vector>

#include "chorus/hlo/collective_network.hpp"
#include "chorus/hlo/module.hpp"
#include "chorus/hlo/system.hpp"

namespace chorus::hlo {

struct AnalysisOptions {
  int npus = 0;        // replicas; replica_groups={} means all of them. 0: unknown (collectives of one device)
  int iterations = 1;  // trips of a while loop whose count the module does not state
  // All-reduce, all-gather, reduce-scatter, all-to-all (and their -start forms) are timed on it when set;
  // npus must then not exceed its NPUs. Null: the System's ring formulas.
  CollectiveNetwork* network = nullptr;
};

struct InstructionReport {
  int computation = 0;
  int index = 0;
  std::string category;  // as XLA's op profile names it: "convolution fusion", "loop fusion", "all-reduce", ...
  double flops = 0;
  double transcendentals = 0;
  double bytes = 0;
  double time_s = 0;
  std::string bound;   // "compute", "memory", "network", or "" for free ops
  int group_size = 0;  // collectives: devices per replica group
  // Collectives timed on a network: the physical lower bound (slowest group's), whether the time is below it,
  // and the algorithm the collective layer ran. lower_bound_s < 0: not timed on a network.
  double lower_bound_s = -1;
  bool below_bound = false;
  std::string algorithm;
};

struct CategoryTotal {
  std::string category;
  int count = 0;
  double flops = 0;
  double bytes = 0;
  double time_s = 0;
};

struct ComputationReport {
  int index = 0;
  std::string role;  // "entry", "while body", "while condition", "called", "reducer"
  double critical_path_s = 0;
  double serial_s = 0;  // the sum of its instructions' times
  // Its compute ops on one stream in module order, collectives beside it (the time `chorus sim` gives the converted
  // traces; the critical path assumes every independent op runs at once).
  double stream_s = 0;
  std::vector<CategoryTotal> categories;
};

struct CollectiveGroup {
  std::string replica_groups;
  int group_size = 0;
  int count = 0;
  double bytes = 0;  // per replica, summed over the collectives of this group
};

struct Analysis {
  std::vector<InstructionReport> instructions;  // instructions of non-fused computations, in module order
  std::vector<ComputationReport> computations;  // non-fused computations, in module order
  std::vector<CollectiveGroup> collectives;
  std::string network;  // what the collectives were timed on
};

Analysis analyze(const Module& module, const System& system, const AnalysisOptions& options);

// Devices per group of a replica_groups attribute ("{{0,1},{2,3}}", "[2,4]<=[8]" or "{}"), checked against npus
// (when > 0). Throws chorus::Error naming file, line and what was expected.
int replica_group_size(const Module& module, const Instruction& in, int npus);
// The device ids of every replica group of a collective ({} and an absent attribute: one group of all npus devices;
// the iota form [G,S]<=[dims]T(perm) expanded). Throws chorus::Error naming file, line and the bad id.
std::vector<std::vector<uint32_t>> replica_group_members(const Module& module, const Instruction& in, int npus);

}  // namespace chorus::hlo
