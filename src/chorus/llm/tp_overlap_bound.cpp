// The warning about Calculon's TP overlap beating the collective's own time (see tp_overlap_bound.hpp).
#include "chorus/llm/tp_overlap_bound.hpp"

#include <fmt/format.h>

namespace chorus::llm {
namespace {

const char* collective_name(Collective c) {
  return c == Collective::kAllGather ? "All-Gather" : "Reduce-Scatter";
}

}  // namespace

std::optional<TpOverlapBound> tp_overlap_below_bound(const Stats& st) {
  // The base block and the chunk's last block share their linears; with p2p_rs_ag only the last one overlaps.
  for (const TpComm* c : {&st.block.tp_base, &st.block.tp_edge}) {
    if (c->bound.passes_below > 0)
      return c->bound;
  }
  return std::nullopt;
}

std::string tp_overlap_bound_warning(const TpOverlapBound& b, const Execution& exe) {
  return fmt::format(
      "warning: Calculon's tensor_par_overlap '{}' model hides more communication than the collective's own time "
      "allows: {} of {} overlapped GEMM passes per block finish with their collective sooner than the collective "
      "alone (furthest: GEMM {:.1f} us + exposed {:.1f} us = {:.1f} us < {} {:.1f} us); tp_gemm_overlap "
      "'pipelined' (with tensor_par_overlap none) is the bounded model (docs/llm.md)",
      to_string(exe.tp_overlap), b.passes_below, b.passes, b.gemm * 1e6, b.exposed * 1e6, (b.gemm + b.exposed) * 1e6,
      collective_name(b.kind), b.collective * 1e6);
}

nlohmann::json tp_overlap_bound_json(const TpOverlapBound& b) {
  return {{"passes_below", b.passes_below},
          {"passes", b.passes},
          {"collective", b.kind == Collective::kAllGather ? "all_gather" : "reduce_scatter"},
          {"gemm_s", b.gemm},
          {"exposed_s", b.exposed},
          {"gemm_plus_exposed_s", b.gemm + b.exposed},
          {"collective_s", b.collective}};
}

}  // namespace chorus::llm
