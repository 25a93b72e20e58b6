// Measured beside simulated (measured_compare.hpp).
#include "chorus/runtime/measured_compare.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/error.hpp"

namespace chorus {
namespace {

using json = nlohmann::json;

double ns(Time t) {
  return t.nanoseconds();
}

std::string kind_of(const WorkloadNode& n) {
  switch (n.type) {
    case chakra::NodeType::Comp:
      return "compute";
    case chakra::NodeType::CommColl:
    case chakra::NodeType::CommSend:
    case chakra::NodeType::CommRecv:
      return "communication";
    default:
      return "other";
  }
}

Time magnitude(Time t) {
  return t < Time::zero() ? Time::zero() - t : t;
}

// Each node's simulated duration, from issue to end as the timeline records it.
std::vector<std::vector<Time>> simulated_durations(const Workload& workload, const RunReport& report) {
  std::vector<std::vector<Time>> sim(workload.npus.size());
  for (size_t npu = 0; npu < workload.npus.size(); ++npu)
    sim[npu].assign(workload.npus[npu].nodes.size(), Time::zero());
  for (const TimelineEvent& e : report.timeline)
    sim[e.npu][e.node] = e.end - e.start;
  return sim;
}

// Each node's index in its NPU's graph, by its id in the trace.
std::unordered_map<uint64_t, uint32_t> index_by_id(const NpuGraph& graph) {
  std::unordered_map<uint64_t, uint32_t> index;
  index.reserve(graph.nodes.size());
  for (uint32_t v = 0; v < graph.nodes.size(); ++v)
    index.emplace(graph.nodes[v].id, v);
  return index;
}

uint32_t node_index(const std::unordered_map<uint64_t, uint32_t>& index, const MeasuredRun& run, size_t rank,
                    uint64_t id, const std::string& file) {
  const auto it = index.find(id);
  if (it == index.end())
    throw Error(run.path, fmt::format("ranks[{}].nodes", rank),
                fmt::format("node id {} is not in {}: the measured run is of another import", id, file));
  return it->second;
}

void check_shape(const Workload& workload, const MeasuredRun& run) {
  if (workload.symmetry)
    throw Error(run.path, "ranks",
                "a symmetric workload simulates one representative per rank class; import the ranks without "
                "--symmetric to compare every rank");
  if (run.ranks.size() != workload.npus.size())
    throw Error(run.path, "ranks",
                fmt::format("holds {} ranks, but the workload {} has {} NPUs: the measured run is of another import",
                            run.ranks.size(), workload.prefix, workload.npus.size()));
}

json split_json(const MeasuredSplit& s) {
  return {{"compute_ns", ns(s.compute)},
          {"communication_ns", ns(s.communication)},
          {"launch_ns", ns(s.launch)},
          {"idle_ns", ns(s.idle)}};
}

json percent_json(Time measured, Time simulated) {
  const std::optional<double> e = error_percent(measured, simulated);
  return e ? json(*e) : json(nullptr);
}

std::string percent_text(Time measured, Time simulated) {
  const std::optional<double> e = error_percent(measured, simulated);
  return e ? fmt::format("{:+.1f}%", *e) : "n/a";
}

}  // namespace

void check_measured(const Workload& workload, const MeasuredRun& run) {
  check_shape(workload, run);
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const auto index = index_by_id(workload.npus[r]);
    for (const auto& node : run.ranks[r].nodes)
      node_index(index, run, r, node.first, workload.npus[r].file);
  }
}

std::optional<double> error_percent(Time measured, Time simulated) {
  if (measured <= Time::zero())
    return std::nullopt;
  return 100.0 * (simulated - measured).seconds() / measured.seconds();
}

