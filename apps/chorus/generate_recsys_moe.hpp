// `chorus generate dlrm` and `chorus generate moe` (generate_recsys_moe.cpp), registered by generate_command.cpp.
#pragma once

#include <CLI/CLI.hpp>

namespace chorus::cli {

void register_generate_dlrm(CLI::App& generate);
void register_generate_moe(CLI::App& generate);

}  // namespace chorus::cli
