// Collectives recognized in a PyTorch execution trace: which operator is one, its kind, its size in bytes (in
// Chakra's comm_size convention), its process group and, for send/recv, its peer.
//
// Three layers of the trace name communication: the operator layer (c10d::allreduce_, c10d::allgather_, ...,
// _c10d_functional::*), record_param_comms (kind from its collective_name attribute) and the backend
// (gloo:all_reduce, nccl:all_reduce, ...). A node of a lower layer nested in, or standing for, a recognized
// operator is the same communication and is not counted twice (pytorch/recover.cpp).
//
//   auto op = classify_op("c10d::allreduce_", nullptr);   // {AllReduce, Operator}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/pytorch/execution_trace.hpp"

namespace chorus::pytorch {

enum class CommKind : uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  AllToAll,
  Reduce,
  Gather,
  Scatter,
  Barrier,
  Send,
  Recv
};
enum class CommLayer : uint8_t { Operator, ParamComms, Backend };

struct CommOp {
  CommKind kind = CommKind::AllReduce;
  CommLayer layer = CommLayer::Operator;
};

// "all_reduce", "all_gather", ... (docs and --json).
std::string to_string(CommKind kind);

// The Chakra collective type, or nullopt for Send/Recv.
std::optional<chakra::CommType> chakra_type(CommKind kind);

// nullopt when `name` is no communication operator (or record_param_comms names no collective chorus knows).
std::optional<CommOp> classify_op(const std::string& name, const CommAttrs* attrs);

// Bytes in Chakra's comm_size convention: All-Reduce/Broadcast/Reduce the buffer; All-Gather each rank's input;
// Reduce-Scatter and All-to-All the whole input; Send/Recv the message.
uint64_t comm_bytes(const ExecutionTrace& t, const EtNode& n, const CommOp& op);

// The first storage id the operation reads (matches an operator to its backend op); 0 when it has no tensor.
uint64_t first_storage(const ExecutionTrace& t, const EtNode& n);

// Send: the destination rank; Recv: the source rank (the first integer argument after the tensors).
std::optional<int64_t> peer_rank(const ExecutionTrace& t, const EtNode& n);
int64_t tag_of(const ExecutionTrace& t, const EtNode& n);

// The ranks of the node's process group: from its pg attributes (start, stride, size), from a
// "## process_group:init ##" entry of the same pg_name, else every rank (an empty vector). Throws
// chorus::Error(path, "node <id>", ...) when the group names a rank outside 0..world-1.
std::vector<int64_t> group_ranks(const ExecutionTrace& t, const EtNode& n, uint32_t world);

}  // namespace chorus::pytorch
