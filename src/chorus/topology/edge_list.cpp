// Edge-list reader (see edge_list.hpp): one pass over the lines, every error pinned to its line number.
#include "chorus/topology/edge_list.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/text_file.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

namespace {

struct Line {
  size_t number = 0;  // 1-based, for messages
  std::vector<std::string> fields;
};

std::vector<std::string> split_fields(std::string_view text) {
  text = text.substr(0, text.find('#'));  // a comment runs to the end of the line
  std::vector<std::string> fields;
  std::istringstream stream{std::string(text)};
  for (std::string field; stream >> field;)
    fields.push_back(field);
  return fields;
}

class EdgeListParser {
 public:
  explicit EdgeListParser(std::string path) : path_(std::move(path)) {}

  Topology parse(std::istream& in) {
    std::optional<TopologyBuilder> builder;
    size_t number = 0;
    for (std::string text; std::getline(in, text);) {
      Line line{++number, split_fields(text)};
      if (line.fields.empty())
        continue;
      if (!builder) {
        builder.emplace(std::filesystem::path(path_).stem().string(), read_npu_count(line), path_);
      } else {
        add_link(*builder, line);
      }
    }
    if (!builder)
      throw Error(path_, fmt::format("line {}", number + 1), "missing NPU count; the file has no data lines");
    return std::move(*builder).seal();
  }

 private:
  [[noreturn]] void fail(const Line& line, const std::string& message) const {
    throw Error(path_, fmt::format("line {}", line.number), message);
  }

  uint32_t read_id(const Line& line, size_t field, uint32_t npus) const {
    const std::string& text = line.fields[field];
    uint32_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(line, fmt::format("'{}' is not an NPU id", text));
    if (value >= npus)
      fail(line, fmt::format("NPU id {} out of range; the topology has {} NPUs", value, npus));
    return value;
  }

  double read_number(const Line& line, size_t field) const {
    const std::string& text = line.fields[field];
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
      fail(line, fmt::format("'{}' is not a number", text));
    }
    return value;
  }

  uint32_t read_npu_count(const Line& line) const {
    if (line.fields.size() != 1) {
      fail(line, fmt::format("expected the NPU count alone on the first line, found {} fields", line.fields.size()));
    }
    const std::string& text = line.fields[0];
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
      fail(line, fmt::format("NPU count {} is too large", text));
    if (ec != std::errc() || end != text.data() + text.size()) {
      fail(line, fmt::format("'{}' is not an NPU count", text));
    }
    if (value == 0)
      fail(line, "NPU count is 0; must be >= 1");
    if (value > max_npus)
      fail(line, fmt::format("NPU count {} is too large; at most {} are supported", value, max_npus));
    return static_cast<uint32_t>(value);
  }

  void add_link(TopologyBuilder& builder, const Line& line) const {
    if (line.fields.size() != 4) {
      fail(line, fmt::format("expected 4 fields (src dst bandwidth_GiBps latency_us), found {}", line.fields.size()));
    }
    const uint32_t npus = builder.node_count();  // edge lists hold NPUs only
    const uint32_t src = read_id(line, 0, npus);
    const uint32_t dst = read_id(line, 1, npus);
    if (src == dst)
      fail(line, fmt::format("self-loop on NPU {}", src));
    const double gib_per_s = read_number(line, 2);
    if (gib_per_s <= 0)
      fail(line, fmt::format("bandwidth {} GiB/s must be > 0", line.fields[2]));
    if (Bandwidth::gib_per_s(gib_per_s).bytes_per_second() < kMinBandwidthBytesPerS ||
        Bandwidth::gib_per_s(gib_per_s).bytes_per_second() > kMaxBandwidthBytesPerS)
      fail(line, fmt::format("bandwidth {} GiB/s is outside 1e-6 to 1e9 GiB/s", line.fields[2]));
    const double latency_us = read_number(line, 3);
    if (latency_us < 0)
      fail(line, fmt::format("latency {} us must be >= 0", line.fields[3]));
    if (latency_us * 1e6 > static_cast<double>(limits::kMaxLinkLatencyPs))
      fail(line, fmt::format("latency {} us is more than 1 s (kMaxLinkLatencyPs)", line.fields[3]));
    builder.add_link(NodeId{src}, NodeId{dst}, Bandwidth::gib_per_s(gib_per_s),
                     Time::ps(std::llround(latency_us * 1e6)));
  }

  std::string path_;
};

}  // namespace

Topology load_edge_list(const std::string& path) {
  std::istringstream in(read_text_file(path));  // read_text_file rejects a directory with a clear error
  return EdgeListParser(path).parse(in);
}

}  // namespace chorus
