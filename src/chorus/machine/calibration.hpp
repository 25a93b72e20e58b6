// The model parameters of a machine, apart from its datasheet values: the efficiency curves that say how far below
// peak a matrix unit, a vector unit or a memory tier runs on an operation of a given size, and the multipliers that
// `chorus llm calibrate` fitted to measured runs. One place, so that the planner and every trace generator price an
// operation with the same curves.
//
//   EfficiencyCurve m = machine::matrix_curve();                     // Calculon's a100_80g.json curve
//   if (const Calibration* c = machine::calibration("h100-80gb")) m = m.scaled(c->matrix);
#pragma once

#include <span>
#include <string_view>

#include "chorus/machine/efficiency_curve.hpp"

namespace chorus::machine {

// Calculon's curves from its a100_80g.json (Isaev et al., SC'23), the starting point for every device: the matrix
// and vector curves take FLOPs of one operation / 1e9, the memory curves bytes of one access / 1e6.
EfficiencyCurve matrix_curve();
EfficiencyCurve vector_curve();
EfficiencyCurve hbm_curve();
EfficiencyCurve host_curve();

// Calculon's network efficiencies and processor usage for the scale-up and scale-out tiers (a100_80g.json), and
// the per-collective latencies its files carry (seconds): model parameters of the planner's network tiers.
inline constexpr double kScaleUpEfficiency = 0.65;
inline constexpr double kScaleOutEfficiency = 0.9;
inline constexpr double kScaleUpLatency = 1e-5;
inline constexpr double kScaleOutLatency = 2e-5;
inline constexpr double kScaleUpProcessorUsage = 0.15;
inline constexpr double kScaleOutProcessorUsage = 0.02;

// Per-link latencies of a machine's topology (`--machine`; topology/machine_topology.hpp), seconds: model
// parameters, not datasheet values. A ring step in NCCL's own tuning model costs 0.47 us (LL) to 3.4 us (Simple) of
// NVLink hardware latency (src/graph/tuning.cc, hwLat); one link of 1 us, and 5 us through a NIC, stand in until a
// calibration from measured logs replaces them (`--latency intra,inter` overrides both).
inline constexpr double kScaleUpLinkLatency = 1e-6;
inline constexpr double kScaleOutLinkLatency = 5e-6;

// Multipliers on the curves and network efficiencies above (each capped at efficiency 1), fitted by
// `chorus llm calibrate` to measured runs of one device; `source` says on which runs and with what error.
struct Calibration {
  const char* device;
  double matrix;
  double vector;
  double memory;
  double scale_up;
  double nic;
  const char* source;
};

std::span<const Calibration> calibrations();
const Calibration* calibration(std::string_view device);

}  // namespace chorus::machine
