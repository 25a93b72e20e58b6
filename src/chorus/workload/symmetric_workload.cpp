// Symmetric workloads: classes.json and one trace per rank class (see symmetric_workload.hpp).
#include "chorus/workload/symmetric_workload.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus {

namespace fs = std::filesystem;
using chakra::NodeType;

namespace {

constexpr int kFormatVersion = 1;
// The runtime keeps a (mostly empty) graph and executor per rank, about 600 bytes each: 2^21 ranks stay near 1.3 GB,
// where the general NPU limit (2^24) would let a one-line classes.json ask for 10 GB.
constexpr uint64_t kMaxSymmetricNpus = uint64_t{1} << 21;

// classes.json of a workload argument: the file itself, or the one in the directory.
fs::path classes_path(const std::string& workload) {
  const fs::path p(workload);
  return p.filename() == kClassesFile ? p : p / kClassesFile;
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)), json_(load_json_file(path_)) {}

  const nlohmann::json& json() const { return json_; }
  const std::string& path() const { return path_; }

  // A non-negative integer at `field` of `object`, below `limit`; `fallback` when absent (nullopt: required).
  uint32_t count(const nlohmann::json& object, const char* key, const std::string& field, uint64_t limit,
                 std::optional<uint32_t> fallback = std::nullopt) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (fallback)
        return *fallback;
      throw Error(path_, field, "is missing");
    }
    if (!it->is_number_unsigned())
      throw Error(path_, field, fmt::format("is {}; must be a non-negative integer", it->dump()));
    const uint64_t v = it->get<uint64_t>();
    if (v >= limit)
      throw Error(path_, field, fmt::format("is {}; must be at most {}", v, limit - 1));
    return static_cast<uint32_t>(v);
  }

  const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& field,
                               nlohmann::json::value_t type) const {
    const auto it = object.find(key);
    if (it == object.end())
      throw Error(path_, field, "is missing");
    if (it->type() != type)
      throw Error(path_, field, fmt::format("is {}; must be {}", it->dump().substr(0, 40), type_name(type)));
    return *it;
  }

 private:
  static const char* type_name(nlohmann::json::value_t type) {
    switch (type) {
      case nlohmann::json::value_t::array:
        return "a list";
      case nlohmann::json::value_t::object:
        return "an object";
      default:
        return "a string";
    }
  }

  std::string path_;
  nlohmann::json json_;
};

RankClass read_class(const Reader& in, const nlohmann::json& c, size_t k, uint32_t npus, const fs::path& dir) {
  const std::string at = fmt::format("classes[{}]", k);
  if (!c.is_object())
    throw Error(in.path(), at, "must be an object {\"name\", \"trace\", \"representative\", \"ranks\"}");
  RankClass out;
  out.name = c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>() : std::to_string(k);
  const std::string trace = in.member(c, "trace", at + ".trace", nlohmann::json::value_t::string).get<std::string>();
  if (trace.empty())
    throw Error(in.path(), at + ".trace", "is empty; must name the representative's trace file");
  out.trace = (dir / trace).string();
  out.representative = in.count(c, "representative", at + ".representative", npus);
  const nlohmann::json& ranks = in.member(c, "ranks", at + ".ranks", nlohmann::json::value_t::array);
  if (ranks.empty())
    throw Error(in.path(), at + ".ranks", "is empty; a class holds at least its representative");
  for (size_t i = 0; i < ranks.size(); ++i) {
    const std::string field = fmt::format("{}.ranks[{}]", at, i);
    if (!ranks[i].is_object())
      throw Error(in.path(), field, "must be an object {\"start\", \"count\", \"stride\"}");
    RankRange r;
    r.start = in.count(ranks[i], "start", field + ".start", npus);
    r.count = in.count(ranks[i], "count", field + ".count", uint64_t{npus} + 1, 1);
    r.stride = in.count(ranks[i], "stride", field + ".stride", npus, 1);
    if (r.count == 0)
      throw Error(in.path(), field + ".count", "is 0; must be >= 1");
    if (r.count > 1 && r.stride == 0)
      throw Error(in.path(), field + ".stride", "is 0; must be >= 1 when count > 1");
    const uint64_t last = r.start + uint64_t{r.count - 1} * r.stride;
    if (last >= npus) {
      throw Error(in.path(), field,
                  fmt::format("reaches rank {}, but the workload has {} ranks (\"npus\")", last, npus));
    }
    out.ranks.push_back(r);
  }
  return out;
}

