// Reader of ASTRA-sim system JSON (see system_config.hpp).
#include "chorus/astra/system_config.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/collective/algorithm_names.hpp"
#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus {

namespace {

using nlohmann::json;

// Chunk and window counts above a million are typos: no collective is cut that finely.
constexpr int64_t kMaxCount = 1'000'000;

const std::map<std::string, CollectiveKind>& implementation_keys() {
  static const std::map<std::string, CollectiveKind> keys = {
      {"all-reduce-implementation", CollectiveKind::AllReduce},
      {"reduce-scatter-implementation", CollectiveKind::ReduceScatter},
      {"all-gather-implementation", CollectiveKind::AllGather},
      {"all-to-all-implementation", CollectiveKind::AllToAll}};
  return keys;
}

// Keys ASTRA-sim reads that do not change a collective's timing here (workload layer, debugging, LogGP bus
// model) or that it never reads at all; accepted so that its files load unchanged.
const std::set<std::string>& accepted_keys() {
  static const std::set<std::string> keys = {"boost-mode",
                                             "roofline-enabled",
                                             "peak-perf",
                                             "replay-only",
                                             "trace-enabled",
                                             "track-local-mem",
                                             "local-mem-trace-filename",
                                             "local-reduction-delay",
                                             "model-shared-bus",
                                             "L",
                                             "o",
                                             "g",
                                             "G",
                                             "all-reduce-implementation-custom",
                                             "reduce-scatter-implementation-custom",
                                             "all-gather-implementation-custom",
                                             "all-to-all-implementation-custom",
                                             "per-node-custom-implementation",
                                             "intra-dimension-scheduling",
                                             "inter-dimension-scheduling"};
  return keys;
}

class Reader {
 public:
  Reader(const json& doc, const std::string& path) : doc_(doc), path_(path) {}

  bool has(const char* key) const { return doc_.contains(key); }

  const json& get(const char* key) const {
    if (!doc_.contains(key))
      throw Error(path_, key, "missing required key");
    return doc_.at(key);
  }

  std::string string(const char* key) const {
    const json& v = get(key);
    if (!v.is_string())
      throw Error(path_, key, fmt::format("expected a string, got {}", v.dump()));
    return v.get<std::string>();
  }

  double number(const char* key, double low) const {
    const json& v = get(key);
    if (!v.is_number())
      throw Error(path_, key, fmt::format("expected a number, got {}", v.dump()));
    const double x = v.get<double>();
    if (!(x >= low))
      throw Error(path_, key, fmt::format("is {}; must be >= {}", v.dump(), low));
    return x;
  }

  uint32_t count(const char* key, uint32_t low) const {
    const json& v = get(key);
    if (!v.is_number_integer())
      throw Error(path_, key, fmt::format("expected an integer, got {}", v.dump()));
    // An unsigned value past 2^63 would wrap in get<int64_t>(); any value past kMaxCount is refused as written.
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxCount))
      throw Error(path_, key, fmt::format("is {}; must be between {} and {}", v.dump(), low, kMaxCount));
    const int64_t x = v.get<int64_t>();
    if (x < low || x > kMaxCount)
      throw Error(path_, key, fmt::format("is {}; must be between {} and {}", x, low, kMaxCount));
    return static_cast<uint32_t>(x);
  }

 private:
  const json& doc_;
  const std::string& path_;
};

std::string implementation_key(CollectiveKind kind) {
  std::string key = to_string(kind);
  std::replace(key.begin(), key.end(), '_', '-');
  return key + "-implementation";
}

}  // namespace

