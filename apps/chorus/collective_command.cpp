// `chorus collective`: simulate one collective on a network and compare it with the lower bound.
//
//   chorus collective --network net.yml --system sys.json --collective all_reduce --size 64MiB
//   chorus collective --topology torus2d:16x16 --bandwidth 50GB/s --latency 500ns --algorithm ring
//                     --collective all_gather --size 1GiB --json
#include <algorithm>
#include <iostream>
#include <set>
#include <span>

#include <fmt/format.h>

#include "algorithm_comparison.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/sim/collective_request.hpp"
#include "chorus/sim/msccl_request.hpp"
#include "chorus/sweep/size_range.hpp"
#include "commands.hpp"
#include "feasibility.hpp"
#include "nccl_collective.hpp"
#include "size_sweep.hpp"
#include "synth_options.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

struct CollectiveOptions {
  TopologyOptions topology;
  std::string collective;
  std::string size;
  // The library's request: the options that are its fields are parsed into it directly (model, queue, ecn,
  // system, algorithm, composition, active chunks, endpoint delay, reduction bandwidth, evaluation,
  // compare_synth), so the CLI and Python (python/src/collective_bindings.cpp) share its defaults and copy nothing.
  CollectiveRequest request;
  uint32_t splits = 1;  // request.splits stays unset unless --splits is given
  std::string link_stats;
  bool json = false;
  bool explain = false;         // --algorithm nccl only
  SweepFlags sweep;             // --size ranges, --csv, --jsonl, --compare, --report (size_sweep.hpp)
  SynthFlags synth;             // --algorithm synth only
  std::set<std::string> given;  // the options on the command line
};

// Options that only --algorithm synth reads, and options that only the built-in algorithms read.
const char* const kSynthOnly[] = {"--chunks",    "--seed", "--priority", "--npus",          "--fail-links",
                                  "--fail-npus", "--root", "--scan-cap", "--search-effort", "--exact-bound-limit"};
const char* const kNativeOnly[] = {"--system",         "--composition",
                                   "--splits",         "--active-chunks",
                                   "--endpoint-delay", "--reduction-bandwidth",
                                   "--evaluation",     "--link-stats",
                                   "--queue",          "--ecn"};

// Refuses an option the chosen algorithm would ignore, naming when it applies.
void refuse_ignored_options(const CollectiveOptions& o) {
  if (o.request.algorithm.starts_with(kMscclPrefix)) {
    for (const char* flag : kNativeOnly) {
      if (o.given.contains(flag))
        throw Error("", flag, "does not apply to --algorithm msccl:FILE (the XML sets the algorithm and its chunks)");
    }
    for (const char* flag : kSynthOnly) {
      if (o.given.contains(flag) && !o.request.compare_synth)
        throw Error("", flag, "applies to --algorithm synth, or with --compare-synth to the synthesized algorithm");
    }
    return;
  }
  if (o.request.compare_synth)
    throw Error("", "--compare-synth", "applies only with --algorithm msccl:FILE");
  const bool synth = o.request.algorithm == "synth";
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

// The library's request: the options as given, the unset ones left to the library's defaults.
CollectiveRequest make_request(const CollectiveOptions& o, CollectiveKind kind, Bytes size) {
  CollectiveRequest q = o.request;
  q.kind = kind;
  q.size = size;
  if (o.given.contains("--splits"))
    q.splits = o.splits;
  q.collect_link_stats = !o.link_stats.empty();
  if (q.algorithm == "synth" || q.compare_synth)
    q.synth = make_synth_options(o.synth, kind, size);
  return q;
}

double ratio_of(Time time, Time bound) {
  return static_cast<double>(time.picoseconds()) / static_cast<double>(bound.picoseconds());
}

void print_native(const CollectiveSummary& s) {
  const CollectiveSummary::Native& n = *s.native;
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(s.kind), to_string(s.size), s.topology, s.npus);
  fmt::print("algorithm    {} ({} chunks, {} transfers, {} evaluation{})\n", s.algorithm, s.chunks, s.transfers,
             s.evaluation, n.astra_compatible ? ", ASTRA-sim compatible" : "");
  fmt::print("time         {} ({} ns)\n", to_string(s.time), s.time.nanoseconds());
  fmt::print("algbw        {:.3f} GB/s\n", n.bandwidth.algbw_GBps);
  fmt::print("busbw        {:.3f} GB/s\n", n.bandwidth.busbw_GBps);
  fmt::print("lower bound  {} (bandwidth {}, latency {})\n", to_string(s.bound), to_string(n.bandwidth_bound),
             to_string(n.latency_bound));
  if (s.bound > Time::zero())
    fmt::print("time/bound   {:.3f}\n", ratio_of(s.time, s.bound));
}

