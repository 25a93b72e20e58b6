// The --collectives option (collectives_option.hpp).
#include "collectives_option.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/nccl/calibrated_machine.hpp"

namespace chorus::cli {

void add_collectives_option(CLI::App& command, std::string& collectives) {
  command.add_option("--collectives", collectives,
                     "simulated (default: the network model runs each collective's algorithm) | nccl: each group's "
                     "collective as NCCL (RCCL) runs it on --machine NAME|FILE.json, by the library's cost model, the "
                     "times `chorus collective --algorithm nccl` shows (docs/nccl.md) | synth: each group's collective "
                     "by a schedule synthesized for its members on the topology (chorus synth), simulated under "
                     "--model");
}

std::optional<nccl::NcclContext> resolve_collectives(const std::string& collectives, TopologyOptions& topology,
                                                     const std::string& system_flag, bool system_given,
                                                     const std::string& machine_usage) {
  if (collectives.empty() || collectives == "simulated")
    return std::nullopt;
  if (collectives == "synth") {
    if (system_given)
      throw Error("", system_flag, "does not apply with --collectives synth (the synthesizer chooses the schedules)");
    return std::nullopt;
  }
  if (collectives != "nccl")
    throw Error("", "--collectives", fmt::format("is '{}'; expected simulated, nccl or synth", collectives));
  if (topology.machine.empty())
    throw Error("", "--collectives", "nccl needs " + machine_usage);
  if (system_given)
    throw Error("", system_flag, "does not apply with --collectives nccl (NCCL chooses the algorithms)");
  if (topology.machine.ends_with(".xml"))
    throw Error("", "--machine",
                "a topology dump describes one node's links, not a network; give a preset or a "
                "calibrated machine JSON");
  const nccl::CalibratedMachine m = nccl::resolve_machine(topology.machine, "machine");
  (void)nccl::comm_system(*m.machine, 1, m.scales);  // refuses machines NCCL does not run on
  topology.machine = m.machine->name;
  return nccl::NcclContext{m.machine, m.scales};
}

}  // namespace chorus::cli
