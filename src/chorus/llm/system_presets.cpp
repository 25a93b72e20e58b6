// GPU system presets from vendor datasheets (see system_presets.hpp). Every datasheet number carries its source;
// numbers that are model parameters say so.
#include "chorus/llm/system_presets.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus::llm {
namespace {

// One GPU and the node it ships in. Rates per direction; "dense" means without 2:4 structured sparsity
// (datasheets print sparse numbers as the headline; dense is half of it).
struct GpuSpec {
  const char* name;
  double fp16_matrix_tflops;  // dense FP16/BF16 tensor (matrix) peak
  double fp8_matrix_tflops;   // dense FP8 peak; 0 = no FP8
  double vector_tflops;       // non-tensor peak used for LN, softmax, GeLU, optimizer
  double hbm_gib;             // the datasheet's GB, read as GiB as Calculon's files do (80 GB -> "GiB": 80)
  double hbm_gbps;
  double scale_up_gbps;  // NVLink / Infinity Fabric bandwidth per GPU, one direction
  double nic_gbps;       // one NIC rail per GPU, one direction (Gb/s / 8)
  double host_gib;       // host memory per GPU (the offload tier)
  double host_gbps;      // host link per GPU, one direction
};

// clang-format off
constexpr GpuSpec kGpus[] = {
    // NVIDIA A100 Tensor Core GPU datasheet (2021), SXM column: FP16/BF16 tensor 312 TFLOPS (624 sparse),
    // 40 GB HBM2 at 1,555 GB/s, NVLink 600 GB/s (both directions), PCIe Gen4 64 GB/s (both directions).
    // Vector: NVIDIA A100 architecture whitepaper, peak FP16 non-tensor 78 TFLOPS. NIC: DGX A100 datasheet,
    // 8 x single-port ConnectX-6 200 Gb/s HDR for compute. Host: DGX A100 320GB has 1 TB system memory / 8 GPUs.
    {"a100-40gb", 312, 0, 78, 40, 1555, 300, 25, 128, 32},
    // Same datasheet, A100 80GB SXM: 80 GB HBM2e at 2,039 GB/s. Host: DGX A100 640GB has 2 TB / 8 GPUs.
    {"a100-80gb", 312, 0, 78, 80, 2039, 300, 25, 256, 32},
    // NVIDIA H100 Tensor Core GPU datasheet, SXM column: BF16/FP16 tensor 1,979 TFLOPS sparse (989.5 dense),
    // FP8 3,958 sparse (1,979 dense), 80 GB HBM3 at 3.35 TB/s, NVLink 900 GB/s, PCIe Gen5 128 GB/s.
    // Vector: NVIDIA H100 (Hopper) architecture whitepaper, SXM5 peak FP16 non-tensor 133.8 TFLOPS.
    // NIC and host: DGX H100 datasheet, 8 x single-port ConnectX-7 400 Gb/s (50 GB/s), 2 TB system memory.
    {"h100-80gb", 989.5, 1979, 133.8, 80, 3350, 450, 50, 256, 64},
    // NVIDIA H200 Tensor Core GPU datasheet, SXM column: the H100's compute (1,979 / 3,958 TFLOPS sparse),
    // 141 GB HBM3e at 4.8 TB/s, NVLink 900 GB/s, PCIe Gen5 128 GB/s. NIC and host: DGX H200 datasheet,
    // 8 x ConnectX-7 400 Gb/s, 2 TB system memory. Vector: same SMs and clocks as H100 SXM (133.8).
    {"h200", 989.5, 1979, 133.8, 141, 4800, 450, 50, 256, 64},
    // NVIDIA DGX B200 datasheet (8 GPUs): 1,440 GB HBM3e (180 GB per GPU), 64 TB/s HBM3e (8 TB/s per GPU),
    // FP8 training 72 PFLOPS sparse (9 per GPU, 4.5 dense), NVLink 5 14.4 TB/s all-to-all (1.8 TB/s per GPU,
    // 900 GB/s per direction), 8 x single-port ConnectX-7 400 Gb/s for compute, 2 TB system memory.
    // HGX B200 datasheet: FP16/BF16 tensor 36 PFLOPS sparse per 8 GPUs (2.25 dense per GPU), FP32 600 TFLOPS
    // per 8 GPUs (75 per GPU: no separate FP16 vector rate is published, so the FP32 rate is used).
    // Host link: PCIe Gen5 x16 (64 GB/s per direction), as in the DGX B200.
    {"b200", 2250, 4500, 75, 180, 8000, 900, 50, 256, 64},
    // AMD Instinct MI300X data sheet: FP16/BF16 matrix 1,307.4 TFLOPS dense, FP8 2,614.9 dense, FP32 vector
    // 163.4 TFLOPS, 192 GB HBM3 at 5.3 TB/s, Infinity Fabric 7 links x 128 GB/s (896 GB/s both directions; a
    // GPU reaches its 7 peers at 448 GB/s per direction), PCIe Gen5 x16 128 GB/s. NIC and host: Microsoft Azure
    // ND MI300X v5 (8 GPUs per VM): 400 Gb/s InfiniBand per GPU, 1,850 GiB memory (about 231 GiB per GPU).
    {"mi300x", 1307.4, 2614.9, 163.4, 192, 5300, 448, 50, 231, 64},
};
// clang-format on

// Model parameters, not datasheet values (Calculon's a100_80g.json curves; `chorus llm calibrate` fits them).
const nlohmann::json kMatrixCurve = {{128, 0.95}, {16, 0.9}, {1, 0.6}, {0, 0.1}};
const nlohmann::json kVectorCurve = {{16, 0.95}, {1, 0.5}, {0, 0.1}};
const nlohmann::json kHbmCurve = {{100, 0.9}, {10, 0.75}, {1, 0.6}, {0, 0.3}};
const nlohmann::json kHostCurve = {{100, 0.95}, {10, 0.9}, {1, 0.7}, {0, 0.3}};

// Efficiency multipliers fitted by `chorus llm calibrate` to measured runs in validation/llm/ (model parameters, not
// datasheet values): each scales the Calculon curve of its op class (capped at 1, as apply_calibration does).
// The presets without it are kept as NAME-datasheet, what the fit starts from.
struct Calibration {
  const char* gpu;
  double matrix, vector, memory, scale_up, nic;
};

// clang-format off
constexpr Calibration kCalibrations[] = {
    // a100-80gb: fitted on validation/llm/korthikanti2022_table5_runs.csv (Korthikanti et al. 2022, Table 5, the
    // 8 A100-80GB runs) by
    //   build/chorus llm calibrate --measured validation/llm/korthikanti2022_table5_runs.csv
    //       --system a100-80gb-datasheet --json   (one command line)
    // mean |error| 4.52 % before, 1.37 % fitted, 1.83 % leave-one-out (docs/llm.md, "Calibration").
    {"a100-80gb", 0.9740506, 0.9853514, 0.9192502, 0.9034674, 1.0036217},
    // h100-80gb: fitted on validation/llm/nemo2407_h100_runs.csv (NVIDIA NeMo 24.07 performance summary, the 9
    // dense GPT-3 / Llama 2 / Llama 3 FP8 pre-training rows on DGX-H100) by
    //   build/chorus llm calibrate --measured validation/llm/nemo2407_h100_runs.csv
    //       --system h100-80gb-datasheet --json   (one command line)
    // with the runs' fused attention (fused_attention true, no recompute): mean |error| 19.99 % before, 7.92 %
    // fitted, 9.80 % leave-one-out (docs/llm.md, "Calibration"). Matrix 0.638: about 1,200 of the 1,979 dense FP8
    // TFLOP/s for large GEMMs. Both network multipliers end at the cap (efficiency 1): the planner exposes more DP
    // communication than Megatron's overlapped distributed optimizer does.
    {"h100-80gb", 0.6377027, 0.6250436, 1.2709607, 1.5384615, 1.1111111},
};
// clang-format on

constexpr const char* kDatasheetSuffix = "-datasheet";

nlohmann::json scaled_curve(const nlohmann::json& curve, double k) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& step : curve)
    out.push_back({step[0], std::min(1.0, step[1].get<double>() * k)});
  return out;
}

