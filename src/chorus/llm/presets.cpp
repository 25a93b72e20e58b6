// The built-in A100-80GB system preset (see presets.hpp).
#include "chorus/llm/presets.hpp"

namespace chorus::llm {

System a100_80gb_system() {
  static constexpr const char* kJson = R"json(
{
  "matrix": {
    "float16": {"tflops": 312, "gflops_efficiency": [[128, 0.95], [16, 0.9], [1, 0.6], [0, 0.1]]}
  },
  "vector": {
    "float16": {"tflops": 78, "gflops_efficiency": [[16, 0.95], [1, 0.5], [0, 0.1]]}
  },
  "mem1": {"GiB": 80, "GBps": 2048, "MB_efficiency": [[100, 0.9], [10, 0.75], [1, 0.6], [0, 0.3]]},
  "mem2": {"GiB": 512, "GBps": 32, "MB_efficiency": [[100, 0.95], [10, 0.9], [1, 0.7], [0, 0.3]]},
  "processing_mode": "no_overlap",
  "networks": [
    {
      "bandwidth": 300, "efficiency": 0.65, "size": 8, "latency": 1e-05,
      "ops": {"p2p": [1.0, null], "reduce_scatter": [1.5, -1], "all_gather": [1.5, -1], "all_reduce": [2.0, -1]},
      "must_be_filled": true, "processor_usage": 0.15
    },
    {
      "bandwidth": 25, "efficiency": 0.9, "size": 65536, "latency": 2e-05,
      "ops": {"p2p": [1.0, null], "reduce_scatter": [1.0, 0], "all_gather": [1.0, 0], "all_reduce": [1.0, 0]},
      "must_be_filled": false, "processor_usage": 0.02
    }
  ]
}
)json";
  return parse_system(nlohmann::json::parse(kJson), "built-in a100_80g preset");
}

}  // namespace chorus::llm
