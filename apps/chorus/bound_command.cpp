// `chorus bound`: lower bounds on a collective's time for a topology (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_bound_command(CLI::App& app) { app.add_subcommand("bound", "lower bounds for a collective on a topology"); }
}  // namespace chorus::cli
