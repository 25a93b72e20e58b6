// System lookups and the JSON system file reader (system.hpp).
#include "chorus/hlo/system.hpp"

#include <algorithm>
#include <filesystem>

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

}  // namespace

System read_system(const std::string& path) {
  const nlohmann::json j = load_json_file(path);
  if (!j.is_object())
    throw Error(path, "", "expected a JSON object");
  if (j.contains("base") && !j["base"].is_string())
    throw Error(path, "base", fmt::format("is {}; expected a preset name such as \"tpuv3\"", j["base"].dump()));
  System s = j.contains("base") ? system_by_name(j["base"].get<std::string>()) : System{};
  s.name = j.value("name", s.name.empty() ? path : s.name);
  if (j.contains("matrix_flops")) {
    if (!j["matrix_flops"].is_object())
      throw Error(path, "matrix_flops", "expected an object of datatype: FLOP/s");
    for (const auto& [k, v] : j["matrix_flops"].items())
      s.matrix_flops[k] = positive(v, path, "matrix_flops." + k);
  }
  if (j.contains("vector_flops"))
    s.vector_flops = positive(j["vector_flops"], path, "vector_flops");
  if (j.contains("memory_bandwidth"))
    s.memory_bandwidth = positive(j["memory_bandwidth"], path, "memory_bandwidth");
  if (j.contains("network_bandwidth"))
    s.network_bandwidth = positive(j["network_bandwidth"], path, "network_bandwidth");
  if (j.contains("network_latency")) {
    if (!j["network_latency"].is_number() || j["network_latency"].get<double>() < 0)
      throw Error(path, "network_latency", fmt::format("is {}; expected seconds >= 0", j["network_latency"].dump()));
    s.network_latency = j["network_latency"].get<double>();
  }
  if (j.contains("efficiency")) {
    if (!j["efficiency"].is_object())
      throw Error(path, "efficiency", "expected an object of class: fraction");
    for (const auto& [k, v] : j["efficiency"].items()) {
      if (k != "matrix" && k != "vector" && k != "memory" && k != "network")
        throw Error(path, "efficiency." + k, "is not a class; expected matrix, vector, memory or network");
      const double e = positive(v, path, "efficiency." + k);
      if (e > 1)
        throw Error(path, "efficiency." + k, fmt::format("is {}; expected a fraction in (0, 1]", e));
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

}  // namespace chorus::hlo
