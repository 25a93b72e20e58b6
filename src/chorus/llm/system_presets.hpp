// GPU systems built from published specifications (vendor datasheets), so that `--system h100-80gb` needs no
// file. Each preset is one node of 8 GPUs on its NVLink/NVSwitch (or Infinity Fabric) domain, plus one NIC
// rail per GPU for the scale-out tier, in the same System structure Calculon's JSON files produce.
//
// Datasheet values (peak dense FLOP/s, HBM capacity and bandwidth, NVLink and NIC bandwidth) are cited next
// to each number in system_presets.cpp. Efficiency curves, network efficiencies, latencies and processor usage
// are model parameters, not datasheet values: they start from Calculon's a100_80g.json and are what
// `chorus llm calibrate` fits (the shipped a100-80gb and h100-80gb carry such a fit).
//
//   System sys = resolve_system("h100-80gb");      // a preset
//   System sys = resolve_system("my_system.json"); // or a Calculon system file
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

// a100-40gb, a100-80gb, a100-80gb-datasheet, h100-80gb, h100-80gb-datasheet, h200, b200, mi300x. a100-80gb and
// h100-80gb carry efficiencies calibrated on validation/llm/ (system_presets.cpp); NAME-datasheet is the same
// preset with Calculon's uncalibrated curves, what `chorus llm calibrate` starts from.
const std::vector<std::string>& system_preset_names();

// The preset as Calculon-format system JSON (what `chorus llm systems --show NAME` prints); nullopt if unknown.
std::optional<nlohmann::json> system_preset_json(const std::string& name);

// A preset name or a path to a system JSON file. A string that is neither is an Error on `--system`.
System resolve_system(const std::string& name_or_path);

}  // namespace chorus::llm
