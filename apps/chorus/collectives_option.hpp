// `--collectives simulated|nccl|synth` of `chorus sim` and `chorus hlo`: whether a workload's collectives run through
// the network model (simulated), are timed by NCCL's model of the --machine (nccl/group_timing.hpp), or run schedules
// synthesized for each group on the topology (synth).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "chorus/nccl/group_timing.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

void add_collectives_option(CLI::App& command, std::string& collectives);

// nullopt for "simulated" and "synth"; the machine (a preset or a calibrated machine JSON, whose base preset then
// replaces it in `topology` so the network is built from it) for "nccl". Throws chorus::Error for another value, for
// nccl without
// --machine (`machine_usage` says how to give it), and for nccl with an ASTRA-sim system file (`system_flag` names
// it), which would set the algorithms (and for synth with one).
std::optional<nccl::NcclContext> resolve_collectives(const std::string& collectives, TopologyOptions& topology,
                                                     const std::string& system_flag, bool system_given,
                                                     const std::string& machine_usage =
                                                         "--machine NAME|FILE.json "
                                                         "[--nodes N]");

}  // namespace chorus::cli
