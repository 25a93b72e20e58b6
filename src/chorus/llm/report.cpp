// JSON and table output of the LLM planner (see report.hpp).
#include "chorus/llm/report.hpp"

#include <fmt/format.h>

namespace chorus::llm {
namespace {

constexpr double kGiB = 1073741824.0;

const char* outcome_key(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kDoesNotFit:
      return "does_not_fit";
    case Outcome::kNetworkTooSmall:
      return "network_too_small";
  }
  return "?";
}

}  // namespace

nlohmann::json stats_to_json(const Stats& st, const System& sys) {
  const BlockCost& b = st.block;
  nlohmann::json j;
  j["outcome"] = outcome_key(st.outcome);
  j["outcome_text"] = describe_outcome(st, sys);
  j["blocks_per_proc"] = st.shape.blocks_per_proc;
  j["num_microbatches"] = st.shape.microbatches;
  j["block_fw_flops"] = b.fw.flops;
  j["block_fw_flops_time"] = b.fw.flop_time;
  j["block_fw_mem_accessed"] = b.fw.mem_bytes;
  j["block_fw_mem_time"] = b.fw.mem_time;
  j["block_fw_time"] = b.fw.time;
  j["block_re_flops"] = b.re.flops;
  j["block_re_flops_time"] = b.re.flop_time;
  j["block_re_mem_accessed"] = b.re.mem_bytes;
  j["block_re_mem_time"] = b.re.mem_time;
  j["block_re_time"] = b.re.time;
  j["block_agrad_flops"] = b.agrad.flops;
  j["block_agrad_time"] = b.agrad.time;
  j["block_wgrad_flops"] = b.wgrad.flops;
  j["block_wgrad_time"] = b.wgrad.time;
  j["block_bw_flops"] = b.bw.flops;
  j["block_bw_time"] = b.bw.time;
  j["block_tp_fw_comm_time"] = b.tp_base.fw_link;
  j["block_tp_bw_comm_time"] = b.tp_base.bw_link;
  j["block_dp_comm_time"] = st.block_dp_time;
  j["pp_p2p_time"] = st.pp_p2p_time;
  j["chunk_time"] = st.chunk_time;
  j["weight_space"] = st.memory.weight_space;
  j["weight_grad_space"] = st.memory.weight_grad_space;
  j["optimizer_space"] = st.memory.optimizer_space;
  j["act_space"] = st.memory.act_space;
  j["act_working_space"] = st.memory.act_working_space;
  j["act_checkpoint_size"] = st.memory.act_checkpoint_size;
  j["act_grad_space"] = st.memory.act_grad_space;
  j["proc_mem_tier1_cap_req"] = st.memory.tier1;
  j["proc_mem_tier2_cap_req"] = st.memory.tier2;
  j["fw_time"] = st.fw_time;
  j["bw_time"] = st.bw_time;
  j["optim_step_time"] = st.optim_step_time;
  j["recompute_time"] = st.recompute_time;
  j["recomm_link_time"] = st.recomm_link_time;
  j["recomm_exposed_time"] = st.recomm_exposed_time;
  j["bubble_time"] = st.bubble_time;
  j["tp_comm_link_time"] = st.tp_comm_link_time;
  j["tp_comm_exposed_time"] = st.tp_comm_exposed_time;
  j["pp_comm_link_time"] = st.pp_comm_link_time;
  j["pp_comm_exposed_time"] = st.pp_comm_exposed_time;
  j["dp_comm_link_time"] = st.dp_comm_link_time;
  j["dp_comm_exposed_time"] = st.dp_comm_exposed_time;
  j["fw_offload_exposed_time"] = st.fw_offload_exposed_time;
  j["bw_offload_exposed_time"] = st.bw_offload_exposed_time;
  j["head_time"] = st.head_time;
  j["total_time"] = st.total_time;
  j["useful_flops"] = st.useful_flops;
  j["compute_efficiency"] = st.compute_efficiency;
  j["system_efficiency"] = st.system_efficiency;
  j["total_efficiency"] = st.total_efficiency;
  j["sample_rate"] = st.sample_rate;
  j["tokens_per_s_per_gpu"] = st.tokens_per_s_per_gpu;
  j["model_tflops_per_gpu"] = st.model_tflops_per_gpu;
  j["cp_comm_link_time"] = st.cp_comm_link_time;
  j["cp_comm_exposed_time"] = st.cp_comm_exposed_time;
  j["ep_comm_link_time"] = st.ep_comm_link_time;
  j["ep_comm_exposed_time"] = st.ep_comm_exposed_time;
  j["fsdp_gather_link_time"] = st.fsdp_gather_link_time;
  j["fsdp_gather_exposed_time"] = st.fsdp_gather_exposed_time;
  return j;
}

