// `chorus llm`: the LLM training planner (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_llm_command(CLI::App& app) { app.add_subcommand("llm", "LLM training planner (not yet available)"); }
}  // namespace chorus::cli
