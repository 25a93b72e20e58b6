// PyTorch execution traces (the JSON of the profiler's ExecutionTraceObserver / 1.13's ExecutionGraphObserver),
// read by streaming (json_scan.hpp drives a SAX handler: the document is never held whole) into compact records.
//
// Two layouts are read (docs/workload.md, "The PyTorch route", cites the writer):
//   schema "1.0.1" (PyTorch 1.13): a node has "id", "name", "parent", "rf_id", "tid", flat "inputs"/"outputs";
//   schema "1.0.2-chakra.0.0.4" .. "1.1.1-chakra.0.0.4": "ctrl_deps" instead of "parent", "inputs"/"outputs" as
//   {"values", "shapes", "types", "strides"}, and "attrs": [{"name", "type", "value"}] carrying rf_id, tid and,
//   on communication nodes, collective_name, pg_name, pg_size, global_rank_start/stride, in/out_msg_nelems.
// Tensors are [tensor_id, storage_id, offset, numel, elem_bytes, device]; only storage and bytes are kept.
//
//   ExecutionTrace t = read_execution_trace("rank0.json", &std::cerr);  // warnings (unknown schema) go there
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace chorus::pytorch {

// One tensor argument of a node: which top-level argument it sits in (nested lists share their argument's index).
struct TensorRef {
  uint32_t arg = 0;
  bool output = false;
  uint64_t storage = 0;
  uint64_t bytes = 0;  // numel * elem_bytes
};

// A top-level integer argument (send/recv peer and tag are read from these).
struct IntArg {
  uint32_t arg = 0;
  int64_t value = 0;
};

// Attributes the newer schema records on communication nodes (record_param_comms, nccl:*).
struct CommAttrs {
  std::string collective_name;
  std::string pg_name;
  std::optional<int64_t> pg_size;
  std::optional<int64_t> rank_start;
  std::optional<int64_t> rank_stride;
  std::optional<int64_t> in_nelems;
  std::optional<int64_t> out_nelems;
};

struct EtNode {
  uint64_t id = 0;
  uint64_t parent = 0;  // "parent" (1.0.1) or "ctrl_deps"
  uint64_t rf_id = 0;
  uint64_t tid = 0;
  std::optional<uint64_t> dur_us;  // "dur"/"inclusive_dur" where a linked trace recorded one
  uint32_t name = 0;               // index into ExecutionTrace::names
  uint32_t first_tensor = 0, tensor_count = 0;
  uint32_t first_int = 0, int_count = 0;
  std::optional<uint32_t> comm;  // index into ExecutionTrace::comms
};

// A process group from a "## process_group:init ##" node: empty ranks = every rank.
struct ProcessGroupInfo {
  std::string name;
  std::vector<int64_t> ranks;
};

struct ExecutionTrace {
  std::string path;
  std::string schema;
  std::vector<std::string> names;
  std::vector<EtNode> nodes;  // in file order
  std::vector<TensorRef> tensors;
  std::vector<IntArg> ints;
  std::vector<CommAttrs> comms;
  std::vector<ProcessGroupInfo> groups;

  const std::string& name_of(const EtNode& n) const { return names[n.name]; }
};

// Schema strings this reader was written against; another one gets a warning and is read if its fields are there.
bool known_schema(const std::string& schema);

// Throws chorus::Error(path, "node <id>" or "byte <offset>", ...) when the file is not JSON, not an execution trace
// (no "nodes" array), a node lacks "id"/"name"/its parent, or a tensor descriptor does not have 6 fields.
ExecutionTrace read_execution_trace(const std::string& path, std::ostream* warnings);

}  // namespace chorus::pytorch
