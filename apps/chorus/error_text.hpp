// How the CLI words a library error: an argument's keyword becomes the option that set it ("active_chunks" ->
// "--active-chunks"); fields inside input files stay as they are.
#pragma once

#include <string>

#include "chorus/core/error.hpp"

namespace chorus::cli {

// "network/topology" -> "--network/--topology".
std::string option_of(const std::string& keyword);

// The error's one-line text as the CLI prints it (after "error: ").
std::string error_text(const Error& e);

}  // namespace chorus::cli
