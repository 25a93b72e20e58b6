// ASTRA-sim-style microbenchmark traces (see microbench.hpp).
#include "chorus/generate/microbench.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "chorus/chakra/trace_directory.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/core/progress.hpp"

namespace chorus {

std::string write_microbench(const std::string& directory, const MicrobenchSpec& spec, bool gzip, Progress* progress) {
  if (spec.npus < 2)
    throw Error("", Argument{"npus"}, fmt::format("is {}; a collective needs at least 2 NPUs", spec.npus));
  if (spec.npus > limits::kMaxGeneratedNpus) {
    throw Error("", Argument{"npus"},
                fmt::format("is {}; must be at most {} rank files (kMaxGeneratedNpus in src/chorus/core/limits.hpp)",
                            spec.npus, limits::kMaxGeneratedNpus));
  }
  if (spec.comm_size <= 0)
    throw Error("", Argument{"size"}, "must be > 0 bytes");
  std::string collective = chakra::to_string(spec.type);
  std::transform(collective.begin(), collective.end(), collective.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string prefix = make_trace_directory(directory, collective);
  ProgressScope written(progress, "generate: rank files written", spec.npus);
  for (uint32_t rank = 0; rank < spec.npus; ++rank) {
    chakra::ChakraTrace trace;
    trace.version = "0.0.4";
    chakra::TraceNode node;
    node.id = rank;  // ASTRA-sim's scripts number nodes with one counter across the files they write
    node.name = fmt::format("{}_{}npus_{}B", collective, spec.npus, spec.comm_size);
    node.type = chakra::NodeType::CommColl;
    node.comm_type = static_cast<int64_t>(spec.type);
    node.comm_size = spec.comm_size;
    trace.nodes.push_back(std::move(node));
    write_chakra_trace(rank_file(prefix, rank), trace, gzip);
    written.advance();
  }
  return prefix;
}

}  // namespace chorus
