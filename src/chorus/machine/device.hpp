// One accelerator as its vendor documents it: dense peak FLOP/s of the matrix units per datatype, the vector units'
// peaks, HBM capacity and bandwidth, and the compute-unit count, each value with the document it comes from. The LLM
// planner, the trace generators, the fused-operator model and the HLO cost model all read these presets, so a layer
// costs the same compute time wherever it is priced.
//
//   const Device& h100 = machine::device("h100-80gb");   // throws naming the nearest preset when unknown
//   double t = flops / h100.matrix_bf16;
//
// Units: FLOP/s, bytes per second (GB = 1e9), GiB = 2^30 bytes. "Dense" means without 2:4 structured sparsity:
// NVIDIA's datasheets print the sparse rate as the headline and footnote it, so dense is half of it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace chorus::machine {

// A document and the fields it gives (space-separated field names of the preset, as `chorus machines --show`
// prints them). A value no document gives is a model parameter, and its citation says so.
struct Citation {
  const char* fields;
  const char* text;
};

struct Device {
  const char* name;   // preset name, e.g. "h100-80gb"
  const char* label;  // what the vendor calls it, e.g. "NVIDIA H100 SXM5 80GB"
  // Dense matrix (tensor core / matrix core / MXU) peaks, FLOP/s; 0 where the device has no such mode.
  double matrix_bf16 = 0;
  double matrix_fp16 = 0;
  double matrix_fp8 = 0;
  double matrix_tf32 = 0;  // NVIDIA's TF32 (AMD's XF32 / TF32 matrix mode): FP32 GEMMs on the matrix units
  double matrix_int8 = 0;
  // Vector (non-tensor) peaks, FLOP/s: norms, softmax, activations, the optimizer step. vector_fp16 is what the LLM
  // planner charges 16-bit elementwise work; where no 16-bit vector rate is published it holds the FP32 rate.
  double vector_fp16 = 0;
  double vector_fp32 = 0;
  // HBM. Vendors print GiB as "GB" for HBM (an "80 GB" H100 reports 81,559 MiB = 79.6 GiB in nvidia-smi), so the
  // datasheet number is read as GiB, as Calculon's system files do.
  double hbm_gib = 0;
  double hbm_bandwidth = 0;    // B/s
  uint32_t compute_units = 0;  // SMs (NVIDIA), CUs (AMD), TensorCores (TPU); 0 where no document gives it
  std::span<const Citation> sources;

  // Dense matrix peak of a datatype name ("bf16", "fp16", "fp8", "tf32", "int8"); 0 when the device has none or
  // the name is unknown.
  double matrix_peak(std::string_view datatype) const;
};

// Every device preset, in the order `chorus machines` lists them.
std::span<const Device> devices();
// The preset called `name`, or nullptr.
const Device* find_device(std::string_view name);
// The preset called `name`; otherwise an Error on `field` naming the nearest preset and listing them all.
const Device& device(std::string_view name, std::string_view field = "device");
std::vector<std::string> device_names();

}  // namespace chorus::machine
