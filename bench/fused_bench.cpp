// Benchmarks of the fused-operator work (docs/fusion.md): the analytical model behind `chorus fused` (floor: 10 ms
// per answer) and a 128-node x 8-GPU DLRM iteration with fused operators through the workload runtime (floor: 5 s).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "chorus/generate/dlrm.hpp"
#include "chorus/overlap/fused_model.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"
#include "chorus/workload/fuse_pass.hpp"

namespace chorus {
namespace {

// 8 GPUs per node behind a 300 GB/s switch (NVLink-class), 128 nodes behind a 50 GB/s switch (400 Gb/s NICs).
Topology cluster_128x8() {
  return compose({Dimension{BlockKind::Switch, 8, Bandwidth::gb_per_s(300), Time::ns(500)},
                  Dimension{BlockKind::Switch, 128, Bandwidth::gb_per_s(50), Time::us(2)}});
}

void BM_FusedModelGemvAllReduce(benchmark::State& state) {
  const Topology topology = switch_star(8, LinkParams{Bandwidth::gb_per_s(450), Time::us(1)});
  fused::FusedRequest q;
  q.op = fused::FusedOp::GemvAllReduce;
  q.shape = fused::OperatorShape{8192, 8192, 0, 1, "bf16"};
  q.npus = 8;
  q.gpu = fused::load_gpu("h100-80gb");
  Time fused = Time::zero();
  for (auto _ : state) {
    // A fresh timer each time: `chorus fused` answers one question per process, with nothing cached.
    CollectiveTimer timer(topology, CollectiveTimerOptions{});
    GroupBounds bounds(topology);
    fused = fused::evaluate_fused(q, timer, bounds).fused;
    benchmark::DoNotOptimize(fused);
  }
  state.counters["fused_us"] = fused.microseconds();
}
BENCHMARK(BM_FusedModelGemvAllReduce)->Unit(benchmark::kMillisecond);

void BM_Dlrm128x8FusedIteration(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / "chorus_bench_dlrm";
  std::filesystem::remove_all(dir);
  DlrmSpec spec;
  spec.nodes = 128;
  spec.gpus_per_node = 8;
  spec.gpu = fused::load_gpu("a100-80gb");
  write_dlrm((dir / "dlrm").string(), spec, false);
  const std::string prefix = fused::fuse_workload((dir / "dlrm").string(), (dir / "fused").string(), {}).prefix;
  const Topology topology = cluster_128x8();
  RunReport report;
  for (auto _ : state) {
    const Workload w = load_workload(prefix, "");
    RuntimeOptions options;
    options.record_timeline = false;
    report = run_workload(w, topology, options);
    benchmark::DoNotOptimize(report.finish);
  }
  state.counters["finish_ms"] = report.finish.microseconds() / 1e3;
  state.counters["fused_ops"] = static_cast<double>(report.fused_ops.size());
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Dlrm128x8FusedIteration)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
