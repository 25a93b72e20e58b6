// Built-in systems for HLO costing, from published specifications only (each value cites its source).
#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/hlo/system.hpp"

namespace chorus::hlo {
namespace {

// One TPU v3 TensorCore: XLA compiles one program per TensorCore on v3, and the op profiles are per core.
// Cloud TPU v3 docs (cloud.google.com/tpu/docs/v3): 123 TFLOP/s bf16 per chip, HBM2 900 GBps per chip, two
// TensorCores per chip; so 61.5 TFLOP/s and 450 GB/s per core. f32 matmuls run on the MXU in bf16 passes at
// XLA's DEFAULT precision (JAX/XLA precision docs), so f32 maps to the same peak. All-reduce bandwidth per pod
// 340 TB/s over 1024 chips = 332 GB/s per chip, 166 GB/s per core. The vector-unit peak is not published; it is
// set to the matrix peak / 16 and only matters for elementwise ops, which the HBM bound dominates.
System tpuv3() {
  System s;
  s.name = "tpuv3";
  s.matrix_flops = {{"bf16", 61.5e12}, {"f32", 61.5e12}};
  s.vector_flops = 61.5e12 / 16;
  s.memory_bandwidth = 450e9;
  s.network_bandwidth = 166e9;
  s.network_latency = 1e-6;
  return s;
}

// One TPU v4 chip (one XLA device: its two TensorCores act as one "megacore").
// Cloud TPU v4 docs (cloud.google.com/tpu/docs/v4): 275 TFLOP/s bf16 or int8 per chip, HBM2 1200 GBps;
// all-reduce bandwidth per pod 1.1 PB/s over 4096 chips = 268 GB/s per chip.
System tpuv4() {
  System s;
  s.name = "tpuv4";
  s.matrix_flops = {{"bf16", 275e12}, {"s8", 275e12}, {"f32", 275e12}};
  s.vector_flops = 275e12 / 16;
  s.memory_bandwidth = 1200e9;
  s.network_bandwidth = 268e9;
  s.network_latency = 1e-6;
  return s;
}

// NVIDIA A100 SXM4 80 GB, NVIDIA A100 Tensor Core GPU datasheet (2021): dense BF16/FP16 tensor 312 TFLOP/s,
// TF32 tensor 156 TFLOP/s (used for f32 matmuls), FP32 19.5 TFLOP/s (vector), HBM2e 2039 GB/s, NVLink 600 GB/s
// total (300 GB/s each way).
System a100() {
  System s;
  s.name = "a100";
  s.matrix_flops = {{"bf16", 312e12}, {"f16", 312e12}, {"f32", 156e12}, {"s8", 624e12}};
  s.vector_flops = 19.5e12;
  s.memory_bandwidth = 2039e9;
  s.network_bandwidth = 300e9;
  s.network_latency = 5e-6;
  return s;
}

// NVIDIA H100 SXM5 80 GB, NVIDIA H100 Tensor Core GPU datasheet (2023): dense BF16/FP16 tensor 989 TFLOP/s,
// TF32 tensor 494.5 TFLOP/s, FP8 1979 TFLOP/s, FP32 67 TFLOP/s (vector), HBM3 3.35 TB/s, NVLink 900 GB/s total
// (450 GB/s each way).
System h100() {
  System s;
  s.name = "h100";
  s.matrix_flops = {{"bf16", 989e12}, {"f16", 989e12}, {"f32", 494.5e12}, {"f8e4m3fn", 1979e12}, {"s8", 1979e12}};
  s.vector_flops = 67e12;
  s.memory_bandwidth = 3.35e12;
  s.network_bandwidth = 450e9;
  s.network_latency = 5e-6;
  return s;
}

}  // namespace

std::vector<std::string> system_presets() {
  return {"tpuv3", "tpuv4", "a100", "h100"};
}

System system_by_name(const std::string& name) {
  if (name == "tpuv3")
    return tpuv3();
  if (name == "tpuv4")
    return tpuv4();
  if (name == "a100")
    return a100();
  if (name == "h100")
    return h100();
  throw Error("", Argument{"system"},
              fmt::format("'{}' is neither a preset (tpuv3, tpuv4, a100, h100) nor a JSON file", name));
}

}  // namespace chorus::hlo
