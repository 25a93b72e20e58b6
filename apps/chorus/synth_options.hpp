// Command-line flags of the synthesizer, shared by `chorus synth` and `chorus collective --algorithm synth`:
//   --chunks N|auto  --seed N  --priority auto|unique|fresh|scarce|random  --npus 0-63,70  --fail-links 3-4,17-18
//   --fail-npus 5,9  --root N  --search-effort DELIVERIES  --scan-cap N  --exact-bound-limit VARIABLES
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "chorus/synth/synthesize.hpp"

namespace chorus::cli {

struct SynthFlags {
  std::string chunks = "auto";
  uint64_t seed = 1;
  std::string priority = "auto";
  std::string npus;
  std::string fail_links;
  std::string fail_npus;
  uint32_t root = 0;
  uint64_t search_effort = uint64_t{1} << 21;
  uint32_t scan_cap = 0;
  std::optional<int64_t> exact_bound_limit;  // given or not; signed: a negative value is refused as itself
};

void add_synth_flags(CLI::App& command, SynthFlags& flags);
// Throws chorus::Error naming the flag on a malformed value.
SynthOptions make_synth_options(const SynthFlags& flags, CollectiveKind kind, Bytes size);

}  // namespace chorus::cli
