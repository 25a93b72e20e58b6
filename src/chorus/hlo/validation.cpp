// Op-profile validation of the HLO cost model (validation.hpp).
#include "chorus/hlo/validation.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/cost.hpp"
#include "chorus/hlo/parser.hpp"

namespace chorus::hlo {
namespace {

// Splits one CSV record (RFC 4180 quoting; the HLO column holds commas and doubled quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

int column(const std::vector<std::string>& header, const std::string& name, const std::string& path) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name)
      return static_cast<int>(i);
  throw Error(path, name, "column is missing from the header");
}

double number(const std::string& text, const std::string& path, int row, const std::string& field) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
    throw Error(path, fmt::format("line {}: {}", row, field), fmt::format("is '{}'; expected a number", text));
  if (text.find_first_of("xX") != std::string::npos)  // strtod reads hexadecimal; a profile never holds it
    throw Error(path, fmt::format("line {}: {}", row, field), fmt::format("is '{}'; expected a decimal number", text));
  if (v < 0)
    throw Error(path, fmt::format("line {}: {}", row, field), fmt::format("is {}; expected >= 0", text));
  return v;
}

}  // namespace

std::vector<ProfileOp> read_op_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path, "", "cannot open for reading");
  std::string line;
  if (!std::getline(in, line))
    throw Error(path, "header", "is missing (empty file)");
  const auto header = csv_fields(line);
  const int category = column(header, "Category", path);
  const int hlo = column(header, "HLO op", path);
  const int self = column(header, "Avg. self time (us)", path);
  const int gflops = column(header, "Measured GFLOP/s", path);
  const int bw = column(header, "Measured Memory BW (GiB/s)", path);
  const int bound = column(header, "Bound by", path);
  std::vector<ProfileOp> ops;
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.empty())
      continue;
    const auto f = csv_fields(line);
    if (f.size() < header.size())
      throw Error(path, fmt::format("line {}", row),
                  fmt::format("has {} fields; expected {}", f.size(), header.size()));
    ProfileOp op;
    op.row = row;
    op.category = f[static_cast<size_t>(category)];
    op.hlo = f[static_cast<size_t>(hlo)];
    op.self_time_us = number(f[static_cast<size_t>(self)], path, row, "Avg. self time (us)");
    op.gflops_per_s = number(f[static_cast<size_t>(gflops)], path, row, "Measured GFLOP/s");
    op.gib_per_s = number(f[static_cast<size_t>(bw)], path, row, "Measured Memory BW (GiB/s)");
    op.bound_by = f[static_cast<size_t>(bound)];
    ops.push_back(std::move(op));
  }
  return ops;
}

ProfileValidation validate_profile(const std::vector<ProfileOp>& ops, const System& system, const std::string& name) {
  ProfileValidation v;
  v.name = name;
  for (const ProfileOp& op : ops) {
    ++v.ops;
    if (op.hlo.find(" fusion(") != std::string::npos) {
      ++v.fusions;
      continue;
    }
    Module m;
    try {
      m = parse_instruction_line(op.hlo, fmt::format("{} line {}", name, op.row));
    } catch (const Error&) {
      ++v.unparsed;
      continue;
    }
    if (m.computations.size() > 1)
      ++v.assumed_reducers;
    const Analysis a = analyze(m, system, {});
    const InstructionReport& r = a.instructions.front();
    const Instruction& in = m.computations[0].instructions[0];
    ValidationRow row;
    row.row = op.row;
    row.name = in.name;
    row.opcode = in.opcode;
    row.category = op.category;
    row.measured_flops = op.gflops_per_s * 1e9 * op.self_time_us * 1e-6;
    row.predicted_flops = r.flops;
    row.measured_time_s = op.self_time_us * 1e-6;
    row.predicted_time_s = r.time_s;
    row.measured_bound = op.bound_by;
    row.predicted_bound = r.bound;
    row.collective = is_collective(in.opcode);
    const bool matrix = in.opcode == "dot" || in.opcode == "convolution";
    row.op_class = matrix ? "matrix" : "vector";
    const std::string type =
        matrix && !in.operands.empty()
            ? m.computations[0].instructions[static_cast<size_t>(in.operands[0])].shape.element_type
            : "";
    const double peak = matrix ? system.matrix_peak(type) : system.vector_flops;
    row.compute_peak_s = peak > 0 ? (r.flops + r.transcendentals) / peak : 0;
    row.memory_peak_s = r.bytes / system.memory_bandwidth;
    if (row.collective) {
      ++v.collectives;
    } else {
      const bool match = std::abs(row.predicted_flops - row.measured_flops) <= 0.02 * row.measured_flops;
      ++v.flop_checked;
      v.flop_within_2pct += match ? 1 : 0;
      if (row.measured_flops > 0 || row.predicted_flops > 0) {
        ++v.flop_nonzero;
        v.flop_nonzero_within_2pct += match ? 1 : 0;
      }
    }
    v.rows.push_back(std::move(row));
  }
  return v;
}

}  // namespace chorus::hlo
