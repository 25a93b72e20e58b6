// `chorus sim`: simulate Chakra execution traces end to end (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_sim_command(CLI::App& app) { app.add_subcommand("sim", "simulate Chakra execution traces end to end (not yet available)"); }
}  // namespace chorus::cli
