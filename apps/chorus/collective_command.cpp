// `chorus collective`: simulate one collective on a network and compare it with the lower bound.
//
//   chorus collective --network net.yml --system sys.json --collective all_reduce --size 64MiB
//   chorus collective --topology torus2d:16x16 --bandwidth 50GB/s --latency 500ns --algorithm ring
//                     --collective all_gather --size 1GiB --json
#include <chrono>
#include <iostream>
#include <set>
#include <span>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/astra/system_config.hpp"
#include "chorus/collective/algorithm_names.hpp"
#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/sim/default_chunks.hpp"
#include "chorus/sweep/size_range.hpp"
#include "collective_msccl.hpp"
#include "collective_synth.hpp"
#include "commands.hpp"
#include "feasibility.hpp"
#include "size_sweep.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

struct CollectiveOptions {
  TopologyOptions topology;
  std::string system;
  std::string collective;
  std::string size;
  std::string algorithm;
  std::string composition;
  uint32_t splits = 1;
  uint32_t active_chunks = 1;
  std::string endpoint_delay;
  std::string reduction_bandwidth;
  std::string evaluation = "auto";
  std::string model = "unaware";
  std::string link_stats;
  bool json = false;
  bool compare_synth = false;   // --algorithm msccl:FILE only
  SweepFlags sweep;             // --size ranges, --csv, --jsonl, --compare, --report (size_sweep.hpp)
  SynthFlags synth;             // --algorithm synth only
  std::set<std::string> given;  // the options on the command line
};

// Options that only --algorithm synth reads, and options that only the built-in algorithms read.
const char* const kSynthOnly[] = {"--chunks",    "--seed", "--priority", "--npus",         "--fail-links",
                                  "--fail-npus", "--root", "--scan-cap", "--search-effort"};
const char* const kNativeOnly[] = {"--system",         "--composition",         "--splits",     "--active-chunks",
                                   "--endpoint-delay", "--reduction-bandwidth", "--evaluation", "--link-stats"};

// Refuses an option the chosen algorithm would ignore, naming when it applies.
void refuse_ignored_options(const CollectiveOptions& o) {
  if (o.algorithm.starts_with(kMscclPrefix)) {
    for (const char* flag : kNativeOnly) {
      if (o.given.contains(flag))
        throw Error("", flag, "does not apply to --algorithm msccl:FILE (the XML sets the algorithm and its chunks)");
    }
    for (const char* flag : kSynthOnly) {
      if (o.given.contains(flag) && !o.compare_synth)
        throw Error("", flag, "applies to --algorithm synth, or with --compare-synth to the synthesized algorithm");
    }
    return;
  }
  if (o.compare_synth)
    throw Error("", "--compare-synth", "applies only with --algorithm msccl:FILE");
  const bool synth = o.algorithm == "synth";
  for (const char* flag :
       synth ? std::span<const char* const>(kNativeOnly) : std::span<const char* const>(kSynthOnly)) {
    if (!o.given.contains(flag))
      continue;
    throw Error("", flag,
                synth ? "applies to the built-in algorithms, not --algorithm synth (the synthesizer chooses its own "
                        "chunks and simulates its schedule as synthesized)"
                      : "applies only with --algorithm synth (the synthesizer's options; the built-in algorithms run "
                        "on all NPUs, rooted at NPU 0, chunked by --splits)");
  }
}

CollectiveKind parse_kind(const std::string& text) {
  const auto kind = parse_collective_kind(text);
  if (!kind) {
    throw Error(
        "", "--collective",
        fmt::format(
            "unknown collective '{}'; expected all_reduce, reduce_scatter, all_gather, all_to_all, broadcast or reduce",
            text));
  }
  return *kind;
}

CollectivePlanConfig native_plan(const CollectiveOptions& o) {
  CollectivePlanConfig config;
  config.algorithms.clear();
  std::stringstream list(o.algorithm.empty() ? std::string("ring") : o.algorithm);
  std::string name;
  while (std::getline(list, name, ',')) {
    const ParsedAlgorithm parsed = parse_algorithm_name(name, "", "--algorithm");
    config.algorithms.push_back(parsed.choice);
    config.flatten = config.flatten || parsed.flatten;
  }
  if (config.algorithms.empty())
    throw Error("", "--algorithm", "empty algorithm list");
  if (config.flatten)
    config.algorithms.resize(1);
  if (o.composition.empty() || o.composition == "localBWAware") {
    config.composition = Composition::LocalBandwidthAware;
  } else if (o.composition == "baseline") {
    config.composition = Composition::Baseline;
  } else {
    throw Error("", "--composition",
                fmt::format("unknown composition '{}'; expected baseline or localBWAware", o.composition));
  }
  if (o.given.contains("--splits") && (o.splits == 0 || o.splits > 1'000'000))
    throw Error("", "--splits", fmt::format("is {}; must be 1 to 1000000", o.splits));
  if (o.active_chunks == 0 || o.active_chunks > 1'000'000) {
    throw Error("", "--active-chunks", fmt::format("is {}; must be 1 to 1000000", o.active_chunks));
  }
  config.splits = o.splits;
  config.active_chunks = o.active_chunks;
  if (!o.endpoint_delay.empty())
    config.overheads.endpoint_delay = parse_time(o.endpoint_delay, "--endpoint-delay");
  if (!o.reduction_bandwidth.empty()) {
    config.overheads.reduction_bytes_per_s =
        parse_bandwidth(o.reduction_bandwidth, "--reduction-bandwidth").bytes_per_second();
  }
  return config;
}

