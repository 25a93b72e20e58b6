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
#include "commands.hpp"
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
  const Bytes size = parse_size(o.size, Argument{"size"});
  const Topology topology = make_topology(o.topology, limits::kMaxBoundNpus, "kMaxBoundNpus");
  BoundOptions options = bound_options(o.sinks, o.root, o.information_bound, topology.npu_count());
  const std::unique_ptr<Progress> progress = terminal_progress(o.json);
  options.progress = progress.get();
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
  command->add_option("--size", options->size, "NCCL size: AG = gathered output, RS = input, AR = vector (e.g. 1GiB)")
      ->required();
  command->add_option("--sinks", options->sinks,
                      "auto (one sink when the NPUs are provably symmetric), all (exact), one (exact on "
                      "NPU-transitive graphs, a valid bound always) or brute (<= 20 nodes)");
  command->add_option("--root", options->root, "root NPU of broadcast / reduce (default 0)");
  command->add_option("--information-bound", options->information_bound,
                      "All-Reduce: also the weaker information (min-cut) bound: auto (up to 1024 NPUs), on, off");
  command->add_flag("--json", options->json, "print one JSON object");
  command->callback([options] { run_bound(*options); });
}

}  // namespace chorus::cli