AstraSystemConfig load_astra_system(const std::string& path) {
  const json doc = load_json_file(path);
  if (!doc.is_object())
    throw Error(path, "", "expected a JSON object at the top level");
  for (const auto& [key, value] : doc.items()) {
    const bool known = implementation_keys().contains(key) || accepted_keys().contains(key) ||
                       key == "scheduling-policy" || key == "collective-optimization" ||
                       key == "preferred-dataset-splits" || key == "active-chunks-per-dimension" ||
                       key == "endpoint-delay" || key == "local-mem-bw";
    if (!known)
      throw Error(path, key, "unknown key");
  }
  const Reader r(doc, path);
  AstraSystemConfig sys;
  sys.path = path;
  const std::string policy = r.string("scheduling-policy");
  if (policy == "LIFO") {
    sys.scheduling_policy = SchedulingPolicy::Lifo;
  } else if (policy == "FIFO") {
    sys.scheduling_policy = SchedulingPolicy::Fifo;
  } else if (policy == "EXPLICIT") {
    sys.scheduling_policy = SchedulingPolicy::Explicit;
  } else {
    throw Error(path, "scheduling-policy", fmt::format("is '{}'; expected LIFO, FIFO or EXPLICIT", policy));
  }
  const std::string optimization = r.string("collective-optimization");
  if (optimization == "baseline") {
    sys.composition = Composition::Baseline;
  } else if (optimization == "localBWAware") {
    sys.composition = Composition::LocalBandwidthAware;
  } else {
    throw Error(path, "collective-optimization",
                fmt::format("is '{}'; expected baseline or localBWAware", optimization));
  }
  sys.splits = r.count("preferred-dataset-splits", 1);
  if (r.has("active-chunks-per-dimension"))
    sys.active_chunks = r.count("active-chunks-per-dimension", 1);
  if (r.has("endpoint-delay")) {
    const double ns = r.number("endpoint-delay", 0);
    if (ns > 1e9)
      throw Error(path, "endpoint-delay", fmt::format("is {} ns; must be at most 1 s", ns));
    sys.endpoint_delay = Time::ps(static_cast<int64_t>(std::llround(ns * 1000)));
  }
  if (r.has("local-mem-bw")) {
    sys.local_mem_bw_gbps = r.number("local-mem-bw", 0);
    if (sys.local_mem_bw_gbps != 0 && (sys.local_mem_bw_gbps < 1e-6 || sys.local_mem_bw_gbps > 1e9)) {
      throw Error(path, "local-mem-bw",
                  fmt::format("is {} GB/s; must be 0 (free) or between 1e-6 and 1e9", sys.local_mem_bw_gbps));
    }
  }
  if (r.has("peak-perf"))
    sys.peak_perf_tflops = r.number("peak-perf", 0);
  if (r.has("roofline-enabled"))
    sys.roofline_enabled = r.number("roofline-enabled", 0) != 0;
  for (const auto& [key, kind] : implementation_keys()) {
    if (!doc.contains(key))
      continue;
    const json& list = doc.at(key);
    if (!list.is_array() || list.empty())
      throw Error(path, key, "expected a non-empty list of algorithm names");
    std::vector<std::string> names;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string field = fmt::format("{}[{}]", key, i);
      if (!list[i].is_string())
        throw Error(path, field, fmt::format("expected a string, got {}", list[i].dump()));
      names.push_back(list[i].get<std::string>());
      (void)parse_algorithm_name(names.back(), path, field);  // reject unknown names now, not at first use
    }
    sys.implementations[kind] = names;
  }
  return sys;
}

CollectivePlanConfig AstraSystemConfig::plan_config(CollectiveKind kind) const {
  const auto it = implementations.find(kind);
  if (it == implementations.end())
    throw Error(path, implementation_key(kind), "missing; required to run this collective");
  CollectivePlanConfig config;
  config.source = path;
  config.algorithm_field = it == implementations.end() ? "" : implementation_key(kind);
  config.algorithms.clear();
  config.repeat_single_algorithm = false;
  for (size_t i = 0; i < it->second.size(); ++i) {
    const ParsedAlgorithm parsed = parse_algorithm_name(it->second[i], path, "implementation");
    config.algorithms.push_back(parsed.choice);
    config.flatten = config.flatten || parsed.flatten;
  }
  if (config.flatten)
    config.algorithms.resize(1);
  config.composition = composition;
  config.splits = splits;
  config.active_chunks = active_chunks;
  config.overheads.endpoint_delay = endpoint_delay;
  config.overheads.reduction_bytes_per_s = local_mem_bw_gbps * 1e9;
  config.overheads.astra = AstraCompat::full();
  return config;
}

}  // namespace chorus