// Assigns every rank its class; the classes must partition 0..npus-1 and hold their representatives.
std::vector<uint32_t> partition(const Reader& in, std::vector<RankClass>& classes, uint32_t npus) {
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> class_of(npus, kNone);
  uint64_t covered = 0;
  for (uint32_t k = 0; k < classes.size(); ++k) {
    for (const RankRange& r : classes[k].ranks) {
      for (uint32_t i = 0; i < r.count; ++i) {
        const uint32_t rank = r.start + i * r.stride;
        if (class_of[rank] != kNone) {
          throw Error(in.path(), fmt::format("classes[{}].ranks", k),
                      fmt::format("rank {} is in class '{}' and in class '{}'; classes must not overlap", rank,
                                  classes[class_of[rank]].name, classes[k].name));
        }
        class_of[rank] = k;
        ++covered;
        ++classes[k].size;
        classes[k].members.push_back(rank);
      }
    }
    if (class_of[classes[k].representative] != k) {
      throw Error(in.path(), fmt::format("classes[{}].representative", k),
                  fmt::format("is rank {}, which is not in the class's ranks", classes[k].representative));
    }
  }
  if (covered != npus) {
    const auto first = std::find(class_of.begin(), class_of.end(), kNone) - class_of.begin();
    throw Error(in.path(), "classes",
                fmt::format("cover {} of the {} ranks (\"npus\"); rank {} is in no class", covered, npus, first));
  }
  return class_of;
}

// Reads "groups" into the table and returns each group's replicas by name.
std::map<std::string, GroupReplicas> read_groups(const Reader& in, GroupTable& table, uint32_t npus) {
  std::map<std::string, GroupReplicas> replicas;
  const auto it = in.json().find("groups");
  if (it == in.json().end())
    return replicas;
  if (!it->is_object())
    throw Error(in.path(), "groups", "must be an object {\"<pg_name>\": {\"npus\": [...], \"replicas\": {...}}}");
  for (const auto& [name, g] : it->items()) {
    const std::string at = fmt::format("groups.{}", name);
    if (name.empty() || name == "0")  // docs/workload.md: group "" / "0" is every NPU, as in every workload
      throw Error(in.path(), at, "group 0 / \"\" is every NPU and cannot be redefined");
    if (!g.is_object())
      throw Error(in.path(), at, "must be an object {\"npus\": [...], \"replicas\": {\"count\", \"stride\"}}");
    const nlohmann::json& list = in.member(g, "npus", at + ".npus", nlohmann::json::value_t::array);
    std::vector<uint32_t> members;
    members.reserve(list.size());
    for (const auto& v : list) {
      if (!v.is_number_unsigned())
        throw Error(in.path(), at + ".npus", "must be a list of NPU ids (non-negative integers)");
      members.push_back(checked_npu_id(v.get<uint64_t>(), in.path(), at + ".npus"));
    }
    table.define(name, std::move(members), in.path(), true);
    GroupReplicas r;
    if (const auto rep = g.find("replicas"); rep != g.end()) {
      if (!rep->is_object())
        throw Error(in.path(), at + ".replicas", "must be an object {\"count\", \"stride\"}");
      r.count = in.count(*rep, "count", at + ".replicas.count", uint64_t{npus} + 1, 1);
      r.stride = in.count(*rep, "stride", at + ".replicas.stride", npus, 0);
      if (r.count == 0)
        throw Error(in.path(), at + ".replicas.count", "is 0; must be >= 1 (1: the group alone)");
      if (r.count > 1 && r.stride == 0)
        throw Error(in.path(), at + ".replicas.stride", "is 0; must be >= 1 when count > 1");
    }
    replicas[name] = r;
  }
  return replicas;
}

// The checks of symmetric_workload.hpp, against the loaded representatives' graphs.
class Consistency {
 public:
  Consistency(const std::string& path, const Workload& w) : path_(path), w_(w), s_(*w.symmetry) {}

  void check() {
    std::vector<std::map<uint32_t, uint64_t>> uses(w_.groups.size());  // group -> representative -> collectives
    for (const RankClass& c : s_.classes) {
      const NpuGraph& g = w_.npus[c.representative];
      for (const WorkloadNode& n : g.nodes) {
        if (n.type == NodeType::CommColl)
          ++uses[n.group][c.representative];
        if (n.type == NodeType::CommSend || n.type == NodeType::CommRecv)
          check_peer(c, g, n);
      }
    }
    stamp_.assign(w_.npus.size(), 0);
    for (uint32_t group = 0; group < uses.size(); ++group) {
      if (!uses[group].empty())
        check_group(group, uses[group]);
    }
  }

 private:
  static uint32_t peer(const WorkloadNode& n) { return static_cast<uint32_t>(n.peer); }

