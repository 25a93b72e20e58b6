// Built-in presets of the LLM planner and of the LLM training-trace generator (chorus llm validate, chorus generate
// llm), for commands that need no input file.
//
// a100_80gb_system() is examples/llm/a100_80g.json (the tests check that the two agree): an A100-80GB
// node of 8 GPUs on NVLink with an InfiniBand tier, in Calculon's system format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

System a100_80gb_system();

// The built-in models: "gpt3-175b" (Brown et al. 2020) and "llama2-70b" (Touvron et al. 2023, GQA, SwiGLU),
// "llama3-405b" and "llama3-70b" (Dubey et al. 2024),
// plus small ones for trials; the same shapes as examples/llm/*.json. nullopt for an unknown name.
std::optional<Application> model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

// GPU presets for the generator's roofline: {dense 16-bit matrix peak in TFLOPS, HBM GB/s} of a device of machine/
// (`chorus machines`), "a100" and "h100" standing for a100-80gb and h100-80gb; nullopt for an unknown name.
struct GpuPreset {
  double peak_tflops = 0;
  double mem_bw_gbps = 0;
};
std::optional<GpuPreset> gpu_preset(const std::string& name);

}  // namespace chorus::llm
