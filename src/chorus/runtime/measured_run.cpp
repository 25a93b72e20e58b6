// PREFIX.measured.json written and read (measured_run.hpp). Times are integer nanoseconds: Kineto records
// microseconds with at most three decimals.
#include "chorus/runtime/measured_run.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus {
namespace {

using json = nlohmann::json;

constexpr const char* kFormat = "chorus-measured";

int64_t ns_of(Time t) {
  return t.picoseconds() / 1000;
}

json split_json(const MeasuredSplit& s) {
  return {{"compute_ns", ns_of(s.compute)},
          {"communication_ns", ns_of(s.communication)},
          {"launch_ns", ns_of(s.launch)},
          {"idle_ns", ns_of(s.idle)}};
}

// Reads the fields of one rank, each checked so that an error names its place in the file.
class RankReader {
 public:
  RankReader(const std::string& path, const json& rank, size_t index)
      : path_(path), rank_(rank), at_(fmt::format("ranks[{}]", index)) {}

  MeasuredRank read() const {
    if (!rank_.is_object())
      throw Error(path_, at_, "is not an object");
    MeasuredRank r;
    r.source = member(rank_, "kineto", at_).is_string() ? rank_["kineto"].get<std::string>() : "";
    r.span = time(member(rank_, "span_ns", at_), at_ + ".span_ns");
    const std::string totals_at = at_ + ".critical_path_totals";
    const json& totals = member(rank_, "critical_path_totals", at_);
    r.path.compute = time(member(totals, "compute_ns", totals_at), totals_at + ".compute_ns");
    r.path.communication = time(member(totals, "communication_ns", totals_at), totals_at + ".communication_ns");
    r.path.launch = time(member(totals, "launch_ns", totals_at), totals_at + ".launch_ns");
    r.path.idle = time(member(totals, "idle_ns", totals_at), totals_at + ".idle_ns");
    const json& ops = array(member(rank_, "critical_path_ops", at_), at_ + ".critical_path_ops");
    for (size_t i = 0; i < ops.size(); ++i)
      r.path_ops.push_back(path_op(ops[i], fmt::format("{}.critical_path_ops[{}]", at_, i)));
    const json& nodes = array(member(rank_, "nodes", at_), at_ + ".nodes");
    r.nodes.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::string at = fmt::format("{}.nodes[{}]", at_, i);
      const json& pair = nodes[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned())
        throw Error(path_, at, fmt::format("is {}; expected [node id, duration_ns]", pair.dump()));
      r.nodes.emplace_back(pair[0].get<uint64_t>(), time(pair[1], at));
    }
    return r;
  }

 private:
  const json& member(const json& object, const char* key, const std::string& at) const {
    if (!object.is_object())
      throw Error(path_, at, "is not an object");
    const auto it = object.find(key);
    if (it == object.end())
      throw Error(path_, at + "." + key, "missing");
    return *it;
  }

  const json& array(const json& v, const std::string& at) const {
    if (!v.is_array())
      throw Error(path_, at, "is not a list");
    return v;
  }

  // A non-negative integer count of nanoseconds that fits a Time in picoseconds.
  Time time(const json& v, const std::string& at) const {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT64_MAX / 1000)
      throw Error(path_, at, fmt::format("is {}; expected a non-negative integer of nanoseconds", v.dump()));
    return Time::ns(v.get<int64_t>());
  }

  MeasuredPathOp path_op(const json& op, const std::string& at) const {
    MeasuredPathOp o;
    const json& name = member(op, "name", at);
    const json& kind = member(op, "kind", at);
    if (!name.is_string() || !kind.is_string())
      throw Error(path_, at, "name and kind must be strings");
    o.name = name.get<std::string>();
    o.kind = kind.get<std::string>();
    const json& segments = member(op, "segments", at);
    if (!segments.is_number_unsigned())
      throw Error(path_, at + ".segments", fmt::format("is {}; expected a count", segments.dump()));
    o.segments = segments.get<uint64_t>();
    o.time = time(member(op, "ns", at), at + ".ns");
    return o;
  }

  const std::string& path_;
  const json& rank_;
  std::string at_;
};

}  // namespace

nlohmann::json measured_run_json(const MeasuredRun& run) {
  json ranks = json::array();
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const MeasuredRank& m = run.ranks[r];
    json ops = json::array();
    for (const MeasuredPathOp& o : m.path_ops)
      ops.push_back({{"name", o.name}, {"kind", o.kind}, {"segments", o.segments}, {"ns", ns_of(o.time)}});
    json nodes = json::array();
    for (const auto& [id, t] : m.nodes)
      nodes.push_back({id, ns_of(t)});
    ranks.push_back({{"rank", r},
                     {"kineto", m.source},
                     {"span_ns", ns_of(m.span)},
                     {"critical_path_totals", split_json(m.path)},
                     {"critical_path_ops", std::move(ops)},
                     {"nodes", std::move(nodes)}});
  }
  return {{"format", kFormat}, {"version", 1}, {"ranks", std::move(ranks)}};
}

MeasuredRun read_measured_run(const std::string& path) {
  const json doc = load_json_file(path);
  if (!doc.is_object() || doc.value("format", json()) != kFormat)
    throw Error(path, "format",
                "is not \"chorus-measured\": not a measured run (chorus import pytorch --kineto writes one)");
  const auto ranks = doc.find("ranks");
  if (ranks == doc.end() || !ranks->is_array() || ranks->empty())
    throw Error(path, "ranks", "missing or empty");
  MeasuredRun run;
  run.path = path;
  for (size_t r = 0; r < ranks->size(); ++r)
    run.ranks.push_back(RankReader(path, (*ranks)[r], r).read());
  return run;
}

}  // namespace chorus
