// Chakra execution traces (ET) in memory, and their reading and writing.
//
// A trace file holds one rank's nodes: a varint32-length-delimited GlobalMetadata message, then one
// length-delimited Node message per node (gzip-compressed or not; the reader checks the 0x1f 0x8b magic).
// The reader keeps the fields a simulator needs and resolves the attributes with known names (is_cpu_op,
// num_ops, tensor_size, comm_type, comm_size, ...) whatever integer oneof type the producer used: Chakra's own
// feeder silently reads 0 when a producer picks another integer type, which hides real bugs (astra-sim #224).
// Every other attribute is kept by name for reports and round trips.
//
//   ChakraTrace t = read_chakra_trace("traces/ar/all_reduce.0.et");
//   write_chakra_trace("copy.0.et", t, /*gzip=*/false);
//   std::string json = chakra_trace_to_json("traces/ar/all_reduce.0.et");  // every field, as Chakra's jsonizer
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace chorus::chakra {

enum class NodeType : uint8_t {
  Invalid = 0,
  Metadata = 1,
  MemLoad = 2,
  MemStore = 3,
  Comp = 4,
  CommSend = 5,
  CommRecv = 6,
  CommColl = 7,
};

enum class CommType : uint8_t {
  AllReduce = 0,
  Reduce = 1,
  AllGather = 2,
  Gather = 3,
  Scatter = 4,
  Broadcast = 5,
  AllToAll = 6,
  ReduceScatter = 7,
  ReduceScatterBlock = 8,
  Barrier = 9,
};

// "COMP_NODE", "ALL_REDUCE", ... (the schema's enum names).
std::string to_string(NodeType type);
std::string to_string(CommType type);

// An attribute whose name chorus does not interpret, kept as text for reports and as an integer when it is one.
struct OtherAttribute {
  std::string name;
  std::optional<int64_t> integer;
  std::string text;  // string_val, or empty
};

struct TraceNode {
  uint64_t id = 0;
  std::string name;
  NodeType type = NodeType::Invalid;
  std::vector<uint64_t> data_deps;
  std::vector<uint64_t> ctrl_deps;
  uint64_t start_time_micros = 0;
  uint64_t duration_micros = 0;
  std::string inputs_values;  // METADATA nodes carry the process-group JSON here

  // Known attributes (absent ones keep these defaults, as in ASTRA-sim).
  bool is_cpu_op = false;
  int64_t num_ops = 0;
  int64_t tensor_size = 0;
  int64_t tensor_loc = 0;
  std::optional<int64_t> comm_type;
  int64_t comm_size = 0;
  int64_t comm_priority = 0;
  std::optional<int64_t> comm_src;
  std::optional<int64_t> comm_dst;
  std::optional<int64_t> comm_tag;
  std::string pg_name;
  std::vector<OtherAttribute> other_attrs;
};

struct ChakraTrace {
  std::string path;     // where it was read from (for error messages)
  std::string version;  // GlobalMetadata.version ("" for producers that leave it out)
  std::vector<TraceNode> nodes;
};

// Throws chorus::Error(path, "node <id>" or "byte <offset>", message) when the file is missing, truncated or
// not a Chakra trace, or when a known attribute has a non-integer type.
ChakraTrace read_chakra_trace(const std::string& path);

// Streams the nodes of a file to `visit` without keeping them (one TraceNode is reused: copy what you need);
// returns the GlobalMetadata version. Same checks and errors as read_chakra_trace.
std::string for_each_chakra_node(const std::string& path, const std::function<void(const TraceNode&)>& visit);

// Writes with the attribute types Chakra's feeder expects (is_cpu_op bool, comm_type/comm_size/num_ops int64,
// tensor_size uint64, comm_src/dst/tag/priority int32, pg_name string), so Chakra and ASTRA-sim read it back.
void write_chakra_trace(const std::string& path, const ChakraTrace& trace, bool gzip);

// The whole file as one JSON document {"file", "global_metadata", "nodes": [...]} with protobuf's JSON names.
std::string chakra_trace_to_json(const std::string& path);

}  // namespace chorus::chakra
