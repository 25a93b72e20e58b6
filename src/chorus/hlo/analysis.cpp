// The HLO timing model (analysis.hpp): roofline per op, collectives on a network (or ring steps), critical paths
// over operand edges.
#include "chorus/hlo/analysis.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <system_error>
#include <unordered_map>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/hlo/cost.hpp"

namespace chorus::hlo {
namespace {

// The integers of a text such as "{{0,1},{2,3}}", signed; one past the 64-bit range reads as the nearest end of it,
// so that every range check below refuses it.
std::vector<int64_t> numbers(std::string_view text) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < text.size();) {
    const bool minus = text[i] == '-' && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9';
    if ((text[i] >= '0' && text[i] <= '9') || minus) {
      int64_t v = 0;
      const auto r = std::from_chars(text.data() + i, text.data() + text.size(), v);
      if (r.ec == std::errc::result_out_of_range)
        v = minus ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
      out.push_back(v);
      i = static_cast<size_t>(r.ptr - text.data());
    } else {
      ++i;
    }
  }
  return out;
}

// What a computation holds, recursively through fusions, for naming a fusion's category like XLA's profiler.
struct Contents {
  bool matrix = false;
  bool scatter = false;
  bool gather = false;
  std::string matrix_type;  // element type of the first convolution/dot's lhs
};

class Analyzer {
 public:
  Analyzer(const Module& m, const System& s, const AnalysisOptions& o)
      : m_(m),
        s_(s),
        o_(o),
        costs_(m),
        contents_(m.computations.size()),
        contents_done_(m.computations.size()),
        path_(m.computations.size(), -1.0),
        serial_(m.computations.size(), 0.0),
        stream_(m.computations.size(), -1.0) {}

  Analysis run() {
    Analysis a;
    std::vector<std::string> roles(m_.computations.size(), "called");
    for (const Computation& c : m_.computations)
      for (const Instruction& in : c.instructions) {
        if (in.opcode == "while" && in.called.size() == 2) {
          roles[static_cast<size_t>(in.called[0])] = "while condition";
          roles[static_cast<size_t>(in.called[1])] = "while body";
        } else if (!in.called.empty() && in.attribute("to_apply").size() > 0) {
          roles[static_cast<size_t>(in.called[0])] = "reducer";
        }
      }
    if (m_.entry >= 0)
      roles[static_cast<size_t>(m_.entry)] = "entry";
    for (size_t k = 0; k < m_.computations.size(); ++k) {
      const Computation& c = m_.computations[k];
      if (c.is_fused)
        continue;
      critical_path(static_cast<int>(k));
      ComputationReport cr;
      cr.index = static_cast<int>(k);
      cr.role = roles[k];
      cr.critical_path_s = path_[k];
      cr.serial_s = serial_[k];
      cr.stream_s = stream_time(static_cast<int>(k));
      std::map<std::string, CategoryTotal> totals;
      for (size_t i = 0; i < c.instructions.size(); ++i) {
        const InstructionReport& r = reports_.at(key(static_cast<int>(k), static_cast<int>(i)));
        a.instructions.push_back(r);
        CategoryTotal& t = totals[r.category];
        t.category = r.category;
        ++t.count;
        t.flops += r.flops;
        t.bytes += r.bytes;
        t.time_s += r.time_s;
        if (r.group_size > 0)
          add_collective(a, c.instructions[i], r);
      }
      for (auto& [name, t] : totals)
        cr.categories.push_back(t);
      std::sort(cr.categories.begin(), cr.categories.end(),
                [](const CategoryTotal& x, const CategoryTotal& y) { return x.time_s > y.time_s; });
      a.computations.push_back(std::move(cr));
    }
    return a;
  }

 private:
  static int64_t key(int c, int i) { return (static_cast<int64_t>(c) << 32) | static_cast<uint32_t>(i); }

  void add_collective(Analysis& a, const Instruction& in, const InstructionReport& r) const {
    std::string groups(in.attribute("replica_groups"));
    if (groups.empty())
      groups = in.attribute("source_target_pairs").empty() ? "{}" : std::string(in.attribute("source_target_pairs"));
    for (CollectiveGroup& g : a.collectives)
      if (g.replica_groups == groups) {
        ++g.count;
        g.bytes += r.bytes / 2;
        return;
      }
    a.collectives.push_back({groups, r.group_size, 1, r.bytes / 2});
  }

