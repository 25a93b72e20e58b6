// The DLRM iteration generator (see dlrm.hpp).
#include "chorus/generate/dlrm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/core/checked.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/generate/trace_builder.hpp"

namespace chorus {
namespace {

struct MlpWork {
  double flops = 0;
  double bytes = 0;
  double parameters = 0;
};

// Forward work of an MLP on `samples` rows: 2 * in * out FLOPs per row and layer; weights read once and every
// activation written once.
MlpWork mlp_forward(const std::vector<uint32_t>& widths, double samples, double element) {
  MlpWork w;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    const double params = static_cast<double>(widths[i]) * widths[i + 1] + widths[i + 1];
    w.parameters += params;
    w.flops += 2.0 * samples * widths[i] * widths[i + 1];
    w.bytes += element * (params + samples * (widths[i] + widths[i + 1]));
  }
  return w;
}

uint32_t npus_of(const DlrmSpec& s) {
  return s.nodes * s.gpus_per_node;
}

uint32_t tables_here(const DlrmSpec& s) {
  return (s.tables + npus_of(s) - 1) / npus_of(s);
}

uint32_t interaction_width(const DlrmSpec& s) {
  const uint32_t vectors = s.tables + 1;
  return s.dim + vectors * (vectors - 1) / 2;
}

chakra::ChakraTrace rank_trace(const DlrmSpec& s) {
  const double element = static_cast<double>(fused::dtype_bytes(s.dtype, Argument{"dtype"}));
  const double b = s.batch_per_gpu;
  const double pooled = b * npus_of(s) * tables_here(s) * s.dim;  // pooled elements this GPU produces
  const MlpWork bottom = mlp_forward(s.bottom_mlp, b, element);
  std::vector<uint32_t> top{interaction_width(s)};
  top.insert(top.end(), s.top_mlp.begin(), s.top_mlp.end());
  const MlpWork top_work = mlp_forward(top, b, element);
  const double vectors = s.tables + 1.0;
  const double interaction_flops = 2.0 * b * vectors * vectors * s.dim / 2;
  const double interaction_bytes = element * b * (vectors * s.dim + interaction_width(s));
  const int64_t a2a = dlrm_all_to_all_bytes(s);
  const auto all_reduce = static_cast<int64_t>(element * (bottom.parameters + top_work.parameters));

  RankTrace t(s.gpu, s.dtype);
  const uint64_t emb = t.compute("embedding_fwd", pooled * s.pooling, element * pooled * (s.pooling + 1), {});
  const uint64_t a2a_fwd = t.collective("embedding_all_to_all_fwd", chakra::CommType::AllToAll, a2a, {emb});
  const uint64_t bot_fwd = t.compute("bottom_mlp_fwd", bottom.flops, bottom.bytes, {});
  const uint64_t inter = t.compute("interaction_fwd", interaction_flops, interaction_bytes, {a2a_fwd, bot_fwd});
  const uint64_t top_fwd = t.compute("top_mlp_fwd", top_work.flops, top_work.bytes, {inter});
  const uint64_t top_bwd = t.compute("top_mlp_bwd", 2 * top_work.flops, 2 * top_work.bytes, {top_fwd});
  const uint64_t inter_bwd = t.compute("interaction_bwd", interaction_flops, interaction_bytes, {top_bwd});
  const uint64_t a2a_bwd = t.collective("embedding_all_to_all_bwd", chakra::CommType::AllToAll, a2a, {inter_bwd});
  const uint64_t bot_bwd = t.compute("bottom_mlp_bwd", 2 * bottom.flops, 2 * bottom.bytes, {inter_bwd});
  t.compute("embedding_bwd", pooled * s.pooling, element * pooled * (s.pooling + 1), {a2a_bwd});
  t.collective("mlp_all_reduce", chakra::CommType::AllReduce, all_reduce, {top_bwd, bot_bwd});
  return t.take();
}

}  // namespace

void validate(const DlrmSpec& s) {
  if (s.nodes == 0 || s.gpus_per_node == 0)
    throw Error("", s.nodes == 0 ? Argument{"nodes"} : Argument{"gpus_per_node"}, "is 0; must be at least 1");
  // A value past the limit alone is named alone; a product past it names both.
  for (const auto& [keyword, value] :
       {std::pair{Argument{"nodes"}, s.nodes}, std::pair{Argument{"gpus_per_node"}, s.gpus_per_node}}) {
    if (value > limits::kMaxGeneratedNpus)
      throw Error("", keyword,
                  fmt::format("is {}; must be at most {} (kMaxGeneratedNpus)", value, limits::kMaxGeneratedNpus));
  }
  if (uint64_t{s.nodes} * s.gpus_per_node < 2 || uint64_t{s.nodes} * s.gpus_per_node > limits::kMaxGeneratedNpus) {
    throw Error("", Argument{"nodes/gpus_per_node"},
                fmt::format("{} x {} GPUs; must be 2 to {} (kMaxGeneratedNpus)", s.nodes, s.gpus_per_node,
                            limits::kMaxGeneratedNpus));
  }
  for (const auto& [keyword, value] :
       {std::pair{Argument{"tables"}, s.tables}, std::pair{Argument{"dim"}, s.dim},
        std::pair{Argument{"pooling"}, s.pooling}, std::pair{Argument{"batch_per_gpu"}, s.batch_per_gpu}}) {
    if (value == 0)
      throw Error("", keyword, "is 0; must be at least 1");
  }
  if (s.bottom_mlp.size() < 2 || s.top_mlp.empty())
    throw Error("", s.top_mlp.empty() ? Argument{"top_mlp"} : Argument{"bottom_mlp"},
                "needs an input width and at least one layer");
  for (const auto* mlp : {&s.bottom_mlp, &s.top_mlp}) {
    for (const uint32_t w : *mlp) {
      if (w == 0)
        throw Error("", mlp == &s.top_mlp ? Argument{"top_mlp"} : Argument{"bottom_mlp"}, "has a layer of width 0");
    }
  }
  if (s.bottom_mlp.back() != s.dim) {
    throw Error("", Argument{"bottom_mlp"},
                fmt::format("ends at width {}, but the embedding dimension --dim is {}: DLRM's dot interaction needs "
                            "the bottom MLP's output and every pooled embedding to have the same size",
                            s.bottom_mlp.back(), s.dim));
  }
  if (s.tables > 1'000'000)
    throw Error("", Argument{"tables"}, fmt::format("is {}; must be at most 1000000", s.tables));
  fused::dtype_bytes(s.dtype, Argument{"dtype"});
  s.gpu.peak(s.dtype, "");
  dlrm_all_to_all_bytes(s);
}

int64_t dlrm_all_to_all_bytes(const DlrmSpec& s) {
  int64_t bytes = fused::dtype_bytes(s.dtype, Argument{"dtype"});
  for (const int64_t factor : {int64_t{s.batch_per_gpu}, int64_t{npus_of(s)}, int64_t{tables_here(s)}, int64_t{s.dim}})
    bytes = checked_mul(bytes, factor, "", Argument{"batch_per_gpu"});
  if (bytes > int64_t{1} << 50)
    throw Error("", Argument{"batch_per_gpu"},
                fmt::format("makes a {}-byte All-to-All per GPU; must be at most 1 PiB", bytes));
  return bytes;
}

std::string write_dlrm(const std::string& directory, const DlrmSpec& spec, bool gzip) {
  validate(spec);
  const chakra::ChakraTrace trace = rank_trace(spec);  // every rank runs the same program
  return write_rank_traces(directory, "dlrm", npus_of(spec), gzip, [&](uint32_t) { return trace; });
}

}  // namespace chorus
