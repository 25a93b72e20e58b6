// `chorus llm run --engine sim` (see llm_sim_engine.hpp).
#include "llm_sim_engine.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/report.hpp"
#include "chorus/llm_engine/planned_spec.hpp"
#include "chorus/llm_engine/planner_network.hpp"
#include "chorus/llm_engine/sim_engine.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/runtime/runtime.hpp"
#include "collectives_option.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

Topology engine_topology(const LlmSimEngineOptions& o, const llm::System& sys, const llm::Execution& exe) {
  if (o.network.empty())
    return planner_topology(sys, exe.num_procs, o.system_name);
  TopologyOptions options;
  options.network = o.network;
  Topology t = make_topology(options);
  if (static_cast<int64_t>(t.npu_count()) != exe.num_procs) {
    throw Error(
        o.network, "npus_count",
        fmt::format("gives {} NPUs; the execution ({}) has num_procs {}", t.npu_count(), o.exec_file, exe.num_procs));
  }
  return t;
}

// --collectives nccl --machine M: every collective as NCCL runs it on the job's GPUs placed on M's nodes.
std::optional<nccl::NcclContext> engine_nccl(const LlmSimEngineOptions& o, const llm::Execution& exe) {
  if ((o.collectives.empty() || o.collectives == "simulated") && !o.machine.empty())
    throw Error("", "--machine", "applies only with --collectives nccl");
  TopologyOptions machine;
  machine.machine = o.machine;
  const std::optional<nccl::NcclContext> context =
      resolve_collectives(o.collectives, machine, "--system", false, "--machine NAME|FILE.json");
  if (!context)
    return std::nullopt;
  const int64_t per_node = context->machine->gpus_per_node;
  if (exe.num_procs % per_node != 0) {
    throw Error(o.exec_file, "num_procs",
                fmt::format("{} GPUs are not whole nodes of {} ({} GPUs each)", exe.num_procs, context->machine->name,
                            per_node));
  }
  // Refuses node counts past the machine's.
  (void)nccl::comm_system(*context->machine, static_cast<uint32_t>(exe.num_procs / per_node), context->scales);
  return context;
}

}  // namespace

void run_llm_sim_engine(const LlmSimEngineOptions& o, const llm::Application& app, const llm::System& sys,
                        const llm::Execution& exe, const llm::Stats& stats) {
  if (stats.outcome != llm::Outcome::kOk)
    throw Error(o.exec_file, "(execution)", llm::describe_outcome(stats, sys));
  if (o.network_model == "packet")
    throw Error("", "--network-model", "is packet; the simulator engine runs flow, aware or unaware");
  const NetworkModelKind model = network_model_argument(o.network_model, "network-model");
  if (model == NetworkModelKind::Packet)
    throw Error("", "--network-model", "is packet; the simulator engine runs flow, aware or unaware");
  const std::optional<nccl::NcclContext> nccl = engine_nccl(o, exe);
  const Topology topology = engine_topology(o, sys, exe);
  const LlmTrainingSpec spec =
      planned_training_spec(app, sys, exe, stats, o.exec_file, std::filesystem::path(o.model_file).stem().string());
  SimEngineResult result;
  try {
    result = run_sim_engine(stats, spec, topology, SimEngineOptions{model, o.traces, nccl, o.collectives == "synth"});
  } catch (const DeadlockError& e) {
    std::cerr << "error: " << e.what() << "\n";
    std::cerr.flush();
    std::exit(3);  // as chorus sim: a deadlock is its own outcome for scripts
  }
  if (o.json) {
    nlohmann::json planner = llm::stats_to_json(stats, sys);
    planner["execution"] = llm::execution_to_json(exe, sys);
    fmt::print("{}\n", sim_engine_json(std::move(planner), stats, app, exe, result).dump(2));
    return;
  }
  fmt::print("planner {:.4f} s, simulator {:.4f} s per iteration ({:+.1f}%)\n", stats.total_time, result.finish_s,
             100 * (result.finish_s / stats.total_time - 1));
  fmt::print("{}", sim_engine_table(result));
}

}  // namespace chorus::cli
