// Multi-rank import of PyTorch execution traces (import.hpp): one rank at a time, so memory holds one trace.
#include "chorus/pytorch/import.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/pytorch/kineto.hpp"

namespace chorus::pytorch {
namespace {

void check_kineto_rank(const KinetoTimes& k, uint32_t rank, size_t world) {
  if (k.rank && *k.rank != static_cast<int64_t>(rank))
    throw Error(k.path, "distributedInfo.rank",
                fmt::format("is {}, but the file is given for rank {} (--kineto in rank order)", *k.rank, rank));
  if (k.world_size && *k.world_size != static_cast<int64_t>(world))
    throw Error(
        k.path, "distributedInfo.world_size",
        fmt::format("is {}, but {} execution traces were given (ranks missing from the set)", *k.world_size, world));
}

// Every rank must issue the same collectives on the world group, in the same order: a rank of another run,
// or a set with a rank missing, shows up here instead of as a deadlock in `chorus sim`.
void check_world_collectives(const RankSummary& first, const RankSummary& r) {
  std::vector<const RecoveredCollective*> a, b;
  for (const auto& c : first.collectives)
    if (c.ranks.empty() && !c.peer)
      a.push_back(&c);
  for (const auto& c : r.collectives)
    if (c.ranks.empty() && !c.peer)
      b.push_back(&c);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i]->kind == b[i]->kind && a[i]->bytes == b[i]->bytes)
      continue;
    const RecoveredCollective* mine = i < b.size() ? b[i] : nullptr;
    const RecoveredCollective* theirs = i < a.size() ? a[i] : nullptr;
    const auto describe = [](const RecoveredCollective* c) {
      return c == nullptr ? std::string("none") : fmt::format("{} of {} bytes", to_string(c->kind), c->bytes);
    };
    throw Error(r.file, mine != nullptr ? fmt::format("node {}", mine->et_node) : "nodes",
                fmt::format("world collective #{} is {} here and {} on rank 0 ({}): the traces are not one run's "
                            "ranks",
                            i + 1, describe(mine), describe(theirs), first.file));
  }
}

// `chorus sim` replays a Broadcast's measured time (as ASTRA-sim does) instead of simulating it: without a
// measured NCCL kernel it would take 0 ns, below any physical bound, so say so once per file.
void warn_unmeasured_broadcasts(const RankSummary& r, std::ostream* warnings) {
  const RecoveredCollective* first = nullptr;
  size_t count = 0;
  for (const auto& c : r.collectives)
    if (c.kind == CommKind::Broadcast && c.measured_us == 0) {
      first = first != nullptr ? first : &c;
      ++count;
    }
  if (first != nullptr && warnings != nullptr)
    *warnings << fmt::format(
        "warning: {}: node {}: {} broadcast(s) without a measured NCCL kernel time (--kineto): chorus sim replays a "
        "Broadcast's measured time, so they take 0 ns there\n",
        r.file, first->et_node, count);
}

// The rank's measured timeline (kineto_path.hpp) and the Kineto times of its Chakra nodes, for chorus sim --measured.
MeasuredRank measured_rank(MeasuredRank m, const RankImport& r) {
  m.nodes.reserve(r.measured_us.size());
  for (const auto& [id, us] : r.measured_us) {
    // One node holds at most 10^12 us, as the trace reader allows; many kernels of one operator could sum past it.
    if (us > limits::kMaxNodeDurationMicros)
      throw Error(
          m.source, "traceEvents",
          fmt::format("the kernels of one operator sum to {} us; at most 10^12 us (kMaxNodeDurationMicros)", us));
    m.nodes.emplace_back(id, Time::us(static_cast<int64_t>(us)));
  }
  return m;
}

}  // namespace

std::string to_string(Timing timing) {
  switch (timing) {
    case Timing::None:
      return "none";
    case Timing::Trace:
      return "trace";
    case Timing::Kineto:
      return "kineto";
  }
  return "none";
}

ImportResult import_pytorch(const ImportOptions& o, std::ostream* warnings) {
  if (o.et.empty())
    throw Error("", Argument{"et"}, "no execution trace given");
  if (!o.kineto.empty() && o.kineto.size() != o.et.size())
    throw Error("", Argument{"kineto"},
                fmt::format("{} files for {} execution traces; give one per rank, in rank order", o.kineto.size(),
                            o.et.size()));
  const auto world = static_cast<uint32_t>(o.et.size());
  if (!o.out_prefix.empty()) {
    const auto dir = std::filesystem::path(o.out_prefix).parent_path();
    std::error_code ec;
    if (!dir.empty())
      std::filesystem::create_directories(dir, ec);
    if (ec)
      throw Error(dir.string(), Argument{"out"}, fmt::format("cannot create the directory: {}", ec.message()));
  }
  ImportResult result;
  MeasuredRun measured;
  for (uint32_t rank = 0; rank < world; ++rank) {
    const ExecutionTrace et = read_execution_trace(o.et[rank], warnings);
    std::optional<KinetoTimes> kineto;
    if (!o.kineto.empty()) {
      kineto = join_kineto(o.kineto[rank], et);
      check_kineto_rank(*kineto, rank, world);
    }
    RankImport r = recover_rank(et, rank, world, kineto ? &*kineto : nullptr);
    if (kineto)
      measured.ranks.push_back(measured_rank(std::move(kineto->measured), r));
    RankSummary s;
    s.rank = rank;
    s.file = o.et[rank];
    s.schema = et.schema;
    s.et_nodes = r.et_nodes;
    s.nodes = r.trace.nodes.size();
    s.collectives = std::move(r.collectives);
    s.comm_bytes = r.comm_bytes;
    s.timing = r.timing;
    if (rank > 0)
      check_world_collectives(result.ranks.front(), s);
    warn_unmeasured_broadcasts(s, warnings);
    if (!o.out_prefix.empty()) {
      const std::string path = fmt::format("{}.{}.et", o.out_prefix, rank);
      chakra::write_chakra_trace(path, r.trace, o.gzip);
      result.written.push_back(path);
    }
    result.ranks.push_back(std::move(s));
  }
  if (!o.kineto.empty() && !o.out_prefix.empty()) {
    result.measured = o.out_prefix + ".measured.json";
    write_output_file(result.measured, Argument{"out"}, measured_run_json(measured).dump() + "\n");
  }
  return result;
}

}  // namespace chorus::pytorch