// Ring collectives move (n-1)/n of the data per rank for reduce-scatter and all-gather, twice that for all-reduce.
nlohmann::json ring_ops() {
  return {{"p2p", {1.0, nullptr}}, {"reduce_scatter", {1.0, -1}}, {"all_gather", {1.0, -1}}, {"all_reduce", {2.0, -1}}};
}

nlohmann::json preset_json(const GpuSpec& g, const Calibration& c) {
  nlohmann::json j;
  auto unit = [](double tflops, const nlohmann::json& curve) {
    return nlohmann::json{{"tflops", tflops}, {"gflops_efficiency", curve}};
  };
  const nlohmann::json matrix = scaled_curve(kMatrixCurve, c.matrix);
  const nlohmann::json vector = scaled_curve(kVectorCurve, c.vector);
  for (const char* type : {"float16", "bfloat16"}) {
    j["matrix"][type] = unit(g.fp16_matrix_tflops, matrix);
    j["vector"][type] = unit(g.vector_tflops, vector);
  }
  if (g.fp8_matrix_tflops > 0) {
    j["matrix"]["float8"] = unit(g.fp8_matrix_tflops, matrix);
    j["vector"]["float8"] = unit(g.vector_tflops, vector);
  }
  j["mem1"] = {{"GiB", g.hbm_gib}, {"GBps", g.hbm_gbps}, {"MB_efficiency", scaled_curve(kHbmCurve, c.memory)}};
  j["mem2"] = {{"GiB", g.host_gib}, {"GBps", g.host_gbps}, {"MB_efficiency", kHostCurve}};
  j["processing_mode"] = "no_overlap";
  // Tier 0: the 8-GPU NVLink/NVSwitch (or Infinity Fabric) domain of one HGX/OAM board. Tier 1: one NIC rail
  // per GPU across nodes. Efficiency, latency and processor usage: Calculon's a100_80g.json values.
  j["networks"] = nlohmann::json::array({{{"bandwidth", g.scale_up_gbps},
                                          {"efficiency", std::min(1.0, 0.65 * c.scale_up)},
                                          {"size", 8},
                                          {"latency", 1e-5},
                                          {"ops", ring_ops()},
                                          {"must_be_filled", true},
                                          {"processor_usage", 0.15}},
                                         {{"bandwidth", g.nic_gbps},
                                          {"efficiency", std::min(1.0, 0.9 * c.nic)},
                                          {"size", 65536},
                                          {"latency", 2e-5},
                                          {"ops", ring_ops()},
                                          {"must_be_filled", false},
                                          {"processor_usage", 0.02}}});
  return j;
}

