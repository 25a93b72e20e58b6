// Writing Chakra traces as ASTRA-sim reads them: one directory with <stem>.<rank>.et per rank and, where the
// collectives name communicator groups, comm_groups.json. The generators (generate/), `chorus hlo
// convert` and `chorus synth --chakra` all export through here.
//
//   const std::string prefix = make_trace_directory("traces/dlrm", "hlo");   // "traces/dlrm/hlo"
//   write_chakra_trace(rank_file(prefix, 0), trace, false);                   // traces/dlrm/hlo.0.et
//   write_comm_groups("traces/dlrm", {{"g0", {0, 1}}});
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"

namespace chorus {

// Creates `directory` (and its parents) and returns "<directory>/<stem>". An earlier export's files there that the
// loader would mix with the new one go first: <stem>.<rank>.et files, and a symmetric workload's classes.json and
// class.<k>.et. Throws chorus::Error(directory, field, "cannot create the directory: ...").
std::string make_trace_directory(const std::string& directory, const std::string& stem,
                                 const Field& field = Argument{"out"});

// "<prefix>.<rank>.et".
std::string rank_file(const std::string& prefix, uint64_t rank);

// <directory>/comm_groups.json: {"group name": [NPU, ...], ...} in the order given. Throws chorus::Error naming
// the file and Argument{"out"} when it cannot be written.
void write_comm_groups(const std::string& directory, const nlohmann::ordered_json& groups);

}  // namespace chorus
