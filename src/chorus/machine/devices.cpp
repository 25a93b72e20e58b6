// The device presets (device.hpp): every number with the document it comes from.
#include "chorus/machine/device.hpp"
#include "chorus/machine/preset_lookup.hpp"

namespace chorus::machine {
namespace {

constexpr double T = 1e12;  // TFLOP/s
constexpr double G = 1e9;   // GB/s

constexpr Citation kA100_40[] = {
    {"matrix_bf16 matrix_fp16 matrix_tf32 matrix_int8 vector_fp32 hbm_gib hbm_bandwidth",
     "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 40GB SXM column: BF16/FP16 tensor 312 TFLOPS (624 with "
     "sparsity), TF32 tensor 156 (312), INT8 tensor 624 TOPS (1,248), FP32 19.5 TFLOPS, 40 GB HBM2 at 1,555 GB/s"},
    {"vector_fp16 compute_units",
     "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): peak FP16 (non-tensor) 78 TFLOPS, 108 SMs"},
};
constexpr Citation kA100_80[] = {
    {"matrix_bf16 matrix_fp16 matrix_tf32 matrix_int8 vector_fp32 hbm_gib hbm_bandwidth",
     "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 80GB SXM column: BF16/FP16 tensor 312 TFLOPS (624 with "
     "sparsity), TF32 tensor 156 (312), INT8 tensor 624 TOPS (1,248), FP32 19.5 TFLOPS, 80 GB HBM2e at 2,039 GB/s"},
    {"vector_fp16 compute_units",
     "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): peak FP16 (non-tensor) 78 TFLOPS, 108 SMs"},
};
constexpr Citation kH100[] = {
    {"matrix_bf16 matrix_fp16 matrix_fp8 matrix_tf32 matrix_int8 vector_fp32 hbm_gib hbm_bandwidth",
     "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column: BF16/FP16 tensor 1,979 TFLOPS with sparsity "
     "(989.5 dense), FP8 3,958 (1,979), TF32 989 (494.5), INT8 3,958 TOPS (1,979), FP32 67 TFLOPS, 80 GB HBM3 at "
     "3.35 TB/s"},
    {"vector_fp16 compute_units",
     "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), H100 SXM5: peak FP16 (non-tensor) 133.8 TFLOPS, "
     "132 SMs"},
};
constexpr Citation kH200[] = {
    {"matrix_bf16 matrix_fp16 matrix_fp8 matrix_tf32 matrix_int8 vector_fp32 hbm_gib hbm_bandwidth",
     "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: the H100 SXM's tensor and FP32 rates (BF16 "
     "1,979 TFLOPS with sparsity, FP8 3,958, TF32 989, INT8 3,958 TOPS, FP32 67), 141 GB HBM3e at 4.8 TB/s"},
    {"vector_fp16 compute_units",
     "the GH100 chip of the H100 SXM5 at the same clocks (H100 architecture whitepaper): 133.8 TFLOPS FP16 "
     "non-tensor, 132 SMs"},
};
constexpr Citation kB200[] = {
    {"matrix_bf16 matrix_fp16 matrix_fp8 matrix_tf32 matrix_int8 vector_fp32 vector_fp16",
     "NVIDIA HGX B200 datasheet (8 GPUs): FP16/BF16 tensor 36 PFLOPS with sparsity (2,250 TFLOPS dense per GPU), "
     "FP8 72 (4,500), TF32 18 (1,125), INT8 72 POPS (4,500), FP32 600 TFLOPS (75 per GPU). No 16-bit vector rate "
     "is published, so vector_fp16 holds the FP32 rate"},
    {"hbm_gib hbm_bandwidth",
     "NVIDIA DGX B200 datasheet: 1,440 GB HBM3e and 64 TB/s for 8 GPUs (180 GB, 8 TB/s per GPU)"},
};
constexpr Citation kGb200[] = {
    {"matrix_bf16 matrix_fp16 matrix_fp8 matrix_tf32 matrix_int8 hbm_gib hbm_bandwidth",
     "NVIDIA GB200 NVL72 datasheet (72 Blackwell GPUs): FP16/BF16 tensor 360 PFLOPS with sparsity (2,500 TFLOPS "
     "dense per GPU), FP8 720 (5,000), TF32 180 (1,250), INT8 720 POPS (5,000), up to 13.4 TB HBM3e (186 GB per "
     "GPU) at 576 TB/s (8 TB/s per GPU)"},
    {"vector_fp32 vector_fp16",
     "no per-GPU FP32 rate in the GB200 NVL72 datasheet: the HGX B200's 75 TFLOPS (HGX B200 datasheet) is used"},
};
constexpr Citation kMi300x[] = {
    {"matrix_bf16 matrix_fp16 matrix_fp8 matrix_tf32 matrix_int8 vector_fp32 hbm_gib hbm_bandwidth compute_units",
     "AMD Instinct MI300X accelerator data sheet (2023): FP16/BF16 matrix 1,307.4 TFLOPS dense, FP8 2,614.9, TF32 "
     "653.7, INT8 2,614.9 TOPS, FP32 vector 163.4 TFLOPS, 192 GB HBM3 at 5.3 TB/s, 304 compute units"},
    {"vector_fp16", "no 16-bit vector rate in the data sheet: the FP32 vector rate (163.4 TFLOPS) is used"},
};
constexpr Citation kMi355x[] = {
    {"matrix_bf16 matrix_fp16 matrix_fp8 vector_fp32 hbm_gib hbm_bandwidth",
     "AMD Instinct MI355X data sheet (2025): FP16/BF16 matrix 2.5 PFLOPS dense (2,516.6 TFLOPS), FP8 5.0 PFLOPS "
     "(5,033.2), FP32 vector 157.3 TFLOPS, 288 GB HBM3E at 8 TB/s"},
    {"compute_units", "ROCm documentation, GPU specifications table: MI355X (gfx950), 256 compute units (32 per XCD)"},
    {"vector_fp16", "no 16-bit vector rate in the data sheet: the FP32 vector rate (157.3 TFLOPS) is used"},
};
constexpr Citation kTpuV3[] = {
    {"matrix_bf16 hbm_bandwidth compute_units",
     "Google Cloud TPU documentation, TPU v3: 123 TFLOPS bf16 per chip, HBM2 at 900 GB/s per chip, two "
     "TensorCores per chip"},
    {"hbm_gib", "Google Cloud TPU documentation, TPU v3: 32 GiB HBM per chip (16 per TensorCore)"},
};
constexpr Citation kTpuV4[] = {
    {"matrix_bf16 matrix_int8 hbm_gib hbm_bandwidth compute_units",
     "Google Cloud TPU documentation, TPU v4: 275 TFLOPS bf16 or int8 per chip, 32 GiB HBM2 at 1,200 GB/s, two "
     "TensorCores per chip acting as one device (megacore)"},
};

// clang-format off
constexpr Device kDevices[] = {
    //  name         label                         bf16        fp16        fp8         tf32        int8
    //  vector_fp16  vector_fp32  HBM GiB  HBM B/s  units  sources
    {"a100-40gb", "NVIDIA A100 SXM4 40GB", 312 * T, 312 * T, 0, 156 * T, 624 * T,
     78 * T, 19.5 * T, 40, 1555 * G, 108, kA100_40},
    {"a100-80gb", "NVIDIA A100 SXM4 80GB", 312 * T, 312 * T, 0, 156 * T, 624 * T,
     78 * T, 19.5 * T, 80, 2039 * G, 108, kA100_80},
    {"h100-80gb", "NVIDIA H100 SXM5 80GB", 989.5 * T, 989.5 * T, 1979 * T, 494.5 * T, 1979 * T,
     133.8 * T, 67 * T, 80, 3350 * G, 132, kH100},
    {"h200", "NVIDIA H200 SXM 141GB", 989.5 * T, 989.5 * T, 1979 * T, 494.5 * T, 1979 * T,
     133.8 * T, 67 * T, 141, 4800 * G, 132, kH200},
    {"b200", "NVIDIA B200 (HGX B200)", 2250 * T, 2250 * T, 4500 * T, 1125 * T, 4500 * T,
     75 * T, 75 * T, 180, 8000 * G, 0, kB200},
    {"gb200", "NVIDIA B200 in GB200 NVL72", 2500 * T, 2500 * T, 5000 * T, 1250 * T, 5000 * T,
     75 * T, 75 * T, 186, 8000 * G, 0, kGb200},
    {"mi300x", "AMD Instinct MI300X", 1307.4 * T, 1307.4 * T, 2614.9 * T, 653.7 * T, 2614.9 * T,
     163.4 * T, 163.4 * T, 192, 5300 * G, 304, kMi300x},
    {"mi355x", "AMD Instinct MI355X", 2516.6 * T, 2516.6 * T, 5033.2 * T, 0, 0,
     157.3 * T, 157.3 * T, 288, 8000 * G, 256, kMi355x},
    {"tpu-v3", "Google Cloud TPU v3 chip", 123 * T, 0, 0, 0, 0,
     0, 0, 32, 900 * G, 2, kTpuV3},
    {"tpu-v4", "Google Cloud TPU v4 chip", 275 * T, 0, 0, 0, 275 * T,
     0, 0, 32, 1200 * G, 2, kTpuV4},
};
// clang-format on

}  // namespace

double Device::matrix_peak(std::string_view datatype) const {
  if (datatype == "bf16")
    return matrix_bf16;
  if (datatype == "fp16")
    return matrix_fp16;
  if (datatype == "fp8")
    return matrix_fp8;
  if (datatype == "tf32")
    return matrix_tf32;
  if (datatype == "int8")
    return matrix_int8;
  return 0;
}

std::span<const Device> devices() {
  return kDevices;
}

const Device* find_device(std::string_view name) {
  return find_by_name(devices(), name);
}

std::vector<std::string> device_names() {
  return names_of(devices());
}

const Device& device(std::string_view name, std::string_view field) {
  if (const Device* d = find_device(name))
    return *d;
  throw_unknown_preset("device", name, device_names(), field);
}

}  // namespace chorus::machine
