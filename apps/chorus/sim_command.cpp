// `chorus sim`: simulate Chakra execution traces end to end and report where the time goes.
//
//   chorus sim --workload traces/llama --system sys.json --network net.yml [--memory mem.json]
//              [--comm-groups groups.json] [--model unaware|aware|flow] --out results/
// ASTRA-sim's option names (--workload-configuration, --system-configuration, --network-configuration,
// --remote-memory-configuration, --comm-group-configuration) are aliases, --injection-scale is honoured, and its
// other options are accepted with one notice line each on stderr, so existing scripts run unchanged. A chorus
// option that cannot apply to the run is refused with a line saying when it applies. Exit status 3 on a detected
// deadlock.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/core/error.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/report/sim_report.hpp"
#include "chorus/runtime/measured_compare.hpp"
#include "chorus/runtime/reports.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/runtime/what_if.hpp"
#include "chorus/workload/workload.hpp"
#include "collectives_option.hpp"
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
  std::string collectives = "simulated";  // or nccl: NCCL's model of --machine for each group; synth
  std::string queue;                      // --model packet
  bool ecn = false;                       // --model packet
  std::string out;
  bool no_resource_limits = false;
  bool contention = false;
  bool no_timeline = false;
  bool no_bounds = false;
  bool json = false;
  bool report = false;   // DIR/report.html (report/sim_report.hpp)
  bool what_if = false;  // re-simulate the standard changes (runtime/what_if.hpp)
  bool no_critical_path = false;
  unsigned what_if_threads = 0;  // 0: the machine's cores
  double overlap_slowdown = 0;   // runtime/overlap_slowdown.hpp
  std::string measured;  // PREFIX.measured.json of chorus import pytorch --kineto (runtime/measured_compare.hpp)
  std::string timeline_level = "auto";
  size_t timeline_max_events = TimelineLimits{}.max_events;
  int64_t link_bins = 500;     // timeline.json's link-utilisation counters: bins over the run (runtime/link_load.hpp)
  double injection_scale = 1;  // ASTRA-sim: multiplies the system JSON's endpoint-delay
  // ASTRA-sim options chorus accepts without using, and why, with the option each registered.
  std::array<std::pair<const char*, const char*>, 7> ignored{{
      {"--logging-configuration", "chorus does not log through spdlog"},
      {"--logging-folder", "chorus does not log through spdlog"},
      {"--num-queues-per-dim", "chorus's collective layer keeps ASTRA-sim's default of one queue per dimension"},
      {"--comm-scale", "ASTRA-sim stores it but never uses it"},
      {"--compute-scale", "ASTRA-sim parses it but never reads it"},
      {"--rendezvous-protocol", "chorus does not model the rendezvous handshake"},
      {"--logical-topology-configuration", "chorus times a subgroup on a logical ring of its members"},
  }};
  std::array<CLI::Option*, 7> ignored_given{};
  std::string ignored_value;
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
  cmd.add_option("--machine", o.topology.machine,
                 "a machine preset instead of --network (chorus machines: dgx-h100, mi300x, ...), with --nodes");
  cmd.add_option("--nodes", o.topology.nodes, "with --machine: how many nodes (default 1)");
  cmd.add_option("--memory,--remote-memory-configuration", o.memory, "ASTRA-sim remote-memory JSON (MEM nodes)");
  cmd.add_option("--comm-groups,--comm-group-configuration", o.comm_groups,
                 "communicator groups JSON {\"<pg_name>\": [npu, ...]}");
  cmd.add_option("--model", o.model, network_models().help());
  add_collectives_option(cmd, o.collectives);
  cmd.add_option("--queue", o.queue,
                 "with --model packet: the buffer of every output port, e.g. 512KiB (default 1MiB, drop-tail)");
  cmd.add_flag("--ecn", o.ecn, "with --model packet: RED queues marking ECN, DCQCN-style senders");
  cmd.add_option("--out", o.out,
                 "write summary.json, npus.csv, collectives.csv, timeline.json and (aware, flow) links.csv here");
  cmd.add_flag("--no-resource-limits", o.no_resource_limits,
               "let any number of compute and communication nodes run at once on an NPU");
  cmd.add_flag("--contention", o.contention,
               "with --model flow: overlapping collectives share the links they have in common");
  cmd.add_flag("--no-timeline", o.no_timeline, "with --out: do not record or write timeline.json");
  cmd.add_option("--timeline-level", o.timeline_level,
                 "timeline.json: auto (every event up to --timeline-max-events, else every k-th NPU whole), full, "
                 "comm (the communication track of every NPU)");
  cmd.add_option("--timeline-max-events", o.timeline_max_events,
                 "with --timeline-level auto: the most events timeline.json holds (default 200000, about 30 MB)");
  cmd.add_option("--timeline-link-bins", o.link_bins,
                 "timeline.json (aware, flow): link-utilisation counter tracks per dimension/tier, in this many time "
                 "bins over the run (default 500; 0: none)");
  cmd.add_flag("--no-bounds", o.no_bounds, "skip the per-collective lower bounds");
  cmd.add_flag("--json", o.json, "print summary.json on stdout instead of the table");
  cmd.add_flag("--report", o.report, "with --out: also write DIR/report.html (charts in one self-contained file)");
  cmd.add_flag("--no-critical-path", o.no_critical_path,
               "do not record the critical path and blame (summary.json, report, timeline go without them)");
  cmd.add_flag("--what-if", o.what_if,
               "also re-simulate with communication free, collectives at their lower bound, compute 2x faster and each "
               "network dimension's bandwidth x2 and latency /2 (in parallel; summary.json: what_if)");
  cmd.add_option("--what-if-threads", o.what_if_threads,
                 "with --what-if: run this many re-simulations at once (default 0: one per core)");
  cmd.add_option("--measured", o.measured,
                 "PREFIX.measured.json (chorus import pytorch --kineto): the measured run beside the simulated one, "
                 "per rank and per op, with the measured critical path (summary.json: measured)");
  cmd.add_option("--overlap-slowdown", o.overlap_slowdown,
                 "GPU compute runs 1 + F times slower while its NPU moves data (default 0; 0.19 is the mean slowdown "
                 "Lee et al. 2025 measured, docs/workload.md)");
  cmd.add_option("--injection-scale", o.injection_scale,
                 "with --system: multiply its endpoint-delay by this factor (ASTRA-sim's option)");
  for (size_t i = 0; i < o.ignored.size(); ++i) {
    o.ignored_given[i] = cmd.add_option(o.ignored[i].first, o.ignored_value, "ASTRA-sim option, accepted and ignored")
                             ->group("ASTRA-sim (ignored, with a notice)");
  }
}

