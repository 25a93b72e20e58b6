// GPU presets (the devices of machine/ that fused operators can run on) and the JSON reader for user GPUs (gpu.hpp).
#include "chorus/fused/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"
#include "chorus/machine/device.hpp"

namespace chorus::fused {
namespace {

// The devices a fused operator can be priced on: those with a 16-bit matrix peak and a published compute-unit count.
bool fused_device(const machine::Device& d) {
  return d.matrix_fp16 > 0 && d.compute_units > 0;
}

// A preset: the device's tensor peaks, FP32 vector peak, HBM bandwidth and compute units (machine/devices.cpp).
GpuSpec from_device(const machine::Device& d) {
  GpuSpec gpu{d.name, {{"bf16", d.matrix_bf16}, {"fp16", d.matrix_fp16}, {"fp32", d.vector_fp32}}, Bandwidth(), 0};
  if (d.matrix_fp8 > 0)
    gpu.peak_flops["fp8"] = d.matrix_fp8;
  gpu.memory_bandwidth = Bandwidth::gb_per_s(d.hbm_bandwidth / 1e9);
  gpu.compute_units = d.compute_units;
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
  for (const machine::Device& d : machine::devices()) {
    if (fused_device(d))
      names.emplace_back(d.name);
  }
  return names;
}

GpuSpec load_gpu(const std::string& name_or_file) {
  if (const machine::Device* d = machine::find_device(name_or_file); d != nullptr && fused_device(*d))
    return from_device(*d);
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