  const Contents& contents(int k) {
    const auto ku = static_cast<size_t>(k);
    if (contents_done_[ku])
      return contents_[ku];
    contents_done_[ku] = true;
    Contents ct;
    const Computation& c = m_.computations[ku];
    for (const Instruction& in : c.instructions) {
      if ((in.opcode == "convolution" || in.opcode == "dot") && !ct.matrix) {
        ct.matrix = true;
        ct.matrix_type =
            in.operands.empty() ? "" : c.instructions[static_cast<size_t>(in.operands[0])].shape.element_type;
      }
      ct.scatter |= in.opcode == "scatter";
      ct.gather |= in.opcode == "gather";
      if (in.opcode == "fusion")
        for (const int callee : in.called) {
          const Contents& inner = contents(callee);
          if (inner.matrix && !ct.matrix) {
            ct.matrix = true;
            ct.matrix_type = inner.matrix_type;
          }
          ct.scatter |= inner.scatter;
          ct.gather |= inner.gather;
        }
    }
    contents_[ku] = ct;
    return contents_[ku];
  }

  std::string category(const Instruction& in) {
    const std::string& op = in.opcode;
    if (op == "fusion") {
      const std::string_view kind = in.attribute("kind");
      const Contents ct = in.called.empty() ? Contents{} : contents(in.called[0]);
      if (ct.matrix)
        return "convolution fusion";
      if (kind == "kCustom")
        return "custom fusion";
      if (ct.scatter)
        return "scatter fusion";
      if (ct.gather)
        return "gather fusion";
      if (kind == "kOutput")
        return "output fusion";
      if (kind == "kInput")
        return "input fusion";
      return "loop fusion";
    }
    if (op == "reshape" || op == "transpose" || op == "copy" || op == "bitcast" || op == "copy-start")
      return "data formatting";
    if (is_elementwise(op))
      return "non-fusion elementwise";
    if (op.ends_with("-start") || op.ends_with("-done"))
      return op.substr(0, op.rfind('-'));
    return op;
  }

  int trip_count(const Instruction& in) const {
    const std::string_view config = in.attribute("backend_config");
    const size_t pos = config.find("known_trip_count");
    if (pos != std::string_view::npos) {
      const auto n = numbers(config.substr(pos, 40));
      if (!n.empty() && (n[0] < 0 || n[0] > std::numeric_limits<int>::max()))
        throw Error(m_.source, fmt::format("line {}, column {}", in.line, in.column),
                    fmt::format("known_trip_count {} of %{}; expected 0 to 2^31-1", n[0], in.name));
      if (!n.empty() && n[0] > 0)
        return static_cast<int>(n[0]);
    }
    return o_.iterations;
  }

  // Ring-step time of a collective over the system's network bandwidth; `bytes` is this device's operand data.
  double collective_time(const std::string& op, double bytes, int n) const {
    if (n <= 1 || s_.network_bandwidth <= 0)
      return 0;
    const double bw = s_.network_bandwidth * s_.efficiency_of("network");
    const double steps = n - 1;
    const double lat = s_.network_latency;
    if (op.starts_with("all-reduce"))
      return 2 * steps / n * bytes / bw + 2 * steps * lat;
    if (op.starts_with("all-gather"))
      return steps * bytes / bw + steps * lat;
    if (op == "reduce-scatter" || op == "all-to-all")
      return steps / n * bytes / bw + steps * lat;
    return bytes / bw + lat;  // collective-permute, send, recv, collective-broadcast
  }

