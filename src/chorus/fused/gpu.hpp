// The GPU a fused operator runs on: peak FLOP/s per datatype, memory bandwidth and compute-unit count, enough for
// a roofline tile time and for the occupancy that communication workgroups take away.
//
// Built-in: the device presets of machine/ with a 16-bit matrix peak and a published SM / CU count (a100-40gb,
// a100-80gb, h100-80gb, h200, mi300x, mi355x; `chorus machines` lists them with their sources); or a JSON file
//   {"name": "my-gpu", "peak_tflops": {"bf16": 989, "fp32": 67}, "memory_GBps": 3350, "compute_units": 132}
//
//   GpuSpec gpu = load_gpu("h100-80gb");   // or load_gpu("my_gpu.json")
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chorus/core/error.hpp"
#include "chorus/core/units.hpp"

namespace chorus::fused {

struct GpuSpec {
  std::string name;
  std::map<std::string, double> peak_flops;  // dense FLOP/s per datatype ("bf16", "fp16", "fp32", "fp8")
  Bandwidth memory_bandwidth;                // HBM, bytes per second (GB = 1e9)
  uint32_t compute_units = 0;                // SMs (NVIDIA) or CUs (AMD): workgroups resident at once, one each

  // Peak of `dtype`; throws chorus::Error(source, Argument{"dtype"}) when the GPU has none.
  double peak(const std::string& dtype, const std::string& source) const;
};

std::vector<std::string> gpu_presets();

// A preset name, or a JSON file path (anything with a '/' or ending in .json). Throws chorus::Error naming the
// file and the field on a missing or non-positive value.
GpuSpec load_gpu(const std::string& name_or_file);

// Bytes per element of a datatype name (bf16, fp16: 2; fp32: 4; fp8: 1); throws naming `field` otherwise.
int64_t dtype_bytes(const std::string& dtype, const Field& field);

}  // namespace chorus::fused
