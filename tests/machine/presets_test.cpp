// The device and machine presets against the documents they cite (numbers restated here from the datasheets, not
// from the program), and the consumers that must read them: the LLM planner, the fused-operator model, the HLO cost
// model and the trace generator price with the same peaks.
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/fused/gpu.hpp"
#include "chorus/hlo/system.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/machine/calibration.hpp"
#include "chorus/machine/machine.hpp"

namespace chorus::machine {
namespace {

TEST(DevicePresets, NvidiaDensePeaksAreHalfTheSparseHeadline) {
  // H100 SXM datasheet: BF16 1,979 TFLOPS and FP8 3,958 "with sparsity"; TF32 989; HBM3 3.35 TB/s; 80 GB.
  const Device& h100 = device("h100-80gb");
  EXPECT_DOUBLE_EQ(h100.matrix_bf16, 1979e12 / 2);
  EXPECT_DOUBLE_EQ(h100.matrix_fp8, 3958e12 / 2);
  EXPECT_DOUBLE_EQ(h100.matrix_tf32, 989e12 / 2);
  EXPECT_DOUBLE_EQ(h100.hbm_bandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.hbm_gib, 80);
  // HGX B200 datasheet, 8 GPUs: FP16/BF16 36 PFLOPS with sparsity; FP8 72.
  const Device& b200 = device("b200");
  EXPECT_DOUBLE_EQ(b200.matrix_bf16, 36e15 / 8 / 2);
  EXPECT_DOUBLE_EQ(b200.matrix_fp8, 72e15 / 8 / 2);
  // GB200 NVL72 datasheet, 72 GPUs: BF16 360 PFLOPS with sparsity, HBM bandwidth 576 TB/s.
  const Device& gb200 = device("gb200");
  EXPECT_DOUBLE_EQ(gb200.matrix_bf16, 360e15 / 72 / 2);
  EXPECT_DOUBLE_EQ(gb200.hbm_bandwidth, 576e12 / 72);
}

TEST(DevicePresets, AmdPeaksFollowFromCusAndClock) {
  // MI355X: 256 CUs at 2.4 GHz, 8,192 dense FP8 FLOP per CU per clock (AMD, ISSCC 2026): 5.03 PFLOPS; FP16 half.
  const Device& mi355x = device("mi355x");
  EXPECT_NEAR(mi355x.matrix_fp8, 256 * 8192 * 2.4e9, 0.001e15);
  EXPECT_NEAR(mi355x.matrix_bf16, 256 * 4096 * 2.4e9, 0.001e15);
  // FP32 vector: 256 FLOP per CU per clock (128 lanes, fused multiply-add).
  EXPECT_NEAR(mi355x.vector_fp32, 256 * 256 * 2.4e9, 0.1e12);
  EXPECT_EQ(mi355x.compute_units, 256u);
  // MI300X: 304 CUs at 2.1 GHz, 2,048 dense FP16 FLOP per CU per clock: 1,307.4 TFLOPS.
  EXPECT_NEAR(device("mi300x").matrix_bf16, 304 * 2048 * 2.1e9, 0.1e12);
}

TEST(MachinePresets, ScaleUpBandwidthIsPerDirection) {
  // DGX H100: 18 NVLink-4 links of 25 GB/s each way = 450 GB/s, the datasheet's 900 GB/s both ways.
  const Machine& dgx = machine("dgx-h100");
  EXPECT_DOUBLE_EQ(dgx.scale_up_bandwidth, 18 * 25e9);
  EXPECT_DOUBLE_EQ(dgx.scale_up_bandwidth * 2, 900e9);
  EXPECT_DOUBLE_EQ(dgx.peer_bandwidth(), 450e9);  // through the NVSwitches every peer gets all of it
  EXPECT_TRUE(dgx.in_network_reduction);
  EXPECT_FALSE(machine("dgx-a100").in_network_reduction);  // NVLink SHARP came with third-generation NVSwitch
  // MI300X: 7 Infinity Fabric links of 128 GB/s both ways: a peer gets one link, 64 GB/s each way.
  const Machine& mi = machine("mi300x");
  EXPECT_DOUBLE_EQ(mi.peer_bandwidth(), 128e9 / 2);
  EXPECT_DOUBLE_EQ(mi.scale_up_bandwidth, 7 * 128e9 / 2);
  EXPECT_DOUBLE_EQ(machine("mi355x").peer_bandwidth(), 153.6e9 / 2);
  // GB200 NVL72: 130 TB/s over 72 GPUs, both directions (the datasheet rounds 1.806 TB/s to 1.8).
  const Machine& nvl72 = machine("gb200-nvl72");
  EXPECT_EQ(nvl72.gpus_per_node, 72u);
  EXPECT_NEAR(nvl72.scale_up_bandwidth * 2 * 72, 130e12, 0.005 * 130e12);
  // TPU v3 pod: 340 TB/s of all-reduce bandwidth over 1,024 chips.
  const Machine& v3 = machine("tpu-v3-pod");
  EXPECT_NEAR(v3.scale_up_bandwidth * v3.gpus_per_node, 340e12, 0.001 * 340e12);
}

// Every value a preset states is covered by one of its citations (a model parameter's citation says so).
TEST(MachinePresets, EveryValueHasASource) {
  auto fields_of = [](std::span<const Citation> sources) {
    std::set<std::string> cited;
    for (const Citation& c : sources) {
      std::istringstream words(c.fields);
      for (std::string w; words >> w;)
        cited.insert(w);
      EXPECT_GT(std::string(c.text).size(), 20u) << c.fields;
    }
    return cited;
  };
  for (const Device& d : devices()) {
    const std::set<std::string> cited = fields_of(d.sources);
    const std::pair<const char*, double> values[] = {
        {"matrix_bf16", d.matrix_bf16},     {"matrix_fp16", d.matrix_fp16},
        {"matrix_fp8", d.matrix_fp8},       {"matrix_tf32", d.matrix_tf32},
        {"matrix_int8", d.matrix_int8},     {"vector_fp16", d.vector_fp16},
        {"vector_fp32", d.vector_fp32},     {"hbm_gib", d.hbm_gib},
        {"hbm_bandwidth", d.hbm_bandwidth}, {"compute_units", static_cast<double>(d.compute_units)}};
    for (const auto& [field, value] : values) {
      if (value > 0) {
        EXPECT_TRUE(cited.contains(field)) << d.name << "." << field << " has no source";
      }
    }
  }
  for (const Machine& m : machines()) {
    const std::set<std::string> cited = fields_of(m.sources);
    const std::pair<const char*, double> values[] = {
        {"gpus_per_node", m.gpus_per_node},   {"scale_up_bandwidth", m.scale_up_bandwidth},
        {"scale_up_links", m.scale_up_links}, {"nics_per_node", m.nics_per_node},
        {"nic_bandwidth", m.nic_bandwidth},   {"host_gib", m.host_gib},
        {"host_bandwidth", m.host_bandwidth}, {"in_network_reduction", m.in_network_reduction ? 1.0 : 0.0}};
    for (const auto& [field, value] : values) {
      if (value > 0) {
        EXPECT_TRUE(cited.contains(field)) << m.name << "." << field << " has no source";
      }
    }
    EXPECT_NE(find_device(m.device_name), nullptr) << m.name;
  }
}

TEST(MachinePresets, UnknownNamesSuggestTheNearest) {
  try {
    machine("dgx-h10");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "machine");
    EXPECT_NE(std::string(e.what()).find("did you mean 'dgx-h100'?"), std::string::npos) << e.what();
  }
  try {
    device("h100-80g", "gpu");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "gpu");
    EXPECT_NE(std::string(e.what()).find("did you mean 'h100-80gb'?"), std::string::npos) << e.what();
  }
}