MeasuredComparison compare_measured(const Workload& workload, const RunReport& report, MeasuredRun run) {
  check_shape(workload, run);
  const std::vector<std::vector<Time>> sim = simulated_durations(workload, report);
  MeasuredComparison c;
  std::map<std::pair<std::string, std::string>, OpComparison> rows;
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const NpuGraph& graph = workload.npus[r];
    const auto index = index_by_id(graph);
    for (const auto& [id, measured] : run.ranks[r].nodes) {
      const uint32_t v = node_index(index, run, r, id, graph.file);
      const WorkloadNode& n = graph.nodes[v];
      OpComparison& row = rows[{graph.patterns[n.pattern], kind_of(n)}];
      ++row.instances;
      row.measured += measured;
      row.simulated += sim[r][v];
    }
    c.ranks.push_back({run.ranks[r].span, report.npus[r].finish});
    c.measured_iteration = std::max(c.measured_iteration, run.ranks[r].span);
  }
  for (auto& [key, row] : rows) {
    row.name = key.first;
    row.kind = key.second;
    c.ops.push_back(std::move(row));
  }
  std::stable_sort(c.ops.begin(), c.ops.end(), [](const OpComparison& a, const OpComparison& b) {
    return magnitude(a.simulated - a.measured) > magnitude(b.simulated - b.measured);
  });
  c.simulated_iteration = report.finish;
  c.run = std::move(run);
  return c;
}

json measured_json(const MeasuredComparison& c) {
  json per_rank = json::array();
  for (size_t r = 0; r < c.ranks.size(); ++r) {
    const MeasuredRank& m = c.run.ranks[r];
    json ops = json::array();
    for (const MeasuredPathOp& o : m.path_ops)
      ops.push_back({{"name", o.name}, {"kind", o.kind}, {"segments", o.segments}, {"ns", ns(o.time)}});
    per_rank.push_back({{"rank", r},
                        {"kineto", m.source},
                        {"measured_ns", ns(c.ranks[r].measured)},
                        {"simulated_ns", ns(c.ranks[r].simulated)},
                        {"error_percent", percent_json(c.ranks[r].measured, c.ranks[r].simulated)},
                        {"critical_path_totals", split_json(m.path)},
                        {"critical_path_ops", std::move(ops)}});
  }
  json ops = json::array();
  for (const OpComparison& o : c.ops)
    ops.push_back({{"name", o.name},
                   {"kind", o.kind},
                   {"instances", o.instances},
                   {"measured_ns", ns(o.measured)},
                   {"simulated_ns", ns(o.simulated)},
                   {"error_ns", ns(o.simulated - o.measured)}});
  return {{"file", c.run.path},
          {"iteration",
           {{"measured_ns", ns(c.measured_iteration)},
            {"simulated_ns", ns(c.simulated_iteration)},
            {"error_percent", percent_json(c.measured_iteration, c.simulated_iteration)}}},
          {"per_rank", std::move(per_rank)},
          {"ops", std::move(ops)}};
}

void print_measured(std::ostream& out, const MeasuredComparison& c, size_t rows) {
  out << fmt::format("\nmeasured     {} (longest rank) vs simulated {}: {} ({})\n", to_string(c.measured_iteration),
                     to_string(c.simulated_iteration), percent_text(c.measured_iteration, c.simulated_iteration),
                     c.run.path);
  if (!c.run.ranks.empty()) {
    const MeasuredSplit& s = c.run.ranks.front().path;
    out << fmt::format("measured critical path (rank 0): compute {}, communication {}, launch {}, idle {}\n",
                       to_string(s.compute), to_string(s.communication), to_string(s.launch), to_string(s.idle));
    std::vector<std::string> longest;
    for (const MeasuredPathOp& o : c.run.ranks.front().path_ops)
      if (longest.size() < 3)
        longest.push_back(fmt::format("{} {}", o.name, to_string(o.time)));
    if (!longest.empty())
      out << fmt::format("  longest on it: {}\n", fmt::join(longest, ", "));
  }
  if (c.ops.empty())
    return;
  out << fmt::format("{:<40} {:<13} {:>9} {:>16} {:>16} {:>9}\n", "op (furthest off)", "kind", "instances",
                     "measured_ns", "simulated_ns", "error");
  for (size_t i = 0; i < std::min(rows, c.ops.size()); ++i) {
    const OpComparison& o = c.ops[i];
    out << fmt::format("{:<40} {:<13} {:>9} {:>16.3f} {:>16.3f} {:>9}\n", o.name, o.kind, o.instances, ns(o.measured),
                       ns(o.simulated), percent_text(o.measured, o.simulated));
  }
}

}  // namespace chorus
