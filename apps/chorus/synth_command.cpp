// `chorus synth`: topology-aware collective synthesis (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_synth_command(CLI::App& app) {
  app.add_subcommand("synth", "synthesize a collective algorithm for a topology (not yet available)");
}
}  // namespace chorus::cli