std::string stats_table(const Stats& st, const System& sys) {
  std::string out;
  auto line = [&out](const char* name, double seconds, double total) {
    fmt::format_to(std::back_inserter(out), "  {:<24} {:>12.4f} s {:>6.1f} %\n", name, seconds,
                   total > 0 ? 100.0 * seconds / total : 0.0);
  };
  fmt::format_to(std::back_inserter(out), "result: {}\n", describe_outcome(st, sys));
  fmt::format_to(std::back_inserter(out), "time per iteration: {:.4f} s, sample rate {:.3f} /s\n", st.total_time,
                 st.sample_rate);
  fmt::format_to(std::back_inserter(out), "per GPU: {:.1f} tokens/s, {:.1f} model TFLOP/s\n", st.tokens_per_s_per_gpu,
                 st.model_tflops_per_gpu);
  const double t = st.total_time;
  line("forward", st.fw_time, t);
  line("backward", st.bw_time, t);
  line("optimizer step", st.optim_step_time, t);
  line("recompute", st.recompute_time, t);
  line("recompute comm exposed", st.recomm_exposed_time, t);
  line("pipeline bubble", st.bubble_time, t);
  line("TP comm exposed", st.tp_comm_exposed_time, t);
  line("PP comm exposed", st.pp_comm_exposed_time, t);
  line("DP comm exposed", st.dp_comm_exposed_time, t);
  line("offload exposed (fw)", st.fw_offload_exposed_time, t);
  line("offload exposed (bw)", st.bw_offload_exposed_time, t);
  line("LM head", st.head_time, t);
  if (st.cp_comm_link_time > 0)
    line("CP ring exposed", st.cp_comm_exposed_time, t);
  if (st.ep_comm_link_time > 0)
    line("EP all-to-all exposed", st.ep_comm_exposed_time, t);
  if (st.fsdp_gather_link_time > 0)
    line("ZeRO-3 gather exposed", st.fsdp_gather_exposed_time, t);
  fmt::format_to(std::back_inserter(out), "memory per processor:\n");
  auto mem = [&out](const char* name, double bytes) {
    fmt::format_to(std::back_inserter(out), "  {:<24} {:>12.3f} GiB\n", name, bytes / kGiB);
  };
  mem("weights", st.memory.weight_space);
  mem("weight gradients (fp32)", st.memory.weight_grad_space);
  mem("optimizer state", st.memory.optimizer_space);
  mem("activations (stored)", st.memory.act_space);
  mem("activations (working)", st.memory.act_working_space);
  mem("activation gradients", st.memory.act_grad_space);
  fmt::format_to(std::back_inserter(out), "  {:<24} {:>12.3f} GiB of {:.3f} GiB\n", "tier 1 required",
                 st.memory.tier1 / kGiB, sys.mem1.capacity_bytes / kGiB);
  fmt::format_to(std::back_inserter(out), "  {:<24} {:>12.3f} GiB of {:.3f} GiB\n", "tier 2 required",
                 st.memory.tier2 / kGiB, sys.mem2.capacity_bytes / kGiB);
  fmt::format_to(std::back_inserter(out), "efficiency: compute {:.1f} %, system {:.1f} %, total {:.1f} %\n",
                 100 * st.compute_efficiency, 100 * st.system_efficiency, 100 * st.total_efficiency);
  return out;
}

