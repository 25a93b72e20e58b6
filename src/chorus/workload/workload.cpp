// Loading a multi-rank Chakra workload into per-NPU dependency graphs (see workload.hpp).
#include "chorus/workload/workload.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/json_file.hpp"
#include "chorus/workload/fusion_marks.hpp"
#include "chorus/workload/name_patterns.hpp"
#include "chorus/workload/symmetric_workload.hpp"

namespace chorus {

namespace fs = std::filesystem;
using chakra::CommType;
using chakra::NodeType;

size_t Workload::node_count() const {
  size_t n = 0;
  for (const NpuGraph& g : npus)
    n += g.nodes.size();
  return n;
}

GroupTable::GroupTable(uint32_t npus) {
  CommGroup all{"0", {}, ""};
  all.npus.resize(npus);
  for (uint32_t i = 0; i < npus; ++i)
    all.npus[i] = i;
  groups.push_back(std::move(all));
  index.emplace("", 0);
  index.emplace("0", 0);
}

uint32_t GroupTable::use(const std::string& name, const std::string& file, uint64_t node_id) {
  const auto [it, inserted] = index.emplace(name, static_cast<uint32_t>(groups.size()));
  if (inserted)
    groups.push_back(CommGroup{name, {}, ""});
  if (groups[it->second].first_use.empty())
    groups[it->second].first_use = fmt::format("{}: node {}", file, node_id);
  return it->second;
}

void GroupTable::define(const std::string& name, std::vector<uint32_t> npus, const std::string& where, bool replace) {
  const uint32_t total = static_cast<uint32_t>(groups[0].npus.size());
  if (npus.empty())
    throw Error(where, fmt::format("group '{}'", name), "has no NPUs");
  std::vector<uint32_t> sorted = npus;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.back() >= total) {
    throw Error(
        where, fmt::format("group '{}'", name),
        fmt::format("names NPU {}, but the workload has only {} NPUs (0..{})", sorted.back(), total, total - 1));
  }
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw Error(where, fmt::format("group '{}'", name), "names an NPU twice");
  }
  const auto [it, inserted] = index.emplace(name, static_cast<uint32_t>(groups.size()));
  if (inserted) {
    groups.push_back(CommGroup{name, std::move(npus), ""});
    return;
  }
  CommGroup& group = groups[it->second];
  if (group.npus.empty() || replace)
    group.npus = std::move(npus);
}

namespace {

// "<prefix>.<rank>.et" -> rank, or -1 when the name does not match.
int64_t rank_of(const std::string& file, const std::string& prefix) {
  const std::string suffix = ".et";
  if (file.size() <= prefix.size() + 1 + suffix.size())
    return -1;
  if (file.compare(0, prefix.size(), prefix) != 0 || file[prefix.size()] != '.')
    return -1;
  if (file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const char* first = file.data() + prefix.size() + 1;
  const char* last = file.data() + file.size() - suffix.size();
  int64_t rank = -1;
  const auto [end, ec] = std::from_chars(first, last, rank);
  if (ec != std::errc() || end != last || rank < 0)
    return -1;
  return rank;
}

// The prefix shared by the rank files of a directory (its only one), or "" when it holds none.
std::string prefix_in_directory(const fs::path& dir) {
  std::map<std::string, int> prefixes;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 5 || name.compare(name.size() - 3, 3, ".et") != 0)
      continue;
    const std::string stem = name.substr(0, name.size() - 3);
    const size_t dot = stem.rfind('.');
    if (dot == std::string::npos)
      continue;
    const std::string prefix = stem.substr(0, dot);
    if (rank_of(name, prefix) >= 0)
      ++prefixes[prefix];
  }
  if (prefixes.size() > 1) {
    throw Error(dir.string(), "",
                fmt::format("holds rank files of {} workloads ('{}', ...); name one by its prefix", prefixes.size(),
                            prefixes.begin()->first));
  }
  return prefixes.empty() ? "" : prefixes.begin()->first;
}

}  // namespace

std::vector<std::string> find_rank_files(const std::string& workload) {
  fs::path dir;
  std::string prefix;
  std::error_code ec;
  if (fs::is_directory(workload, ec)) {
    dir = workload;
    prefix = prefix_in_directory(dir);
  } else {
    const fs::path p(workload);
    dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    prefix = p.filename().string();
    if (!fs::is_directory(dir, ec))
      throw Error(workload, "", "no such workload directory");
  }
  std::map<int64_t, std::string> ranks;
  if (!prefix.empty()) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      const int64_t rank = rank_of(entry.path().filename().string(), prefix);
      if (rank >= 0)
        ranks.emplace(rank, entry.path().string());
    }
  }
  if (ranks.empty())
    throw Error(workload, "", "no rank files <prefix>.<rank>.et found");
  std::vector<std::string> files;
  for (const auto& [rank, file] : ranks) {
    if (rank != static_cast<int64_t>(files.size())) {
      throw Error((dir / fmt::format("{}.{}.et", prefix, files.size())).string(), "",
                  fmt::format("missing rank file: ranks 0..{} need one file each", ranks.rbegin()->first));
    }
    files.push_back(file);
  }
  return files;
}