void print_synthesized(const CollectiveSummary& s) {
  const CollectiveSummary::Synthesized& y = *s.synthesized;
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(s.kind), to_string(s.size), s.topology, s.npus);
  fmt::print("algorithm    synth ({} chunks per NPU, {} transfers, synthesized in {:.3f} s)\n", y.chunks_per_npu,
             s.transfers, s.wall_s);
  fmt::print("time         {} ({} model)   synthesizer estimate {}\n", to_string(s.time), to_string(s.model),
             to_string(y.estimate));
  fmt::print("algbw        {:.3f} GB/s\n", y.bandwidth.algbw_GBps);
  fmt::print("busbw        {:.3f} GB/s\n", y.bandwidth.busbw_GBps);
  fmt::print("lower bound  {}\n", to_string(s.bound));
  fmt::print("time/bound   {:.4f}\n", s.bound > Time::zero() ? ratio_of(s.time, s.bound) : 0.0);
}

void print_msccl(const CollectiveSummary& s) {
  const CollectiveSummary::Msccl& m = *s.msccl;
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(s.kind), to_string(s.size), s.topology, s.npus);
  fmt::print("algorithm    {} ('{}', {} steps, {} transfers, {} chunks of {}; {})\n", s.algorithm, m.name, m.steps,
             s.transfers, s.chunks, to_string(m.chunk_bytes),
             m.semantics_checked ? "checked: computes " + to_string(s.kind) : "not checked (custom)");
  fmt::print("time         {} ({} ns, {} model)\n", to_string(s.time), s.time.nanoseconds(), to_string(s.model));
  fmt::print("algbw        {:.3f} GB/s\n", m.bandwidth.algbw_GBps);
  fmt::print("busbw        {:.3f} GB/s\n", m.bandwidth.busbw_GBps);
  fmt::print("lower bound  {} (bandwidth {}, latency {})\n", to_string(s.bound), to_string(m.bandwidth_bound),
             to_string(m.latency_bound));
  fmt::print("time/bound   {:.3f}\n", s.ratio());
  if (m.synth_time) {
    fmt::print("synth        {} ({} model; synthesizer estimate {})   msccl/synth {:.3f}\n", to_string(*m.synth_time),
               to_string(s.model), to_string(*m.synth_estimate), ratio_of(s.time, *m.synth_time));
  }
}

// --algorithm synth over sizes: one synthesis per size (the schedule, its chunking and so its time depend on the
// size), simulated under the chosen model, against the bound at that size.
SizeSweep synth_size_sweep(const CollectiveOptions& o, const Topology& topology, CollectiveKind kind,
                           const std::vector<Bytes>& sizes) {
  SizeSweep sweep;
  sweep.algorithm = "synth";
  for (const Bytes size : sizes) {
    const CollectiveSummary s = run_collective_request(topology, make_request(o, kind, size)).summary;
    SweepPoint p;
    p.collective = Collective{kind, s.size, static_cast<uint32_t>(s.npus)};
    p.result.time = s.time;
    p.result.transfers = s.transfers;
    p.result.evaluation = s.evaluation;
    p.result.plan.chunks = s.chunks;
    p.wall_s = s.wall_s;
    if (!s.bound_note) {
      LowerBound b;
      b.collective = kind;
      b.size = s.size;
      b.npus = s.npus;
      b.bound = s.bound;
      p.bound = b;
    }
    sweep.points.push_back(std::move(p));
  }
  return sweep;
}

void run_synth_sweep(const CollectiveOptions& o, const Topology& topology, CollectiveKind kind,
                     const std::vector<Bytes>& sizes) {
  SweepRequest request{kind, sizes, {}};  // the sweep's header and units; the plan is the synthesizer's
  request.options.model = network_model_argument(make_request(o, kind, sizes.front()).model);
  print_collective_sweep(topology, request, synth_size_sweep(o, topology, kind, sizes), o.sweep);
}

// The built-in algorithms (or the system file's) at every size.
SweepRequest native_sweep_request(const CollectiveOptions& o, CollectiveKind kind, const std::vector<Bytes>& sizes) {
  const CollectiveRequest q = make_request(o, kind, sizes.front());
  const CollectiveRunOptions options = collective_run_options(q, network_model_argument(q.model));
  return SweepRequest{kind, sizes, options, o.request.system.empty() && !q.splits, !o.request.system.empty()};
}

