// `chorus fuse`: mark the compute -> collective chains of a Chakra workload where fusion is legal, so that
// `chorus sim` runs each as one fused operator (src/chorus/workload/fuse_pass.hpp), and say what was left alone.
//
//   chorus fuse --workload traces/dlrm --out traces/dlrm_fused [--only embedding-all-to-all] [--tiles 8]
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"
#include "chorus/workload/fuse_pass.hpp"
#include "commands.hpp"

namespace chorus::cli {

namespace {

struct FuseOptions {
  std::string workload;
  std::string out;
  std::string only;
  uint32_t tiles = 8;
  bool gzip = false;
};

void run(const FuseOptions& o) {
  fused::FusePassOptions options;
  if (!o.only.empty()) {
    options.only = fused::parse_fused_op(o.only);
    if (!options.only)
      throw Error("", "--only",
                  fmt::format("unknown fused operator '{}'; expected one of {}", o.only, fused::fused_op_names()));
  }
  options.tiles = o.tiles;
  options.gzip = o.gzip;
  const fused::FusePassResult r = fused::fuse_workload(o.workload, o.out, options);
  uint64_t fused = 0;
  for (const auto& [op, count] : r.fused) {
    fmt::print("fused    {:>8} x {} ({} tiles each)\n", count, op, options.tiles);
    fused += count;
  }
  for (const auto& [reason, skip] : r.skipped) {
    fmt::print("skipped  {:>8} x {} (first: rank {} node {} '{}')\n", skip.count, reason, skip.first.rank,
               skip.first.node_id, skip.first.name);
  }
  fmt::print("wrote {} rank files {}.<rank>.et ({} collectives fused, counted per rank)\n", r.ranks, r.prefix, fused);
}

}  // namespace

void register_fuse_command(CLI::App& app) {
  auto o = std::make_shared<FuseOptions>();
  CLI::App* cmd = app.add_subcommand("fuse", "mark the workload's compute -> collective chains as fused operators");
  cmd->add_option("--workload", o->workload, "Chakra workload: prefix path or directory of <prefix>.<rank>.et")
      ->required();
  cmd->add_option("--out", o->out, "output directory")->required();
  cmd->add_option("--only", o->only, "fuse only chains forming this operator, e.g. embedding-all-to-all");
  cmd->add_option("--tiles", o->tiles, "tiles of each fused operator's pipeline (default 8)");
  cmd->add_flag("--gzip", o->gzip, "gzip the .et files");
  cmd->callback([o] { run(*o); });
}

}  // namespace chorus::cli
