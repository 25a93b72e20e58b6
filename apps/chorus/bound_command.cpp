// `chorus bound`: lower bounds on a collective's time for a topology (cut bound of Zhao & Krishnamurthy,
// arXiv:2305.18461 §1.1, plus the α-diameter; see chorus/collective/lower_bound.hpp).
//
//   chorus bound --topology torus2d:32x32 --bandwidth 50GiB/s --latency 0.5us --collective all_gather --size 1GiB
//   chorus bound --topology tacos-inputs/dgxlike_8x8.txt --collective all_reduce --size 1GiB --sinks all --json
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/collective/bound_request.hpp"
#include "chorus/collective/collective.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/sweep/size_range.hpp"
#include "commands.hpp"
#include "size_sweep.hpp"
#include "terminal_progress.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

struct BoundCommandOptions {
  TopologyOptions topology;
  std::string collective;
  std::string size;
  std::string sinks = "auto";
  uint32_t root = 0;
  std::string information_bound = "auto";
  bool json = false;
  SweepFlags sweep;
};

void print_text(const LowerBound& b, const Topology& topology) {
  fmt::print("collective         {} of {} on {} ({} NPUs, method {})\n", to_string(b.collective), to_string(b.size),
             topology.name(), b.npus, to_string(b.method));
  fmt::print("bandwidth bound    {:.3f} us\n", b.bandwidth_bound.microseconds());
  fmt::print("latency bound      {:.3f} us\n", b.latency_bound.microseconds());
  fmt::print("bound              {:.3f} us\n", b.bound.microseconds());
  fmt::print("worst cut size     {} NPUs\n", b.worst_cut_npus);
  if (b.information_bound)
    fmt::print("information bound  {:.3f} us\n", b.information_bound->microseconds());
}

void run_bound(const BoundCommandOptions& o) {
  const CollectiveKind kind = collective_kind_argument(o.collective);
  const std::vector<Bytes> sizes = parse_size_range(o.size, Argument{"size"});
  const Topology topology = make_topology(o.topology, limits::kMaxBoundNpus, "kMaxBoundNpus");
  BoundOptions options = bound_options(o.sinks, o.root, o.information_bound, topology.npu_count());
  const std::unique_ptr<Progress> progress = terminal_progress(o.json);
  options.progress = progress.get();
  if (sweep_requested(o.size, o.sweep)) {
    refuse_single_run_flags(o.json, false);
    return run_bound_sweep(topology, kind, sizes, options, o.sweep);
  }
  const Bytes size = sizes.front();
  const LowerBound b = lower_bound(topology, Collective{kind, size, topology.npu_count()}, options);
  if (o.json) {
    std::cout << bound_record(b, topology.name()).dump() << "\n";
  } else {
    print_text(b, topology);
  }
}

}  // namespace

void register_bound_command(CLI::App& app) {
  // shared_ptr: CLI11 keeps the callback beyond this function, and the options must live as long.
  auto options = std::make_shared<BoundCommandOptions>();
  CLI::App* command = app.add_subcommand("bound", "lower bounds for a collective on a topology");
  add_topology_options(*command, options->topology);
  command
      ->add_option("--collective", options->collective,
                   "all_reduce, all_gather, reduce_scatter, all_to_all, "
                   "broadcast or reduce")
      ->required();
  command
      ->add_option("--size", options->size,
                   "NCCL size: AG = gathered output, RS = input, AR = vector (e.g. 1GiB); a sweep: 8B:32GiB:x2, "
                   "1MiB:8MiB:+1MiB or 1MiB,64MiB")
      ->required();
  command->add_option("--sinks", options->sinks,
                      "auto (symmetric, else one sink, when the NPUs are provably symmetric), all (exact), one (exact "
                      "on NPU-transitive graphs, a valid bound always), brute (<= 20 nodes) or symmetric (exact, "
                      "max-flows on the quotient by symmetry; dimensional networks and fat-trees)");
  command->add_option("--root", options->root, "root NPU of broadcast / reduce (default 0)");
  command->add_option("--information-bound", options->information_bound,
                      "All-Reduce: also the weaker information (min-cut) bound: auto (up to 1024 NPUs), on, off");
  command->add_flag("--json", options->json, "print one JSON object");
  add_sweep_flags(*command, options->sweep, false);
  command->callback([options] { run_bound(*options); });
}

}  // namespace chorus::cli
