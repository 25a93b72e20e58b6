// Reading and writing calibrated machines (calibrated_machine.hpp).
#include "chorus/nccl/calibrated_machine.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

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
  c.calibration = file;
  return c;
}

}  // namespace

CalibratedMachine resolve_machine(const std::string& text, const std::string& field) {
  if (text.size() > 5 && text.ends_with(".json"))
    return read_calibrated(text);
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
                        {"latency", scales.latency}};
  doc["fit"] = std::move(fit);
  return doc;
}

}  // namespace chorus::nccl