// Options that cannot apply to this run are refused; ASTRA-sim options chorus does not use get a notice each.
void check_applicable(const SimOptions& o, const std::optional<AstraSystemConfig>& system) {
  if (!parse_timeline_level(o.timeline_level)) {
    throw Error("", "--timeline-level", fmt::format("is '{}'; expected auto, full or comm", o.timeline_level));
  }
  if (o.timeline_max_events == 0)
    throw Error("", "--timeline-max-events", "is 0; must be >= 1 (--no-timeline writes none)");
  if (o.link_bins < 0 || o.link_bins > 100'000) {
    throw Error(
        "", "--timeline-link-bins",
        fmt::format("is {}; expected 0 (no counters) to 100000 (each bin is an event per link group)", o.link_bins));
  }
  if (!std::isfinite(o.overlap_slowdown) || o.overlap_slowdown < 0 || o.overlap_slowdown >= 10) {
    throw Error(
        "", "--overlap-slowdown",
        fmt::format("is {}; expected a factor F in [0, 10) (compute runs 1 + F times slower)", o.overlap_slowdown));
  }
  if (o.what_if_threads > 0 && !o.what_if)
    throw Error("", "--what-if-threads", "applies only with --what-if");
  if (o.report && o.out.empty())
    throw Error("", "--report", "applies only with --out (it writes DIR/report.html)");
  if (o.no_timeline && o.out.empty())
    throw Error("", "--no-timeline", "applies only with --out (the timeline is only written there)");
  if (!std::isfinite(o.injection_scale) || o.injection_scale < 0) {
    throw Error("", "--injection-scale", fmt::format("is {}; must be a finite number >= 0", o.injection_scale));
  }
  if (o.injection_scale != 1 && !system) {
    throw Error("", "--injection-scale",
                "applies only with --system (it multiplies the system JSON's endpoint-delay; native timing has none)");
  }
  for (size_t i = 0; i < o.ignored.size(); ++i) {
    if (o.ignored_given[i]->count() > 0)
      std::cerr << fmt::format("notice: {} accepted and ignored ({})\n", o.ignored[i].first, o.ignored[i].second);
  }
}

// The warning for collectives faster than the physical links their groups use allow.
void warn_below_bound(const RunReport& report, NetworkModelKind model, bool nccl) {
  const size_t below = count_below_bound(report);
  if (below == 0)
    return;
  // Only the unaware model ignores contention outright; under aware and flow a subgroup's logical ring in ASTRA-sim's
  // compatible mode (a --system file) can hide hops that share a physical link (natively each hop gets its share).
  // NCCL's NVLS reduces inside the switch, which the bound does not allow.
  const std::string why =
      nccl ? "NCCL's NVLS reduces inside the NVSwitch, and the bound assumes no reduction in the "
             "network (docs/nccl.md)"
      : !network_models().get(model).info().contention
          ? "the unaware model ignores link contention; --model flow accounts for it"
          : "subgroups are timed on a logical ring of their members, whose hops ASTRA-sim's compatible mode "
            "times apart (docs/workload.md)";
  std::cerr << fmt::format("warning: {} of {} collectives finish faster than their physical lower bound: {}\n", below,
                           report.collectives.size(), why);
}