  // The peer must be a representative, of a class the message can be copied to member by member.
  void check_peer(const RankClass& here, const NpuGraph& g, const WorkloadNode& n) const {
    const RankClass& c = s_.classes[s_.class_of[peer(n)]];
    const char* verb = n.type == NodeType::CommSend ? "sends to" : "receives from";
    if (!s_.is_representative(peer(n))) {
      throw Error(g.file, fmt::format("node {}", n.id),
                  fmt::format("{} rank {} of class '{}', whose representative is rank {}: a representative's peers "
                              "must be representatives ({})",
                              verb, n.peer, c.name, c.representative, path_));
    }
    if (c.size != here.size || s_.position[c.representative] != s_.position[here.representative]) {
      throw Error(g.file, fmt::format("node {}", n.id),
                  fmt::format("{} the representative of class '{}' ({} ranks, representative at position {}), but "
                              "class '{}' has {} ranks, representative at position {}: each member's copy of the "
                              "message needs a partner at its position ({})",
                              verb, c.name, c.size, s_.position[c.representative], here.name, here.size,
                              s_.position[here.representative], path_));
    }
  }

  void check_group(uint32_t group, const std::map<uint32_t, uint64_t>& uses) {
    const CommGroup& g = w_.groups[group];
    const auto field = fmt::format("groups.{}", g.name);
    std::vector<uint32_t> sorted = g.npus;
    std::sort(sorted.begin(), sorted.end());
    std::map<uint32_t, uint64_t> covered;  // class -> ranks covered by the replicas
    const GroupReplicas& r = s_.replicas[group];
    ++generation_;
    for (uint32_t i = 0; i < r.count; ++i) {
      for (const uint32_t m : g.npus) {
        const uint64_t copy = m + uint64_t{i} * r.stride;
        if (copy >= w_.npus.size() || s_.class_of[copy] != s_.class_of[m]) {
          throw Error(path_, field,
                      fmt::format("replica {} (+{}) moves member {} of class '{}' to rank {}, outside that class", i,
                                  uint64_t{i} * r.stride, m, s_.classes[s_.class_of[m]].name, copy));
        }
        if (stamp_[copy] == generation_)
          throw Error(path_, field, fmt::format("replicas overlap at rank {} (replica {})", copy, i));
        stamp_[copy] = generation_;
        ++covered[s_.class_of[m]];
      }
    }
    for (const auto& [k, n] : covered) {
      const RankClass& c = s_.classes[k];
      if (!std::binary_search(sorted.begin(), sorted.end(), c.representative)) {
        throw Error(path_, field,
                    fmt::format("holds ranks of class '{}' but not its representative, rank {} (first used at {})",
                                c.name, c.representative, g.first_use));
      }
    }
    for (const auto& [k, n] : covered) {
      const RankClass& c = s_.classes[k];
      if (n != c.size) {
        throw Error(path_, field,
                    fmt::format("with its {} replica(s) covers {} of the {} ranks of class '{}'; replicas must "
                                "cover each class they touch exactly once",
                                r.count, n, c.size, c.name));
      }
    }
    for (const auto& [rep, count] : uses) {
      if (!std::binary_search(sorted.begin(), sorted.end(), rep)) {
        throw Error(w_.npus[rep].file, "pg_name",
                    fmt::format("rank {} issues collectives on group '{}', which does not include it", rep, g.name));
      }
    }
    uint32_t issuers = 0;
    for (const auto& [k, n] : covered) {
      const uint32_t rep = s_.classes[k].representative;
      ++issuers;
      const auto it = uses.find(rep);
      const uint64_t count = it == uses.end() ? 0 : it->second;
      if (count != uses.begin()->second) {
        throw Error(path_, field,
                    fmt::format("representative {} (class '{}') issues {} collective(s) on it, representative {} "
                                "issues {}",
                                rep, s_.classes[k].name, count, uses.begin()->first, uses.begin()->second));
      }
    }
    issuers_[group] = issuers;
  }

 public:
  std::vector<uint32_t> issuers_;

 private:
  const std::string& path_;
  const Workload& w_;
  const RankClasses& s_;
  std::vector<uint32_t> stamp_;
  uint32_t generation_ = 0;
};

}  // namespace

bool is_symmetric_workload(const std::string& workload) {
  std::error_code ec;
  return fs::is_regular_file(classes_path(workload), ec);
}

