// Built-in systems for HLO costing: the devices and machines of machine/ (each value cited there), seen as one XLA
// device. What is specific to HLO costing (how XLA maps f32 matmuls, the per-step latency) is said here.
#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/hlo/system.hpp"
#include "chorus/machine/machine.hpp"

namespace chorus::hlo {
namespace {

// The vector-unit peak of a TPU is not published; it is set to the matrix peak / 16 (a model parameter) and only
// matters for elementwise ops, which the HBM bound dominates.
constexpr double kTpuVectorFraction = 1.0 / 16;
// Per collective step, seconds: model parameters of the HLO cost model.
constexpr double kTpuStepLatency = 1e-6;
constexpr double kGpuStepLatency = 5e-6;

// One TPU v3 TensorCore: XLA compiles one program per TensorCore on v3, and the op profiles are per core, so the
// chip's matrix peak, HBM bandwidth and all-reduce bandwidth are halved. f32 matmuls run on the MXU in bf16 passes
// at XLA's DEFAULT precision (JAX/XLA precision docs), so f32 maps to the same peak.
System tpuv3() {
  const machine::Machine& pod = machine::machine("tpu-v3-pod");
  const machine::Device& chip = pod.device();
  const double cores = chip.compute_units;
  System s;
  s.name = "tpuv3";
  const double matrix = chip.matrix_bf16 / cores;
  s.matrix_flops = {{"bf16", matrix}, {"f32", matrix}};
  s.vector_flops = matrix * kTpuVectorFraction;
  s.memory_bandwidth = chip.hbm_bandwidth / cores;
  s.network_bandwidth = pod.scale_up_bandwidth / cores;
  s.network_latency = kTpuStepLatency;
  return s;
}

// One TPU v4 chip (one XLA device: its two TensorCores act as one "megacore").
System tpuv4() {
  const machine::Machine& pod = machine::machine("tpu-v4-pod");
  const machine::Device& chip = pod.device();
  System s;
  s.name = "tpuv4";
  s.matrix_flops = {{"bf16", chip.matrix_bf16}, {"s8", chip.matrix_int8}, {"f32", chip.matrix_bf16}};
  s.vector_flops = chip.matrix_bf16 * kTpuVectorFraction;
  s.memory_bandwidth = chip.hbm_bandwidth;
  s.network_bandwidth = pod.scale_up_bandwidth;
  s.network_latency = kTpuStepLatency;
  return s;
}

// A GPU of an NVIDIA machine: f32 matmuls on the TF32 tensor path (XLA's default on Ampere and later), the FP32
// peak for elementwise ops, the NVLink bandwidth per direction for collectives.
System gpu(const char* name, const char* machine_name) {
  const machine::Machine& m = machine::machine(machine_name);
  const machine::Device& d = m.device();
  System s;
  s.name = name;
  s.matrix_flops = {{"bf16", d.matrix_bf16}, {"f16", d.matrix_fp16}, {"f32", d.matrix_tf32}, {"s8", d.matrix_int8}};
  if (d.matrix_fp8 > 0)
    s.matrix_flops["f8e4m3fn"] = d.matrix_fp8;
  s.vector_flops = d.vector_fp32;
  s.memory_bandwidth = d.hbm_bandwidth;
  s.network_bandwidth = m.scale_up_bandwidth;
  s.network_latency = kGpuStepLatency;
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
    return gpu("a100", "dgx-a100");
  if (name == "h100")
    return gpu("h100", "dgx-h100");
  throw Error("", Argument{"system"},
              fmt::format("'{}' is neither a preset (tpuv3, tpuv4, a100, h100) nor a JSON file", name));
}

}  // namespace chorus::hlo