Evaluation parse_evaluation(const std::string& text) {
  if (text == "auto")
    return Evaluation::Auto;
  if (text == "symmetric")
    return Evaluation::Symmetric;
  if (text == "schedule")
    return Evaluation::Schedule;
  throw Error("", "--evaluation", fmt::format("unknown evaluation '{}'; expected auto, symmetric or schedule", text));
}

void run(const CollectiveOptions& o) {
  const auto model = parse_network_model(o.model);
  if (!model)
    throw Error("", "--model",
                fmt::format("unknown network model '{}'; expected one of {}", o.model, network_models().names()));
  const Topology topology = make_topology(o.topology);
  const CollectiveKind kind = parse_kind(o.collective);
  const std::vector<Bytes> sizes = parse_size_range(o.size, "--size");
  const Bytes given = sizes.front();
  refuse_ignored_options(o);
  if (o.algorithm == "synth") {
    if (sweep_requested(o.size, o.sweep))
      throw Error("", "--size", "size sweeps run the built-in algorithms; --algorithm synth takes one size");
    return run_synth_collective(topology, kind, given, *model, o.synth, o.json);
  }
  if (o.algorithm.starts_with(kMscclPrefix)) {
    if (sweep_requested(o.size, o.sweep))
      throw Error("", "--size", "size sweeps run the built-in algorithms; --algorithm msccl:FILE takes one size");
    return run_msccl_collective(topology, {o.algorithm, kind, given, *model, o.compare_synth, o.synth, o.json});
  }
  CollectiveRunOptions options;
  options.evaluation = parse_evaluation(o.evaluation);
  options.model = *model;
  options.collect_link_stats = !o.link_stats.empty();
  Collective collective{kind, given, topology.npu_count()};
  if (!o.system.empty()) {
    if (!o.algorithm.empty() || !o.composition.empty() || o.given.contains("--splits") ||
        o.given.contains("--active-chunks") || !o.endpoint_delay.empty() || !o.reduction_bandwidth.empty()) {
      throw Error("", "--system", "the system file sets the algorithm, chunking and overheads; drop the other flags");
    }
    const AstraSystemConfig system = load_astra_system(o.system);
    options.plan = system.plan_config(kind);
    options.astra_compatible = true;
    // ASTRA-sim's All-Gather size is each NPU's contribution; chorus reports the gathered (NCCL) size.
    if (kind == CollectiveKind::AllGather)
      collective.size = given * topology.npu_count();
  } else {
    options.plan = native_plan(o);
    if (!o.given.contains("--splits"))
      options.plan.splits = default_splits(topology, collective, options.plan);
  }
  if (sweep_requested(o.size, o.sweep)) {
    refuse_single_run_flags(o.json, !o.link_stats.empty());
    const SweepRequest request{kind, sizes, options, o.system.empty() && !o.given.contains("--splits"),
                               options.astra_compatible};
    return run_collective_sweep(topology, request, o.sweep);
  }
  const auto started = std::chrono::steady_clock::now();
  const CollectiveRunResult result = run_collective(topology, collective, options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (!o.link_stats.empty()) {
    if (!result.links)
      throw Error("", "--link-stats", "per-link statistics need --model aware or flow");
    write_link_stats_csv(o.link_stats, topology, *result.links, result.time);
  }
  std::optional<LowerBound> bound;
  std::string bound_note;  // why there is no bound, when there is none
  try {
    BoundOptions bound_options;
    bound_options.information_bound = false;  // 2(N-1) more max-flows, and never the binding bound here
    bound = lower_bound(topology, collective, bound_options);
  } catch (const BoundNotComputed& e) {
    bound_note = e.message();  // the simulated time stands on its own; the bound would take minutes
  }
  const double time_ns = static_cast<double>(result.time.picoseconds()) / 1e3;
  const double algbw =
      result.time > Time::zero() ? static_cast<double>(collective.size.count()) / result.time.seconds() / 1e9 : 0;
  const double busbw = algbw * bus_factor(kind, topology.npu_count());
  if (o.json) {
    nlohmann::json j;
    j["collective"] = to_string(kind);
    j["npus"] = topology.npu_count();
    j["topology"] = topology.name();
    j["algorithm"] = algorithm_label(result.plan);
    j["model"] = to_string(options.model);
    j["astra_compatible"] = options.astra_compatible;
    j["size_bytes"] = collective.size.count();
    j["chunks"] = result.plan.chunks;
    j["transfers"] = result.transfers;
    j["evaluation"] = result.evaluation;
    j["time_ns"] = time_ns;
    j["algbw_GBps"] = algbw;
    j["busbw_GBps"] = busbw;
    if (bound) {
      j["bound_ns"] = static_cast<double>(bound->bound.picoseconds()) / 1e3;
      j["bandwidth_bound_ns"] = static_cast<double>(bound->bandwidth_bound.picoseconds()) / 1e3;
      j["latency_bound_ns"] = static_cast<double>(bound->latency_bound.picoseconds()) / 1e3;
      j["ratio"] = bound->bound > Time::zero() ? time_ns * 1e3 / static_cast<double>(bound->bound.picoseconds()) : 0.0;
      j["physically_feasible"] = physically_feasible(result.time, bound->bound);
    } else {
      j["bound_ns"] = nullptr;
      j["bound_note"] = "not computed (" + bound_note + ")";
      j["ratio"] = nullptr;
      j["physically_feasible"] = true;  // no bound to fall below
    }
    j["wall_s"] = wall_s;
    if (result.events > 0) {
      j["events"] = result.events;
      j["events_per_s"] = wall_s > 0 ? static_cast<double>(result.events) / wall_s : 0.0;
    }
    std::cout << j.dump() << "\n";
    return;
  }
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(kind), to_string(collective.size), topology.name(),
             topology.npu_count());
  fmt::print("algorithm    {} ({} chunks, {} transfers, {} evaluation{})\n", algorithm_label(result.plan),
             result.plan.chunks, result.transfers, result.evaluation,
             options.astra_compatible ? ", ASTRA-sim compatible" : "");
  fmt::print("time         {} ({} ns)\n", to_string(result.time), time_ns);
  fmt::print("algbw        {:.3f} GB/s\n", algbw);
  fmt::print("busbw        {:.3f} GB/s\n", busbw);
  if (bound) {
    fmt::print("lower bound  {} (bandwidth {}, latency {})\n", to_string(bound->bound),
               to_string(bound->bandwidth_bound), to_string(bound->latency_bound));
    if (bound->bound > Time::zero()) {
      fmt::print("time/bound   {:.3f}\n",
                 static_cast<double>(result.time.picoseconds()) / static_cast<double>(bound->bound.picoseconds()));
    }
    print_infeasible_warning(result.time, bound->bound, options.model);
  } else {
    fmt::print("bound: not computed ({})\n", bound_note);
  }
}

}  // namespace

