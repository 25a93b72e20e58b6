// A machine for the NCCL model: a preset by name, a JSON file `chorus calibrate nccl` wrote (a preset plus the
// scales fitted to a cluster's nccl-tests logs), or NCCL's topology dump of one node (NCCL_TOPO_DUMP_FILE, .xml):
// its GPUs, NVLinks and NICs as the dump lists them, the GPU's device preset from its compute capability.
//
//   {"chorus_calibrated_machine": 1, "base": "dgx-h100",
//    "nccl_scales": {"intra_bandwidth": 0.97, "inter_bandwidth": 0.88, "latency": 1.3}, "fit": {...}}
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/machine/machine.hpp"
#include "chorus/nccl/comm_system.hpp"

namespace chorus::nccl {

// A machine built from a topology dump, with the strings its fields point at.
struct OwnedMachine {
  std::string name;
  std::string label;
  machine::Machine machine{};
};

struct CalibratedMachine {
  const machine::Machine* machine = nullptr;
  std::shared_ptr<const OwnedMachine> owned;  // set for a topology dump; `machine` points into it
  Scales scales;
  std::string calibration;  // the file it came from; empty for a preset
};

// `text` ending in .json is a calibrated machine, in .xml a topology dump; anything else a preset name. A dump's
// GPUs must have NVLink (NCCL over PCIe alone is not modelled) and a compute capability with a device preset (8.0
// A100, 9.0 H100, 10.0 B200). Throws chorus::Error naming the file and field for
// a malformed file (a scale outside (0, 100], an unknown base) and the nearest preset for an unknown name.
CalibratedMachine resolve_machine(const std::string& text, const std::string& field = "machine");

// The file calibrate writes: the base, the scales and `fit` (what the fit was run on and its errors).
nlohmann::ordered_json calibrated_machine_json(const machine::Machine& base, const Scales& scales,
                                               nlohmann::ordered_json fit);

}  // namespace chorus::nccl
