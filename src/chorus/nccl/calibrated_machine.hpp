// A machine for the NCCL model: a preset by name, or a JSON file `chorus calibrate nccl` wrote (a preset plus the
// scales fitted to a cluster's nccl-tests logs).
//
//   {"chorus_calibrated_machine": 1, "base": "dgx-h100",
//    "nccl_scales": {"intra_bandwidth": 0.97, "inter_bandwidth": 0.88, "latency": 1.3}, "fit": {...}}
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "chorus/machine/machine.hpp"
#include "chorus/nccl/comm_system.hpp"

namespace chorus::nccl {

struct CalibratedMachine {
  const machine::Machine* machine = nullptr;
  Scales scales;
  std::string calibration;  // the file it came from; empty for a preset
};

// `text` ending in .json is a file; anything else a preset name. Throws chorus::Error naming the file and field for
// a malformed file (a scale outside (0, 100], an unknown base) and the nearest preset for an unknown name.
CalibratedMachine resolve_machine(const std::string& text, const std::string& field = "machine");

// The file calibrate writes: the base, the scales and `fit` (what the fit was run on and its errors).
nlohmann::ordered_json calibrated_machine_json(const machine::Machine& base, const Scales& scales,
                                               nlohmann::ordered_json fit);

}  // namespace chorus::nccl
