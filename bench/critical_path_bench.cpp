// The cost of explaining a run (issue #27), on the GPT-3 175B iteration of 1,024 NPUs (DP 8, TP 8, PP 16, 1F1B,
// 16 microbatches; examples/networks/rail_3d_1024.yml, examples/systems/llm_a100.json, flow model), the traces
// generated and loaded once, outside the timing:
// - CriticalPathGpt3/0: a plain run; /1: the same run recording the critical path and blame (floor: <= 10% more CPU);
// - WhatIfGpt3: the 9 standard what-if runs on one thread (floor: <= 9 x a plain run's CPU, the plain run itself
//   being the tenth).
// bench/critical_path.sh runs both and the CLI comparison.
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/runtime/what_if.hpp"
#include "chorus/topology/astra_network.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

// The generated workload, its network and system, built once for every benchmark of this file.
struct Gpt3 {
  Gpt3()
      : topology(load_astra_network(examples() + "/networks/rail_3d_1024.yml")),
        system(load_astra_system(examples() + "/systems/llm_a100.json")),
        workload(load()) {}

  static std::string examples() { return std::string(CHORUS_SOURCE_DIR) + "/examples"; }

  static Workload load() {
    LlmTrainingSpec spec;
    spec.model = *llm::model_preset("gpt3-175b");
    spec.dp = 8;
    spec.tp = 8;
    spec.pp = 16;
    spec.microbatches = 16;
    const fs::path dir = fs::temp_directory_path() / "chorus_critical_path_bench";
    const std::string prefix = write_llm_training(dir.string(), spec, false);
    return load_workload(prefix, (dir / "comm_groups.json").string());
  }

  RuntimeOptions options() const {
    RuntimeOptions o;
    o.model = NetworkModelKind::Flow;
    o.system = &system;
    o.record_timeline = false;
    return o;
  }

  Topology topology;
  AstraSystemConfig system;
  Workload workload;
};

const Gpt3& gpt3() {
  static const Gpt3 instance;  // built on first use; immutable afterwards
  return instance;
}

void CriticalPathGpt3(benchmark::State& state) {
  const Gpt3& g = gpt3();
  RuntimeOptions options = g.options();
  options.critical_path = state.range(0) == 1;
  for (auto _ : state) {
    const RunReport r = run_workload(g.workload, g.topology, options);
    state.counters["finish_ms"] = r.finish.seconds() * 1e3;
    state.counters["segments"] = r.critical_path ? static_cast<double>(r.critical_path->segments.size()) : 0.0;
  }
}
BENCHMARK(CriticalPathGpt3)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

void WhatIfGpt3(benchmark::State& state) {
  const Gpt3& g = gpt3();
  const std::vector<WhatIf> changes = standard_what_ifs(g.topology);
  for (auto _ : state) {
    const std::vector<WhatIfResult> r = run_what_ifs(g.workload, g.topology, g.options(), changes, 1);
    benchmark::DoNotOptimize(r.data());
  }
  state.counters["runs"] = static_cast<double>(changes.size());
}
BENCHMARK(WhatIfGpt3)->Unit(benchmark::kMillisecond)->Iterations(1)->MeasureProcessCPUTime();

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