  InstructionReport time(int k, const Instruction& in) {
    const Computation& c = m_.computations[static_cast<size_t>(k)];
    InstructionReport r;
    const OpCost oc = costs_.cost(c, in);
    r.flops = oc.flops;
    r.transcendentals = oc.transcendentals;
    r.bytes = oc.bytes;
    r.category = category(in);
    const std::string& op = in.opcode;
    if (op == "while") {
      if (in.called.size() == 2)
        r.time_s = (critical_path(in.called[0]) + critical_path(in.called[1])) * trip_count(in);
      return r;
    }
    if (op == "call" || op == "async-start") {
      for (const int callee : in.called)
        r.time_s += critical_path(callee);
      return r;
    }
    if (op == "conditional") {
      for (const int callee : in.called)
        r.time_s = std::max(r.time_s, critical_path(callee));
      return r;
    }
    const double memory_t = oc.bytes / (s_.memory_bandwidth * s_.efficiency_of("memory"));
    if (is_collective(op)) {
      r.group_size = replica_group_size(m_, in, o_.npus);
      double operand_bytes = 0;
      for (const int i : in.operands)
        operand_bytes += static_cast<double>(c.instructions[static_cast<size_t>(i)].shape.bytes());
      double network_t = collective_time(op, operand_bytes, r.group_size);
      if (o_.network != nullptr) {
        const auto t =
            o_.network->time(op, Bytes(static_cast<int64_t>(operand_bytes)), replica_group_members(m_, in, o_.npus));
        if (t) {
          network_t = t->time_s;
          r.lower_bound_s = t->bound_s;
          r.below_bound = t->below_bound;
          r.algorithm = t->algorithm;
        }
      }
      r.time_s = std::max(network_t, memory_t) + s_.op_overhead;
      r.bound = network_t >= memory_t ? "network" : "memory";
      return r;
    }
    bool matrix = op == "convolution" || op == "dot";
    std::string type =
        matrix && !in.operands.empty() ? c.instructions[static_cast<size_t>(in.operands[0])].shape.element_type : "";
    if (op == "fusion" && !in.called.empty() && contents(in.called[0]).matrix) {
      matrix = true;
      type = contents(in.called[0]).matrix_type;
    }
    const double peak =
        matrix ? s_.matrix_peak(type) * s_.efficiency_of("matrix") : s_.vector_flops * s_.efficiency_of("vector");
    const double compute_t = peak > 0 ? (oc.flops + oc.transcendentals) / peak : 0;
    r.time_s = std::max(compute_t, memory_t);
    if (r.time_s > 0)
      r.bound = compute_t >= memory_t ? "compute" : "memory";
    if (!is_free(op))
      r.time_s += s_.op_overhead;
    return r;
  }

  double critical_path(int k) {
    const auto ku = static_cast<size_t>(k);
    if (path_[ku] >= 0)
      return path_[ku];
    path_[ku] = 0;  // guards against a call cycle, which valid HLO does not have
    const Computation& c = m_.computations[ku];
    std::vector<double> finish(c.instructions.size(), 0.0);
    double longest = 0;
    double serial = 0;
    for (size_t i = 0; i < c.instructions.size(); ++i) {
      const Instruction& in = c.instructions[i];
      InstructionReport r = time(k, in);
      r.computation = k;
      r.index = static_cast<int>(i);
      double start = 0;
      for (const int op : in.operands)
        if (static_cast<size_t>(op) < i)
          start = std::max(start, finish[static_cast<size_t>(op)]);
      finish[i] = start + r.time_s;
      longest = std::max(longest, finish[i]);
      serial += r.time_s;
      if (!c.is_fused)
        reports_[key(k, static_cast<int>(i))] = std::move(r);
    }
    path_[ku] = longest;
    serial_[ku] = serial;
    return longest;
  }

  // One execution of computation k as a device runs it and `chorus sim` runs the converted traces: its compute ops
  // one at a time in module order (one stream), each once its operands are ready; collectives beside the stream, as
  // soon as their operands are; free ops (parameters, tuples) pass their operands' time on; loops and calls take
  // their callees' stream time on the stream.
  double stream_time(int k) {
    const auto ku = static_cast<size_t>(k);
    if (stream_[ku] >= 0)
      return stream_[ku];
    stream_[ku] = 0;  // guards against a call cycle, which valid HLO does not have
    const Computation& c = m_.computations[ku];
    std::vector<double> finish(c.instructions.size(), 0.0);
    double stream_free = 0;
    double end = 0;
    for (size_t i = 0; i < c.instructions.size(); ++i) {
      const Instruction& in = c.instructions[i];
      double ready = 0;
      for (const int op : in.operands)
        if (static_cast<size_t>(op) < i)
          ready = std::max(ready, finish[static_cast<size_t>(op)]);
      double t = 0;
      bool on_stream = true;
      if (in.opcode == "while" && in.called.size() == 2) {
        t = (stream_time(in.called[0]) + stream_time(in.called[1])) * trip_count(in);
      } else if (in.opcode == "call" || in.opcode == "async-start") {
        for (const int callee : in.called)
          t += stream_time(callee);
      } else if (in.opcode == "conditional") {
        for (const int callee : in.called)
          t = std::max(t, stream_time(callee));
      } else {
        t = reports_.at(key(k, static_cast<int>(i))).time_s;
        on_stream = !is_collective(in.opcode);
      }
      if (t > 0 && on_stream) {
        finish[i] = std::max(ready, stream_free) + t;
        stream_free = finish[i];
      } else {
        finish[i] = ready + t;
      }
      end = std::max(end, finish[i]);
    }
    stream_[ku] = end;
    return end;
  }

