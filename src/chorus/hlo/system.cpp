// System lookups and the JSON system file reader (system.hpp).
#include "chorus/hlo/system.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus::hlo {

double System::matrix_peak(const std::string& datatype) const {
  if (const auto it = matrix_flops.find(datatype); it != matrix_flops.end())
    return it->second;
  if (const auto it = matrix_flops.find("bf16"); it != matrix_flops.end())
    return it->second;
  double best = 0;
  for (const auto& [k, v] : matrix_flops)
    best = std::max(best, v);
  return best;
}

double System::efficiency_of(const std::string& op_class) const {
  const auto it = efficiency.find(op_class);
  return it == efficiency.end() ? 1.0 : it->second;
}

namespace {

double positive(const nlohmann::json& j, const std::string& path, const std::string& field) {
  if (!j.is_number() || j.get<double>() <= 0)
    throw Error(path, field, fmt::format("is {}; expected a number > 0", j.dump()));
  return j.get<double>();
}

// A rate (FLOP/s or B/s) between 1e3 and 1e21 per second: 1 KB/s to 1 ZB/s is every machine with room to spare;
// outside it the op times leave chorus's time range (about 106 days) or round to zero.
double rate(const nlohmann::json& j, const std::string& path, const std::string& field, const char* unit) {
  const double v = positive(j, path, field);
  if (v < 1e3 || v > 1e21)
    throw Error(path, field, fmt::format("is {}; expected {} from 1e3 to 1e21", j.dump(), unit));
  return v;
}

// The keys a system file may hold (docs/hlo.md); any other is a misspelling that would be ignored.
constexpr std::array<std::string_view, 9> kKeys = {"name",
                                                   "base",
                                                   "matrix_flops",
                                                   "vector_flops",
                                                   "memory_bandwidth",
                                                   "network_bandwidth",
                                                   "network_latency",
                                                   "efficiency",
                                                   "op_overhead"};

}  // namespace

System read_system(const std::string& path) {
  const nlohmann::json j = load_json_file(path);
  if (!j.is_object())
    throw Error(path, "", "expected a JSON object");
  for (const auto& [key, value] : j.items())
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      throw Error(path, key, fmt::format("unknown key; expected one of {}", fmt::join(kKeys, ", ")));
  if (j.contains("base") && !j["base"].is_string())
    throw Error(path, "base", fmt::format("is {}; expected a preset name such as \"tpuv3\"", j["base"].dump()));
  System s;
  if (j.contains("base")) {
    const std::string base = j["base"].get<std::string>();
    if (base != "tpuv3" && base != "tpuv4" && base != "a100" && base != "h100")
      throw Error(path, "base", fmt::format("'{}' is not a preset (tpuv3, tpuv4, a100, h100)", base));
    s = system_by_name(base);
  }
  if (j.contains("name") && !j["name"].is_string())
    throw Error(path, "name", fmt::format("is {}; expected a string", j["name"].dump()));
  s.name = j.value("name", s.name.empty() ? path : s.name);
  if (j.contains("matrix_flops")) {
    if (!j["matrix_flops"].is_object())
      throw Error(path, "matrix_flops", "expected an object of datatype: FLOP/s");
    for (const auto& [k, v] : j["matrix_flops"].items())
      s.matrix_flops[k] = rate(v, path, "matrix_flops." + k, "FLOP/s");
  }
  if (j.contains("vector_flops"))
    s.vector_flops = rate(j["vector_flops"], path, "vector_flops", "FLOP/s");
  if (j.contains("memory_bandwidth"))
    s.memory_bandwidth = rate(j["memory_bandwidth"], path, "memory_bandwidth", "B/s");
  if (j.contains("network_bandwidth"))
    s.network_bandwidth = rate(j["network_bandwidth"], path, "network_bandwidth", "B/s");
  if (j.contains("network_latency")) {
    if (!j["network_latency"].is_number() || !(j["network_latency"].get<double>() >= 0) ||
        j["network_latency"].get<double>() > 1)
      throw Error(path, "network_latency",
                  fmt::format("is {}; expected seconds from 0 to 1", j["network_latency"].dump()));
    s.network_latency = j["network_latency"].get<double>();
  }
  if (j.contains("op_overhead")) {
    if (!j["op_overhead"].is_number() || !(j["op_overhead"].get<double>() >= 0) || j["op_overhead"].get<double>() > 1)
      throw Error(path, "op_overhead", fmt::format("is {}; expected seconds from 0 to 1", j["op_overhead"].dump()));
    s.op_overhead = j["op_overhead"].get<double>();
  }
  if (j.contains("efficiency")) {
    if (!j["efficiency"].is_object())
      throw Error(path, "efficiency", "expected an object of class: fraction");
    for (const auto& [k, v] : j["efficiency"].items()) {
      if (k != "matrix" && k != "vector" && k != "memory" && k != "network")
        throw Error(path, "efficiency." + k, "is not a class; expected matrix, vector, memory or network");
      const double e = positive(v, path, "efficiency." + k);
      if (e > 1 || e < 1e-3)
        throw Error(path, "efficiency." + k, fmt::format("is {}; expected a fraction in [0.001, 1]", e));
      s.efficiency[k] = e;
    }
  }
  if (s.matrix_flops.empty())
    throw Error(path, "matrix_flops", "is missing (or give \"base\": a preset name)");
  if (s.memory_bandwidth <= 0)
    throw Error(path, "memory_bandwidth", "is missing (or give \"base\": a preset name)");
  if (s.vector_flops <= 0)
    s.vector_flops = s.matrix_peak("f32");
  return s;
}

System load_system(const std::string& name_or_path) {
  if (name_or_path.ends_with(".json") || std::filesystem::exists(name_or_path))
    return read_system(name_or_path);
  return system_by_name(name_or_path);
}

std::string system_json(const System& system) {
  nlohmann::json j = {{"name", system.name},
                      {"matrix_flops", system.matrix_flops},
                      {"vector_flops", system.vector_flops},
                      {"memory_bandwidth", system.memory_bandwidth},
                      {"op_overhead", system.op_overhead}};
  if (system.network_bandwidth > 0)  // a system without a network leaves the key out (read_system wants > 0)
    j["network_bandwidth"] = system.network_bandwidth;
  j["network_latency"] = system.network_latency;
  if (!system.efficiency.empty())
    j["efficiency"] = system.efficiency;
  return j.dump(2) + "\n";
}

}  // namespace chorus::hlo
