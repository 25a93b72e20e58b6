// Command-line parsing with help for the first hour: a missing or mistyped subcommand lists the subcommands,
// and a mistyped subcommand or option gets a "did you mean" from the known names.
#pragma once

#include <CLI/CLI.hpp>

namespace chorus::cli {

// Parses argv (running the chosen subcommand's callback, as CLI::App::parse does). A missing subcommand, an
// unknown subcommand or an unknown option is reported here: one line "error: ..." on stderr, then, for
// subcommands, the list of subcommands on stderr; returns 2. Every other error propagates to main().
int parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace chorus::cli