const Calibration* calibration_of(const GpuSpec& g) {
  for (const auto& c : kCalibrations) {
    if (std::string_view(c.gpu) == g.name)
      return &c;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& system_preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& g : kGpus) {
      out.emplace_back(g.name);
      if (calibration_of(g))
        out.push_back(std::string(g.name) + kDatasheetSuffix);
    }
    return out;
  }();
  return names;
}

std::optional<nlohmann::json> system_preset_json(const std::string& name) {
  constexpr Calibration kNone{"", 1, 1, 1, 1, 1};
  for (const auto& g : kGpus) {
    const Calibration* c = calibration_of(g);
    if (name == g.name)
      return preset_json(g, c ? *c : kNone);
    if (c && name == std::string(g.name) + kDatasheetSuffix)
      return preset_json(g, kNone);
  }
  return std::nullopt;
}

System resolve_system(const std::string& name_or_path) {
  if (auto j = system_preset_json(name_or_path))
    return parse_system(*j, "preset " + name_or_path);
  std::error_code ec;
  if (!std::filesystem::exists(name_or_path, ec)) {
    std::string names;
    for (const auto& n : system_preset_names())
      names += names.empty() ? n : ", " + n;
    throw Error("", Argument{"system"},
                fmt::format("is '{}': neither a system JSON file nor a preset ({})", name_or_path, names));
  }
  return read_system(name_or_path);
}

}  // namespace chorus::llm