namespace {

std::string where(const std::string& file, uint64_t id) {
  return fmt::format("{}: node {}", file, id);
}

Error node_error(const std::string& file, uint64_t id, const std::string& message) {
  return Error(file, fmt::format("node {}", id), message);
}

void check_collective(const chakra::TraceNode& t, const std::string& file, WorkloadNode& n) {
  if (!t.comm_type)
    throw node_error(file, t.id, "COMM_COLL_NODE without a comm_type attribute");
  if (*t.comm_type < 0 || *t.comm_type > static_cast<int64_t>(CommType::Barrier)) {
    throw node_error(file, t.id, fmt::format("unknown comm_type {}", *t.comm_type));
  }
  n.comm = static_cast<CommType>(*t.comm_type);
  switch (n.comm) {
    case CommType::AllReduce:
    case CommType::AllGather:
    case CommType::ReduceScatter:
    case CommType::AllToAll:
      if (n.bytes.count() <= 0) {
        throw node_error(file, t.id,
                         fmt::format("{} of size {}: must be > 0 bytes", to_string(n.comm), n.bytes.count()));
      }
      return;
    case CommType::Broadcast:  // replayed, as ASTRA-sim does
    case CommType::Barrier:    // a synchronisation point of the group
      return;
    default:
      throw node_error(
          file, t.id,
          fmt::format("collective {} is not supported (ASTRA-sim does not simulate it either)", to_string(n.comm)));
  }
}

void check_peer(const chakra::TraceNode& t, const std::string& file, uint32_t npu, uint32_t npus, WorkloadNode& n) {
  const bool send = t.type == NodeType::CommSend;
  const auto& peer = send ? t.comm_dst : t.comm_src;
  const char* key = send ? "comm_dst" : "comm_src";
  if (!peer)
    throw node_error(file, t.id, fmt::format("{} without a {} attribute", to_string(t.type), key));
  if (*peer < 0 || *peer >= npus) {
    throw node_error(file, t.id, fmt::format("{} = {} is not an NPU of this {}-NPU workload", key, *peer, npus));
  }
  if (*peer == npu)
    throw node_error(file, t.id, fmt::format("{} = {} is this NPU itself", key, *peer));
  n.peer = *peer;
  n.tag = t.comm_tag.value_or(0);
  if (n.bytes.count() < 0)
    throw node_error(file, t.id, fmt::format("negative message size {}", n.bytes.count()));
}

// Values past these ranges would overflow chorus::Time or the 64-bit byte counts of the collectives built on them.
void check_ranges(const chakra::TraceNode& t, const std::string& file) {
  if (t.duration_micros > limits::kMaxNodeDurationMicros) {
    throw Error(file, fmt::format("node {}: duration_micros", t.id),
                fmt::format("is {} us; must be at most {} us (kMaxNodeDurationMicros)", t.duration_micros,
                            limits::kMaxNodeDurationMicros));
  }
  const std::pair<const char*, int64_t> sizes[] = {{"comm_size", t.comm_size}, {"tensor_size", t.tensor_size}};
  for (const auto& [key, value] : sizes) {
    if (value > kMaxSizeBytes) {
      throw Error(file, fmt::format("node {}: {}", t.id, key),
                  fmt::format("is {} bytes; must be at most {} (1 PiB)", value, kMaxSizeBytes));
    }
  }
}

WorkloadNode convert(const chakra::TraceNode& t, const std::string& file, uint32_t npu, uint32_t npus,
                     GroupTable& groups) {
  WorkloadNode n;
  n.id = t.id;
  n.name = t.name;
  n.type = t.type;
  n.is_cpu_op = t.is_cpu_op;
  n.num_ops = t.num_ops;
  n.tensor_size = Bytes(t.tensor_size);
  n.priority = t.comm_priority;
  n.bytes = Bytes(t.comm_size != 0 ? t.comm_size : t.tensor_size);
  if (t.type == NodeType::CommColl) {
    check_collective(t, file, n);
    n.group = groups.use(t.pg_name, file, t.id);
  } else if (t.type == NodeType::CommSend || t.type == NodeType::CommRecv) {
    check_peer(t, file, npu, npus, n);
  } else if (t.type == NodeType::MemLoad || t.type == NodeType::MemStore) {
    n.bytes = Bytes(t.tensor_size);
  }
  if (n.num_ops < 0 || n.tensor_size.count() < 0)
    throw node_error(file, t.id, "negative num_ops or tensor_size");
  check_ranges(t, file);
  n.duration = Time::us(static_cast<int64_t>(t.duration_micros));  // in range: check_ranges
  read_fusion_mark(t, file, n);
  return n;
}

// Process groups of a PyTorch-derived METADATA node: [{"pg_name": "0", "ranks": [..], ...}, ...].
void read_metadata_groups(const chakra::TraceNode& t, const std::string& file, GroupTable& groups) {
  if (t.inputs_values.empty())
    return;
  check_nesting_depth(t.inputs_values, fmt::format("{}: node {}: inputs", file, t.id));
  nlohmann::json list;
  try {
    list = parse_json_text(t.inputs_values, file);
  } catch (const Error&) {
    return;  // METADATA nodes carry other payloads too; only a process-group list is ours to read
  }
  if (!list.is_array())
    return;
  for (const nlohmann::json& g : list) {
    if (!g.is_object() || !g.contains("pg_name"))
      continue;
    const std::string name = g["pg_name"].is_string() ? g["pg_name"].get<std::string>() : g["pg_name"].dump();
    std::vector<uint32_t> npus;
    if (g.contains("ranks") && g["ranks"].is_array()) {
      for (const auto& r : g["ranks"]) {
        if (!r.is_number_unsigned())
          throw node_error(file, t.id, fmt::format("group '{}': ranks must be NPU ids", name));
        npus.push_back(checked_npu_id(r.get<uint64_t>(), file, fmt::format("node {}: group '{}': ranks", t.id, name)));
      }
    }
    if (npus.empty())
      npus = groups.groups[0].npus;  // PyTorch lists no ranks for the default (world) group
    groups.define(name, std::move(npus), where(file, t.id), false);
  }
}

// Dependencies by node id, as read; resolved to indices once the whole file is in (parents may come later).
struct DependencyIds {
  std::vector<uint64_t> ids;
  std::vector<uint32_t> offsets{0};
  void add(const chakra::TraceNode& t) {
    ids.insert(ids.end(), t.data_deps.begin(), t.data_deps.end());
    ids.insert(ids.end(), t.ctrl_deps.begin(), t.ctrl_deps.end());
    offsets.push_back(static_cast<uint32_t>(ids.size()));
  }
};

// Node id -> position in the file. Producers number nodes densely (0..n-1, or a global counter's window),
// so a flat table usually serves; sparse ids fall back to a hash map.
class NodeIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  explicit NodeIndex(const NpuGraph& g) {
    if (g.nodes.empty())
      return;
    uint64_t lo = UINT64_MAX;
    uint64_t hi = 0;
    for (const WorkloadNode& n : g.nodes) {
      lo = std::min(lo, n.id);
      hi = std::max(hi, n.id);
    }
    base_ = lo;
    dense_ = hi - lo < 4 * static_cast<uint64_t>(g.nodes.size()) + 64;
    if (dense_)
      table_.assign(hi - lo + 1, kAbsent);
    for (uint32_t i = 0; i < g.nodes.size(); ++i) {
      if (!insert(g.nodes[i].id, i))
        throw node_error(g.file, g.nodes[i].id, "duplicate node id");
    }
  }
  uint32_t find(uint64_t id) const {
    if (dense_)
      return id >= base_ && id - base_ < table_.size() ? table_[id - base_] : kAbsent;
    const auto it = map_.find(id);
    return it == map_.end() ? kAbsent : it->second;
  }

