// Collective recognition, sizes, groups and peers from execution-trace nodes (collectives.hpp).
#include "chorus/pytorch/collectives.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus::pytorch {
namespace {

// "_allgather_base_" -> "allgatherbase": the spellings across releases differ in underscores only.
std::string squash(std::string_view s) {
  std::string out;
  for (const char c : s)
    if (c != '_')
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

std::optional<CommKind> kind_of(std::string_view op) {
  const std::string s = squash(op);
  // Longer names first: "reducescatter" before "reduce", "allgather" before "gather".
  static constexpr std::array<std::pair<const char*, CommKind>, 11> kKinds = {{
      {"allreduce", CommKind::AllReduce},
      {"allgather", CommKind::AllGather},
      {"reducescatter", CommKind::ReduceScatter},
      {"alltoall", CommKind::AllToAll},
      {"broadcast", CommKind::Broadcast},
      {"barrier", CommKind::Barrier},
      {"send", CommKind::Send},
      {"recv", CommKind::Recv},
      {"gather", CommKind::Gather},
      {"scatter", CommKind::Scatter},
      {"reduce", CommKind::Reduce},
  }};
  for (const auto& [prefix, kind] : kKinds)
    if (s.rfind(prefix, 0) == 0)
      return kind;
  return std::nullopt;
}

// Sum of the input tensors' bytes per top-level argument.
std::map<uint32_t, uint64_t> input_bytes_by_arg(const ExecutionTrace& t, const EtNode& n) {
  std::map<uint32_t, uint64_t> sums;
  for (uint32_t i = 0; i < n.tensor_count; ++i) {
    const TensorRef& r = t.tensors[n.first_tensor + i];
    if (!r.output) {
      uint64_t& sum = sums[r.arg];
      if (__builtin_add_overflow(sum, r.bytes, &sum))
        sum = UINT64_MAX;  // saturated: refused by the caller's size limit
    }
  }
  return sums;
}

}  // namespace

std::string to_string(CommKind kind) {
  static constexpr std::array<const char*, 11> kNames = {
      "all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "reduce",
      "gather",     "scatter",    "barrier",        "send",      "recv"};
  return kNames[static_cast<size_t>(kind)];
}

std::optional<chakra::CommType> chakra_type(CommKind kind) {
  switch (kind) {
    case CommKind::AllReduce:
      return chakra::CommType::AllReduce;
    case CommKind::AllGather:
      return chakra::CommType::AllGather;
    case CommKind::ReduceScatter:
      return chakra::CommType::ReduceScatter;
    case CommKind::Broadcast:
      return chakra::CommType::Broadcast;
    case CommKind::AllToAll:
      return chakra::CommType::AllToAll;
    case CommKind::Reduce:
      return chakra::CommType::Reduce;
    case CommKind::Gather:
      return chakra::CommType::Gather;
    case CommKind::Scatter:
      return chakra::CommType::Scatter;
    case CommKind::Barrier:
      return chakra::CommType::Barrier;
    case CommKind::Send:
    case CommKind::Recv:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<CommOp> classify_op(const std::string& name, const CommAttrs* attrs) {
  static constexpr std::array<const char*, 3> kOperator = {"c10d::", "c10d_functional::", "_c10d_functional::"};
  static constexpr std::array<const char*, 4> kBackend = {"gloo:", "nccl:", "mpi:", "ucc:"};
  for (const char* p : kOperator)
    if (name.rfind(p, 0) == 0) {
      const auto k = kind_of(std::string_view(name).substr(std::string_view(p).size()));
      return k ? std::optional<CommOp>({*k, CommLayer::Operator}) : std::nullopt;
    }
  for (const char* p : kBackend)
    if (name.rfind(p, 0) == 0) {
      const auto k = kind_of(std::string_view(name).substr(std::string_view(p).size()));
      return k ? std::optional<CommOp>({*k, CommLayer::Backend}) : std::nullopt;
    }
  if (name == "record_param_comms" && attrs != nullptr) {
    const auto k = kind_of(attrs->collective_name);
    return k ? std::optional<CommOp>({*k, CommLayer::ParamComms}) : std::nullopt;
  }
  return std::nullopt;
}

uint64_t comm_bytes(const ExecutionTrace& t, const EtNode& n, const CommOp& op) {
  const auto sums = input_bytes_by_arg(t, n);
  if (sums.empty())
    return 0;
  uint64_t smallest = UINT64_MAX, largest = 0;
  for (const auto& [arg, bytes] : sums)
    if (bytes > 0) {
      smallest = std::min(smallest, bytes);
      largest = std::max(largest, bytes);
    }
  if (largest == 0)
    return 0;
  // The operator layer passes output and input buffers as arguments: an All-Gather's input is its smallest
  // argument (the output is world times larger), a Reduce-Scatter's input its largest; the others take one
  // buffer (All-to-All: input and output are the same size).
  switch (op.kind) {
    case CommKind::AllGather:
      return smallest;
    case CommKind::ReduceScatter:
    case CommKind::AllToAll:
      return largest;
    default:
      return sums.begin()->second;
  }
}

uint64_t first_storage(const ExecutionTrace& t, const EtNode& n) {
  for (uint32_t i = 0; i < n.tensor_count; ++i) {
    const TensorRef& r = t.tensors[n.first_tensor + i];
    if (!r.output)
      return r.storage;
  }
  return 0;
}

std::optional<int64_t> peer_rank(const ExecutionTrace& t, const EtNode& n) {
  if (n.int_count == 0)
    return std::nullopt;
  return t.ints[n.first_int].value;
}

int64_t tag_of(const ExecutionTrace& t, const EtNode& n) {
  return n.int_count >= 2 ? t.ints[n.first_int + 1].value : 0;
}

std::vector<int64_t> group_ranks(const ExecutionTrace& t, const EtNode& n, uint32_t world) {
  std::vector<int64_t> ranks;
  const CommAttrs* a = n.comm ? &t.comms[*n.comm] : nullptr;
  if (a != nullptr && a->pg_size && a->rank_start) {
    const int64_t stride = a->rank_stride.value_or(1);
    if (*a->pg_size == 0)
      throw Error(t.path, fmt::format("node {}", n.id),
                  fmt::format("pg_size 0 of group '{}'; a process group holds at least one rank", a->pg_name));
    if (*a->pg_size < 0 || *a->pg_size > static_cast<int64_t>(world))
      throw Error(t.path, fmt::format("node {}", n.id),
                  fmt::format("pg_size {} of group '{}' exceeds the {} trace files given (ranks missing from the set)",
                              *a->pg_size, a->pg_name, world));
    for (int64_t i = 0; i < *a->pg_size; ++i)
      ranks.push_back(*a->rank_start + i * stride);
  } else if (a != nullptr && !a->pg_name.empty()) {
    for (const ProcessGroupInfo& g : t.groups)
      if (g.name == a->pg_name)
        ranks = g.ranks;
  }
  for (const int64_t r : ranks)
    if (r < 0 || r >= static_cast<int64_t>(world))
      throw Error(t.path, fmt::format("node {}", n.id),
                  fmt::format("process group '{}' holds rank {}, but {} trace files were given (ranks missing from "
                              "the set)",
                              a != nullptr ? a->pg_name : "", r, world));
  std::vector<int64_t> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
    throw Error(t.path, fmt::format("node {}", n.id),
                fmt::format("process group '{}' holds rank {} twice", a != nullptr ? a->pg_name : "", *twice));
  if (ranks.size() == world)
    ranks.clear();  // every rank: the world group
  return ranks;
}

}  // namespace chorus::pytorch
