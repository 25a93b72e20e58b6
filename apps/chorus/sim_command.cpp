// `chorus sim`: simulate Chakra execution traces end to end and report where the time goes.
//
//   chorus sim --workload traces/llama --system sys.json --network net.yml [--memory mem.json]
//              [--comm-groups groups.json] [--model unaware|aware|flow] --out results/
// ASTRA-sim's option names (--workload-configuration, --system-configuration, --network-configuration,
// --remote-memory-configuration, --comm-group-configuration) are aliases, and its other options are accepted
// and ignored, so existing scripts run unchanged. Exit status 3 on a detected deadlock.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/core/error.hpp"
#include "chorus/runtime/reports.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/workload/workload.hpp"
#include "commands.hpp"
#include "terminal_progress.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

struct SimOptions {
  std::string workload;
  std::string system;
  TopologyOptions topology;
  std::string memory;
  std::string comm_groups;
  std::string model = "unaware";
  std::string out;
  bool no_resource_limits = false;
  bool contention = false;
  bool no_timeline = false;
  bool no_bounds = false;
  bool json = false;
  std::string ignored;  // ASTRA-sim options that do not change the result
};

void add_options(CLI::App& cmd, SimOptions& o) {
  cmd.add_option("--workload,--workload-configuration", o.workload,
                 "trace prefix (reads PREFIX.<rank>.et) or a directory holding one set of rank files")
      ->required();
  cmd.add_option("--system,--system-configuration", o.system,
                 "ASTRA-sim system JSON (algorithms, chunking, roofline): ASTRA-sim compatible timing");
  cmd.add_option("--network,--network-configuration", o.topology.network, "ASTRA-sim network YAML");
  cmd.add_option("--topology", o.topology.topology, "generator spec or edge-list file instead of --network");
  cmd.add_option("--bandwidth", o.topology.bandwidth, "link bandwidth with --topology, e.g. 50GB/s");
  cmd.add_option("--latency", o.topology.latency, "link latency with --topology, e.g. 500ns");
  cmd.add_option("--memory,--remote-memory-configuration", o.memory, "ASTRA-sim remote-memory JSON (MEM nodes)");
  cmd.add_option("--comm-groups,--comm-group-configuration", o.comm_groups,
                 "communicator groups JSON {\"<pg_name>\": [npu, ...]}");
  cmd.add_option("--model", o.model, "network model: unaware (default) | aware | flow");
  cmd.add_option("--out", o.out, "write summary.json, collectives.csv, timeline.json and (aware, flow) links.csv here");
  cmd.add_flag("--no-resource-limits", o.no_resource_limits,
               "let any number of compute and communication nodes run at once on an NPU");
  cmd.add_flag("--contention", o.contention,
               "with --model flow: overlapping collectives share the links they have in common");
  cmd.add_flag("--no-timeline", o.no_timeline, "do not record or write timeline.json");
  cmd.add_flag("--no-bounds", o.no_bounds, "skip the per-collective lower bounds");
  cmd.add_flag("--json", o.json, "print summary.json on stdout instead of the table");
  for (const char* name : {"--logging-configuration", "--logging-folder", "--num-queues-per-dim", "--injection-scale",
                           "--comm-scale", "--compute-scale", "--rendezvous-protocol"}) {
    cmd.add_option(name, o.ignored, "ASTRA-sim option, accepted and ignored")->group("ASTRA-sim (ignored)");
  }
}

void run(const SimOptions& o) {
  const auto model = parse_network_model(o.model);
  if (!model)
    throw Error("", "--model", fmt::format("unknown network model '{}'; expected unaware, aware or flow", o.model));
  if (o.contention && *model != NetworkModelKind::Flow)
    throw Error("", "--contention", fmt::format("needs --model flow (got {})", o.model));
  const Topology topology = make_topology(o.topology);
  std::optional<AstraSystemConfig> system;
  if (!o.system.empty())
    system = load_astra_system(o.system);
  RuntimeOptions options;
  options.model = *model;
  options.system = system ? &*system : nullptr;
  options.memory = load_remote_memory(o.memory);
  options.resource_limits = !o.no_resource_limits;
  options.record_timeline = !o.no_timeline && !o.out.empty();
  options.lower_bounds = !o.no_bounds;
  options.link_stats = !o.out.empty();  // links.csv (aware and flow only)
  options.contention = o.contention;
  const std::unique_ptr<Progress> progress = terminal_progress(o.json);
  options.progress = progress.get();

  const auto started = std::chrono::steady_clock::now();
  const Workload workload = load_workload(o.workload, o.comm_groups);
  RunReport report;
  try {
    report = run_workload(workload, topology, options);
  } catch (const DeadlockError& e) {
    std::cerr << "error: " << e.what() << "\n";
    std::cerr.flush();
    std::exit(3);  // main() maps exceptions to status 2; a deadlock is a different outcome for scripts
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const ReportContext context{workload, report, to_string(*model), topology.name(), wall_s, &topology};
  if (!o.out.empty())
    write_reports(o.out, context);
  if (o.json) {
    std::cout << summary_json(context).dump() << "\n";
  } else {
    print_report(std::cout, context);
  }
}

}  // namespace

void register_sim_command(CLI::App& app) {
  auto options = std::make_shared<SimOptions>();
  CLI::App* cmd = app.add_subcommand("sim", "simulate Chakra execution traces end to end");
  add_options(*cmd, *options);
  cmd->callback([options] { run(*options); });
}

}  // namespace chorus::cli
