// `chorus netopt`: the network bandwidth optimizer (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_netopt_command(CLI::App& app) { app.add_subcommand("netopt", "network optimizer (not yet available)"); }
}  // namespace chorus::cli