 private:
  bool insert(uint64_t id, uint32_t i) {
    if (!dense_)
      return map_.emplace(id, i).second;
    uint32_t& slot = table_[id - base_];
    if (slot != kAbsent)
      return false;
    slot = i;
    return true;
  }
  uint64_t base_ = 0;
  bool dense_ = false;
  std::vector<uint32_t> table_;
  std::unordered_map<uint64_t, uint32_t> map_;
};

void build_edges(const DependencyIds& pending, NpuGraph& g) {
  const size_t n = g.nodes.size();
  const NodeIndex index(g);
  g.dep_offsets.assign(n + 1, 0);
  g.deps.reserve(pending.ids.size());
  std::vector<uint32_t> child_count(n, 0);
  std::vector<uint32_t> mine;
  for (uint32_t i = 0; i < n; ++i) {
    mine.clear();
    for (uint32_t k = pending.offsets[i]; k < pending.offsets[i + 1]; ++k) {
      const uint64_t d = pending.ids[k];
      const uint32_t at = index.find(d);
      if (at == NodeIndex::kAbsent)
        throw node_error(g.file, g.nodes[i].id, fmt::format("depends on node {}, which is not in this file", d));
      if (at == i)
        throw node_error(g.file, g.nodes[i].id, "depends on itself");
      mine.push_back(at);
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    for (uint32_t d : mine)
      ++child_count[d];
    g.deps.insert(g.deps.end(), mine.begin(), mine.end());
    g.dep_offsets[i + 1] = static_cast<uint32_t>(g.deps.size());
  }
  g.child_offsets.assign(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i)
    g.child_offsets[i + 1] = g.child_offsets[i] + child_count[i];
  g.children.resize(g.deps.size());
  std::vector<uint32_t> fill(g.child_offsets.begin(), g.child_offsets.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = g.dep_offsets[i]; k < g.dep_offsets[i + 1]; ++k)
      g.children[fill[g.deps[k]]++] = i;
  }
}

