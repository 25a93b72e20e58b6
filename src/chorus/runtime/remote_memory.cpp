// ASTRA-sim's remote-memory models (see remote_memory.hpp).
#include "chorus/runtime/remote_memory.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

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
  std::ifstream in(path);
  if (!in)
    throw Error(path, "", "cannot open the remote-memory file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "", fmt::format("not valid JSON: {}", e.what()));
  }
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
    config.nodes = static_cast<uint32_t>(positive_number(j, path, "num-nodes", false));
    config.npus_per_node = static_cast<uint32_t>(positive_number(j, path, "num-npus-per-node", false));
  } else if (type == "MEMORY_POOL") {
    config.type = RemoteMemoryType::Pool;
  } else {
    throw Error(path, "memory-type", fmt::format("unknown memory type '{}'", type));
  }
  config.latency_ns = positive_number(j, path, "remote-mem-latency", true);
  config.bytes_per_ns = positive_number(j, path, "remote-mem-bw", false);
  return config;
}

Time RemoteMemory::access(uint32_t npu, int64_t bytes, Time now) {
  const double ns = config_.latency_ns + static_cast<double>(bytes) / config_.bytes_per_ns;
  const Time runtime = Time::ps(std::llround(ns * 1000.0));
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