  const Module& m_;
  const System& s_;
  const AnalysisOptions& o_;
  CostModel costs_;
  std::vector<Contents> contents_;
  std::vector<bool> contents_done_;
  std::vector<double> path_;
  std::vector<double> serial_;
  std::vector<double> stream_;
  std::unordered_map<int64_t, InstructionReport> reports_;
};

}  // namespace

int replica_group_size(const Module& module, const Instruction& in, int npus) {
  const std::string where = fmt::format("line {}, column {}", in.line, in.column);
  if (in.opcode.starts_with("collective-permute") || in.opcode == "send" || in.opcode == "recv") {
    for (const int64_t id : numbers(in.attribute("source_target_pairs")))
      if (id < 0 || (npus > 0 && id >= npus))
        throw Error(
            module.source, where,
            fmt::format("source_target_pairs of %{} names device {}; expected ids below --npus {}", in.name, id, npus));
    return 2;
  }
  const std::string_view groups = in.attribute("replica_groups");
  if (groups.empty() || groups == "{}")
    return std::max(npus, 1);
  if (groups.front() == '[') {  // iota form [G,S]<=[N]: G groups of S devices
    const auto n = numbers(groups);
    if (n.size() < 3)
      throw Error(module.source, where,
                  fmt::format("replica_groups={} of %{}: expected [groups,size]<=[devices]", groups, in.name));
    if (n[0] < 1 || n[1] < 1 || n[0] > (int64_t{1} << 24) / n[1])
      throw Error(module.source, where,
                  fmt::format("replica_groups={} of %{}: expected [groups,size] from 1 to 2^24 devices in all", groups,
                              in.name));
    const size_t arrow = groups.find("<=");
    const size_t t = groups.find('T');
    int64_t devices = 1;
    for (const int64_t d :
         numbers(arrow == std::string_view::npos
                     ? std::string_view{}
                     : groups.substr(arrow, t == std::string_view::npos ? std::string_view::npos : t - arrow))) {
      if (d < 1 || d > (int64_t{1} << 24) / devices)
        throw Error(module.source, where,
                    fmt::format("replica_groups={} of %{}: expected device dimensions from 1 to 2^24 devices in all",
                                groups, in.name));
      devices *= d;
    }
    if (devices != n[0] * n[1])
      throw Error(module.source, where,
                  fmt::format("replica_groups={} of %{}: expected [groups,size] to hold as many devices as the iota",
                              groups, in.name));
    if (npus > 0 && n[0] * n[1] > npus)
      throw Error(module.source, where,
                  fmt::format("replica_groups={} of %{} needs {} devices; expected at most --npus {}", groups, in.name,
                              n[0] * n[1], npus));
    return static_cast<int>(n[1]);
  }
  // Explicit groups {{0,1,2,3},{4,5,6,7}}: the size of the first, every id below npus.
  const size_t first_end = groups.find('}');
  const auto first = numbers(groups.substr(0, first_end));
  for (const int64_t id : numbers(groups)) {
    if (id < 0 || id >= int64_t{1} << 24)
      throw Error(module.source, where,
                  fmt::format("replica_groups of %{} names device {}; expected ids from 0 to 2^24-1", in.name, id));
    if (npus > 0 && id >= npus)
      throw Error(
          module.source, where,
          fmt::format("replica_groups of %{} names device {}; expected ids below --npus {}", in.name, id, npus));
  }
  if (first.empty())
    throw Error(module.source, where,
                fmt::format("replica_groups={} of %{}: expected groups of device ids", groups, in.name));
  return static_cast<int>(first.size());
}