Workload load_symmetric_workload(const std::string& workload) {
  const fs::path file = classes_path(workload);
  const Reader in(file.string());
  if (!in.json().is_object())
    throw Error(in.path(), "", "must be an object {\"symmetric_workload\", \"npus\", \"classes\", \"groups\"}");
  const uint32_t version = in.count(in.json(), "symmetric_workload", "symmetric_workload", 1000);
  if (version != kFormatVersion)
    throw Error(in.path(), "symmetric_workload", fmt::format("is {}; this chorus reads version 1", version));
  const uint32_t npus = in.count(in.json(), "npus", "npus", kMaxSymmetricNpus + 1);
  if (npus == 0)
    throw Error(in.path(), "npus", "is 0; must be >= 1");
  const nlohmann::json& list = in.member(in.json(), "classes", "classes", nlohmann::json::value_t::array);
  if (list.empty())
    throw Error(in.path(), "classes", "is empty");
  RankClasses s;
  for (size_t k = 0; k < list.size(); ++k)
    s.classes.push_back(read_class(in, list[k], k, npus, file.parent_path()));
  s.class_of = partition(in, s.classes, npus);
  s.position.resize(npus);
  for (const RankClass& c : s.classes) {
    for (uint32_t i = 0; i < c.members.size(); ++i)
      s.position[c.members[i]] = i;
  }

  GroupTable table(npus);
  const std::map<std::string, GroupReplicas> replicas = read_groups(in, table, npus);
  Workload w;
  w.prefix = workload;
  w.npus.resize(npus);
  for (NpuGraph& g : w.npus) {  // ranks other than the representatives run no trace of their own
    g.dep_offsets.assign(1, 0);
    g.child_offsets.assign(1, 0);
  }
  for (const RankClass& c : s.classes)
    w.npus[c.representative] = build_npu_graph(chakra::read_chakra_trace(c.trace), c.representative, npus, table);
  w.groups = std::move(table.groups);
  s.replicas.resize(w.groups.size());
  for (uint32_t g = 0; g < w.groups.size(); ++g) {
    if (w.groups[g].npus.empty()) {
      throw Error(w.groups[g].first_use, "pg_name",
                  fmt::format("names communicator group '{}', which {} does not define", w.groups[g].name, in.path()));
    }
    if (const auto it = replicas.find(w.groups[g].name); it != replicas.end())
      s.replicas[g] = it->second;
  }
  w.symmetry = std::move(s);
  for (const RankClass& c : w.symmetry->classes) {
    for (const WorkloadNode& n : w.npus[c.representative].nodes) {
      if (n.type != NodeType::CommColl)
        continue;
      (void)checked_mul(n.bytes.count(), static_cast<int64_t>(w.groups[n.group].npus.size()), c.trace,
                        fmt::format("node {}: comm_size", n.id));
    }
  }
  Consistency check(in.path(), w);
  check.issuers_.assign(w.groups.size(), 0);
  check.check();
  w.symmetry->issuers = std::move(check.issuers_);
  return w;
}

std::string write_symmetric_workload(const std::string& directory, uint32_t npus, const std::vector<RankClass>& classes,
                                     const std::vector<chakra::ChakraTrace>& traces,
                                     const std::vector<SymmetricGroup>& groups, bool gzip) {
  if (npus > kMaxSymmetricNpus)  // what the reader would refuse is not written
    throw Error("", Argument{"symmetric"},
                fmt::format("{} NPUs; a symmetric workload holds at most {}", npus, kMaxSymmetricNpus));
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec)
    throw Error(directory, Argument{"out"}, fmt::format("cannot create the directory: {}", ec.message()));
  nlohmann::ordered_json j;
  j["symmetric_workload"] = kFormatVersion;
  j["npus"] = npus;
  j["classes"] = nlohmann::ordered_json::array();
  for (size_t k = 0; k < classes.size(); ++k) {
    const RankClass& c = classes[k];
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (const RankRange& r : c.ranks)
      ranks.push_back({{"start", r.start}, {"count", r.count}, {"stride", r.stride}});
    j["classes"].push_back(
        {{"name", c.name}, {"trace", c.trace}, {"representative", c.representative}, {"ranks", ranks}});
    write_chakra_trace((fs::path(directory) / c.trace).string(), traces[k], gzip);
  }
  j["groups"] = nlohmann::ordered_json::object();
  for (const SymmetricGroup& g : groups)
    j["groups"][g.name] = {{"npus", g.npus},
                           {"replicas", {{"count", g.replicas.count}, {"stride", g.replicas.stride}}}};
  const std::string path = (fs::path(directory) / kClassesFile).string();
  std::ofstream out(path);
  out << j.dump() << "\n";
  if (!out)
    throw Error(path, Argument{"out"}, "cannot write the class description");
  return path;
}

}  // namespace chorus
