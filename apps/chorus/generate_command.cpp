// `chorus generate`: write workload traces (one Chakra .et file per NPU).
//
//   chorus generate microbench --collective all_reduce --npus 64 --size 1MiB --out traces/ar [--gzip]
#include <iostream>

#include <fmt/format.h>

#include "chorus/collective/collective.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/workload/generators/microbench.hpp"
#include "commands.hpp"

namespace chorus::cli {

namespace {

struct MicrobenchOptions {
  std::string collective;
  uint32_t npus = 0;
  std::string size;
  std::string out;
  bool gzip = false;
};

chakra::CommType comm_type(const std::string& text) {
  const auto kind = parse_collective_kind(text);
  if (kind) {
    switch (*kind) {
      case CollectiveKind::AllReduce:
        return chakra::CommType::AllReduce;
      case CollectiveKind::AllGather:
        return chakra::CommType::AllGather;
      case CollectiveKind::ReduceScatter:
        return chakra::CommType::ReduceScatter;
      case CollectiveKind::AllToAll:
        return chakra::CommType::AllToAll;
      default:
        break;
    }
  }
  throw Error(
      "", "--collective",
      fmt::format("unknown collective '{}'; expected all_reduce, reduce_scatter, all_gather or all_to_all", text));
}

void run_microbench(const MicrobenchOptions& o) {
  const MicrobenchSpec spec{comm_type(o.collective), parse_size(o.size, "--size").count(), o.npus};
  const std::string prefix = write_microbench(o.out, spec, o.gzip);
  std::cout << fmt::format("wrote {} rank files {}.<rank>.et\n", o.npus, prefix);
}

void register_microbench(CLI::App& generate) {
  auto o = std::make_shared<MicrobenchOptions>();
  CLI::App* cmd = generate.add_subcommand("microbench", "one collective per NPU, as ASTRA-sim's microbenchmarks");
  cmd->add_option("--collective", o->collective, "all_reduce | reduce_scatter | all_gather | all_to_all")->required();
  cmd->add_option("--npus", o->npus, "number of NPUs (rank files)")->required();
  cmd->add_option("--size", o->size, "comm_size, e.g. 1MiB (All-Gather: each NPU's contribution, as ASTRA-sim)")
      ->required();
  cmd->add_option("--out", o->out, "output directory")->required();
  cmd->add_flag("--gzip", o->gzip, "gzip the .et files");
  cmd->callback([o] { run_microbench(*o); });
}

}  // namespace

void register_generate_command(CLI::App& app) {
  CLI::App* generate = app.add_subcommand("generate", "generate workload traces (one Chakra .et file per NPU)");
  generate->require_subcommand(1);
  register_microbench(*generate);
}

}  // namespace chorus::cli
