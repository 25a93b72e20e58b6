// Per-GPU work, collective size and tile count of each fused operator (see operators.hpp).
#include "chorus/fused/operators.hpp"

#include <array>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/fused/gpu.hpp"

namespace chorus::fused {
namespace {

struct OpInfo {
  FusedOp op;
  const char* name;
  chakra::CommType collective;
};

constexpr std::array<OpInfo, 5> kOps{{
    {FusedOp::GemvAllReduce, "gemv-all-reduce", chakra::CommType::AllReduce},
    {FusedOp::EmbeddingAllToAll, "embedding-all-to-all", chakra::CommType::AllToAll},
    {FusedOp::GemmAllToAll, "gemm-all-to-all", chakra::CommType::AllToAll},
    {FusedOp::GemmReduceScatter, "gemm-reduce-scatter", chakra::CommType::ReduceScatter},
    {FusedOp::AllGatherGemm, "all-gather-gemm", chakra::CommType::AllGather},
}};

constexpr int64_t kGemmTile = 128;         // output rows and columns per GEMM workgroup
constexpr int64_t kGemvRows = 32;          // output rows per GEMV workgroup
constexpr int64_t kEmbeddingSamples = 32;  // samples of one table per embedding workgroup

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Each dimension alone is bounded (2^31: far past any GEMM or table), so that an overflowing product or time is not
// blamed on another operand.
void require_positive(int64_t value, const Field& field, const char* what) {
  if (value <= 0)
    throw Error("", field, fmt::format("is {}; {} must be > 0", value, what));
  if (value > (int64_t{1} << 31))
    throw Error("", field, fmt::format("is {}; {} must be at most 2^31 (2147483648)", value, what));
}

// Elements of a product of dimensions, refusing sizes past 64 bits.
int64_t product(std::initializer_list<int64_t> dims, const Field& field) {
  int64_t p = 1;
  for (const int64_t d : dims)
    p = checked_mul(p, d, "", field);
  return p;
}

}  // namespace

std::string to_string(FusedOp op) {
  return kOps[static_cast<size_t>(op)].name;
}

std::optional<FusedOp> parse_fused_op(const std::string& text) {
  for (const OpInfo& info : kOps) {
    if (text == info.name)
      return info.op;
  }
  return std::nullopt;
}

std::vector<std::string> fused_op_names() {
  std::vector<std::string> names;
  for (const OpInfo& info : kOps)
    names.emplace_back(info.name);
  return names;
}

chakra::CommType collective_of(FusedOp op) {
  return kOps[static_cast<size_t>(op)].collective;
}

PipelineOrder order_of(FusedOp op) {
  return op == FusedOp::AllGatherGemm ? PipelineOrder::GatherThenCompute : PipelineOrder::ComputeThenSend;
}

std::optional<FusedOp> default_op_for(chakra::CommType type) {
  switch (type) {
    case chakra::CommType::AllReduce:
      return FusedOp::GemvAllReduce;
    case chakra::CommType::AllToAll:
      return FusedOp::GemmAllToAll;
    case chakra::CommType::ReduceScatter:
      return FusedOp::GemmReduceScatter;
    default:
      return std::nullopt;
  }
}

OperatorWork operator_work(FusedOp op, const OperatorShape& s, uint32_t npus) {
  const int64_t dt = dtype_bytes(s.dtype, Argument{"dtype"});
  require_positive(s.m, Argument{"m"}, "M");
  require_positive(s.k, Argument{"k"}, "K");
  const int64_t p = npus;
  OperatorWork w;
  if (op == FusedOp::GemvAllReduce) {
    if (s.n != 0)
      throw Error("", Argument{"n"}, "gemv-all-reduce multiplies a matrix [M, K] by a vector: it has no N");
    if (s.k < p)
      throw Error("", Argument{"k"},
                  fmt::format("is {}; each of the {} GPUs holds K/npus columns, so K >= npus", s.k, p));
    const int64_t local_k = ceil_div(s.k, p);
    w.flops = 2.0 * static_cast<double>(product({s.m, local_k}, Argument{"m"}));
    w.memory_bytes =
        static_cast<double>(dt) * static_cast<double>(product({s.m, local_k}, Argument{"m"}) + local_k + s.m);
    w.comm_size = Bytes(product({s.m, dt}, Argument{"m"}));
    w.output_tiles = ceil_div(s.m, kGemvRows);
    return w;
  }
  require_positive(s.n, Argument{"n"}, op == FusedOp::EmbeddingAllToAll ? "the tables per GPU" : "N");
  switch (op) {
    case FusedOp::EmbeddingAllToAll: {
      require_positive(s.pooling, Argument{"pooling"}, "the pooling factor");
      if (s.m % p != 0) {
        throw Error(
            "", Argument{"m"},
            fmt::format("global batch {} is not a multiple of --npus {} (each GPU receives M/npus samples)", s.m, p));
      }
      const int64_t pooled = product({s.m, s.n, s.k}, Argument{"m"});
      w.flops = static_cast<double>(pooled) * static_cast<double>(s.pooling);  // one add per pooled element
      w.memory_bytes = static_cast<double>(dt) * static_cast<double>(pooled) * static_cast<double>(s.pooling + 1);
      w.comm_size = Bytes(checked_mul(pooled, dt, "", Argument{"m"}));
      w.output_tiles = product({ceil_div(s.m, kEmbeddingSamples), s.n}, Argument{"m"});
      return w;
    }
    case FusedOp::GemmAllToAll:
    case FusedOp::GemmReduceScatter: {
      const int64_t local_k = op == FusedOp::GemmReduceScatter ? ceil_div(s.k, p) : s.k;
      if (op == FusedOp::GemmReduceScatter && s.k < p)
        throw Error("", Argument{"k"},
                    fmt::format("is {}; each of the {} GPUs holds K/npus of it, so K >= npus", s.k, p));
      w.flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(local_k);
      w.memory_bytes = static_cast<double>(dt) * (static_cast<double>(s.m) * static_cast<double>(local_k) +
                                                  static_cast<double>(local_k) * static_cast<double>(s.n) +
                                                  static_cast<double>(s.m) * static_cast<double>(s.n));
      w.comm_size = Bytes(checked_mul(product({s.m, s.n}, Argument{"m"}), dt, "", Argument{"m"}));
      w.output_tiles = product({ceil_div(s.m, kGemmTile), ceil_div(s.n, kGemmTile)}, Argument{"m"});
      return w;
    }
    case FusedOp::AllGatherGemm: {
      if (s.m % p != 0)
        throw Error("", Argument{"m"},
                    fmt::format("is {}; the input is sharded by rows, so M must be a multiple of --npus {}", s.m, p));
      if (s.n < p)
        throw Error("", Argument{"n"},
                    fmt::format("is {}; each of the {} GPUs computes N/npus columns, so N >= npus", s.n, p));
      const int64_t local_n = ceil_div(s.n, p);
      w.flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.k) * static_cast<double>(local_n);
      w.memory_bytes = static_cast<double>(dt) * (static_cast<double>(s.m) * static_cast<double>(s.k) +
                                                  static_cast<double>(s.k) * static_cast<double>(local_n) +
                                                  static_cast<double>(s.m) * static_cast<double>(local_n));
      w.comm_size = Bytes(checked_mul(product({s.m / p, s.k}, Argument{"m"}), dt, "", Argument{"m"}));
      w.output_tiles = product({ceil_div(s.m, kGemmTile), ceil_div(local_n, kGemmTile)}, Argument{"m"});
      return w;
    }
    default:
      break;
  }
  throw Error("", Argument{"op"}, "unhandled operator");
}

}  // namespace chorus::fused
