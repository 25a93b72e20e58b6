// HLO -> Chakra per-replica traces (chakra_export.hpp).
#include "chorus/hlo/chakra_export.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/chakra/trace.hpp"
#include "chorus/chakra/trace_directory.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/units.hpp"
#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/cost.hpp"

namespace chorus::hlo {
namespace {

using Deps = std::vector<uint64_t>;

std::optional<chakra::CommType> comm_type(const std::string& op) {
  if (op == "all-reduce" || op == "all-reduce-start")
    return chakra::CommType::AllReduce;
  if (op == "all-gather" || op == "all-gather-start")
    return chakra::CommType::AllGather;
  if (op == "reduce-scatter")
    return chakra::CommType::ReduceScatter;
  if (op == "all-to-all")
    return chakra::CommType::AllToAll;
  return std::nullopt;
}

class Exporter {
 public:
  Exporter(const Module& m, const Analysis& a, const ChakraExportOptions& o)
      : m_(m), o_(o), reports_(m.computations.size()) {
    for (const InstructionReport& r : a.instructions) {
      auto& row = reports_[static_cast<size_t>(r.computation)];
      if (row.size() <= static_cast<size_t>(r.index))
        row.resize(static_cast<size_t>(r.index) + 1);
      row[static_cast<size_t>(r.index)] = &r;
    }
  }

  void build() { emit(m_.entry, {}); }

  // The nodes emit() will write per rank, counted without unrolling (saturating at the limit + 1), so that
  // --iterations cannot fill memory: each while loop's body counts --iterations times, nested loops multiply.
  uint64_t count_nodes(int k) {
    if (counts_.empty())
      counts_.assign(m_.computations.size(), -1);
    auto& memo = counts_[static_cast<size_t>(k)];
    if (memo >= 0)
      return static_cast<uint64_t>(memo);
    constexpr uint64_t kCap = limits::kMaxConvertedNodes + 1;
    const Computation& c = m_.computations[static_cast<size_t>(k)];
    uint64_t n = 0;
    for (const Instruction& in : c.instructions) {
      uint64_t add = 0;
      if (in.opcode == "parameter") {
        add = 0;
      } else if (in.opcode == "while" && in.called.size() == 2 && o_.iterations > 0) {
        const uint64_t body = count_nodes(in.called[1]);
        add = body == 0 ? 0
                        : std::min<uint64_t>(kCap, body > kCap / static_cast<uint64_t>(o_.iterations)
                                                       ? kCap
                                                       : body * static_cast<uint64_t>(o_.iterations));
      } else if (in.opcode == "call" && !in.called.empty()) {
        add = count_nodes(in.called[0]);
      } else if (is_free(in.opcode) && in.opcode != "while" && in.opcode != "conditional") {
        add = 0;
      } else {
        add = 1;
      }
      n = std::min(kCap, n + add);
    }
    memo = static_cast<int64_t>(n);
    return n;
  }

  std::string write(const std::string& directory) const {
    const std::string prefix = make_trace_directory(directory, "hlo");
    for (int rank = 0; rank < o_.npus; ++rank) {
      chakra::ChakraTrace trace;
      trace.version = "0.0.4";
      trace.nodes = nodes_;
      for (size_t i = 0; i < nodes_.size(); ++i) {
        if (node_groups_[i] < 0)
          continue;
        trace.nodes[i].pg_name = group_name(node_groups_[i], static_cast<uint32_t>(rank));
      }
      write_chakra_trace(rank_file(prefix, static_cast<uint64_t>(rank)), trace, o_.gzip);
    }
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    for (size_t s = 0; s < group_sets_.size(); ++s)
      for (size_t g = 0; g < group_sets_[s].size(); ++g)
        groups[fmt::format("hlo_g{}_{}", s, g)] = group_sets_[s][g];
    write_comm_groups(directory, groups);
    return prefix;
  }

 private:
  // "" (every NPU) or the name of the group of `set` holding `rank`; a rank in none of them gets its own group
  // name, which the side-car does not define, so the collective is reported at load time.
  std::string group_name(int set, uint32_t rank) const {
    const auto& groups = group_sets_[static_cast<size_t>(set)];
    for (size_t g = 0; g < groups.size(); ++g)
      if (std::find(groups[g].begin(), groups[g].end(), rank) != groups[g].end())
        return fmt::format("hlo_g{}_{}", set, g);
    return fmt::format("hlo_g{}_none", set);
  }

