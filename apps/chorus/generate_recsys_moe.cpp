// `chorus generate dlrm` and `chorus generate moe`: DLRM and MoE training iterations whose compute -> collective
// chains `chorus fuse` can turn into fused operators.
//
//   chorus generate dlrm --nodes 128 --gpus-per-node 8 --out traces/dlrm
//   chorus generate moe --experts 64 --top-k 2 --ep 8 --out traces/moe
#include "generate_recsys_moe.hpp"

#include <sstream>

#include <fmt/format.h>

#include <charconv>
#include "chorus/core/error.hpp"
#include "chorus/generate/dlrm.hpp"
#include "chorus/generate/moe.hpp"

namespace chorus::cli {

namespace {

// "13-512-256-128" -> {13, 512, 256, 128}, the DLRM reference's --arch-mlp-* spelling.
std::vector<uint32_t> parse_widths(const std::string& text, const std::string& flag) {
  std::vector<uint32_t> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, '-')) {
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || item.empty())
      throw Error("", flag, fmt::format("'{}' is not a list of widths like 13-512-256-128", text));
    out.push_back(v);
  }
  return out;
}

struct DlrmOptions {
  DlrmSpec spec;
  std::string bottom = "13-512-256-128";
  std::string top = "1024-1024-512-256-1";
  std::string system = "a100-80gb";
  std::string out;
  bool gzip = false;
};

struct MoeOptions {
  MoeSpec spec;
  std::string system = "h100-80gb";
  std::string out;
  bool gzip = false;
};

}  // namespace

void register_generate_dlrm(CLI::App& generate) {
  auto o = std::make_shared<DlrmOptions>();
  CLI::App* cmd = generate.add_subcommand(
      "dlrm", "a DLRM training iteration: model-parallel embeddings, data-parallel MLPs, pooled All-to-All");
  cmd->add_option("--nodes", o->spec.nodes, "nodes (default 1)");
  cmd->add_option("--gpus-per-node", o->spec.gpus_per_node, "GPUs per node (default 8)");
  cmd->add_option("--tables", o->spec.tables, "embedding tables, whole tables per GPU (default 26, Criteo)");
  cmd->add_option("--dim", o->spec.dim, "embedding dimension (default 128, MLPerf DLRM)");
  cmd->add_option("--pooling", o->spec.pooling, "rows pooled per sample and table (default 1)");
  cmd->add_option("--batch-per-gpu", o->spec.batch_per_gpu, "samples per GPU (default 2048)");
  cmd->add_option("--bottom-mlp", o->bottom, "bottom MLP widths, input first (default 13-512-256-128)");
  cmd->add_option("--top-mlp", o->top, "top MLP layer widths (default 1024-1024-512-256-1)");
  cmd->add_option("--dtype", o->spec.dtype, "fp32 (default, the reference) | bf16 | fp16 | fp8");
  cmd->add_option("--system", o->system,
                  "GPU for the roofline: a100-80gb (default) | a100-40gb | h100-80gb | h200 | mi300x | JSON");
  cmd->add_option("--out", o->out, "output directory")->required();
  cmd->add_flag("--gzip", o->gzip, "gzip the .et files");
  cmd->callback([o] {
    DlrmSpec spec = o->spec;
    spec.bottom_mlp = parse_widths(o->bottom, "--bottom-mlp");
    spec.top_mlp = parse_widths(o->top, "--top-mlp");
    spec.gpu = fused::load_gpu(o->system);
    const std::string prefix = write_dlrm(o->out, spec, o->gzip);
    fmt::print("wrote {} rank files {}.<rank>.et (pooled All-to-All {} bytes per GPU)\n",
               spec.nodes * spec.gpus_per_node, prefix, dlrm_all_to_all_bytes(spec));
  });
}

void register_generate_moe(CLI::App& generate) {
  auto o = std::make_shared<MoeOptions>();
  CLI::App* cmd = generate.add_subcommand(
      "moe", "MoE transformer layers with expert parallelism: token dispatch / combine All-to-All");
  cmd->add_option("--experts", o->spec.experts, "experts per layer (default 64)");
  cmd->add_option("--top-k", o->spec.top_k, "experts per token (default 2)");
  cmd->add_option("--ep", o->spec.ep, "expert-parallel GPUs, the rank files (default 8)");
  cmd->add_option("--layers", o->spec.layers, "MoE layers (default 1)");
  cmd->add_option("--tokens-per-gpu", o->spec.tokens_per_gpu, "tokens per GPU (default 4096)");
  cmd->add_option("--hidden", o->spec.hidden, "hidden size (default 4096)");
  cmd->add_option("--ffn", o->spec.ffn, "expert FFN size (default 14336)");
  cmd->add_option("--capacity-factor", o->spec.capacity_factor, "expert capacity factor (default 1.25)");
  cmd->add_option("--dtype", o->spec.dtype, "bf16 (default) | fp16 | fp32 | fp8");
  cmd->add_option("--system", o->system,
                  "GPU for the roofline: h100-80gb (default) | a100-40gb | a100-80gb | h200 | mi300x | JSON");
  cmd->add_option("--out", o->out, "output directory")->required();
  cmd->add_flag("--gzip", o->gzip, "gzip the .et files");
  cmd->callback([o] {
    MoeSpec spec = o->spec;
    spec.gpu = fused::load_gpu(o->system);
    const std::string prefix = write_moe(o->out, spec, o->gzip);
    fmt::print("wrote {} rank files {}.<rank>.et (dispatch/combine All-to-All {} bytes per GPU)\n", spec.ep, prefix,
               moe_all_to_all_bytes(spec));
  });
}

}  // namespace chorus::cli