// The what-if re-simulations (runtime/what_if.hpp), on `threads` threads (0: one per core); exit 3 on a deadlock,
// as the run itself.
std::vector<WhatIfResult> what_if_runs(const Workload& workload, const Topology& topology,
                                       const RuntimeOptions& options, unsigned threads) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  try {
    return run_what_ifs(workload, topology, options, standard_what_ifs(topology), threads > 0 ? threads : cores);
  } catch (const DeadlockError& e) {
    std::cerr << "error: what-if run: " << e.what() << "\n";
    std::cerr.flush();
    std::exit(3);
  }
}

void run(const SimOptions& o) {
  const std::optional<NetworkModelKind> model = network_model_argument(o.model);
  const PacketOptions packet = packet_options_argument(o.queue, o.ecn, *model == NetworkModelKind::Packet);
  if (o.contention && !network_models().get(*model).info().fair_sharing)
    throw Error("", "--contention", fmt::format("needs --model flow (got {})", o.model));
  TopologyOptions topology_options = o.topology;
  const std::optional<nccl::NcclContext> nccl_context =
      resolve_collectives(o.collectives, topology_options, "--system", !o.system.empty());
  const bool synthesize = o.collectives == "synth";
  if (synthesize && o.contention)
    throw Error("", "--contention",
                "does not apply with --collectives synth (each synthesized schedule is timed alone on its links)");
  const Topology topology = make_topology(topology_options);
  std::optional<AstraSystemConfig> system;
  if (!o.system.empty())
    system = load_astra_system(o.system);
  check_applicable(o, system);
  if (system) {
    system->endpoint_delay = Time::ps(static_cast<int64_t>(
        std::llround(static_cast<double>(system->endpoint_delay.picoseconds()) * o.injection_scale)));
  }
  RuntimeOptions options;
  options.model = *model;
  options.packet = packet;
  options.system = system ? &*system : nullptr;
  options.memory = load_remote_memory(o.memory);
  options.resource_limits = !o.no_resource_limits;
  // The comparison with a measured run reads each node's simulated time from the timeline.
  options.record_timeline = (!o.no_timeline && !o.out.empty()) || !o.measured.empty();
  options.lower_bounds = !o.no_bounds;
  options.link_stats = !o.out.empty();  // links.csv (aware and flow only)
  options.link_load_bins = !o.no_timeline && !o.out.empty() ? static_cast<size_t>(o.link_bins) : 0;
  options.contention = o.contention;
  options.nccl = nccl_context;
  options.synthesize_collectives = synthesize;
  options.critical_path = !o.no_critical_path;
  options.overlap_slowdown = o.overlap_slowdown;
  const std::unique_ptr<Progress> progress = terminal_progress(o.json);
  options.progress = progress.get();

  const auto started = std::chrono::steady_clock::now();
  const Workload workload = load_workload(o.workload, o.comm_groups);
  std::optional<MeasuredRun> measured_run;  // read and checked before the run: a bad file costs no simulation
  if (!o.measured.empty()) {
    measured_run = read_measured_run(o.measured);
    check_measured(workload, *measured_run);
  }
  RunReport report;
  try {
    report = run_workload(workload, topology, options);
  } catch (const DeadlockError& e) {
    std::cerr << "error: " << e.what() << "\n";
    std::cerr.flush();
    std::exit(3);  // main() maps exceptions to status 2; a deadlock is a different outcome for scripts
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::vector<WhatIfResult> what_if;  // after the run's own wall_s, which they leave alone
  if (o.what_if)
    what_if = what_if_runs(workload, topology, options, o.what_if_threads);
  warn_below_bound(report, *model, nccl_context.has_value());
  std::optional<MeasuredComparison> measured;
  if (measured_run) {
    measured = compare_measured(workload, report, std::move(*measured_run));
    if (o.no_timeline || o.out.empty())
      report.timeline.clear();  // recorded for the comparison only
  }
  const ReportContext context{workload,
                              report,
                              to_string(*model),
                              topology.name(),
                              wall_s,
                              &topology,
                              o.what_if ? &what_if : nullptr,
                              measured ? &*measured : nullptr};
  const TimelineLimits timeline{*parse_timeline_level(o.timeline_level), o.timeline_max_events};
  if (!o.out.empty())
    write_reports(o.out, context, timeline);
  if (const TimelineSelection kept = select_timeline(report, timeline); kept.kept < kept.total) {
    std::cerr << fmt::format(
        "notice: timeline.json holds {} of {} events ({}); --timeline-level full writes every one\n", kept.kept,
        kept.total,
        kept.level == TimelineLevel::Comm ? "the communication tracks"
                                          : fmt::format("NPUs 0, {}, {}, ...", kept.npu_stride, 2 * kept.npu_stride));
  }
  if (o.report)
    write_output_file((std::filesystem::path(o.out) / "report.html").string(), "--report", sim_report_html(context));
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
