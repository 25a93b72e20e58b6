// `chorus import pytorch`: PyTorch execution traces (one per rank) to Chakra traces that `chorus sim` runs.
//
//   chorus import pytorch --et rank0.json rank1.json [--kineto k0.json k1.json] --out traces/ddp [--json]
//   # writes traces/ddp.0.et, traces/ddp.1.et (and with --kineto traces/ddp.measured.json); docs/workload.md,
//   # "The PyTorch route"
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/pytorch/import.hpp"
#include "commands.hpp"

namespace chorus::cli {
namespace {

struct ImportCliOptions {
  pytorch::ImportOptions import;
  bool json = false;
};

std::string timing_note(pytorch::Timing timing) {
  switch (timing) {
    case pytorch::Timing::Kineto:
      return "compute times from the Kineto trace (GPU kernel time where the op launched kernels, else CPU time)";
    case pytorch::Timing::Trace:
      return "compute times from the durations recorded in the execution trace";
    case pytorch::Timing::None:
      break;
  }
  return "no durations: the execution trace records none and no --kineto trace was given, so every compute node "
         "takes 0 us (only communication is timed)";
}

std::string group_text(const pytorch::RecoveredCollective& c) {
  if (c.peer)
    return fmt::format("peer {}", *c.peer);
  return c.ranks.empty() ? "all ranks" : fmt::format("ranks {}", fmt::join(c.ranks, ","));
}

void print_text(const pytorch::ImportResult& r, const pytorch::ImportOptions& o) {
  std::cout << fmt::format("{} ranks, schema {}", r.ranks.size(), r.ranks.front().schema);
  if (!r.written.empty())
    std::cout << fmt::format(", written {}.{{0..{}}}.et", o.out_prefix, r.ranks.size() - 1);
  std::cout << "\n\n";
  std::cout << fmt::format("{:>4} {:>12} {:>12} {:>12} {:>14}\n", "rank", "trace nodes", "chakra nodes", "collectives",
                           "comm bytes");
  for (const auto& s : r.ranks)
    std::cout << fmt::format("{:>4} {:>12} {:>12} {:>12} {:>14}\n", s.rank, s.et_nodes, s.nodes, s.collectives.size(),
                             s.comm_bytes);
  const auto& first = r.ranks.front();
  std::cout << fmt::format("\nrank 0 communication ({}):\n", first.file);
  for (const auto& c : first.collectives)
    std::cout << fmt::format("  {:<15} {:>12} B  {:<16} (trace node {})\n", to_string(c.kind), c.bytes, group_text(c),
                             c.et_node);
  std::cout << fmt::format("\ntiming: {}\n", timing_note(first.timing));
  if (!r.measured.empty())
    std::cout << fmt::format("measured timeline: {} (chorus sim --workload {} --measured {} ...)\n", r.measured,
                             o.out_prefix, r.measured);
}

void print_json(const pytorch::ImportResult& r) {
  nlohmann::ordered_json out;
  out["ranks"] = nlohmann::json::array();
  for (const auto& s : r.ranks) {
    nlohmann::ordered_json rank;
    rank["rank"] = s.rank;
    rank["file"] = s.file;
    rank["schema"] = s.schema;
    rank["trace_nodes"] = s.et_nodes;
    rank["nodes"] = s.nodes;
    rank["collectives"] = s.collectives.size();
    rank["comm_bytes"] = s.comm_bytes;
    rank["timing"] = to_string(s.timing);
    nlohmann::ordered_json list = nlohmann::json::array();
    for (const auto& c : s.collectives) {
      nlohmann::ordered_json e;
      e["kind"] = to_string(c.kind);
      e["bytes"] = c.bytes;
      e["ranks"] = c.ranks;
      if (c.peer)
        e["peer"] = *c.peer;
      e["pg_name"] = c.pg_name;
      e["trace_node"] = c.et_node;
      list.push_back(std::move(e));
    }
    rank["communication"] = std::move(list);
    out["ranks"].push_back(std::move(rank));
  }
  out["written"] = r.written;
  if (!r.measured.empty())
    out["measured"] = r.measured;
  std::cout << out.dump(2) << "\n";
}

}  // namespace

void register_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportCliOptions>();
  CLI::App* cmd = app.add_subcommand("import", "import traces of other tools as Chakra traces");
  cmd->require_subcommand(1);
  CLI::App* pt = cmd->add_subcommand("pytorch", "PyTorch execution traces (one per rank) to PREFIX.<rank>.et");
  pt->add_option("--et", o->import.et, "execution trace JSON files, one per rank, in rank order")->required();
  pt->add_option("--kineto", o->import.kineto,
                 "Kineto / profiler chrome traces, one per rank (optional): measured times, and with --out "
                 "PREFIX.measured.json for chorus sim --measured");
  pt->add_option("--out", o->import.out_prefix, "write PREFIX.<rank>.et (chorus sim --workload PREFIX)");
  pt->add_flag("--gzip", o->import.gzip, "gzip the written traces");
  pt->add_flag("--json", o->json, "print one JSON object (per rank: nodes, collectives, comm_bytes, ...)");
  pt->callback([o] {
    const auto result = pytorch::import_pytorch(o->import, &std::cerr);
    if (o->json)
      print_json(result);
    else
      print_text(result, o->import);
  });
}

}  // namespace chorus::cli