// --size A:B:xF and lists: the built-in algorithms (or the system file's) at every size, nccl-tests' columns.
void run_sweep(const CollectiveOptions& o, const Topology& topology, CollectiveKind kind,
               const std::vector<Bytes>& sizes) {
  if (o.request.algorithm.starts_with(kMscclPrefix))
    throw Error("", "--size", "an MSCCL XML algorithm has its own chunk size: --algorithm msccl:FILE takes one size");
  refuse_single_run_flags(o.json, !o.link_stats.empty());
  if (o.request.algorithm == "synth")
    return run_synth_sweep(o, topology, kind, sizes);
  run_collective_sweep(topology, native_sweep_request(o, kind, sizes), o.sweep);
}

// Options the compared algorithms would all ignore, or that describe one run.
void refuse_in_comparison(const CollectiveOptions& o, const std::vector<std::string>& algorithms) {
  for (const char* flag : {"--explain", "--json", "--compare-synth", "--system", "--link-stats"}) {
    if (o.given.contains(flag))
      throw Error("", flag,
                  "does not apply when --algorithm lists algorithms to compare (--explain: with --algorithm nccl "
                  "alone; --json: use --jsonl)");
  }
  const bool synth = std::find(algorithms.begin(), algorithms.end(), "synth") != algorithms.end();
  const bool native = std::any_of(algorithms.begin(), algorithms.end(),
                                  [](const std::string& a) { return a != "synth" && a != "nccl"; });
  for (const char* flag : kSynthOnly) {
    if (o.given.contains(flag) && !synth)
      throw Error("", flag, "applies to synth, which --algorithm does not list");
  }
  for (const char* flag : kNativeOnly) {
    if (o.given.contains(flag) && !native)
      throw Error("", flag, "applies to the built-in algorithms (ring, direct, ...), which --algorithm does not list");
  }
  if (o.given.contains("--model") && !synth && !native)
    throw Error("", "--model", "applies to the simulated algorithms; nccl alone is priced by the library's cost model");
}

// Where the comparison ran, for its heading: the machine and node count, or the topology.
std::string comparison_place(const CollectiveOptions& o, const Topology& topology) {
  if (o.topology.machine.empty())
    return fmt::format("{} ({} NPUs)", topology.name(), topology.npu_count());
  return fmt::format("{} x {} node{} ({} NPUs)", o.topology.machine, o.topology.nodes, o.topology.nodes == 1 ? "" : "s",
                     topology.npu_count());
}

// --algorithm ring,nccl,synth: each algorithm over the same sizes on the same machine or topology, side by side.
void run_comparison(const CollectiveOptions& o) {
  const std::vector<std::string> algorithms = compared_algorithms(o.request.algorithm);
  refuse_in_comparison(o, algorithms);
  const CollectiveKind kind = collective_kind_argument(o.collective);
  const std::vector<Bytes> sizes = parse_size_range(o.size, Argument{"size"});
  const Topology topology = make_topology(o.topology);
  std::vector<ComparedSweep> sweeps;
  for (const std::string& name : algorithms) {
    ComparedSweep compared{name, {}, {}};
    if (name == "nccl") {
      NcclSweep n = nccl_size_sweep(o.topology, kind, sizes);
      compared.sweep = std::move(n.sweep);
      compared.details = std::move(n.choices);
    } else {
      CollectiveOptions one = o;
      one.request.algorithm = name;
      compared.sweep = name == "synth" ? synth_size_sweep(one, topology, kind, sizes)
                                       : run_size_sweep(topology, native_sweep_request(one, kind, sizes));
    }
    sweeps.push_back(std::move(compared));
  }
  const ComparisonHeading heading{kind, comparison_place(o, topology),
                                  to_string(network_model_argument(o.request.model))};
  print_algorithm_comparison(sweeps, heading, o.sweep);
}

// --algorithm nccl: the library's cost model on a machine, none of the simulator's options.
void run_nccl(const CollectiveOptions& o) {
  for (const char* flag : kNativeOnly) {
    if (o.given.contains(flag))
      throw Error("", flag, "does not apply to --algorithm nccl (the library's cost model prices the collective)");
  }
  for (const char* flag : kSynthOnly) {
    if (o.given.contains(flag))
      throw Error("", flag, "applies only with --algorithm synth");
  }
  for (const char* flag : {"--model", "--compare-synth", "--network", "--topology", "--bandwidth", "--latency"}) {
    if (o.given.contains(flag))
      throw Error("", flag, "does not apply to --algorithm nccl, which runs on --machine NAME|FILE.json [--nodes N]");
  }
  NcclCollectiveArgs a;
  a.topology = o.topology;
  a.kind = collective_kind_argument(o.collective);
  a.size = o.size;
  a.explain = o.explain;
  a.json = o.json;
  a.sweep = o.sweep;
  run_nccl_collective(a);
}

