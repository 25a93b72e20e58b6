// The planner's system presets (see system_presets.hpp): each a machine of machine/ written as a Calculon system file.
#include "chorus/llm/system_presets.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/suggest.hpp"
#include "chorus/machine/calibration.hpp"
#include "chorus/machine/machine.hpp"

namespace chorus::llm {
namespace {

constexpr const char* kDatasheetSuffix = "-datasheet";

// Calculon writes curve thresholds as integers; so does the preset JSON, so that `llm systems --show` prints a file
// Calculon reads back unchanged.
nlohmann::json curve_json(const machine::EfficiencyCurve& curve) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [threshold, efficiency] : curve.steps()) {
    if (threshold == static_cast<double>(static_cast<int64_t>(threshold)))
      out.push_back({static_cast<int64_t>(threshold), efficiency});
    else
      out.push_back({threshold, efficiency});
  }
  return out;
}

// Ring collectives move (n-1)/n of the data per rank for reduce-scatter and all-gather, twice that for all-reduce.
nlohmann::json ring_ops() {
  return {{"p2p", {1.0, nullptr}}, {"reduce_scatter", {1.0, -1}}, {"all_gather", {1.0, -1}}, {"all_reduce", {2.0, -1}}};
}

// The device on its machine, as a Calculon system file: the datasheet values from machine/, the curves and network
// efficiencies (model parameters) scaled by the calibration when one is given.
nlohmann::json preset_json(const machine::Machine& m, const machine::Calibration* c) {
  const machine::Device& d = m.device();
  const machine::Calibration none{"", 1, 1, 1, 1, 1, ""};
  if (c == nullptr)
    c = &none;
  nlohmann::json j;
  auto unit = [](double flops, const machine::EfficiencyCurve& curve) {
    return nlohmann::json{{"tflops", flops / 1e12}, {"gflops_efficiency", curve_json(curve)}};
  };
  const machine::EfficiencyCurve matrix = machine::matrix_curve().scaled(c->matrix);
  const machine::EfficiencyCurve vector = machine::vector_curve().scaled(c->vector);
  for (const char* type : {"float16", "bfloat16"}) {
    j["matrix"][type] = unit(d.matrix_bf16, matrix);
    j["vector"][type] = unit(d.vector_fp16, vector);
  }
  if (d.matrix_fp8 > 0) {
    j["matrix"]["float8"] = unit(d.matrix_fp8, matrix);
    j["vector"]["float8"] = unit(d.vector_fp16, vector);
  }
  j["mem1"] = {{"GiB", d.hbm_gib},
               {"GBps", d.hbm_bandwidth / 1e9},
               {"MB_efficiency", curve_json(machine::hbm_curve().scaled(c->memory))}};
  j["mem2"] = {
      {"GiB", m.host_gib}, {"GBps", m.host_bandwidth / 1e9}, {"MB_efficiency", curve_json(machine::host_curve())}};
  j["processing_mode"] = "no_overlap";
  // Tier 0: the node's scale-up domain (NVLink/NVSwitch, Infinity Fabric). Tier 1: the NICs across nodes, per GPU.
  const double nic_per_gpu = m.nic_bandwidth * m.nics_per_node / m.gpus_per_node;
  j["networks"] = nlohmann::json::array({{{"bandwidth", m.scale_up_bandwidth / 1e9},
                                          {"efficiency", std::min(1.0, machine::kScaleUpEfficiency * c->scale_up)},
                                          {"size", m.gpus_per_node},
                                          {"latency", machine::kScaleUpLatency},
                                          {"ops", ring_ops()},
                                          {"must_be_filled", true},
                                          {"processor_usage", machine::kScaleUpProcessorUsage}},
                                         {{"bandwidth", nic_per_gpu / 1e9},
                                          {"efficiency", std::min(1.0, machine::kScaleOutEfficiency * c->nic)},
                                          {"size", 65536},
                                          {"latency", machine::kScaleOutLatency},
                                          {"ops", ring_ops()},
                                          {"must_be_filled", false},
                                          {"processor_usage", machine::kScaleOutProcessorUsage}}});
  return j;
}

// The machines the planner can run on: GPU machines with a scale-out tier (a TPU pod has no NIC tier here).
bool planner_machine(const machine::Machine& m) {
  return m.nics_per_node > 0 && m.device().matrix_fp16 > 0;
}

}  // namespace

const std::vector<std::string>& system_preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const machine::Device& d : machine::devices()) {
      const machine::Machine* m = machine::home_machine(d.name);
      if (m == nullptr || !planner_machine(*m))
        continue;
      out.emplace_back(d.name);
      if (machine::calibration(d.name))
        out.push_back(std::string(d.name) + kDatasheetSuffix);
    }
    for (const machine::Machine& m : machine::machines()) {
      if (planner_machine(m) && std::string_view(m.name) != m.device_name)
        out.emplace_back(m.name);
    }
    return out;
  }();
  return names;
}

std::optional<nlohmann::json> system_preset_json(const std::string& name) {
  for (const machine::Machine& m : machine::machines()) {
    if (!planner_machine(m))
      continue;
    const machine::Calibration* c = machine::calibration(m.device_name);
    if (name == m.device_name || name == m.name)
      return preset_json(m, c);
    if (c && name == std::string(m.device_name) + kDatasheetSuffix)
      return preset_json(m, nullptr);
  }
  return std::nullopt;
}

System resolve_system(const std::string& name_or_path) {
  if (auto j = system_preset_json(name_or_path))
    return parse_system(*j, "preset " + name_or_path);
  std::error_code ec;
  if (!std::filesystem::exists(name_or_path, ec)) {
    std::string names;
    for (const auto& n : system_preset_names())
      names += names.empty() ? n : ", " + n;
    const auto near = closest_match(name_or_path, system_preset_names());
    throw Error("", Argument{"system"},
                fmt::format("is '{}': neither a system JSON file nor a preset{} ({})", name_or_path,
                            near ? fmt::format("; did you mean '{}'?", *near) : "", names));
  }
  return read_system(name_or_path);
}

}  // namespace chorus::llm
