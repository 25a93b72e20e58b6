// The MoE iteration generator (see moe.hpp).
#include "chorus/generate/moe.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/generate/trace_builder.hpp"

namespace chorus {
namespace {

// Tokens each GPU sends (and receives) per All-to-All: its top-k copies, padded to the experts' capacity.
double routed_tokens(const MoeSpec& s) {
  return std::ceil(s.capacity_factor * s.top_k * s.tokens_per_gpu);
}

chakra::ChakraTrace rank_trace(const MoeSpec& s) {
  const double e = static_cast<double>(fused::dtype_bytes(s.dtype, Argument{"dtype"}));
  const double t = s.tokens_per_gpu;
  const double h = s.hidden;
  const double routed = routed_tokens(s);
  const double attention_flops = 8 * t * h * h + 4 * t * t * h;
  const double attention_bytes = e * (4 * h * h + 6 * t * h);
  const double router_flops = 2 * t * h * s.experts;
  const double router_bytes = e * (t * h + h * s.experts + t * s.experts);
  const double local_experts = static_cast<double>(s.experts) / s.ep;
  const double expert_flops = 4 * routed * h * s.ffn;
  const double expert_bytes = e * (local_experts * 2 * h * s.ffn + routed * (2 * h + s.ffn));
  const int64_t a2a = moe_all_to_all_bytes(s);
  const auto dense_gradients = static_cast<int64_t>(s.layers * e * (4 * h * h + h * s.experts));

  RankTrace r(s.gpu, s.dtype);
  std::vector<uint64_t> previous;  // the layer before (none for the first)
  uint64_t last = 0;
  for (uint32_t l = 0; l < s.layers; ++l) {
    const uint64_t att = r.compute(fmt::format("attention_fwd_{}", l), attention_flops, attention_bytes, previous);
    const uint64_t router = r.compute(fmt::format("router_fwd_{}", l), router_flops, router_bytes, {att});
    const uint64_t dispatch =
        r.collective(fmt::format("dispatch_fwd_{}", l), chakra::CommType::AllToAll, a2a, {att, router});
    const uint64_t experts = r.compute(fmt::format("experts_fwd_{}", l), expert_flops, expert_bytes, {dispatch});
    last = r.collective(fmt::format("combine_fwd_{}", l), chakra::CommType::AllToAll, a2a, {experts});
    previous = {last};
  }
  for (uint32_t l = s.layers; l-- > 0;) {
    const uint64_t combine = r.collective(fmt::format("combine_bwd_{}", l), chakra::CommType::AllToAll, a2a, {last});
    const uint64_t experts = r.compute(fmt::format("experts_bwd_{}", l), 2 * expert_flops, 2 * expert_bytes, {combine});
    const uint64_t dispatch =
        r.collective(fmt::format("dispatch_bwd_{}", l), chakra::CommType::AllToAll, a2a, {experts});
    const uint64_t router = r.compute(fmt::format("router_bwd_{}", l), 2 * router_flops, 2 * router_bytes, {dispatch});
    last = r.compute(fmt::format("attention_bwd_{}", l), 2 * attention_flops, 2 * attention_bytes, {router});
  }
  r.collective("dense_all_reduce", chakra::CommType::AllReduce, dense_gradients, {last});
  return r.take();
}

}  // namespace

void validate(const MoeSpec& s) {
  for (const auto& [keyword, value] :
       {std::pair{Argument{"experts"}, s.experts}, std::pair{Argument{"ep"}, s.ep},
        std::pair{Argument{"layers"}, s.layers}, std::pair{Argument{"tokens_per_gpu"}, s.tokens_per_gpu},
        std::pair{Argument{"hidden"}, s.hidden}, std::pair{Argument{"ffn"}, s.ffn}}) {
    if (value == 0)
      throw Error("", keyword, "is 0; must be at least 1");
    // Each size alone bounded (2^24: a million-token batch, a 16M-wide layer), so that the products below and
    // the expert GEMMs' times are not blamed on another option.
    if (value > (uint64_t{1} << 24))
      throw Error("", keyword, fmt::format("is {}; must be at most 2^24 (16777216)", value));
  }
  if (s.ep < 2 || s.ep > limits::kMaxGeneratedNpus)
    throw Error("", Argument{"ep"},
                fmt::format("is {}; must be 2 to {} GPUs (kMaxGeneratedNpus)", s.ep, limits::kMaxGeneratedNpus));
  if (s.experts % s.ep != 0) {
    throw Error(
        "", Argument{"experts"},
        fmt::format("is {}, not a multiple of --ep {}: each GPU holds experts/ep whole experts", s.experts, s.ep));
  }
  if (s.top_k == 0 || s.top_k > s.experts)
    throw Error("", Argument{"top_k"}, fmt::format("is {}; must be 1 to the {} experts", s.top_k, s.experts));
  if (!(s.capacity_factor > 0) || s.capacity_factor > 1000)
    throw Error("", Argument{"capacity_factor"},
                fmt::format("is {}; must be > 0 (and at most 1000)", s.capacity_factor));
  if (s.layers > 10'000)
    throw Error("", Argument{"layers"}, fmt::format("is {}; must be at most 10000", s.layers));
  s.gpu.peak(s.dtype, "");
  moe_all_to_all_bytes(s);
}

int64_t moe_all_to_all_bytes(const MoeSpec& s) {
  const double routed = routed_tokens(s);
  const int64_t tokens = checked_integer(routed, 1, int64_t{1} << 40, "", Argument{"tokens_per_gpu"});
  int64_t bytes = checked_mul(tokens, s.hidden, "", Argument{"hidden"});
  bytes = checked_mul(bytes, fused::dtype_bytes(s.dtype, Argument{"dtype"}), "", Argument{"hidden"});
  if (bytes > int64_t{1} << 50)
    throw Error("", Argument{"tokens_per_gpu"},
                fmt::format("makes a {}-byte All-to-All per GPU; must be at most 1 PiB", bytes));
  return bytes;
}

std::string write_moe(const std::string& directory, const MoeSpec& spec, bool gzip) {
  validate(spec);
  const chakra::ChakraTrace trace = rank_trace(spec);
  return write_rank_traces(directory, "moe", spec.ep, gzip, [&](uint32_t) { return trace; });
}

}  // namespace chorus
