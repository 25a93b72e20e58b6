// The planner's GPU systems, so that `--system h100-80gb` needs no file: each is a machine preset of machine/ (its
// device, its node's scale-up domain as network tier 0 and one NIC per GPU as tier 1), written in the System
// structure Calculon's JSON files produce.
//
// The datasheet values come from machine/devices.cpp and machine/machines.cpp, where each cites its source.
// Efficiency curves, network efficiencies, latencies and processor usage are model parameters
// (machine/calibration.hpp): they start from Calculon's a100_80g.json and are what `chorus llm calibrate` fits (the
// shipped a100-80gb and h100-80gb carry such a fit).
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

// The device names of the GPU machines (a100-40gb, a100-80gb, h100-80gb, h200, b200, gb200, mi300x, mi355x), then
// the machine names that differ from them (dgx-a100, dgx-h100, ...: the same preset under its machine's name).
// a100-80gb and h100-80gb carry efficiencies calibrated on validation/llm/ (machine/calibration.cpp);
// NAME-datasheet is the same preset with Calculon's uncalibrated curves, what `chorus llm calibrate` starts from.
const std::vector<std::string>& system_preset_names();

// The preset as Calculon-format system JSON (what `chorus llm systems --show NAME` prints); nullopt if unknown.
std::optional<nlohmann::json> system_preset_json(const std::string& name);

// A preset name or a path to a system JSON file. A string that is neither is an Error on `--system`.
System resolve_system(const std::string& name_or_path);

}  // namespace chorus::llm
