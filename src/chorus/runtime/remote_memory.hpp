// ASTRA-sim's analytical remote-memory models (its --remote-memory-configuration JSON), for MEM_LOAD and
// MEM_STORE nodes: an access of `tensor_size` bytes takes `remote-mem-latency` ns + bytes / `remote-mem-bw`
// (bytes per ns).
//   NO_MEMORY_EXPANSION       MEM nodes are an error (ASTRA-sim aborts on them)
//   PER_NPU_MEMORY_EXPANSION  each NPU has its own memory; accesses never wait for one another
//   PER_NODE_MEMORY_EXPANSION NPUs grouped num-npus-per-node to a node; one access in flight per node, FIFO
//   MEMORY_POOL               one access in flight in the whole system, FIFO
//
//   RemoteMemory memory(load_remote_memory("mem.json"));
//   Time done = memory.access(npu, bytes, now);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"

namespace chorus {

enum class RemoteMemoryType : uint8_t { None, PerNpu, PerNode, Pool };

struct RemoteMemoryConfig {
  std::string path;
  RemoteMemoryType type = RemoteMemoryType::None;
  double latency_ns = 0;
  double bytes_per_ns = 0;
  uint32_t nodes = 1;
  uint32_t npus_per_node = 1;
};

// "" or "empty" gives NO_MEMORY_EXPANSION. Throws chorus::Error naming the file and key.
RemoteMemoryConfig load_remote_memory(const std::string& path);

class RemoteMemory {
 public:
  explicit RemoteMemory(RemoteMemoryConfig config) : config_(std::move(config)) {}
  bool available() const { return config_.type != RemoteMemoryType::None; }
  // When an access issued at `now` finishes; queues it behind earlier ones where the model serialises.
  Time access(uint32_t npu, Bytes bytes, Time now);

 private:
  RemoteMemoryConfig config_;
  std::vector<Time> busy_until_;  // per serialising unit (node, or the one pool)
};

}  // namespace chorus
