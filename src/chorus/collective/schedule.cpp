// Schedule storage (see schedule.hpp).
#include "chorus/collective/schedule.hpp"

#include <limits>

#include "chorus/core/assert.hpp"

namespace chorus {

OpId Schedule::append(uint32_t src, uint32_t dst, int64_t bytes, Time delay, std::span<const OpId> deps,
                      uint32_t chunk) {
  const size_t id = src_.size();
  CHORUS_ASSERT(id < std::numeric_limits<uint32_t>::max(), "schedule exceeds 2^32 ops");
  CHORUS_ASSERT(deps_.size() + deps.size() < std::numeric_limits<uint32_t>::max(),
                "schedule exceeds 2^32 dependencies");
  src_.push_back(src);
  dst_.push_back(dst);
  bytes_.push_back(bytes);
  delay_ps_.push_back(delay.picoseconds());
  chunk_.push_back(chunk);
  // One or two dependencies per op, typically: a loop, not a range insert (a memmove call per op).
  for (OpId d : deps) {
    CHORUS_ASSERT(d.value < id, "op {} depends on later op {}", id, d.value);
    deps_.push_back(d);
  }
  dep_begin_.push_back(static_cast<uint32_t>(deps_.size()));
  return OpId{static_cast<uint32_t>(id)};
}

OpId Schedule::add_transfer(NodeId src, NodeId dst, Bytes bytes, Time pre_delay, std::span<const OpId> deps,
                            uint32_t chunk) {
  CHORUS_ASSERT(src != dst, "transfer from NPU {} to itself", src.value);
  CHORUS_ASSERT(bytes.count() >= 0, "transfer of {} bytes", bytes.count());
  ++transfers_;
  total_bytes_ += bytes.count();
  return append(src.value, dst.value, bytes.count(), pre_delay, deps, chunk);
}

OpId Schedule::add_local(NodeId npu, Time delay, std::span<const OpId> deps, uint32_t chunk) {
  return append(npu.value, npu.value, 0, delay, deps, chunk);
}

void Schedule::reserve(size_t ops, size_t deps) {
  src_.reserve(ops);
  dst_.reserve(ops);
  bytes_.reserve(ops);
  delay_ps_.reserve(ops);
  chunk_.reserve(ops);
  dep_begin_.reserve(ops + 1);
  deps_.reserve(deps);
}

size_t Schedule::memory_bytes() const {
  return src_.capacity() * 4 + dst_.capacity() * 4 + bytes_.memory_bytes() + delay_ps_.memory_bytes() +
         chunk_.capacity() * 4 + dep_begin_.capacity() * 4 + deps_.capacity() * 4;
}

}  // namespace chorus
