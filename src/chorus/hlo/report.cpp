// Text, JSON and CSV renderings of an HLO analysis (report.hpp).
#include "chorus/hlo/report.hpp"

#include <fmt/format.h>

#include "chorus/io/csv.hpp"

namespace chorus::hlo {
namespace {

const Instruction& instruction(const Module& m, const InstructionReport& r) {
  return m.computations[static_cast<size_t>(r.computation)].instructions[static_cast<size_t>(r.index)];
}

const std::string& computation_name(const Module& m, int k) {
  return m.computations[static_cast<size_t>(k)].name;
}

}  // namespace

nlohmann::json analysis_to_json(const Module& m, const System& s, const Analysis& a) {
  nlohmann::json j;
  j["module"] = m.name;
  j["system"] = s.name;
  j["network"] = a.network;
  j["instructions"] = nlohmann::json::array();
  for (const InstructionReport& r : a.instructions) {
    const Instruction& in = instruction(m, r);
    nlohmann::json e = {
        {"name", in.name},        {"opcode", in.opcode}, {"computation", computation_name(m, r.computation)},
        {"category", r.category}, {"flops", r.flops},    {"transcendentals", r.transcendentals},
        {"bytes", r.bytes},       {"bound", r.bound},    {"time_ns", r.time_s * 1e9}};
    if (r.group_size > 0)
      e["group_size"] = r.group_size;
    if (r.lower_bound_s >= 0) {
      e["lower_bound_ns"] = r.lower_bound_s * 1e9;
      e["below_bound"] = r.below_bound;
      e["algorithm"] = r.algorithm;
    }
    j["instructions"].push_back(std::move(e));
  }
  j["computations"] = nlohmann::json::array();
  for (const ComputationReport& c : a.computations) {
    nlohmann::json cats = nlohmann::json::array();
    for (const CategoryTotal& t : c.categories)
      cats.push_back({{"category", t.category},
                      {"count", t.count},
                      {"flops", t.flops},
                      {"bytes", t.bytes},
                      {"time_ns", t.time_s * 1e9}});
    j["computations"].push_back({{"name", computation_name(m, c.index)},
                                 {"role", c.role},
                                 {"time_ns", c.critical_path_s * 1e9},
                                 {"serial_time_ns", c.serial_s * 1e9},
                                 {"stream_time_ns", c.stream_s * 1e9},
                                 {"categories", std::move(cats)}});
  }
  j["collectives"] = nlohmann::json::array();
  for (const CollectiveGroup& g : a.collectives)
    j["collectives"].push_back({{"replica_groups", g.replica_groups},
                                {"group_size", g.group_size},
                                {"count", g.count},
                                {"bytes_per_replica", g.bytes}});
  j["warnings"] = m.warnings;
  return j;
}

std::string analysis_table(const Module& m, const System& s, const Analysis& a) {
  std::string out = fmt::format("module {} on {}\ncollectives timed on {}\n\n", m.name, s.name, a.network);
  out += fmt::format("{:<40} {:<22} {:<24} {:>14} {:>14} {:<8} {:>12}\n", "instruction", "opcode", "category", "FLOPs",
                     "bytes", "bound", "time us");
  int last = -1;
  for (const InstructionReport& r : a.instructions) {
    if (r.computation != last) {
      out += fmt::format("-- %{}\n", computation_name(m, r.computation));
      last = r.computation;
    }
    const Instruction& in = instruction(m, r);
    out += fmt::format("{:<40} {:<22} {:<24} {:>14.0f} {:>14.0f} {:<8} {:>12.3f}\n", in.name, in.opcode, r.category,
                       r.flops, r.bytes, r.bound, r.time_s * 1e6);
  }
  out +=
      "\ncomputations (critical path of one execution: every independent op at once; one stream: compute ops one "
      "at a time, collectives beside them, as chorus sim runs the converted traces; serial = sum of op times)\n";
  for (const ComputationReport& c : a.computations) {
    out +=
        fmt::format("%{} [{}]: critical path {:.3f} us, one stream {:.3f} us, serial {:.3f} us\n",
                    computation_name(m, c.index), c.role, c.critical_path_s * 1e6, c.stream_s * 1e6, c.serial_s * 1e6);
    for (const CategoryTotal& t : c.categories)
      if (t.time_s > 0 || t.flops > 0)
        out += fmt::format("    {:<24} {:>6} ops {:>16.0f} FLOPs {:>14.0f} bytes {:>12.3f} us\n", t.category, t.count,
                           t.flops, t.bytes, t.time_s * 1e6);
  }
  bool header = false;
  for (const InstructionReport& r : a.instructions) {
    if (r.lower_bound_s < 0)
      continue;
    if (!header)
      out += "\ncollectives on the network (time vs physical lower bound of the slowest group)\n";
    header = true;
    out += fmt::format("    %{:<36} {:>12.3f} us  bound {:>12.3f} us  {}{}\n", instruction(m, r).name, r.time_s * 1e6,
                       r.lower_bound_s * 1e6, r.algorithm, r.below_bound ? "  BELOW ITS LOWER BOUND" : "");
  }
  if (!a.collectives.empty()) {
    out += "\ncollectives per replica group\n";
    for (const CollectiveGroup& g : a.collectives)
      out += fmt::format("    {} (group of {}): {} ops, {:.0f} bytes per replica\n", g.replica_groups, g.group_size,
                         g.count, g.bytes);
  }
  return out;
}

std::string analysis_csv(const Module& m, const Analysis& a) {
  std::string out = "computation,name,opcode,category,flops,transcendentals,bytes,bound,time_ns\n";
  for (const InstructionReport& r : a.instructions) {
    const Instruction& in = instruction(m, r);
    out += fmt::format("{},{},{},{},{:.0f},{:.0f},{:.0f},{},{:.3f}\n", csv_field(computation_name(m, r.computation)),
                       csv_field(in.name), in.opcode, csv_field(r.category), r.flops, r.transcendentals, r.bytes,
                       r.bound, r.time_s * 1e9);
  }
  return out;
}

}  // namespace chorus::hlo
