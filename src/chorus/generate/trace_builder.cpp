// One rank's trace for the DLRM and MoE generators (see trace_builder.hpp).
#include "chorus/generate/trace_builder.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/overlap/fused_model.hpp"

namespace chorus {

RankTrace::RankTrace(fused::GpuSpec gpu, std::string dtype) : gpu_(std::move(gpu)), dtype_(std::move(dtype)) {
  trace_.version = "0.0.4";
}

chakra::TraceNode& RankTrace::add(std::string name, chakra::NodeType type, const std::vector<uint64_t>& deps) {
  chakra::TraceNode n;
  n.id = trace_.nodes.size();
  n.name = std::move(name);
  n.type = type;
  n.data_deps.assign(deps.begin(), deps.end());
  trace_.nodes.push_back(std::move(n));
  return trace_.nodes.back();
}

uint64_t RankTrace::compute(std::string name, double flops, double bytes, const std::vector<uint64_t>& deps) {
  chakra::TraceNode& n = add(std::move(name), chakra::NodeType::Comp, deps);
  n.num_ops = static_cast<int64_t>(std::min(flops, 9e18));
  n.tensor_size = static_cast<int64_t>(std::min(bytes, 9e18));
  const Time t = fused::roofline_time(gpu_, dtype_, flops, bytes, 1.0);
  n.duration_micros = static_cast<uint64_t>(std::max<int64_t>(std::llround(t.microseconds()), 1));
  return n.id;
}

uint64_t RankTrace::collective(std::string name, chakra::CommType type, int64_t bytes,
                               const std::vector<uint64_t>& deps) {
  chakra::TraceNode& n = add(std::move(name), chakra::NodeType::CommColl, deps);
  n.comm_type = static_cast<int64_t>(type);
  n.comm_size = bytes;
  return n.id;
}

std::string write_rank_traces(const std::string& directory, const std::string& stem, uint32_t ranks, bool gzip,
                              const std::function<chakra::ChakraTrace(uint32_t)>& make) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    throw Error(directory, Argument{"out"}, fmt::format("cannot create the directory: {}", ec.message()));
  const std::string prefix = (std::filesystem::path(directory) / stem).string();
  for (uint32_t rank = 0; rank < ranks; ++rank)
    chakra::write_chakra_trace(fmt::format("{}.{}.et", prefix, rank), make(rank), gzip);
  return prefix;
}

}  // namespace chorus