void add_node(const chakra::TraceNode& t, uint32_t npu, uint32_t npus, GroupTable& groups, NpuGraph& g,
              DependencyIds& pending) {
  if (t.type == NodeType::Metadata)
    read_metadata_groups(t, g.file, groups);
  g.nodes.push_back(convert(t, g.file, npu, npus, groups));
  pending.add(t);
}

GroupTable read_group_file(const std::string& path, uint32_t npus) {
  GroupTable table(npus);
  if (path.empty() || path == "empty")
    return table;
  const nlohmann::json j = load_json_file(path);
  if (!j.is_object())
    throw Error(path, "", "must be an object {\"<group id>\": [npu, ...], ...}");
  for (const auto& [name, list] : j.items()) {
    if (!list.is_array())
      throw Error(path, name, "must be a list of NPU ids");
    std::vector<uint32_t> members;
    for (const auto& v : list) {
      if (!v.is_number_unsigned())
        throw Error(path, name, "must be a list of NPU ids (non-negative integers)");
      members.push_back(checked_npu_id(v.get<uint64_t>(), path, name));
    }
    table.define(name, std::move(members), path, true);
  }
  return table;
}

void check_membership(const Workload& w) {
  for (const CommGroup& g : w.groups) {
    if (g.npus.empty()) {
      throw Error(g.first_use, "pg_name",
                  fmt::format("names communicator group '{}', which no group file or METADATA node defines", g.name));
    }
  }
  for (uint32_t npu = 0; npu < w.npus.size(); ++npu) {
    for (const WorkloadNode& n : w.npus[npu].nodes) {
      if (n.type != NodeType::CommColl)
        continue;
      const auto& members = w.groups[n.group].npus;
      // Collectives move up to size x group-size bytes (all-gather's output); that product must fit 64 bits.
      (void)checked_mul(n.bytes.count(), static_cast<int64_t>(members.size()), w.npus[npu].file,
                        fmt::format("node {}: comm_size", n.id));
      if (std::find(members.begin(), members.end(), npu) == members.end()) {
        throw node_error(
            w.npus[npu].file, n.id,
            fmt::format("collective on group '{}', which does not include this NPU ({})", w.groups[n.group].name, npu));
      }
    }
  }
}

}  // namespace

NpuGraph build_npu_graph(const chakra::ChakraTrace& trace, uint32_t npu, uint32_t npus, GroupTable& groups) {
  NpuGraph g;
  g.file = trace.path;
  g.nodes.reserve(trace.nodes.size());
  DependencyIds pending;
  for (const chakra::TraceNode& t : trace.nodes)
    add_node(t, npu, npus, groups, g, pending);
  build_edges(pending, g);
  check_fusion_marks(g);
  intern_name_patterns(g);
  return g;
}

Workload load_workload(const std::string& workload, const std::string& comm_groups) {
  if (is_symmetric_workload(workload)) {  // classes.json: one trace per rank class (symmetric_workload.hpp)
    if (!comm_groups.empty() && comm_groups != "empty")
      throw Error(comm_groups, Argument{"comm_groups"},
                  "does not apply to a symmetric workload (its groups are in classes.json)");
    return load_symmetric_workload(workload);
  }
  const std::vector<std::string> files = find_rank_files(workload);
  const auto npus = static_cast<uint32_t>(files.size());
  GroupTable table = read_group_file(comm_groups, npus);
  Workload w;
  w.prefix = workload;
  w.npus.reserve(npus);
  for (uint32_t r = 0; r < npus; ++r) {
    // Streamed: only the compact WorkloadNodes stay in memory, not the decoded trace.
    NpuGraph& g = w.npus.emplace_back();
    g.file = files[r];
    DependencyIds pending;
    chakra::for_each_chakra_node(files[r],
                                 [&](const chakra::TraceNode& t) { add_node(t, r, npus, table, g, pending); });
    build_edges(pending, g);
    check_fusion_marks(g);
    intern_name_patterns(g);
  }
  w.groups = std::move(table.groups);
  check_membership(w);
  return w;
}

}  // namespace chorus
