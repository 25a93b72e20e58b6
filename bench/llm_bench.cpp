// Benchmarks of the LLM planner (issue #6 floors; results in docs/llm.md and docs/performance.md).
//
// - BM_LlmEvaluate: one full evaluation (per-layer block accounting + memory + iteration time, nothing cached)
//   of configurations drawn at random from the GPT-3 175B / 1,024-GPU / A100 search space, on one core.
//   Floor: 100,000 per second per core (Calculon: about 83 fully evaluated, 244 including rejects).
// - BM_LlmSearchGpt3: the whole 11,698,528-configuration space with pruning, on 1 and 2 threads.
//   Floor: 2 minutes on this 2-core machine. BM_LlmSearchGpt3Exhaustive times every configuration that fits.
//
// - BM_LlmEvaluateMoe: the same for DeepSeek-V3 (MoE + MLA) on the h100-80gb preset, 2,048 GPUs, random
//   TP x PP x DP x EP x CP, ZeRO stage, recompute and datatype (issue #13 floor: 500,000 per second per core).
// - BM_LlmInfer: one serving evaluation of DeepSeek-V3 on 16 H200s (issue #13 floor: under 10 ms).
//
//   build/llm_bench --benchmark_filter=Llm
#include <random>

#include <benchmark/benchmark.h>

#include "chorus/llm/inference.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"

namespace {

using namespace chorus::llm;

Application gpt3_175b() {
  Application app;
  app.hidden = 12288;
  app.feedforward = 49152;
  app.seq_size = 2048;
  app.attn_heads = 96;
  app.kv_heads = 96;
  app.attn_size = 128;
  app.num_blocks = 96;
  return app;
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0)
      out.push_back(d);
  }
  return out;
}

