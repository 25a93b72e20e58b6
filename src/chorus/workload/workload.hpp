// A workload: every NPU's Chakra trace loaded, checked and turned into a compact dependency graph, plus the
// communicator groups its collectives name.
//
// - Rank files: `<prefix>.<rank>.et` (ASTRA-sim's --workload-configuration convention), found from the prefix
//   path "traces/gpt/gpt" or from a directory holding exactly one such set. Ranks must be 0..N-1 without gaps.
// - Dependencies: data and control dependencies are both honoured, as ASTRA-sim does.
// - Groups: group 0 is every NPU (pg_name "" or "0"); others come from the side-car JSON
//   {"<pg_name>": [npu, ...]} and from METADATA nodes' process-group lists (the side-car wins on a clash).
// Every inconsistency is a chorus::Error naming the rank file and the node id.
//
//   Workload w = load_workload("traces/ar/all_reduce", "");
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/core/units.hpp"
#include "chorus/workload/rank_classes.hpp"

namespace chorus {

struct CommGroup {
  std::string name;
  std::vector<uint32_t> npus;  // in the order given (a subgroup's ring follows it)
  std::string first_use;       // "file: node id" of the first collective naming it (for errors)
};

// Groups by pg_name; group 0 is every NPU. A name used before it is defined gets a slot with no members,
// filled when its definition is read (a METADATA node of a later rank file); unfilled slots are errors.
struct GroupTable {
  std::vector<CommGroup> groups;
  std::unordered_map<std::string, uint32_t> index;
  explicit GroupTable(uint32_t npus);
  uint32_t use(const std::string& name, const std::string& file, uint64_t node_id);
  void define(const std::string& name, std::vector<uint32_t> npus, const std::string& where, bool replace);
};

struct WorkloadNode {
  uint64_t id = 0;
  std::string name;
  chakra::NodeType type = chakra::NodeType::Comp;
  chakra::CommType comm = chakra::CommType::AllReduce;  // COMM_COLL only
  bool is_cpu_op = false;
  uint32_t group = 0;   // COMM_COLL: index into Workload::groups
  Bytes bytes;          // COMM_*: comm_size (tensor_size when absent); MEM_*: tensor_size
  int64_t num_ops = 0;  // COMP roofline
  Bytes tensor_size;
  int64_t peer = -1;  // SEND: destination NPU; RECV: source NPU
  int64_t tag = 0;
  int64_t priority = 0;      // comm_priority (EXPLICIT scheduling)
  Time duration;             // Chakra's duration_micros (range-checked: kMaxNodeDurationMicros)
  std::string fused_op;      // COMM_COLL fused with its compute input (fusion_marks.hpp); "" when not fused
  uint32_t fused_tiles = 0;  // its tile count; 0 when not fused
  uint32_t pattern = 0;      // index into NpuGraph::patterns: its name, digit runs as '#' (name_patterns.hpp)
};

// One NPU's nodes in file order, with dependencies as indices into `nodes` (CSR).
struct NpuGraph {
  std::string file;
  std::vector<WorkloadNode> nodes;
  std::vector<uint32_t> dep_offsets;  // nodes.size() + 1 entries
  std::vector<uint32_t> deps;
  std::vector<uint32_t> child_offsets;
  std::vector<uint32_t> children;
  std::vector<std::string> patterns;  // distinct node-name patterns (name_patterns.hpp)

  size_t dep_count(uint32_t node) const { return dep_offsets[node + 1] - dep_offsets[node]; }
};

struct Workload {
  std::string prefix;
  std::vector<NpuGraph> npus;
  std::vector<CommGroup> groups;  // groups[0] = every NPU
  // A symmetric workload (symmetric_workload.hpp): only the representatives' graphs hold nodes.
  std::optional<RankClasses> symmetry;
  size_t node_count() const;
  // How many members of a group issue its collectives: all of them, or in a symmetric workload its representatives.
  size_t issuing_members(uint32_t group) const {
    return symmetry ? symmetry->issuers[group] : groups[group].npus.size();
  }
};

// The rank files of a workload (prefix path or directory), rank 0 first; throws chorus::Error when none exist
// or a rank in 0..N-1 is missing.
std::vector<std::string> find_rank_files(const std::string& workload);

// `comm_groups`: the side-car JSON path, or "" / "empty" (ASTRA-sim's spelling of none).
Workload load_workload(const std::string& workload, const std::string& comm_groups);

// Builds the graph of one trace (exposed for tests and for the generators' self-check).
NpuGraph build_npu_graph(const chakra::ChakraTrace& trace, uint32_t npu, uint32_t npus, GroupTable& groups);

}  // namespace chorus
