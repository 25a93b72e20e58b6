// `chorus convert`: convert traces between formats (placeholder until implemented).
#include "commands.hpp"

namespace chorus::cli {
void register_convert_command(CLI::App& app) { app.add_subcommand("convert", "convert traces between formats (not yet available)"); }
}  // namespace chorus::cli
