// GPU presets from published datasheets, and the JSON reader for user GPUs (see gpu.hpp).
#include "chorus/fused/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus::fused {
namespace {

// NVIDIA A100 Tensor Core GPU datasheet (2021), SXM4 80 GB: dense BF16/FP16 tensor 312 TFLOP/s, FP32 19.5
// TFLOP/s, HBM2e 2,039 GB/s; 108 SMs (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020).
GpuSpec a100_80gb() {
  return GpuSpec{"a100-80gb", {{"bf16", 312e12}, {"fp16", 312e12}, {"fp32", 19.5e12}}, Bandwidth::gb_per_s(2039), 108};
}

// NVIDIA H100 Tensor Core GPU datasheet (2023), SXM5 80 GB: dense BF16/FP16 tensor 989 TFLOP/s, FP8 1,979
// TFLOP/s, FP32 67 TFLOP/s, HBM3 3.35 TB/s; 132 SMs (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022).
GpuSpec h100_80gb() {
  return GpuSpec{"h100-80gb",
                 {{"bf16", 989e12}, {"fp16", 989e12}, {"fp8", 1979e12}, {"fp32", 67e12}},
                 Bandwidth::gb_per_s(3350),
                 132};
}

// AMD Instinct MI300X accelerator datasheet (2023): dense BF16/FP16 matrix 1,307.4 TFLOP/s, FP8 2,614.9 TFLOP/s,
// FP32 vector 163.4 TFLOP/s, HBM3 5.3 TB/s, 304 compute units.
GpuSpec mi300x() {
  return GpuSpec{"mi300x",
                 {{"bf16", 1307.4e12}, {"fp16", 1307.4e12}, {"fp8", 2614.9e12}, {"fp32", 163.4e12}},
                 Bandwidth::gb_per_s(5300),
                 304};
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
  }
  gpu.memory_bandwidth = Bandwidth::gb_per_s(positive_number(j, "memory_GBps", path, "memory_GBps"));
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
  return {"a100-80gb", "h100-80gb", "mi300x"};
}

GpuSpec load_gpu(const std::string& name_or_file) {
  if (name_or_file == "a100-80gb")
    return a100_80gb();
  if (name_or_file == "h100-80gb")
    return h100_80gb();
  if (name_or_file == "mi300x")
    return mi300x();
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
