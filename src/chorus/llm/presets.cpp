// The built-in presets of the LLM planner and trace generator (see presets.hpp).
#include "chorus/llm/presets.hpp"

#include "chorus/io/json_file.hpp"
#include "chorus/machine/device.hpp"

namespace chorus::llm {

namespace {

Application make_model(int64_t hidden, int64_t feedforward, int64_t seq, int64_t heads, int64_t kv_heads,
                       int64_t blocks, int64_t vocab, MlpKind mlp) {
  Application a;
  a.hidden = hidden;
  a.feedforward = feedforward;
  a.seq_size = seq;
  a.attn_heads = heads;
  a.attn_size = hidden / heads;
  a.num_blocks = blocks;
  a.kv_heads = kv_heads;
  a.vocab = vocab;
  a.mlp = mlp;
  return a;
}

struct ModelPreset {
  const char* name;
  Application model;
};

// The same shapes as examples/llm/*.json (Calculon's files); GPT's vocabulary is Megatron's padded 51200.
std::vector<ModelPreset> model_presets() {
  return {
      {"gpt3-175b", make_model(12288, 49152, 2048, 96, 96, 96, 51200, MlpKind::kGelu)},
      {"gpt3-13b", make_model(5120, 20480, 2048, 40, 40, 40, 51200, MlpKind::kGelu)},
      {"gpt3-1.3b", make_model(2048, 8192, 2048, 16, 16, 24, 51200, MlpKind::kGelu)},
      {"llama2-70b", make_model(8192, 28672, 4096, 64, 8, 80, 32000, MlpKind::kSwiglu)},
      {"llama2-7b", make_model(4096, 11008, 4096, 32, 32, 32, 32000, MlpKind::kSwiglu)},
      // Dubey et al. 2024, "The Llama 3 Herd of Models" (arXiv:2407.21783), Table 3: 126 layers, model dimension
      // 16384, FFN 53248, 128 heads, 8 key/value heads, vocabulary 128256 (config.json), sequence 8192 (3.4).
      {"llama3-405b", make_model(16384, 53248, 8192, 128, 8, 126, 128256, MlpKind::kSwiglu)},
      // The same paper, Table 3: 80 layers, model dimension 8192, FFN 28672, 64 heads, 8 key/value heads
      // (examples/llm/llama3-70b.json).
      {"llama3-70b", make_model(8192, 28672, 8192, 64, 8, 80, 128256, MlpKind::kSwiglu)},
  };
}

}  // namespace

std::optional<Application> model_preset(const std::string& name) {
  for (const ModelPreset& p : model_presets()) {
    if (name == p.name)
      return p.model;
  }
  return std::nullopt;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const ModelPreset& p : model_presets())
    names.emplace_back(p.name);
  return names;
}

std::optional<GpuPreset> gpu_preset(const std::string& name) {
  // "a100" and "h100", the generator's first presets, are the 80 GB SXM parts; every device of machine/ is a preset
  // under its own name. Dense 16-bit matrix peak and HBM bandwidth (machine/devices.cpp cites them).
  const std::string device = name == "a100" ? "a100-80gb" : name == "h100" ? "h100-80gb" : name;
  const machine::Device* d = machine::find_device(device);
  if (d == nullptr || d->matrix_bf16 <= 0)
    return std::nullopt;
  return GpuPreset{d->matrix_bf16 / 1e12, d->hbm_bandwidth / 1e9};
}

// Calculon's own a100_80g.json, byte for byte (its HBM at 2,048 GB/s, 512 GiB host memory, its collective scales):
// the system Calculon's published results were computed on, kept for reproducing them (llm validate), not a machine
// preset.
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
  return parse_system(parse_json_text(kJson, "built-in a100_80g preset"), "built-in a100_80g preset");
}

}  // namespace chorus::llm
