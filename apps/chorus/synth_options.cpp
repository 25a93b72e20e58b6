// Synthesizer flags (see synth_options.hpp).
#include "synth_options.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"

namespace chorus::cli {

namespace {

uint32_t parse_id(const std::string& text, const std::string& flag) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw Error("", flag, fmt::format("'{}' is not a node id", text));
  return checked_npu_id(value, "", flag);  // below 2^24, so that a range "a-b" can loop up to b inclusive
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, separator);)
    items.push_back(item);
  return items;
}

// "0-63,70": ranges and single ids, in the order given.
std::vector<uint32_t> parse_id_list(const std::string& text, const std::string& flag) {
  std::vector<uint32_t> ids;
  for (const std::string& item : split(text, ',')) {
    const size_t dash = item.find('-');
    if (dash == std::string::npos) {
      ids.push_back(parse_id(item, flag));
      continue;
    }
    const uint32_t first = parse_id(item.substr(0, dash), flag);
    const uint32_t last = parse_id(item.substr(dash + 1), flag);
    if (last < first || last - first > (1u << 24))
      throw Error("", flag, fmt::format("'{}' is not a range", item));
    for (uint32_t n = first; n <= last; ++n)
      ids.push_back(n);
  }
  return ids;
}

std::vector<std::pair<uint32_t, uint32_t>> parse_link_list(const std::string& text, const std::string& flag) {
  std::vector<std::pair<uint32_t, uint32_t>> links;
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> ends = split(item, '-');
    if (ends.size() != 2)
      throw Error("", flag, fmt::format("'{}' is not a link; write A-B", item));
    links.push_back({parse_id(ends[0], flag), parse_id(ends[1], flag)});
  }
  return links;
}

std::optional<ChunkPriority> parse_priority(const std::string& text) {
  for (ChunkPriority p : {ChunkPriority::Unique, ChunkPriority::Fresh, ChunkPriority::Scarce, ChunkPriority::Random}) {
    if (text == to_string(p))
      return p;
  }
  if (text == "auto")
    return std::nullopt;
  throw Error("", "--priority",
              fmt::format("unknown priority '{}'; expected auto, unique, fresh, scarce or random", text));
}

constexpr int64_t kMaxExactBoundVariables = int64_t{1} << 22;

}  // namespace

void add_synth_flags(CLI::App& command, SynthFlags& flags) {
  command.add_option("--chunks", flags.chunks, "chunks per NPU, or auto (default: chorus chooses)");
  command.add_option("--seed", flags.seed, "seed of the synthesizer's choices (default 1); same seed, same result");
  command.add_option("--priority", flags.priority, "chunk priority: auto (default) | unique | fresh | scarce | random");
  command.add_option("--npus", flags.npus, "the NPUs taking part (a tenant), e.g. 0-63,70 (default: all)");
  command.add_option("--fail-links", flags.fail_links, "failed links (both directions), e.g. 3-4,17-18");
  command.add_option("--fail-npus", flags.fail_npus, "failed NPUs, e.g. 5,9");
  command.add_option("--root", flags.root, "Broadcast / Reduce root NPU (default 0)");
  command.add_option("--scan-cap", flags.scan_cap,
                     "options scored per link choice (default: 48 up to 256 NPUs, else 8)");
  command.add_option("--exact-bound-limit", flags.exact_bound_limit,
                     "All-to-All: the largest concurrent-flow LP solved exactly for the bound, in flow variables "
                     "(sources x links; default 16384, an 8x8 torus; 0: never)");
  command.add_option("--search-effort", flags.search_effort,
                     "work cap of the chunk / priority search in chunk deliveries (default 2097152)");
}

SynthOptions make_synth_options(const SynthFlags& flags, CollectiveKind kind, Bytes size) {
  SynthOptions o;
  o.kind = kind;
  o.size = size;
  o.seed = flags.seed;
  o.root = flags.root;
  o.search_effort = flags.search_effort;
  o.scan_cap = flags.scan_cap;
  if (const std::optional<int64_t> limit = flags.exact_bound_limit) {
    if (kind != CollectiveKind::AllToAll)
      throw Error("", "--exact-bound-limit", "applies to all_to_all only (the concurrent-flow bound)");
    // GLPK holds the LP and its factorization in memory and aborts the process when an allocation fails.
    if (*limit < 0 || *limit > kMaxExactBoundVariables) {
      throw Error("", "--exact-bound-limit",
                  fmt::format("is {}; must be 0 to {} flow variables (the LP grows with it, and a 64-NPU graph needs "
                              "about 20,000)",
                              *limit, kMaxExactBoundVariables));
    }
    o.exact_bound_limit = static_cast<uint64_t>(*limit);
  }
  if (flags.chunks != "auto") {
    o.chunks_per_npu = parse_id(flags.chunks, "--chunks");
    if (o.chunks_per_npu == 0 || o.chunks_per_npu > 4096)
      throw Error("", "--chunks", fmt::format("is {}; must be 1 to 4096 or auto", flags.chunks));
  }
  o.priority = parse_priority(flags.priority);
  if (!flags.npus.empty())
    o.graph.group = parse_id_list(flags.npus, "--npus");
  if (!flags.fail_links.empty())
    o.graph.failed_links = parse_link_list(flags.fail_links, "--fail-links");
  if (!flags.fail_npus.empty())
    o.graph.failed_npus = parse_id_list(flags.fail_npus, "--fail-npus");
  return o;
}

}  // namespace chorus::cli