void register_collective_command(CLI::App& app) {
  auto options = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "simulate one collective and compare it with the lower bound");
  add_topology_options(*cmd, options->topology);
  cmd->add_option("--system", options->system, "ASTRA-sim system JSON: ASTRA-sim compatibility mode");
  cmd->add_option("--collective", options->collective,
                  "all_reduce | reduce_scatter | all_gather | all_to_all | broadcast | reduce (rooted at NPU 0)")
      ->required();
  cmd->add_option("--size", options->size,
                  "buffer size, e.g. 64MiB (All-Gather: the gathered output; with --system: ASTRA-sim's comm_size, "
                  "for All-Gather each NPU's contribution); a sweep: 8B:32GiB:x2, 1MiB:8MiB:+1MiB or 1MiB,64MiB")
      ->required();
  cmd->add_option(
      "--algorithm", options->algorithm,
      "ring | direct | directN | halvingDoubling | doubleBinaryTree | twoTree | oneRing | ...; a comma list gives "
      "one per dimension (default ring); synth: synthesize for this topology (chorus synth) and simulate; "
      "msccl:FILE.xml: an MSCCL XML algorithm (msccl-tools, chorus synth --out)");
  cmd->add_flag("--compare-synth", options->compare_synth,
                "with --algorithm msccl:FILE: also synthesize for this topology and print both times");
  add_synth_flags(*cmd, options->synth);
  cmd->add_option("--composition", options->composition,
                  "multi-dimensional All-Reduce: localBWAware (default) | baseline");
  cmd->add_option("--splits", options->splits,
                  "chunks per collective (ASTRA-sim preferred-dataset-splits); default 1, except a ring "
                  "Broadcast / Reduce: the pipelined chain's optimal count");
  cmd->add_option("--active-chunks", options->active_chunks, "chunks in flight per dimension, default 1");
  cmd->add_option("--endpoint-delay", options->endpoint_delay, "local overhead per message, e.g. 10ns (default 0)");
  cmd->add_option("--reduction-bandwidth", options->reduction_bandwidth,
                  "local memory bandwidth for reductions, e.g. 1600GB/s (default: free)");
  cmd->add_option("--evaluation", options->evaluation, "auto | symmetric | schedule (default auto)");
  cmd->add_option("--model", options->model, network_models().help());
  cmd->add_option("--link-stats", options->link_stats, "write per-link statistics (aware, flow) to this CSV file");
  cmd->add_flag("--json", options->json, "print one JSON object");
  add_sweep_flags(*cmd, options->sweep, true);
  cmd->callback([options, cmd] {
    for (const CLI::Option* option : cmd->get_options()) {
      if (option->count() > 0)
        options->given.insert(option->get_name());
    }
    run(*options);
  });
}

}  // namespace chorus::cli
