// nccl-tests output logs (see nccl_tests_log.hpp).
#include "chorus/sweep/nccl_tests_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/text_file.hpp"

namespace chorus {

namespace {

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])))
      ++at;
    const size_t begin = at;
    while (at < line.size() && !std::isspace(static_cast<unsigned char>(line[at])))
      ++at;
    if (at > begin)
      out.push_back(line.substr(begin, at - begin));
  }
  return out;
}

// mpirun --tag-output writes "[1,0]<stdout>:" before each line.
std::string_view strip_mpi_prefix(std::string_view line) {
  const size_t tag = line.find("]<stdout>:");
  if (!line.empty() && line[0] == '[' && tag != std::string_view::npos)
    return line.substr(tag + 10);
  return line;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Where the columns are, from the header line.
struct Layout {
  bool has_root = false;
  size_t groups = 0;  // (time, algbw, busbw, #wrong) groups: 2 = out-of-place and in-place
};

std::optional<Layout> header_layout(const std::vector<std::string_view>& words) {
  const bool table_header = std::find(words.begin(), words.end(), "size") != words.end() &&
                            std::find(words.begin(), words.end(), "count") != words.end() &&
                            std::find(words.begin(), words.end(), "busbw") != words.end();
  if (!table_header)
    return std::nullopt;
  Layout layout;
  layout.has_root = std::find(words.begin(), words.end(), "root") != words.end();
  layout.groups = static_cast<size_t>(std::count(words.begin(), words.end(), "time"));
  return layout;
}

class RowParser {
 public:
  RowParser(const std::string& source, size_t line) : source_(source), line_(line) {}

  [[noreturn]] void fail(const char* field, const std::string& message) const {
    throw Error(source_, fmt::format("line {}: {}", line_, field), message);
  }

  int64_t integer(std::string_view text, const char* field) const {
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
      fail(field, fmt::format("'{}' is not a whole number >= 0", text));
    return value;
  }

  // nccl-tests prints times and bandwidths with %f or, when they do not fit, %e ("1.2e+07").
  double number(std::string_view text, const char* field) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
      fail(field, fmt::format("'{}' is not a number >= 0", text));
    return value;
  }

  NcclTestsMeasurement measurement(const std::vector<std::string_view>& words, size_t at) const {
    NcclTestsMeasurement m;
    m.time_us = number(words[at], "time");
    m.algbw_GBps = number(words[at + 1], "algbw");
    m.busbw_GBps = number(words[at + 2], "busbw");
    if (words[at + 3] != "N/A")
      number(words[at + 3], "#wrong");
    return m;
  }

  NcclTestsRow row(const std::vector<std::string_view>& words, const Layout& layout) const {
    const size_t first_group = layout.has_root ? 5 : 4;
    const size_t needed = first_group + 4 * layout.groups;
    if (words.size() < needed) {
      fail("columns", fmt::format("{} columns; the header announces {} (size, count, type, redop{}, then time, "
                                  "algbw, busbw, #wrong per group)",
                                  words.size(), needed, layout.has_root ? ", root" : ""));
    }
    NcclTestsRow row;
    row.line = line_;
    const int64_t size = integer(words[0], "size");
    if (size > kMaxSizeBytes)
      fail("size", fmt::format("{} bytes is above 1 PiB", size));
    row.size = Bytes(size);
    row.count = integer(words[1], "count");
    row.type = std::string(words[2]);
    row.redop = std::string(words[3]);
    row.out_of_place = measurement(words, first_group);
    if (layout.groups >= 2)
      row.in_place = measurement(words, first_group + 4);
    return row;
  }

 private:
  const std::string& source_;
  size_t line_;
};

// "#  Rank  3 Group  0 ...", "#Rank 3 Group ..." or, from rendered markdown, "Rank  3 Group ...".
bool is_rank_line(const std::vector<std::string_view>& words) {
  size_t i = 0;
  if (words[0] == "#")
    i = 1;
  std::string_view first = i < words.size() ? words[i] : std::string_view{};
  if (i == 0 && first.starts_with('#'))
    first.remove_prefix(1);
  return first == "Rank" && i + 2 < words.size() && all_digits(words[i + 1]) && words[i + 2] == "Group";
}

std::string program_named(std::string_view text) {
  constexpr std::string_view kPrograms[] = {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
                                            "alltoall_perf",   "broadcast_perf",  "reduce_perf"};
  for (const std::string_view program : kPrograms) {
    if (text.find(program) != std::string_view::npos)
      return std::string(program);
  }
  return {};
}

}  // namespace

const NcclTestsRow* NcclTestsLog::find(Bytes size) const {
  const auto it = std::find_if(rows.begin(), rows.end(), [size](const NcclTestsRow& r) { return r.size == size; });
  return it == rows.end() ? nullptr : &*it;
}

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& source) {
  NcclTestsLog log;
  log.source = source;
  log.program = program_named(text);
  std::optional<Layout> layout;
  size_t line_number = 0;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = strip_mpi_prefix(text.substr(begin, end - begin));
    begin = end + 1;
    ++line_number;
    const std::vector<std::string_view> words = tokens(line);
    if (words.empty())
      continue;
    if (is_rank_line(words)) {
      ++log.ranks;
      continue;
    }
    if (words[0].starts_with('#')) {
      if (const std::optional<Layout> found = header_layout(words); found && !layout) {
        if (found->groups == 0)
          throw Error(source, fmt::format("line {}: header", line_number), "the column header names no 'time' column");
        layout = found;
      }
      continue;
    }
    if (!all_digits(words[0]))
      continue;  // NCCL INFO lines and other output between the rows
    if (!layout) {
      throw Error(source, fmt::format("line {}: header", line_number),
                  "a result row before the nccl-tests column header ('#  size  count  type  redop ...')");
    }
    log.rows.push_back(RowParser(source, line_number).row(words, *layout));
  }
  if (!layout) {
    throw Error(source, "header",
                "no nccl-tests column header ('#  size  count  type  redop  root  time  algbw  busbw ...'); is this "
                "the output of an nccl-tests program such as all_reduce_perf?");
  }
  if (log.rows.empty())
    throw Error(source, "rows", "the nccl-tests log has a column header but no result row");
  return log;
}

NcclTestsLog read_nccl_tests_log(const std::string& path) {
  return parse_nccl_tests_log(read_text_file(path), path);
}

}  // namespace chorus