  static void merge(Deps& into, const Deps& from) {
    into.insert(into.end(), from.begin(), from.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
  }

  uint64_t add_node(const Instruction& in, const InstructionReport* r, Deps deps, int group_set, double operand_bytes) {
    chakra::TraceNode n;
    n.id = nodes_.size();
    n.name = in.name;
    n.data_deps = std::move(deps);
    const auto type = comm_type(in.opcode);
    if (type && group_set != -2) {
      n.type = chakra::NodeType::CommColl;
      n.comm_type = static_cast<int64_t>(*type);
      if (!(operand_bytes <= static_cast<double>(kMaxSizeBytes)))
        throw Error(m_.source, fmt::format("line {}, column {}", in.line, in.column),
                    fmt::format("%{} moves {:g} bytes; a collective's comm_size holds at most 2^50 (1 PiB)", in.name,
                                operand_bytes));
      n.comm_size = static_cast<int64_t>(operand_bytes);
    } else {
      n.type = chakra::NodeType::Comp;
      const double us = r != nullptr ? r->time_s * 1e6 : 0;
      const double flops = r != nullptr ? r->flops : 0;
      const double bytes = r != nullptr ? r->bytes : 0;
      // The limits the trace reader applies (chorus sim), so that what is written can be read back.
      if (!(us <= static_cast<double>(limits::kMaxNodeDurationMicros)))
        throw Error(m_.source, fmt::format("line {}, column {}", in.line, in.column),
                    fmt::format("%{} takes {:g} us; a trace node holds at most 10^12 us (kMaxNodeDurationMicros)",
                                in.name, us));
      if (!(flops < 0x1p63))
        throw Error(m_.source, fmt::format("line {}, column {}", in.line, in.column),
                    fmt::format("%{} counts {:g} FLOPs; a trace node's num_ops holds at most 2^63-1", in.name, flops));
      if (!(bytes <= static_cast<double>(kMaxSizeBytes)))
        throw Error(
            m_.source, fmt::format("line {}, column {}", in.line, in.column),
            fmt::format("%{} moves {:g} bytes; a trace node's tensor_size holds at most 2^50 (1 PiB)", in.name, bytes));
      n.duration_micros = static_cast<uint64_t>(std::llround(us));
      n.num_ops = static_cast<int64_t>(flops);
      n.tensor_size = static_cast<int64_t>(bytes);
    }
    nodes_.push_back(std::move(n));
    node_groups_.push_back(type && group_set != -2 ? group_set : -1);
    return nodes_.back().id;
  }

  int group_set(const Instruction& in) {
    const std::string text(in.attribute("replica_groups"));
    if (text.empty() || text == "{}")
      return -1;
    const auto it = set_index_.find(text);
    if (it != set_index_.end())
      return it->second;
    const int id = static_cast<int>(group_sets_.size());
    group_sets_.push_back(replica_group_members(m_, in, o_.npus));  // the iota form with its transpose too
    set_index_.emplace(text, id);
    return id;
  }

  const InstructionReport* report(int k, size_t i) const {
    const auto& row = reports_[static_cast<size_t>(k)];
    return i < row.size() ? row[i] : nullptr;
  }

  // Emits computation k; `params` are the dependencies of its parameters; returns those of its root.
  Deps emit(int k, const std::vector<Deps>& params) {
    const Computation& c = m_.computations[static_cast<size_t>(k)];
    std::vector<Deps> deps(c.instructions.size());
    for (size_t i = 0; i < c.instructions.size(); ++i) {
      const Instruction& in = c.instructions[i];
      Deps in_deps;
      for (const int op : in.operands)
        merge(in_deps, deps[static_cast<size_t>(op)]);
      const InstructionReport* r = report(k, i);
      if (in.opcode == "parameter") {
        if (in.parameter_number >= 0 && static_cast<size_t>(in.parameter_number) < params.size())
          deps[i] = params[static_cast<size_t>(in.parameter_number)];
      } else if (in.opcode == "while" && in.called.size() == 2 && o_.iterations > 0) {
        Deps d = in_deps;
        for (int it = 0; it < o_.iterations; ++it)
          d = emit(in.called[1], {d});
        deps[i] = d;
      } else if (in.opcode == "call" && !in.called.empty()) {
        std::vector<Deps> args;
        for (const int op : in.operands)
          args.push_back(deps[static_cast<size_t>(op)]);
        deps[i] = emit(in.called[0], args);
      } else if (is_free(in.opcode) && in.opcode != "while" && in.opcode != "conditional") {
        deps[i] = std::move(in_deps);
      } else {
        const int set = comm_type(in.opcode) ? group_set(in) : -2;
        double operand_bytes = 0;
        for (const int op : in.operands)
          operand_bytes += static_cast<double>(c.instructions[static_cast<size_t>(op)].shape.bytes());
        deps[i] = {add_node(in, r, std::move(in_deps), set, operand_bytes)};
      }
    }
    return c.root >= 0 ? deps[static_cast<size_t>(c.root)] : Deps{};
  }

  const Module& m_;
  const ChakraExportOptions& o_;
  std::vector<std::vector<const InstructionReport*>> reports_;
  std::vector<chakra::TraceNode> nodes_;
  std::vector<int> node_groups_;  // per node: replica-group set, -1 for all devices or not a collective
  std::vector<std::vector<std::vector<uint32_t>>> group_sets_;
  std::map<std::string, int> set_index_;
  std::vector<int64_t> counts_;  // per computation: count_nodes(), -1 before it is counted
};

}  // namespace

std::string write_chakra_traces(const Module& module, const Analysis& analysis, const std::string& directory,
                                const ChakraExportOptions& options) {
  if (options.npus < 1)
    throw Error("", Argument{"npus"}, fmt::format("is {}; must be >= 1", options.npus));
  if (options.iterations < 0)
    throw Error("", Argument{"iterations"}, fmt::format("is {}; must be >= 0", options.iterations));
  if (static_cast<uint64_t>(options.npus) > limits::kMaxGeneratedNpus)
    throw Error("", Argument{"npus"},
                fmt::format("is {}; must be at most {} (kMaxGeneratedNpus)", options.npus, limits::kMaxGeneratedNpus));
  Exporter e(module, analysis, options);
  if (module.entry >= 0) {
    const uint64_t nodes = e.count_nodes(module.entry);
    if (nodes > limits::kMaxConvertedNodes)
      throw Error("", Argument{"iterations"},
                  fmt::format("is {}; unrolling gives more than {} trace nodes per rank (kMaxConvertedNodes)",
                              options.iterations, limits::kMaxConvertedNodes));
  }
  e.build();
  return e.write(directory);
}

}  // namespace chorus::hlo