void run(const CollectiveOptions& o) {
  if (is_algorithm_comparison(o.request.algorithm))
    return run_comparison(o);
  if (o.request.algorithm == "nccl")
    return run_nccl(o);
  if (o.explain)
    throw Error("", "--explain", "applies only with --algorithm nccl");
  const Topology topology = make_topology(o.topology);
  const CollectiveKind kind = collective_kind_argument(o.collective);
  const std::vector<Bytes> sizes = parse_size_range(o.size, Argument{"size"});
  refuse_ignored_options(o);
  if (sweep_requested(o.size, o.sweep))
    return run_sweep(o, topology, kind, sizes);
  if (sizes.front().count() == 0)  // as chorus sim refuses a 0-byte collective; a sweep may start at 0 (nccl-tests)
    throw Error("", Argument{"size"}, "is 0 B; a collective moves at least 1 byte");
  const CollectiveOutcome outcome = run_collective_request(topology, make_request(o, kind, sizes.front()));
  const CollectiveSummary& s = outcome.summary;
  if (outcome.links)
    write_link_stats_csv(o.link_stats, topology, *outcome.links, s.time);
  if (o.json) {
    std::cout << to_json(s).dump() << "\n";
    return;
  }
  if (s.synthesized)
    print_synthesized(s);
  else if (s.msccl)
    print_msccl(s);
  else
    print_native(s);
  if (s.bound_note)
    fmt::print("bound: not computed ({})\n", *s.bound_note);
  else
    print_infeasible_warning(s.time, s.bound, s.model);
}

}  // namespace

void register_collective_command(CLI::App& app) {
  auto options = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "simulate one collective and compare it with the lower bound");
  add_topology_options(*cmd, options->topology);
  cmd->add_option("--system", options->request.system, "ASTRA-sim system JSON: ASTRA-sim compatibility mode");
  cmd->add_option("--collective", options->collective,
                  "all_reduce | reduce_scatter | all_gather | all_to_all | broadcast | reduce (rooted at NPU 0)")
      ->required();
  cmd->add_option("--size", options->size,
                  "buffer size, e.g. 64MiB (All-Gather: the gathered output; with --system: ASTRA-sim's comm_size, "
                  "for All-Gather each NPU's contribution); a sweep: 8B:32GiB:x2, 1MiB:8MiB:+1MiB or 1MiB,64MiB")
      ->required();
  cmd->add_option(
      "--algorithm", options->request.algorithm,
      "ring | direct | directN | halvingDoubling | doubleBinaryTree | twoTree | oneRing | ...; a comma list gives "
      "one per dimension (default ring), or, when it names nccl or synth, algorithms to compare over the same sizes in "
      "one table and chart (e.g. ring,nccl,synth); nccl: NCCL's (RCCL's) algorithm and protocol as the library chooses "
      "them, "
      "by its cost model, on --machine NAME|FILE.json; synth: synthesize for this topology (chorus synth) and "
      "simulate; "
      "msccl:FILE.xml: an MSCCL XML algorithm (msccl-tools, chorus synth --out)");
  cmd->add_flag("--compare-synth", options->request.compare_synth,
                "with --algorithm msccl:FILE: also synthesize for this topology and print both times");
  add_synth_flags(*cmd, options->synth);
  cmd->add_option("--composition", options->request.composition,
                  "multi-dimensional All-Reduce: localBWAware (default) | baseline");
  cmd->add_option("--splits", options->splits,
                  "chunks per collective (ASTRA-sim preferred-dataset-splits); default 1, except a ring "
                  "Broadcast / Reduce: the pipelined chain's optimal count");
  cmd->add_option("--active-chunks", options->request.active_chunks, "chunks in flight per dimension, default 1");
  cmd->add_option("--endpoint-delay", options->request.endpoint_delay,
                  "local overhead per message, e.g. 10ns (default 0)");
  cmd->add_option("--reduction-bandwidth", options->request.reduction_bandwidth,
                  "local memory bandwidth for reductions, e.g. 1600GB/s (default: free)");
  cmd->add_option("--evaluation", options->request.evaluation, "auto | symmetric | schedule (default auto)");
  cmd->add_option("--model", options->request.model, network_models().help());
  cmd->add_option("--queue", options->request.queue,
                  "with --model packet: the buffer of every output port, e.g. 512KiB (default 1MiB, drop-tail)");
  cmd->add_flag("--ecn", options->request.ecn, "with --model packet: RED queues marking ECN, DCQCN-style senders");
  cmd->add_option("--link-stats", options->link_stats, "write per-link statistics (aware, flow) to this CSV file");
  cmd->add_flag("--json", options->json, "print one JSON object");
  cmd->add_flag("--explain", options->explain,
                "with --algorithm nccl: every algorithm x protocol the library considers, its time, and which wins");
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
