// The five fused operators: what each computes per GPU, which collective consumes it, and how its output splits
// into workgroup tiles. Shapes follow the tensor-parallel / expert-parallel layouts the operators come from
// (Punniyamurthy, Hamidouche, Beckmann, SC24, arXiv 2305.06942, for the first three; the collective-matmul
// decomposition for the last two):
//
// - gemv-all-reduce: row-parallel GEMV of transformer inference: W [M, K] split along K, each GPU multiplies
//   W[:, K/P] by its x slice and the partial y [M] is All-Reduced. Reduction at the receiving GPU (each slice's
//   owner sums the partials as they land).
// - embedding-all-to-all: DLRM's model-parallel embeddings: each GPU pools `pooling` rows of `n` tables for the
//   global batch M, vectors of dimension K; the pooled [M, n, K] goes All-to-All (each GPU keeps M/P samples).
//   Aggregation (pooling) happens at the sender, before the tile leaves.
// - gemm-all-to-all: an MoE expert GEMM [M, K] x [K, N] on the tokens routed here, its output going back by the
//   combine All-to-All.
// - gemm-reduce-scatter: row-parallel GEMM [M, K/P] x [K/P, N], partial [M, N] Reduce-Scattered (reduced at the
//   slice owner).
// - all-gather-gemm: the input [M, K] sharded by rows (M/P each) is All-Gathered while [M, K] x [K, N/P]
//   proceeds shard by shard (tiles = P, the local shard first).
// Tiles: one workgroup computes one output tile (GEMM 128 x 128, GEMV 32 rows, embedding 32 samples of one
// table); tiles run in waves of one per compute unit not reserved for communication, and a wave is the finest
// grain at which a tile's data is complete. These tile shapes are chorus's choice (common library macro-tiles),
// not measured values.
//
//   OperatorWork w = operator_work(FusedOp::GemvAllReduce, {8192, 8192, 0}, 8);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/fused/pipeline.hpp"

namespace chorus::fused {

enum class FusedOp : uint8_t { GemvAllReduce, EmbeddingAllToAll, GemmAllToAll, GemmReduceScatter, AllGatherGemm };

std::string to_string(FusedOp op);
std::optional<FusedOp> parse_fused_op(const std::string& text);
std::vector<std::string> fused_op_names();

chakra::CommType collective_of(FusedOp op);
PipelineOrder order_of(FusedOp op);
// The fused operator a compute -> collective chain forms when the compute node's name does not say more
// (chorus fuse): All-Reduce -> gemv-all-reduce, All-to-All -> gemm-all-to-all, Reduce-Scatter ->
// gemm-reduce-scatter; none for the others.
std::optional<FusedOp> default_op_for(chakra::CommType type);

struct OperatorShape {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;        // GEMMs: N; embedding: tables per GPU; GEMV: unused (0)
  int64_t pooling = 1;  // embedding: rows pooled per (sample, table)
  std::string dtype = "bf16";
};

struct OperatorWork {
  double flops = 0;         // per GPU
  double memory_bytes = 0;  // per GPU, HBM traffic (operands read once, output written once)
  Bytes comm_size;          // Chakra comm_size of the collective (All-Gather: each GPU's contribution)
  int64_t output_tiles = 0;
};

// Checks the shape (names the argument on a bad value: Argument{"m"}, Argument{"n"}, ...) and returns the per-GPU work.
OperatorWork operator_work(FusedOp op, const OperatorShape& shape, uint32_t npus);

}  // namespace chorus::fused
