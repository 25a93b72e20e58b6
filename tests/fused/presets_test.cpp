// The fused-operator GPU presets are the devices of machine/ (one source of the datasheet values): their tensor
// peaks and HBM bandwidth equal the LLM planner's, which reads the same devices.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/fused/gpu.hpp"
#include "chorus/llm/hardware.hpp"
#include "chorus/llm/system_presets.hpp"

namespace chorus::fused {
namespace {

TEST(FusedPresets, ValuesAreTheDatasheetsThroughTheLlmPresets) {
  // NVIDIA H100 SXM datasheet: BF16 tensor 1,979 TFLOP/s with sparsity, so 989.5 dense; FP8 3,958 / 2 = 1,979;
  // HBM3 3.35 TB/s; FP32 67 TFLOP/s; 132 SMs (H100 whitepaper).
  const GpuSpec h100 = load_gpu("h100-80gb");
  EXPECT_DOUBLE_EQ(h100.peak("bf16", "test"), 989.5e12);
  EXPECT_DOUBLE_EQ(h100.peak("fp16", "test"), 989.5e12);
  EXPECT_DOUBLE_EQ(h100.peak("fp8", "test"), 1979e12);
  EXPECT_DOUBLE_EQ(h100.peak("fp32", "test"), 67e12);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth.gb_per_second(), 3350);
  EXPECT_EQ(h100.compute_units, 132u);
  // A100 SXM 80 GB: 312 dense BF16, no FP8, 2,039 GB/s, FP32 19.5, 108 SMs.
  const GpuSpec a100 = load_gpu("a100-80gb");
  EXPECT_DOUBLE_EQ(a100.peak("bf16", "test"), 312e12);
  EXPECT_THROW(a100.peak("fp8", "test"), Error);
  EXPECT_DOUBLE_EQ(a100.memory_bandwidth.gb_per_second(), 2039);
  EXPECT_EQ(a100.compute_units, 108u);
  // MI300X data sheet: 1,307.4 dense BF16, 2,614.9 FP8, 5.3 TB/s, FP32 vector 163.4, 304 CUs.
  const GpuSpec mi = load_gpu("mi300x");
  EXPECT_DOUBLE_EQ(mi.peak("fp8", "test"), 2614.9e12);
  EXPECT_EQ(mi.compute_units, 304u);
}

TEST(FusedPresets, EveryPresetMatchesItsLlmSystem) {
  for (const std::string& name : gpu_presets()) {
    const llm::System sys = llm::resolve_system(name);
    const llm::Hardware hw(sys, sys.datatype_index("bfloat16"));
    const GpuSpec gpu = load_gpu(name);
    EXPECT_DOUBLE_EQ(gpu.peak("bf16", "test"), hw.matrix_peak()) << name;
    EXPECT_DOUBLE_EQ(gpu.memory_bandwidth.bytes_per_second(), sys.mem1.bytes_per_second) << name;
  }
}

}  // namespace
}  // namespace chorus::fused
