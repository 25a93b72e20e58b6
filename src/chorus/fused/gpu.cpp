// GPU presets from published datasheets, and the JSON reader for user GPUs (see gpu.hpp).
#include "chorus/fused/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"
#include "chorus/llm/system_presets.hpp"

namespace chorus::fused {
namespace {

// What the LLM planner's presets (llm/system_presets.cpp, the one source of their datasheet values: tensor peaks,
// HBM bandwidth) do not carry: the FP32 non-tensor peak and the number of SMs / CUs.
struct FusedOnly {
  const char* name;
  double fp32_tflops;
  uint32_t compute_units;
};
constexpr FusedOnly kFusedOnly[] = {
    // NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 40 and 80 GB: FP32 19.5 TFLOP/s; 108 SMs (NVIDIA A100
    // Tensor Core GPU Architecture whitepaper, 2020).
    {"a100-40gb", 19.5, 108},
    {"a100-80gb", 19.5, 108},
    // NVIDIA H100 Tensor Core GPU datasheet (2023), SXM5: FP32 67 TFLOP/s; 132 SMs (NVIDIA H100 Tensor Core GPU
    // Architecture whitepaper, 2022). NVIDIA H200 datasheet, SXM: the same FP32 67 TFLOP/s on the same GH100 SMs.
    {"h100-80gb", 67, 132},
    {"h200", 67, 132},
    // AMD Instinct MI300X accelerator datasheet (2023): FP32 vector 163.4 TFLOP/s, 304 compute units.
    {"mi300x", 163.4, 304},
};

// A preset: tensor peaks and HBM from the LLM planner's system preset, the rest from kFusedOnly.
GpuSpec from_llm_preset(const FusedOnly& extra) {
  const nlohmann::json j = *llm::system_preset_json(extra.name);
  const nlohmann::json& matrix = j.at("matrix");
  const double half = matrix.at("float16").at("tflops").get<double>() * 1e12;
  GpuSpec gpu{extra.name, {{"bf16", half}, {"fp16", half}, {"fp32", extra.fp32_tflops * 1e12}}, Bandwidth(), 0};
  if (matrix.contains("float8"))
    gpu.peak_flops["fp8"] = matrix.at("float8").at("tflops").get<double>() * 1e12;
  gpu.memory_bandwidth = Bandwidth::gb_per_s(j.at("mem1").at("GBps").get<double>());
  gpu.compute_units = extra.compute_units;
  return gpu;
}

// `field` names the value in errors (a nested key as "peak_tflops.bf16").
double positive_number(const nlohmann::json& j, const std::string& key, const std::string& path,
                       const std::string& field) {
  if (!j.contains(key))
    throw Error(path, field, "is missing");
  if (!j[key].is_number() || j[key].get<double>() <= 0)
    throw Error(path, field, fmt::format("is {}; must be a number > 0", j[key].dump()));
  return j[key].get<double>();
}

GpuSpec gpu_from_json(const std::string& path) {
  const nlohmann::json j = load_json_file(path);
  if (!j.is_object())
    throw Error(path, "", "must be a JSON object");
  GpuSpec gpu;
  gpu.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : path;
  if (!j.contains("peak_tflops") || !j["peak_tflops"].is_object() || j["peak_tflops"].empty())
    throw Error(path, "peak_tflops", "must be an object of datatype -> TFLOP/s, e.g. {\"bf16\": 989}");
  for (const auto& [dtype, value] : j["peak_tflops"].items()) {
    if (dtype != "bf16" && dtype != "fp16" && dtype != "fp32" && dtype != "fp8")
      throw Error(path, "peak_tflops." + dtype, "unknown datatype; expected bf16, fp16, fp32 or fp8");
    gpu.peak_flops[dtype] = positive_number(j["peak_tflops"], dtype, path, "peak_tflops." + dtype) * 1e12;
    if (gpu.peak_flops[dtype] < 1e9 || gpu.peak_flops[dtype] > 1e18)  // 0.001 to 10^6 TFLOP/s
      throw Error(path, "peak_tflops." + dtype,
                  fmt::format("is {}; must be 0.001 to 1000000 TFLOP/s", j["peak_tflops"][dtype].dump()));
  }
  const double memory_gbps = positive_number(j, "memory_GBps", path, "memory_GBps");
  if (memory_gbps < 1e-3 || memory_gbps > 1e9)  // 1 MB/s to 1 EB/s
    throw Error(path, "memory_GBps", fmt::format("is {}; must be 0.001 to 1e9 GB/s", j["memory_GBps"].dump()));
  gpu.memory_bandwidth = Bandwidth::gb_per_s(memory_gbps);
  const double units = positive_number(j, "compute_units", path, "compute_units");
  if (units != static_cast<double>(static_cast<uint32_t>(units)) || units > 1e6)
    throw Error(path, "compute_units", fmt::format("is {}; must be a whole number up to 1000000", units));
  gpu.compute_units = static_cast<uint32_t>(units);
  return gpu;
}

}  // namespace

double GpuSpec::peak(const std::string& dtype, const std::string& source) const {
  const auto it = peak_flops.find(dtype);
  if (it == peak_flops.end()) {
    std::vector<std::string> have;
    for (const auto& [key, value] : peak_flops)
      have.push_back(key);
    throw Error(source, Argument{"dtype"}, fmt::format("GPU '{}' has no {} peak; it has {}", name, dtype, have));
  }
  return it->second;
}

std::vector<std::string> gpu_presets() {
  std::vector<std::string> names;
  for (const FusedOnly& g : kFusedOnly)
    names.emplace_back(g.name);
  return names;
}

GpuSpec load_gpu(const std::string& name_or_file) {
  for (const FusedOnly& g : kFusedOnly) {
    if (name_or_file == g.name)
      return from_llm_preset(g);
  }
  if (name_or_file.find('/') != std::string::npos || name_or_file.ends_with(".json"))
    return gpu_from_json(name_or_file);
  throw Error("", Argument{"system"},
              fmt::format("unknown GPU '{}'; expected {} or a JSON file", name_or_file, gpu_presets()));
}

int64_t dtype_bytes(const std::string& dtype, const Field& field) {
  if (dtype == "bf16" || dtype == "fp16")
    return 2;
  if (dtype == "fp32")
    return 4;
  if (dtype == "fp8")
    return 1;
  throw Error("", field, fmt::format("unknown datatype '{}'; expected bf16, fp16, fp32 or fp8", dtype));
}

}  // namespace chorus::fused
