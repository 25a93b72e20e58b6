// The model parameters of calibration.hpp: Calculon's curves and the fits to validation/llm/.
#include "chorus/machine/calibration.hpp"

namespace chorus::machine {
namespace {

// clang-format off
constexpr Calibration kCalibrations[] = {
    {"a100-80gb", 0.9740506, 0.9853514, 0.9192502, 0.9034674, 1.0036217,
     "fitted on validation/llm/korthikanti2022_table5_runs.csv (Korthikanti et al. 2022, Table 5, the 8 A100-80GB "
     "runs) by `chorus llm calibrate --measured validation/llm/korthikanti2022_table5_runs.csv --system "
     "a100-80gb-datasheet --json`: mean |error| 4.52 % before, 1.37 % fitted, 1.83 % leave-one-out"},
    {"h100-80gb", 0.6045764, 0.6792106, 1.1111111, 1.5384615, 1.0395784,
     "fitted on validation/llm/nemo2407_h100_runs.csv (NVIDIA NeMo 24.07 performance summary, the 9 dense GPT-3 / "
     "Llama 2 / Llama 3 FP8 pre-training rows on DGX-H100) by `chorus llm calibrate --measured "
     "validation/llm/nemo2407_h100_runs.csv --system h100-80gb-datasheet --json`, with the runs' fused attention: "
     "mean |error| 24.88 % before, 6.60 % fitted, 7.57 % leave-one-out. Matrix 0.605: about 1,137 of the 1,979 "
     "dense FP8 TFLOP/s for large GEMMs; NVLink and HBM end at the cap (efficiency 1), the NIC at 0.936"},
};
// clang-format on

}  // namespace

EfficiencyCurve matrix_curve() {
  return EfficiencyCurve({{128, 0.95}, {16, 0.9}, {1, 0.6}, {0, 0.1}});
}
EfficiencyCurve vector_curve() {
  return EfficiencyCurve({{16, 0.95}, {1, 0.5}, {0, 0.1}});
}
EfficiencyCurve hbm_curve() {
  return EfficiencyCurve({{100, 0.9}, {10, 0.75}, {1, 0.6}, {0, 0.3}});
}
EfficiencyCurve host_curve() {
  return EfficiencyCurve({{100, 0.95}, {10, 0.9}, {1, 0.7}, {0, 0.3}});
}

std::span<const Calibration> calibrations() {
  return kCalibrations;
}

const Calibration* calibration(std::string_view device) {
  for (const Calibration& c : kCalibrations) {
    if (device == c.device)
      return &c;
  }
  return nullptr;
}

}  // namespace chorus::machine
