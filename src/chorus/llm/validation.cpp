// Validation against Korthikanti et al. 2022 (see validation.hpp).
#include "chorus/llm/validation.hpp"

#include <algorithm>
#include <cmath>

#include "chorus/core/error.hpp"
#include "chorus/llm/iteration.hpp"

namespace chorus::llm {

const std::vector<PaperModel>& korthikanti2022_runs() {
  // Table 5 (times), Figure 1 (GiB), Figure 7 (%), with the paper's parallel configurations.
  static const std::vector<PaperModel> runs = {
      {"22B", 64, 6144, 48, 8, 1, 8, 4, 4, 1, 1.42, 1.10, 45.5625, 59.25, 9.5625, 66.84, 49.42, 16.18, 7.64},
      {"175B", 96, 12288, 96, 8, 8, 64, 64, 1, 3, 18.13, 13.75, 45.5625, 66.84375, 12.3515625, 62.04, 56.53, 18.49,
       8.71},
      {"530B", 128, 20480, 105, 8, 35, 280, 280, 1, 3, 49.05, 37.83, 31.640625, 114.0234375, 23.076171875, 58.31, 62.04,
       20.27, 9.42},
      {"1T", 160, 25600, 128, 8, 64, 512, 512, 1, 1, 94.42, 71.49, 32.958984375, 131.25, 26.5625, 58.31, 62.04, 20.27,
       9.42},
  };
  return runs;
}

Application paper_application(const PaperModel& m) {
  Application app;
  app.hidden = m.hidden;
  app.feedforward = 4 * m.hidden;
  app.seq_size = 2048;
  app.attn_heads = m.heads;
  app.kv_heads = m.heads;
  app.attn_size = m.hidden / m.heads;
  app.num_blocks = m.layers;
  app.vocab = 51200;
  return app;
}

Execution paper_execution(const PaperModel& m, Technique t, int datatype) {
  Execution e;
  e.num_procs = m.gpus;
  e.tensor_par = m.tp;
  e.pipeline_par = m.pp;
  e.data_par = 1;
  e.tensor_par_net = 0;
  e.pipeline_par_net = 1;
  e.data_par_net = 1;
  e.batch_size = m.global_batch;
  e.microbatch_size = m.micro_batch;
  e.datatype = datatype;
  e.pipeline_interleaving = m.interleaving;
  const bool seq = t == Technique::kSeq || t == Technique::kSeqSel;
  e.tp_comm = seq ? TpCommType::kRsAg : TpCommType::kAr;
  e.seq_par_ag_redo = seq;  // Megatron keeps the LN output sharded and gathers it again in backward
  e.recompute = t == Technique::kFull                               ? Recompute::kFull
                : (t == Technique::kSel || t == Technique::kSeqSel) ? Recompute::kAttnOnly
                                                                    : Recompute::kNone;
  return e;
}

namespace {

constexpr double kGiB = 1073741824.0;

double error_of(double chorus, double paper) {
  return 1.0 - chorus / paper;
}

Stats run(const PaperModel& m, Technique t, const System& sys, int datatype) {
  IterationModel model(paper_application(m), sys);
  return model.evaluate(paper_execution(m, t, datatype));
}

double stored_activations_gib(const Stats& st) {
  return st.memory.act_space / kGiB;
}

}  // namespace

ValidationReport run_validation(const System& sys) {
  const int fp16 = sys.datatype_index("float16");
  if (fp16 < 0)
    throw Error("system", "matrix.float16", "validation needs a float16 matrix unit");
  ValidationReport r;
  double sum_t = 0, sum_p = 0, sum_a = 0, sum_7 = 0;
  for (const PaperModel& m : korthikanti2022_runs()) {
    const Stats full = run(m, Technique::kFull, sys, fp16);
    const Stats seq_sel = run(m, Technique::kSeqSel, sys, fp16);
    TimeRow t{m.name,
              m.t_full_s,
              full.total_time,
              error_of(full.total_time, m.t_full_s),
              m.t_seq_sel_s,
              seq_sel.total_time,
              error_of(seq_sel.total_time, m.t_seq_sel_s),
              full.memory.tier1 / kGiB,
              seq_sel.memory.tier1 / kGiB};
    for (double e : {t.error_full, t.error_seq_sel}) {
      sum_t += std::fabs(e);
      r.table5_max_abs_error = std::max(r.table5_max_abs_error, std::fabs(e));
    }
    r.table5.push_back(t);

    const Stats none = run(m, Technique::kNone, sys, fp16);
    const double params_opt =
        (none.memory.weight_space + none.memory.weight_grad_space + none.memory.optimizer_space) / kGiB;
    MemoryRow mem{m.name,
                  m.params_opt_gib,
                  params_opt,
                  error_of(params_opt, m.params_opt_gib),
                  m.act_none_gib,
                  stored_activations_gib(none),
                  error_of(stored_activations_gib(none), m.act_none_gib),
                  m.act_seq_sel_gib,
                  stored_activations_gib(seq_sel),
                  error_of(stored_activations_gib(seq_sel), m.act_seq_sel_gib)};
    sum_p += std::fabs(mem.error_params_opt);
    sum_a += std::fabs(mem.error_act_none) + std::fabs(mem.error_act_seq_sel);
    r.fig1.push_back(mem);

    const double base = none.memory.act_space;
    const std::pair<const char*, std::pair<Technique, double>> techniques[] = {
        {"seq", {Technique::kSeq, m.pct_seq}},
        {"sel", {Technique::kSel, m.pct_sel}},
        {"seq+sel", {Technique::kSeqSel, m.pct_seq_sel}},
        {"full", {Technique::kFull, m.pct_full}}};
    for (const auto& [name, tech] : techniques) {
      const double pct = 100.0 * run(m, tech.first, sys, fp16).memory.act_space / base;
      ActivationRow a{m.name, name, tech.second, pct, error_of(pct, tech.second)};
      sum_7 += std::fabs(a.error);
      r.fig7_max_abs_error = std::max(r.fig7_max_abs_error, std::fabs(a.error));
      r.fig7.push_back(a);
    }
  }
  r.table5_mean_abs_error = sum_t / static_cast<double>(2 * r.table5.size());
  r.fig1_params_mean_abs_error = sum_p / static_cast<double>(r.fig1.size());
  r.fig1_act_mean_abs_error = sum_a / static_cast<double>(2 * r.fig1.size());
  r.fig7_mean_abs_error = sum_7 / static_cast<double>(r.fig7.size());
  return r;
}

}  // namespace chorus::llm
