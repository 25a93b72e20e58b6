// Reading and writing calibrated machines (calibrated_machine.hpp).
#include "chorus/nccl/calibrated_machine.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"
#include "chorus/io/text_file.hpp"
#include "chorus/topology/nccl_topo.hpp"

namespace chorus::nccl {
namespace {

double scale_field(const nlohmann::json& scales, const std::string& file, const char* key) {
  const std::string field = std::string("nccl_scales.") + key;
  if (!scales.contains(key))
    throw Error(file, field, "is missing");
  const nlohmann::json& v = scales[key];
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 100)
    throw Error(file, field, fmt::format("is {}; must be a number in (0, 100]", v.dump()));
  return v.get<double>();
}

CalibratedMachine read_calibrated(const std::string& file) {
  const nlohmann::json doc = load_json_file(file);
  if (!doc.is_object() || !doc.contains("chorus_calibrated_machine"))
    throw Error(file, "chorus_calibrated_machine", "is missing: not a file `chorus calibrate nccl` wrote");
  if (!doc.contains("base") || !doc["base"].is_string())
    throw Error(file, "base", "must name a machine preset");
  CalibratedMachine c;
  try {
    c.machine = &machine::machine(doc["base"].get<std::string>());
  } catch (const Error& e) {
    throw Error(file, "base", e.message());
  }
  if (!doc.contains("nccl_scales") || !doc["nccl_scales"].is_object())
    throw Error(file, "nccl_scales", "must be an object");
  const nlohmann::json& s = doc["nccl_scales"];
  c.scales.intra_bandwidth = scale_field(s, file, "intra_bandwidth");
  c.scales.inter_bandwidth = scale_field(s, file, "inter_bandwidth");
  c.scales.latency = scale_field(s, file, "latency");
  if (s.contains("overhead_us")) {
    const nlohmann::json& v = s["overhead_us"];
    if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e6)
      throw Error(file, "nccl_scales.overhead_us",
                  fmt::format("is {}; must be a number of microseconds >= 0", v.dump()));
    c.scales.overhead_us = v.get<double>();
  }
  c.calibration = file;
  return c;
}

const char* device_for_sm(int sm, const std::string& file) {
  if (sm >= 100)
    return "b200";
  if (sm >= 90)
    return "h100-80gb";
  if (sm == 80)
    return "a100-80gb";
  throw Error(file, "gpu: sm", fmt::format("is {}; chorus has device presets for sm 80, 90 and 100", sm));
}

CalibratedMachine read_topology_dump(const std::string& file) {
  const NcclNodeSummary n = summarize_nccl_topology(read_text_file(file), file);
  if (n.nvlinks_per_gpu == 0)
    throw Error(file, "gpu: nvlink", "a GPU has no NVLink; NCCL over PCIe alone is not modelled");
  const char* device = device_for_sm(n.sm, file);
  const machine::Machine* home = machine::home_machine(device);
  auto owned = std::make_shared<OwnedMachine>();
  owned->name = file;
  owned->label = fmt::format("NCCL topology dump {}", file);
  machine::Machine& m = owned->machine;
  m.name = owned->name.c_str();
  m.label = owned->label.c_str();
  m.device_name = device;
  m.gpus_per_node = n.gpus;
  m.scale_up = n.nvswitch ? machine::ScaleUp::kSwitch : machine::ScaleUp::kFullMesh;
  // The dump counts links; their rate is the device's documented per-link rate (its home machine's).
  m.scale_up_links = n.nvlinks_per_gpu;
  m.scale_up_bandwidth = home->scale_up_bandwidth / home->scale_up_links * n.nvlinks_per_gpu;
  m.in_network_reduction = n.nvswitch && n.sm >= 90;  // NVLink SHARP: third-generation NVSwitch
  m.nics_per_node = n.nics;
  m.nic_bandwidth = n.nic_gbps * 1e9;
  m.max_nodes = 1024;
  CalibratedMachine c;
  c.machine = &owned->machine;
  c.owned = std::move(owned);
  return c;
}

}  // namespace

CalibratedMachine resolve_machine(const std::string& text, const std::string& field) {
  if (text.size() > 5 && text.ends_with(".json"))
    return read_calibrated(text);
  if (text.size() > 4 && text.ends_with(".xml"))
    return read_topology_dump(text);
  CalibratedMachine c;
  c.machine = &machine::machine(text, field);
  return c;
}

nlohmann::ordered_json calibrated_machine_json(const machine::Machine& base, const Scales& scales,
                                               nlohmann::ordered_json fit) {
  nlohmann::ordered_json doc;
  doc["chorus_calibrated_machine"] = 1;
  doc["base"] = base.name;
  doc["nccl_scales"] = {{"intra_bandwidth", scales.intra_bandwidth},
                        {"inter_bandwidth", scales.inter_bandwidth},
                        {"latency", scales.latency},
                        {"overhead_us", scales.overhead_us}};
  doc["fit"] = std::move(fit);
  return doc;
}

}  // namespace chorus::nccl
