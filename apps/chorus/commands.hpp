// The chorus subcommands. Each lives in its own file and registers itself on the top-level CLI11 app;
// its callback runs the job and throws chorus::Error on bad input (main() turns that into exit status 2).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace chorus::cli {

// "chorus <version>": what --version prints (cli_docs.cpp).
std::string version_line();

void register_collective_command(CLI::App& app);
void register_bound_command(CLI::App& app);
void register_llm_command(CLI::App& app);
void register_netopt_command(CLI::App& app);
void register_codesign_command(CLI::App& app);
void register_sim_command(CLI::App& app);
void register_generate_command(CLI::App& app);
void register_convert_command(CLI::App& app);
void register_synth_command(CLI::App& app);
void register_hlo_command(CLI::App& app);
void register_sweep_command(CLI::App& app);
void register_fused_command(CLI::App& app);
void register_fuse_command(CLI::App& app);
void register_import_command(CLI::App& app);  // chorus import pytorch
void register_machines_command(CLI::App& app);
void register_validate_command(CLI::App& app);
void register_calibrate_command(CLI::App& app);
void register_cli_docs(CLI::App& app);  // --version and the hidden --generate (cli_docs.cpp)

}  // namespace chorus::cli
