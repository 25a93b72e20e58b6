// ASTRA-sim's remote-memory models (see remote_memory.hpp).
#include "chorus/runtime/remote_memory.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus {

namespace {

constexpr double kMaxLatencyNs = 1e12;

double positive_number(const nlohmann::json& j, const std::string& path, const char* key, bool allow_zero) {
  if (!j.contains(key))
    throw Error(path, key, "missing");
  if (!j[key].is_number())
    throw Error(path, key, "must be a number");
  const double v = j[key].get<double>();
  if (!std::isfinite(v) || v < 0 || (!allow_zero && v == 0)) {
    throw Error(path, key, fmt::format("is {}; must be {}", v, allow_zero ? ">= 0" : "> 0"));
  }
  return v;
}

}  // namespace

RemoteMemoryConfig load_remote_memory(const std::string& path) {
  RemoteMemoryConfig config;
  config.path = path;
  if (path.empty() || path == "empty")
    return config;
  const nlohmann::json j = load_json_file(path);
  if (!j.is_object() || !j.contains("memory-type") || !j["memory-type"].is_string()) {
    throw Error(path, "memory-type",
                "missing; expected NO_MEMORY_EXPANSION, PER_NPU_MEMORY_EXPANSION, "
                "PER_NODE_MEMORY_EXPANSION or MEMORY_POOL");
  }
  const std::string type = j["memory-type"].get<std::string>();
  if (type == "NO_MEMORY_EXPANSION")
    return config;
  if (type == "PER_NPU_MEMORY_EXPANSION") {
    config.type = RemoteMemoryType::PerNpu;
  } else if (type == "PER_NODE_MEMORY_EXPANSION") {
    config.type = RemoteMemoryType::PerNode;
    // Whole counts, range-checked before narrowing: 0.5 would truncate to 0 NPUs per node (a division by zero).
    const auto max_npus = static_cast<int64_t>(limits::kMaxNpus);
    config.nodes = static_cast<uint32_t>(
        checked_integer(positive_number(j, path, "num-nodes", false), 1, max_npus, path, "num-nodes"));
    config.npus_per_node = static_cast<uint32_t>(
        checked_integer(positive_number(j, path, "num-npus-per-node", false), 1, max_npus, path, "num-npus-per-node"));
  } else if (type == "MEMORY_POOL") {
    config.type = RemoteMemoryType::Pool;
  } else {
    throw Error(path, "memory-type", fmt::format("unknown memory type '{}'", type));
  }
  config.latency_ns = positive_number(j, path, "remote-mem-latency", true);
  config.bytes_per_ns = positive_number(j, path, "remote-mem-bw", false);
  // The same ranges as links (1 KB/s .. 1 EB/s) and at most 1000 s of latency, so that access times fit Time.
  if (config.latency_ns > kMaxLatencyNs) {
    throw Error(path, "remote-mem-latency",
                fmt::format("is {} ns; must be at most {} ns", config.latency_ns, kMaxLatencyNs));
  }
  const double bytes_per_s = config.bytes_per_ns * 1e9;
  if (bytes_per_s < kMinBandwidthBytesPerS || bytes_per_s > kMaxBandwidthBytesPerS) {
    throw Error(path, "remote-mem-bw",
                fmt::format("is {} bytes/ns; must be between {} and {}", config.bytes_per_ns,
                            kMinBandwidthBytesPerS / 1e9, kMaxBandwidthBytesPerS / 1e9));
  }
  return config;
}

Time RemoteMemory::access(uint32_t npu, Bytes bytes, Time now) {
  const double ns = config_.latency_ns + static_cast<double>(bytes.count()) / config_.bytes_per_ns;
  // A huge access at a slow memory can still pass the 106-day range of Time: an input error naming the file.
  const Time runtime = checked_time_from_picoseconds(ns * 1000.0, config_.path, "remote-mem-bw");
  if (config_.type == RemoteMemoryType::PerNpu)
    return now + runtime;
  size_t unit = 0;
  if (config_.type == RemoteMemoryType::PerNode)
    unit = std::min<size_t>(npu / config_.npus_per_node, config_.nodes - 1);
  if (busy_until_.size() <= unit)
    busy_until_.resize(unit + 1, Time::zero());
  const Time start = std::max(now, busy_until_[unit]);
  busy_until_[unit] = start + runtime;
  return busy_until_[unit];
}

}  // namespace chorus