// One machine model: the planner, the fused-operator model, the HLO cost model and the trace generator read the same
// device, so each prices a GEMM with the same peak.
TEST(OneMachineModel, EveryConsumerReadsTheSamePeaks) {
  const Device& h100 = device("h100-80gb");
  const nlohmann::json planner = *llm::system_preset_json("h100-80gb-datasheet");
  EXPECT_DOUBLE_EQ(planner["matrix"]["bfloat16"]["tflops"].get<double>() * 1e12, h100.matrix_bf16);
  EXPECT_DOUBLE_EQ(planner["matrix"]["float8"]["tflops"].get<double>() * 1e12, h100.matrix_fp8);
  EXPECT_DOUBLE_EQ(planner["mem1"]["GBps"].get<double>() * 1e9, h100.hbm_bandwidth);
  EXPECT_DOUBLE_EQ(planner["networks"][0]["bandwidth"].get<double>() * 1e9, machine("dgx-h100").scale_up_bandwidth);
  EXPECT_DOUBLE_EQ(fused::load_gpu("h100-80gb").peak("bf16", "test"), h100.matrix_bf16);
  EXPECT_DOUBLE_EQ(hlo::system_by_name("h100").matrix_flops.at("bf16"), h100.matrix_bf16);
  EXPECT_DOUBLE_EQ(llm::gpu_preset("h100")->peak_tflops * 1e12, h100.matrix_bf16);
  // The TPU v3 core the HLO model costs on is half a chip.
  const hlo::System core = hlo::system_by_name("tpuv3");
  EXPECT_DOUBLE_EQ(core.matrix_flops.at("bf16"), 123e12 / 2);
  EXPECT_DOUBLE_EQ(core.memory_bandwidth, 900e9 / 2);
  EXPECT_DOUBLE_EQ(core.network_bandwidth, 332e9 / 2);
}

TEST(OneMachineModel, MachineNamesAreTheirDevicesPresets) {
  // `--system dgx-h100` is the calibrated h100-80gb preset; `--system gb200-nvl72` has a 72-GPU NVLink tier.
  EXPECT_EQ(*llm::system_preset_json("dgx-h100"), *llm::system_preset_json("h100-80gb"));
  const nlohmann::json nvl72 = *llm::system_preset_json("gb200-nvl72");
  EXPECT_EQ(nvl72["networks"][0]["size"].get<int>(), 72);
  EXPECT_DOUBLE_EQ(nvl72["networks"][0]["bandwidth"].get<double>(), 900);
  EXPECT_FALSE(llm::system_preset_json("tpu-v3-pod").has_value());  // no scale-out tier for the planner
}

TEST(Calibration, ScalesCurvesAndCapsAtOne) {
  const EfficiencyCurve m = matrix_curve();
  EXPECT_DOUBLE_EQ(m.at(200), 0.95);  // Calculon's a100_80g.json: >= 128 GFLOP at 95 %
  EXPECT_DOUBLE_EQ(m.at(20), 0.9);
  EXPECT_DOUBLE_EQ(m.at(0.5), 0.1);
  const EfficiencyCurve doubled = m.scaled(2);
  EXPECT_DOUBLE_EQ(doubled.at(200), 1.0);
  EXPECT_DOUBLE_EQ(doubled.at(0.5), 0.2);
  ASSERT_NE(calibration("h100-80gb"), nullptr);
  EXPECT_EQ(calibration("b200"), nullptr);
}

}  // namespace
}  // namespace chorus::machine
