// Reader of the XLA HLO text format (HloModule ... / computations / ENTRY), as XLA's HloPrinter writes it.
//
//   hlo::Module m = hlo::parse_module(text, "dlrm.hlo.txt");  // from memory; the name appears in errors
//   hlo::Module m = hlo::read_module("dlrm.hlo.txt");         // from a file
// Malformed text throws chorus::Error("FILE", "line L, column C", "expected ..."). Unknown opcodes are kept and
// named once each in Module::warnings.
#pragma once

#include <string>
#include <string_view>

#include "chorus/hlo/module.hpp"

namespace chorus::hlo {

Module parse_module(std::string_view text, const std::string& display_name);
Module read_module(const std::string& path);
// One instruction printed out of context, as XLA's op profiles list them: a module whose entry holds parameters
// of the printed operand shapes and then the instruction; called computations become scalar adds.
Module parse_instruction_line(std::string_view line, const std::string& display_name);

// True for opcodes XLA defines (the parser warns about the others).
bool is_known_opcode(std::string_view opcode);

}  // namespace chorus::hlo
