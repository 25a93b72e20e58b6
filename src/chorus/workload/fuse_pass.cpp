// The fusion pass over Chakra workloads (see fuse_pass.hpp).
#include "chorus/workload/fuse_pass.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/workload/fusion_marks.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus::fused {
namespace {

using chakra::NodeType;

struct Candidate {
  uint32_t rank = 0;
  size_t index = 0;  // into the rank's trace nodes
  std::optional<FusedOp> op;
  std::string reason;  // why not, when op is empty
};

bool mentions_embedding(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("embedding") != std::string::npos;
}

bool has_mark(const chakra::TraceNode& t) {
  return std::any_of(t.other_attrs.begin(), t.other_attrs.end(),
                     [](const chakra::OtherAttribute& a) { return a.name == kFusedOpAttribute; });
}

// Whether `t` (a COMM_COLL) can end a fused operator, and which; `by_id` finds the nodes of its file.
Candidate judge(const chakra::TraceNode& t, const std::unordered_map<uint64_t, const chakra::TraceNode*>& by_id,
                const FusePassOptions& options) {
  Candidate c;
  const auto type = static_cast<chakra::CommType>(t.comm_type.value_or(-1));
  if (has_mark(t)) {
    c.reason = "already fused";
    return c;
  }
  if (type == chakra::CommType::AllGather) {
    c.reason = "ALL_GATHER feeds the compute after it (all-gather-gemm); this pass fuses compute -> collective chains";
    return c;
  }
  std::optional<FusedOp> op = t.comm_type ? default_op_for(type) : std::nullopt;
  if (!op) {
    c.reason = fmt::format("{} has no fused operator", t.comm_type ? chakra::to_string(type) : "a collective");
    return c;
  }
  std::vector<uint64_t> deps = t.data_deps;
  deps.insert(deps.end(), t.ctrl_deps.begin(), t.ctrl_deps.end());
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  if (deps.size() != 1) {
    c.reason = fmt::format("the collective depends on {} nodes, not on one compute node's output alone", deps.size());
    return c;
  }
  const auto it = by_id.find(deps.front());
  if (it == by_id.end() || it->second->type != NodeType::Comp || it->second->is_cpu_op) {
    c.reason = it == by_id.end()
                   ? "its input is not in the file"
                   : fmt::format("its input is a {}{}, not a GPU compute node", chakra::to_string(it->second->type),
                                 it->second->is_cpu_op ? " CPU op" : "");
    return c;
  }
  if (type == chakra::CommType::AllToAll && mentions_embedding(it->second->name))
    op = FusedOp::EmbeddingAllToAll;
  if (options.only && *options.only != *op) {
    c.reason = fmt::format("--only {} leaves out {}", to_string(*options.only), to_string(*op));
    return c;
  }
  c.op = op;
  return c;
}

std::string stem_of(const std::string& rank0_file) {
  std::string name = std::filesystem::path(rank0_file).filename().string();
  for (const char* suffix : {".0.et.gz", ".0.et"}) {
    if (name.ends_with(suffix))
      return name.substr(0, name.size() - std::string(suffix).size());
  }
  return name;
}

void add_mark(chakra::TraceNode& t, FusedOp op, uint32_t tiles) {
  t.other_attrs.push_back({kFusedOpAttribute, std::nullopt, to_string(op)});
  t.other_attrs.push_back({kFusedTilesAttribute, int64_t{tiles}, ""});
}

}  // namespace

FusePassResult fuse_workload(const std::string& workload, const std::string& out, const FusePassOptions& options) {
  if (options.tiles == 0 || options.tiles > 1'000'000)  // the runtime's limit on fused_tiles (fusion_marks.cpp)
    throw Error("", Argument{"tiles"}, fmt::format("is {}; must be 1 to 1000000", options.tiles));
  // A symmetric workload's class.<k>.et are not rank files: fusing them as such would write a smaller workload
  // without its classes.json.
  if (std::filesystem::is_directory(workload) &&
      std::filesystem::exists(std::filesystem::path(workload) / "classes.json"))
    throw Error(workload, Argument{"workload"}, "a symmetric workload (classes.json) cannot be fused");
  const std::vector<std::string> files = find_rank_files(workload);
  std::vector<chakra::ChakraTrace> traces;
  traces.reserve(files.size());
  for (const std::string& f : files)
    traces.push_back(chakra::read_chakra_trace(f));

  // Judge every collective, keyed by (process group, k-th collective on it in file order) across ranks.
  std::map<std::pair<std::string, uint32_t>, std::vector<Candidate>> by_collective;
  for (uint32_t r = 0; r < traces.size(); ++r) {
    std::unordered_map<uint64_t, const chakra::TraceNode*> by_id;
    for (const chakra::TraceNode& t : traces[r].nodes)
      by_id.emplace(t.id, &t);
    std::unordered_map<std::string, uint32_t> issued;
    for (size_t i = 0; i < traces[r].nodes.size(); ++i) {
      const chakra::TraceNode& t = traces[r].nodes[i];
      if (t.type != NodeType::CommColl)
        continue;
      Candidate c = judge(t, by_id, options);
      c.rank = r;
      c.index = i;
      by_collective[{t.pg_name, issued[t.pg_name]++}].push_back(std::move(c));
    }
  }

  FusePassResult result;
  result.ranks = static_cast<uint32_t>(traces.size());
  for (auto& [key, members] : by_collective) {
    const bool everywhere = std::all_of(members.begin(), members.end(), [](const Candidate& c) { return c.op; });
    const auto first_op = members.front().op;
    const bool same = std::all_of(members.begin(), members.end(), [&](const Candidate& c) { return c.op == first_op; });
    for (const Candidate& c : members) {
      chakra::TraceNode& t = traces[c.rank].nodes[c.index];
      if (everywhere && same) {
        add_mark(t, *c.op, options.tiles);
        ++result.fused[to_string(*c.op)];
        continue;
      }
      const std::string reason = c.op ? "not fusable the same way on every rank that issues this collective" : c.reason;
      auto [it, inserted] = result.skipped.try_emplace(reason);
      if (inserted)
        it->second.first = FuseExample{c.rank, t.id, t.name};
      ++it->second.count;
    }
  }

  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec)
    throw Error(out, Argument{"out"}, fmt::format("cannot create the directory: {}", ec.message()));
  result.prefix = (std::filesystem::path(out) / stem_of(files.front())).string();
  for (uint32_t r = 0; r < traces.size(); ++r)
    chakra::write_chakra_trace(fmt::format("{}.{}.et", result.prefix, r), traces[r], options.gzip);
  return result;
}

}  // namespace chorus::fused
