// Reads an MSCCL XML file (msccl-tools' output, chorus synth's output) into an MscclProgram, checking its
// structure: attributes present and numeric, GPU / thread-block ids unique and dense, steps numbered 0, 1, ...
// in order, step types known, buffers and offsets inside the GPU's chunk counts, dependencies naming an
// existing step, peers and channels in range. Every error is a chorus::Error naming the file and the element,
// e.g. Error("ar.xml", "gpu 2 tb 1 step 5: depid", "is 7; gpu 2 has 4 thread blocks").
//
// Send/receive matching, dependency cycles (msccl/dag.hpp) and what the algorithm computes (msccl/check.hpp)
// are checked later.
#pragma once

#include <string>
#include <string_view>

#include "chorus/msccl/program.hpp"

namespace chorus {

// `text` is the file's contents; `file` names it in errors.
MscclProgram parse_msccl_xml(std::string_view text, const std::string& file);

// Reads and parses a file (errors as read_text_file and parse_msccl_xml).
MscclProgram read_msccl_xml(const std::string& path);

}  // namespace chorus
