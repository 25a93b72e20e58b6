// Generated DLRM training iterations (Naumov et al. 2019, arXiv 1906.00091): embedding tables sharded
// model-parallel (whole tables per GPU), bottom and top MLPs data-parallel, the pooled embeddings exchanged by an
// All-to-All forward and their gradients by another backward, and the MLP gradients All-Reduced.
//
// Defaults are the MLPerf DLRM configuration of the reference implementation (facebookresearch/dlrm,
// bench/run_and_time.sh): sparse feature size (embedding dimension) 128, bottom MLP 13-512-256-128, top MLP
// 1024-1024-512-256-1, mini-batch 2048 (here per GPU), and Criteo Terabyte's 26 categorical features (one table
// each, one row looked up per sample: pooling 1). The top MLP's input is DLRM's dot interaction: the bottom
// output concatenated with the (F+1)F/2 pairwise dot products of the F+1 vectors.
//
// Per rank, with b samples per GPU, B = b * npus, t = ceil(tables / npus) tables here (the All-to-All is sized by
// the largest shard; GPUs past the last table hold none but still exchange their share of the batch):
//   0 embedding_fwd        COMP  B*t*pooling*dim adds, reading those rows
//   1 embedding_all_to_all_fwd  All-to-All of B*t*dim elements           (depends on 0 only: fusable)
//   2 bottom_mlp_fwd       COMP  (independent of 0 and 1: overlaps the All-to-All unfused)
//   3 interaction_fwd      COMP  (1, 2)
//   4 top_mlp_fwd, 5 top_mlp_bwd, 6 interaction_bwd   COMP chain
//   7 embedding_all_to_all_bwd  All-to-All of the same size               (depends on 6 only: fusable)
//   8 bottom_mlp_bwd (6), 9 embedding_bwd (7: the scatter-add of the gradient rows)
//   10 mlp_all_reduce      All-Reduce of the bottom and top MLP gradients (5, 8)
// Compute times are the roofline of the GPU (fused/gpu.hpp); elements are `dtype`.
//
//   write_dlrm("traces/dlrm", DlrmSpec{.nodes = 128, .gpus_per_node = 8}, false);   // traces/dlrm/dlrm.<r>.et
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/fused/gpu.hpp"

namespace chorus {

struct DlrmSpec {
  uint32_t nodes = 1;
  uint32_t gpus_per_node = 8;
  uint32_t tables = 26;
  uint32_t dim = 128;
  uint32_t pooling = 1;
  uint32_t batch_per_gpu = 2048;
  std::vector<uint32_t> bottom_mlp{13, 512, 256, 128};     // input, then layer outputs
  std::vector<uint32_t> top_mlp{1024, 1024, 512, 256, 1};  // layer outputs (the input is the interaction)
  std::string dtype = "fp32";
  fused::GpuSpec gpu;
};

// Throws chorus::Error naming the Argument for inconsistent sizes (the bottom MLP not ending at dim, zero tables,
// a GPU count past the generator's limit).
void validate(const DlrmSpec& spec);

// The pooled-embedding All-to-All's comm_size per GPU (bytes).
int64_t dlrm_all_to_all_bytes(const DlrmSpec& spec);

// Writes `<directory>/dlrm.<rank>.et` for every rank and returns the prefix.
std::string write_dlrm(const std::string& directory, const DlrmSpec& spec, bool gzip);

}  // namespace chorus
