// Built-in presets of the LLM planner, for commands that need no input file (chorus llm validate).
//
// a100_80gb_system() is examples/llm/a100_80g.json (the tests check that the two agree): an A100-80GB
// node of 8 GPUs on NVLink with an InfiniBand tier, in Calculon's system format.
#pragma once

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

System a100_80gb_system();

}  // namespace chorus::llm
