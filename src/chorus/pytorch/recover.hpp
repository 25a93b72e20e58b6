// One rank's execution trace turned into a Chakra trace: compute units with their durations, collectives and
// send/recv recovered from the operator layer, and dependencies that keep PyTorch's issue/wait semantics.
//
// The trace's call tree (parent / ctrl_deps) is walked in start order (node ids are handed out at operator
// entry). A recognized communication operator becomes one COMM node and its subtree (the backend op) is not
// counted again; an operator with no communication below it becomes one COMP node whose time is its inclusive
// time (its children are inside it, never added a second time); an operator with communication below it is
// opened and its children handled the same way. Each thread is a chain of compute nodes. A collective depends on
// the compute before its call (it is issued there) and the chain goes on without it (c10d work is
// asynchronous); the first later operator that touches one of its tensors' storages depends on it (that is where
// the program waits, or reads the result). 1.13 records no Work.wait; an operator named *wait* without tensors
// waits for every collective in flight.
//
//   RankImport r = recover_rank(trace, /*rank=*/0, /*world=*/2, nullptr);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/pytorch/collectives.hpp"
#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/pytorch/kineto.hpp"

namespace chorus::pytorch {

struct RecoveredCollective {
  uint64_t et_node = 0;  // the execution-trace node id
  CommKind kind = CommKind::AllReduce;
  uint64_t bytes = 0;          // Chakra comm_size (collectives.hpp)
  std::vector<int64_t> ranks;  // empty: every rank
  std::string pg_name;         // the Chakra group name ("" = every rank)
  std::optional<int64_t> peer;
  uint64_t measured_us = 0;  // its NCCL kernels' time from Kineto; 0: not measured
};

// Where compute durations came from.
enum class Timing : uint8_t { None, Trace, Kineto };

struct RankImport {
  chakra::ChakraTrace trace;
  std::vector<RecoveredCollective> collectives;
  size_t et_nodes = 0;
  uint64_t comm_bytes = 0;
  Timing timing = Timing::None;
  // With a Kineto trace: (Chakra node id, microseconds) of every node whose time the Kineto trace measured.
  std::vector<std::pair<uint64_t, uint64_t>> measured_us;
};

// Throws chorus::Error(et.path, "node <id>", ...) for a duplicate id, a parent that names no node, a node the
// roots do not reach (a ctrl_deps cycle), a send/recv peer outside 0..world-1, or a group holding such a rank.
RankImport recover_rank(const ExecutionTrace& et, uint32_t rank, uint32_t world, const KinetoTimes* kineto);

}  // namespace chorus::pytorch
