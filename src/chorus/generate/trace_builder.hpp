// A small builder of one rank's Chakra trace for the DLRM and MoE generators: compute nodes timed by the roofline
// of a GPU (fused/gpu.hpp) and collectives on the group of every NPU, with explicit data dependencies (so that
// independent work, e.g. the bottom MLP beside the embedding All-to-All, can overlap).
//
//   RankTrace t(gpu, "bf16");
//   const uint64_t emb = t.compute("embedding_fwd", flops, bytes, {});
//   t.collective("embedding_all_to_all_fwd", chakra::CommType::AllToAll, size, {emb});
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/fused/gpu.hpp"

namespace chorus {

class RankTrace {
 public:
  RankTrace(fused::GpuSpec gpu, std::string dtype);
  // A GPU COMP node: num_ops = flops, tensor_size = bytes, duration_micros = the roofline time (at least 1 us,
  // the trace's resolution). Returns its id.
  uint64_t compute(std::string name, double flops, double bytes, const std::vector<uint64_t>& deps);
  // A COMM_COLL node on the group of every NPU. Returns its id.
  uint64_t collective(std::string name, chakra::CommType type, int64_t bytes, const std::vector<uint64_t>& deps);
  chakra::ChakraTrace take() { return std::move(trace_); }

 private:
  chakra::TraceNode& add(std::string name, chakra::NodeType type, const std::vector<uint64_t>& deps);
  fused::GpuSpec gpu_;
  std::string dtype_;
  chakra::ChakraTrace trace_;
};

// Writes every rank's trace as `<directory>/<stem>.<rank>.et` (creating the directory); returns the prefix.
// `make(rank)` builds one rank's trace.
std::string write_rank_traces(const std::string& directory, const std::string& stem, uint32_t ranks, bool gzip,
                              const std::function<chakra::ChakraTrace(uint32_t)>& make);

}  // namespace chorus