// Configurations of the search space picked at random, dimension by dimension, with a fixed seed.
std::vector<Execution> sample_space(const Application& app, int64_t n, int64_t max_batch, size_t count) {
  std::mt19937_64 rng(20240601);
  auto pick = [&rng](const auto& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  std::vector<std::pair<int64_t, int64_t>> tp_pp;
  for (int64_t tp : divisors(n)) {
    if (app.hidden % tp != 0 || app.attn_heads % tp != 0)
      continue;
    for (int64_t pp : divisors(app.num_blocks)) {
      if (n % (tp * pp) == 0)
        tp_pp.emplace_back(tp, pp);
    }
  }
  std::vector<Execution> out;
  while (out.size() < count) {
    Execution e;
    auto [tp, pp] = pick(tp_pp);
    e.num_procs = n;
    e.tensor_par = tp;
    e.pipeline_par = pp;
    e.data_par = n / (tp * pp);
    e.batch_size = std::max(e.data_par, max_batch / e.data_par * e.data_par);
    e.microbatch_size = pick(divisors(e.batch_size / e.data_par));
    e.pipeline_interleaving = pp == 1 ? 1 : pick(divisors(app.num_blocks / pp));
    e.recompute = pick(std::vector{Recompute::kFull, Recompute::kAttnOnly, Recompute::kNone});
    e.tp_comm = pick(std::vector{TpCommType::kAr, TpCommType::kP2pRsAg, TpCommType::kRsAg});
    e.tp_overlap = tp > 1 ? pick(std::vector{TpOverlap::kNone, TpOverlap::kRing, TpOverlap::kPipe}) : TpOverlap::kNone;
    e.seq_par_ag_redo = e.tp_comm == TpCommType::kRsAg && e.recompute != Recompute::kFull && pick(std::vector{0, 1});
    e.optimizer_sharding = e.data_par > 1 && pick(std::vector{0, 1});
    e.data_par_overlap = e.data_par > 1 && pick(std::vector{0, 1});
    e.weight_offload = pick(std::vector{0, 1});
    e.activations_offload = e.recompute != Recompute::kFull && pick(std::vector{0, 1});
    e.optimizer_offload = pick(std::vector{0, 1});
    e.fused_activation = true;
    e.tensor_par_net = static_cast<int8_t>(tp > 1 ? pick(std::vector{0, 1}) : 0);
    e.pipeline_par_net = static_cast<int8_t>(pp > 1 ? pick(std::vector{0, 1}) : 0);
    e.data_par_net = static_cast<int8_t>(e.data_par > 1 ? pick(std::vector{0, 1}) : 0);
    out.push_back(e);
  }
  return out;
}

void BM_LlmEvaluate(benchmark::State& state) {
  const Application app = gpt3_175b();
  const IterationModel model(app, a100_80gb_system());
  const std::vector<Execution> sample = sample_space(app, 1024, 1536, 4096);
  size_t i = 0;
  for (auto _ : state) {
    Stats st = model.evaluate(sample[i]);
    benchmark::DoNotOptimize(st.total_time);
    i = (i + 1) % sample.size();
  }
  state.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LlmEvaluate);

Application deepseek_v3() {
  Application app;  // examples/llm/deepseek-v3.json
  app.hidden = 7168;
  app.feedforward = 18432;
  app.seq_size = 4096;
  app.attn_heads = 128;
  app.kv_heads = 128;
  app.attn_size = 128;
  app.kv_lora_rank = 512;
  app.q_lora_rank = 1536;
  app.rope_head_dim = 64;
  app.num_blocks = 61;
  app.vocab = 129280;
  app.mlp = MlpKind::kSwiglu;
  app.experts = 256;
  app.top_k = 8;
  app.shared_experts = 1;
  app.expert_feedforward = 2048;
  app.dense_blocks = 3;
  return app;
}

std::vector<Execution> sample_moe(const System& sys, size_t count) {
  std::mt19937_64 rng(20241124);
  auto pick = [&rng](const auto& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  std::vector<Execution> out;
  while (out.size() < count) {
    Execution e;
    e.num_procs = 2048;
    e.tensor_par = pick(std::vector<int64_t>{1, 2, 4, 8});
    e.pipeline_par = pick(std::vector<int64_t>{1, 4, 8, 16});
    e.context_par = pick(std::vector<int64_t>{1, 2, 4});
    e.data_par = e.num_procs / (e.tensor_par * e.pipeline_par * e.context_par);
    std::vector<int64_t> eps;
    for (int64_t ep = 1; ep <= 256; ep *= 2) {
      if (e.data_par % ep == 0)
        eps.push_back(ep);
    }
    e.expert_par = pick(eps);
    e.batch_size = e.data_par * 64;
    e.microbatch_size = pick(std::vector<int64_t>{1, 2});
    e.recompute = pick(std::vector{Recompute::kFull, Recompute::kAttnOnly, Recompute::kNone});
    e.tp_comm = TpCommType::kRsAg;
    e.fsdp = pick(std::vector{Fsdp::kNone, Fsdp::kZero1, Fsdp::kZero2, Fsdp::kZero3});
    e.optimizer_sharding = e.fsdp != Fsdp::kNone;
    e.data_par_overlap = true;
    e.datatype = sys.datatype_index(pick(std::vector<std::string>{"bfloat16", "float8"}));
    e.fused_activation = true;
    e.tensor_par_net = 0;
    e.pipeline_par_net = 1;
    e.data_par_net = 1;
    e.context_par_net = 1;
    e.expert_par_net = static_cast<int8_t>(e.expert_par * e.tensor_par <= 8 ? 0 : 1);
    out.push_back(e);
  }
  return out;
}

void BM_LlmEvaluateMoe(benchmark::State& state) {
  const System sys = resolve_system("h100-80gb");
  const IterationModel model(deepseek_v3(), sys);
  const std::vector<Execution> sample = sample_moe(sys, 4096);
  size_t i = 0;
  for (auto _ : state) {
    Stats st = model.evaluate(sample[i]);
    benchmark::DoNotOptimize(st.total_time);
    i = (i + 1) % sample.size();
  }
  state.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LlmEvaluateMoe);

// One `chorus llm infer` evaluation (prefill + decode + memory) of DeepSeek-V3 on 16 H200s (issue #13: < 10 ms).
void BM_LlmInfer(benchmark::State& state) {
  const System sys = resolve_system("h200");
  ServingConfig c;
  c.gpus = 16;
  c.tp = 8;
  c.ep = 2;
  c.prompt = 2048;
  c.output = 256;
  c.batch = 64;
  c.datatype = sys.datatype_index("bfloat16");
  const Application app = deepseek_v3();
  for (auto _ : state) {
    InferenceResult r = evaluate_inference(app, sys, c);
    benchmark::DoNotOptimize(r.tpot_s);
  }
}
BENCHMARK(BM_LlmInfer);

void run_gpt3_search(benchmark::State& state, bool prune) {
  const IterationModel model(gpt3_175b(), a100_80gb_system());
  SearchSpec spec;
  spec.num_procs = 1024;
  spec.max_batch = 1536;
  spec.top_n = 20;
  spec.threads = static_cast<int>(state.range(0));
  spec.prune = prune;
  SearchResult r;
  for (auto _ : state) {
    r = run_search(model, spec);
    benchmark::DoNotOptimize(r.top.data());
  }
  state.counters["configurations"] = static_cast<double>(r.enumerated);
  state.counters["fully_timed"] = static_cast<double>(r.evaluated);
  state.counters["space_per_s"] = benchmark::Counter(
      static_cast<double>(r.enumerated) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["timed_per_s_per_thread"] = benchmark::Counter(
      static_cast<double>(r.evaluated) * static_cast<double>(state.iterations()) / static_cast<double>(spec.threads),
      benchmark::Counter::kIsRate);
  state.counters["best_samples_per_s"] = r.top.empty() ? 0.0 : r.top[0].sample_rate;
}

void BM_LlmSearchGpt3(benchmark::State& state) {
  run_gpt3_search(state, true);
}
void BM_LlmSearchGpt3Exhaustive(benchmark::State& state) {
  run_gpt3_search(state, false);
}
BENCHMARK(BM_LlmSearchGpt3)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LlmSearchGpt3Exhaustive)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
