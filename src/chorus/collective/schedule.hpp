// Schedule: the chunk-transfer DAG that every collective algorithm compiles to and every network model runs.
//
// - An op is either a transfer (src NPU -> dst NPU, `bytes`, over the network) or a local step on one NPU
//   (a fixed delay: an endpoint overhead, a reduction, the end of a phase).
// - Each op waits for its dependencies, then for its `pre_delay` (local work before injecting, e.g.
//   ASTRA-sim's endpoint delay plus the reduction of the data just received), then runs.
// - Ops are appended in topological order (every dependency has a smaller id), so a network model can run
//   a schedule in one forward pass, and a schedule can never contain a cycle.
// - Storage is a struct of arrays with 32-bit ids and a CSR dependency list: about 33 bytes per op plus
//   4 bytes per dependency, so tens of millions of transfers fit in a few hundred MiB; 16 bytes per op less where
//   every op moves the same bytes after the same pre-delay (uniform_column.hpp).
//
//   Schedule s;
//   OpId a = s.add_transfer(NodeId{0}, NodeId{1}, Bytes(1024), Time::ns(10), {}, /*chunk=*/0);
//   s.add_local(NodeId{1}, Time::ns(10), {&a, 1});
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chorus/collective/uniform_column.hpp"
#include "chorus/core/huge_pages.hpp"
#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct OpId {
  uint32_t value = 0;
  constexpr auto operator<=>(const OpId&) const = default;
};

class Schedule {
 public:
  OpId add_transfer(NodeId src, NodeId dst, Bytes bytes, Time pre_delay, std::span<const OpId> deps, uint32_t chunk);
  OpId add_local(NodeId npu, Time delay, std::span<const OpId> deps, uint32_t chunk);
  void reserve(size_t ops, size_t deps);

  size_t size() const { return src_.size(); }
  size_t transfer_count() const { return transfers_; }
  bool is_transfer(OpId op) const { return src_[op.value] != dst_[op.value]; }
  NodeId src(OpId op) const { return NodeId{src_[op.value]}; }
  NodeId dst(OpId op) const { return NodeId{dst_[op.value]}; }
  Bytes bytes(OpId op) const { return Bytes(bytes_[op.value]); }
  Time pre_delay(OpId op) const { return Time::ps(delay_ps_[op.value]); }
  uint32_t chunk(OpId op) const { return chunk_[op.value]; }
  std::span<const OpId> deps(OpId op) const {
    return {deps_.data() + dep_begin_[op.value], dep_begin_[op.value + 1] - dep_begin_[op.value]};
  }
  // Total bytes the schedule moves over the network.
  Bytes total_bytes() const { return Bytes(total_bytes_); }
  // Heap bytes held by the schedule (for memory reports).
  size_t memory_bytes() const;

 private:
  OpId append(uint32_t src, uint32_t dst, int64_t bytes, Time delay, std::span<const OpId> deps, uint32_t chunk);

  // Huge-page backed (core/huge_pages.hpp): a synthesized schedule's columns are tens of MiB, first touched here.
  HugeVector<uint32_t> src_, dst_;   // src == dst marks a local step
  UniformColumn<int64_t> bytes_;     // one value while all ops move the same bytes
  UniformColumn<int64_t> delay_ps_;  // likewise for the pre-delays
  HugeVector<uint32_t> chunk_;
  HugeVector<uint32_t> dep_begin_{0};
  HugeVector<OpId> deps_;
  size_t transfers_ = 0;
  int64_t total_bytes_ = 0;
};

}  // namespace chorus