namespace {

// The device ids of the iota form [G,S]<=[d0,d1,..]T(p0,p1,..): iota over the dims, transposed by the
// permutation when there is one, flattened.
std::vector<uint32_t> iota_ids(const Module& module, const Instruction& in, const std::string& where,
                               std::string_view groups) {
  auto bad = [&](const std::string& why) {
    return Error(module.source, where, fmt::format("replica_groups={} of %{}: {}", groups, in.name, why));
  };
  const size_t arrow = groups.find("<=");
  if (arrow == std::string_view::npos)
    throw bad("expected [groups,size]<=[devices]");
  const size_t t = groups.find('T', arrow);
  const auto dims =
      numbers(groups.substr(arrow + 2, t == std::string_view::npos ? std::string_view::npos : t - arrow - 2));
  std::vector<int64_t> perm;
  if (t != std::string_view::npos)
    perm = numbers(groups.substr(t));
  else
    for (size_t i = 0; i < dims.size(); ++i)
      perm.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i) || sorted.size() != dims.size())
      throw bad("expected T(...) to permute the device dimensions");
  int64_t total = 1;
  for (const int64_t d : dims) {
    if (d < 1 || d > (int64_t{1} << 24) / total)
      throw bad("expected device dimensions from 1 to 2^24 devices in all");
    total *= d;
  }
  std::vector<int64_t> stride(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    stride[i - 1] = stride[i] * dims[i];
  std::vector<int64_t> index(dims.size(), 0);  // position in the transposed array, row-major
  std::vector<uint32_t> ids;
  ids.reserve(static_cast<size_t>(total));
  for (int64_t n = 0; n < total; ++n) {
    int64_t id = 0;
    for (size_t i = 0; i < dims.size(); ++i)
      id += index[i] * stride[static_cast<size_t>(perm[i])];
    ids.push_back(static_cast<uint32_t>(id));
    for (size_t i = dims.size(); i-- > 0;) {
      if (++index[i] < dims[static_cast<size_t>(perm[i])])
        break;
      index[i] = 0;
    }
  }
  return ids;
}

}  // namespace

std::vector<std::vector<uint32_t>> replica_group_members(const Module& module, const Instruction& in, int npus) {
  const std::string where = fmt::format("line {}, column {}", in.line, in.column);
  replica_group_size(module, in, npus);  // the checks on size and ids
  const std::string_view groups = in.attribute("replica_groups");
  std::vector<std::vector<uint32_t>> out;
  if (groups.empty() || groups == "{}") {
    out.emplace_back();
    for (int i = 0; i < std::max(npus, 1); ++i)
      out.back().push_back(static_cast<uint32_t>(i));
    return out;
  }
  if (groups.front() == '[') {
    const auto shape = numbers(groups.substr(0, groups.find("<=")));
    const std::vector<uint32_t> ids = iota_ids(module, in, where, groups);
    if (shape.size() != 2 || shape[0] * shape[1] != static_cast<int64_t>(ids.size()))
      throw Error(module.source, where,
                  fmt::format("replica_groups={} of %{}: expected [groups,size] to hold as many devices as the iota",
                              groups, in.name));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i % static_cast<size_t>(shape[1]) == 0)
        out.emplace_back();
      out.back().push_back(ids[i]);
    }
  } else {
    // {{0,1,2,3},{4,5,6,7}}: one group per inner brace pair.
    size_t pos = 1;
    while ((pos = groups.find('{', pos)) != std::string_view::npos) {
      const size_t end = groups.find('}', pos);
      out.emplace_back();
      for (const int64_t id : numbers(groups.substr(pos, end - pos)))
        out.back().push_back(static_cast<uint32_t>(id));
      pos = end;
    }
  }
  for (const auto& group : out) {
    std::vector<uint32_t> sorted = group;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw Error(module.source, where,
                  fmt::format("replica_groups of %{} names device {} twice in one group; expected distinct ids",
                              in.name, *std::adjacent_find(sorted.begin(), sorted.end())));
  }
  return out;
}

Analysis analyze(const Module& module, const System& system, const AnalysisOptions& options) {
  AnalysisOptions o = options;
  if (o.network != nullptr) {
    const auto npus = static_cast<int>(o.network->topology().npu_count());
    if (o.npus > npus)
      throw Error("", Argument{"npus"}, fmt::format("is {}; the network has only {} NPUs", o.npus, npus));
    if (o.npus == 0)
      o.npus = npus;  // replica_groups={} then spans the whole network
  }
  Analysis a = Analyzer(module, system, o).run();
  a.network = o.network != nullptr ? o.network->describe()
                                   : fmt::format(
                                         "{} interconnect: ring formulas at {:g} GB/s per device, {:g} us "
                                         "per step (no --network given)",
                                         system.name, system.network_bandwidth / 1e9, system.network_latency * 1e6);
  return a;
}

}  // namespace chorus::hlo
