// `chorus collective` (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_collective_command(CLI::App& app) { app.add_subcommand("collective", "simulate one collective"); }
}  // namespace chorus::cli