std::string validation_table(const ValidationReport& r) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Korthikanti et al. 2022 (arXiv:2205.05198), A100-80GB; error = 1 - chorus/paper\n\n");
  fmt::format_to(it, "Table 5 iteration time (s)\n");
  fmt::format_to(it, "{:<6} {:>8} {:>8} {:>8}   {:>8} {:>8} {:>8}\n", "model", "full", "chorus", "error", "seq+sel",
                 "chorus", "error");
  for (const auto& t : r.table5) {
    fmt::format_to(it, "{:<6} {:>8.2f} {:>8.2f} {:>7.2f}%   {:>8.2f} {:>8.2f} {:>7.2f}%\n", t.model, t.paper_full,
                   t.chorus_full, 100 * t.error_full, t.paper_seq_sel, t.chorus_seq_sel, 100 * t.error_seq_sel);
  }
  fmt::format_to(it, "mean |error| {:.2f}%, max {:.2f}%  (Calculon: 3.65%, 8.87%)\n\n", 100 * r.table5_mean_abs_error,
                 100 * r.table5_max_abs_error);
  fmt::format_to(it, "Figure 1 memory per GPU (GiB)\n");
  fmt::format_to(it, "{:<6} {:>9} {:>8} {:>7}  {:>9} {:>8} {:>7}  {:>9} {:>8} {:>7}\n", "model", "param+opt", "chorus",
                 "error", "act none", "chorus", "error", "act s+s", "chorus", "error");
  for (const auto& m : r.fig1) {
    fmt::format_to(it, "{:<6} {:>9.2f} {:>8.2f} {:>6.2f}%  {:>9.2f} {:>8.2f} {:>6.2f}%  {:>9.2f} {:>8.2f} {:>6.2f}%\n",
                   m.model, m.paper_params_opt, m.chorus_params_opt, 100 * m.error_params_opt, m.paper_act_none,
                   m.chorus_act_none, 100 * m.error_act_none, m.paper_act_seq_sel, m.chorus_act_seq_sel,
                   100 * m.error_act_seq_sel);
  }
  fmt::format_to(it, "params+optimizer mean |error| {:.2f}% (Calculon 8.49%); activations {:.2f}% (Calculon 2.08%)\n\n",
                 100 * r.fig1_params_mean_abs_error, 100 * r.fig1_act_mean_abs_error);
  fmt::format_to(it, "Figure 7 activation memory, % of the tensor-parallel baseline\n");
  for (const auto& a : r.fig7) {
    fmt::format_to(it, "{:<6} {:<8} paper {:>6.2f}%  chorus {:>6.2f}%  error {:>6.2f}%\n", a.model, a.technique,
                   a.paper_pct, a.chorus_pct, 100 * a.error);
  }
  fmt::format_to(it, "mean |error| {:.2f}%, max {:.2f}%  (Calculon: 6.69%, 30.41%)\n", 100 * r.fig7_mean_abs_error,
                 100 * r.fig7_max_abs_error);
  return out;
}

nlohmann::json validation_to_json(const ValidationReport& r) {
  nlohmann::json j;
  for (const auto& t : r.table5) {
    j["table5"].push_back({{"model", t.model},
                           {"paper_full_s", t.paper_full},
                           {"chorus_full_s", t.chorus_full},
                           {"error_full", t.error_full},
                           {"paper_seq_sel_s", t.paper_seq_sel},
                           {"chorus_seq_sel_s", t.chorus_seq_sel},
                           {"error_seq_sel", t.error_seq_sel}});
  }
  for (const auto& m : r.fig1) {
    j["fig1"].push_back({{"model", m.model},
                         {"paper_params_opt_gib", m.paper_params_opt},
                         {"chorus_params_opt_gib", m.chorus_params_opt},
                         {"paper_act_none_gib", m.paper_act_none},
                         {"chorus_act_none_gib", m.chorus_act_none},
                         {"paper_act_seq_sel_gib", m.paper_act_seq_sel},
                         {"chorus_act_seq_sel_gib", m.chorus_act_seq_sel}});
  }
  for (const auto& a : r.fig7) {
    j["fig7"].push_back(
        {{"model", a.model}, {"technique", a.technique}, {"paper_pct", a.paper_pct}, {"chorus_pct", a.chorus_pct}});
  }
  j["table5_mean_abs_error"] = r.table5_mean_abs_error;
  j["table5_max_abs_error"] = r.table5_max_abs_error;
  j["fig1_params_mean_abs_error"] = r.fig1_params_mean_abs_error;
  j["fig1_act_mean_abs_error"] = r.fig1_act_mean_abs_error;
  j["fig7_mean_abs_error"] = r.fig7_mean_abs_error;
  j["fig7_max_abs_error"] = r.fig7_max_abs_error;
  return j;
}

}  // namespace chorus::llm
