// All-to-All demand matrices (see demand.hpp).
#include "chorus/synth/demand.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"

namespace chorus {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string cell(uint32_t row, uint32_t column) {
  return fmt::format("row {}, column {}", row, column);
}

// One entry: a size (parse_size's forms); its own message names the row and column.
int64_t parse_entry(std::string_view text, const std::string& source, uint32_t row, uint32_t column) {
  if (text.empty())
    throw Error(source, cell(row, column), "is empty; expected a size in bytes (e.g. 1048576 or 1MiB)");
  if (text.front() == '-')
    throw Error(source, cell(row, column), fmt::format("is '{}'; sizes must be >= 0", text));
  try {
    return parse_size(text, "demand").count();
  } catch (const Error&) {
    throw Error(source, cell(row, column),
                fmt::format("is '{}'; expected a size in bytes (e.g. 1048576 or 1MiB)", text));
  }
}

}  // namespace

DemandMatrix parse_demand_csv(std::string_view text, const std::string& source, uint32_t npus) {
  DemandMatrix m{source, npus, std::vector<int64_t>(size_t{npus} * npus, 0)};
  uint32_t row = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line.front() == '#')
      continue;
    if (row >= npus)
      throw Error(source, fmt::format("row {}", row),
                  fmt::format("is one row too many; the topology has {} NPUs", npus));
    uint32_t column = 0;
    size_t at = 0;
    while (true) {
      const size_t comma = std::min(line.find(',', at), line.size());
      if (column >= npus) {
        throw Error(source, cell(row, column), fmt::format("is one column too many; the topology has {} NPUs", npus));
      }
      m.bytes[size_t{row} * npus + column] = parse_entry(trim(line.substr(at, comma - at)), source, row, column);
      ++column;
      if (comma == line.size())
        break;
      at = comma + 1;
    }
    if (column != npus)
      throw Error(source, cell(row, column), fmt::format("is missing: row {} has {} of {} columns", row, column, npus));
    ++row;
  }
  if (row != npus)
    throw Error(source, fmt::format("row {}", row), fmt::format("is missing: the file has {} of {} rows", row, npus));
  for (uint32_t v = 0; v < npus; ++v)
    m.bytes[size_t{v} * npus + v] = 0;
  return m;
}

DemandMatrix read_demand_csv(const std::string& path, uint32_t npus) {
  std::ifstream in(path);
  if (!in)
    throw Error(path, Argument{"demand"}, "cannot open for reading");
  // Bounded: N rows of N entries of at most a few dozen characters each (comments aside).
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  const uintmax_t limit = uintmax_t{npus} * npus * 64 + (uintmax_t{1} << 20);
  if (!ec && size > limit)
    throw Error(path, Argument{"demand"}, fmt::format("is {} bytes, too large for a {} x {} matrix", size, npus, npus));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_demand_csv(text.str(), path, npus);
}

std::vector<int64_t> member_demand(const DemandMatrix& m, const SynthGraph& graph) {
  const uint32_t n = graph.member_count();
  std::vector<int64_t> rank(m.npus, -1);
  for (uint32_t r = 0; r < n; ++r)
    rank[graph.global_node(r).value] = r;
  std::vector<int64_t> out(size_t{n} * n, 0);
  for (uint32_t s = 0; s < m.npus; ++s) {
    for (uint32_t d = 0; d < m.npus; ++d) {
      const int64_t b = m.at(s, d);
      if (b == 0 || s == d)
        continue;
      if (rank[s] < 0 || rank[d] < 0) {
        throw Error(m.source, cell(s, d),
                    fmt::format("is {} bytes to or from NPU {}, which is failed or outside the group; it must be 0", b,
                                rank[s] < 0 ? s : d));
      }
      out[static_cast<size_t>(rank[s]) * n + static_cast<size_t>(rank[d])] = b;
    }
  }
  return out;
}

}  // namespace chorus
