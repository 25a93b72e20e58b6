// `chorus generate`: generate workload traces (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_generate_command(CLI::App& app) { app.add_subcommand("generate", "generate workload traces (not yet available)"); }
}  // namespace chorus::cli
