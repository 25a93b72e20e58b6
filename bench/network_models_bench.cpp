// Benchmarks of the congestion-aware models (store-and-forward "aware" and max-min "flow"):
// - the ASTRA-sim aware cases it takes minutes on: a 1 MiB ring All-Reduce on the 4096-NPU Ring and Switch,
//   and the 4096-NPU 16x16x16 Ring x FullyConnected x Switch network ASTRA-sim's aware backend cannot run;
//   these go through the symmetric evaluation over link classes;
// - the full-schedule path on a 32x32 mesh (not rotation-symmetric) and a 256-NPU switch all-to-all, reporting
//   events per second.
// Reference inputs: $CHORUS_REFERENCE_DIR, else <repo>/tests/data/reference.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/astra_network.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

std::string astra_input(const std::string& relative) {
  std::string dir;
  if (const char* env = std::getenv("CHORUS_REFERENCE_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    dir = CHORUS_REFERENCE_DIR;
  }
  return dir + "/astra-sim-inputs/" + relative;
}

void run_astra(benchmark::State& state, const char* network, const char* system_file, NetworkModelKind model) {
  const Topology topology = load_astra_network(astra_input(network));
  const AstraSystemConfig system = load_astra_system(astra_input(system_file));
  CollectiveRunOptions options;
  options.plan = system.plan_config(CollectiveKind::AllReduce);
  options.model = model;
  CollectiveRunResult result;
  for (auto _ : state) {
    result =
        run_collective(topology, Collective{CollectiveKind::AllReduce, Bytes::mib(1), topology.npu_count()}, options);
    benchmark::DoNotOptimize(result.time);
  }
  state.counters["simulated_ns"] = result.time.nanoseconds();
  state.counters["events"] = static_cast<double>(result.events);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(result.events), benchmark::Counter::kIsIterationInvariantRate);
}

void bm_aware_ring_4096(benchmark::State& s) {
  run_astra(s, "network/Ring_4096.yml", "system/ring_1d.json", NetworkModelKind::Aware);
}
void bm_flow_ring_4096(benchmark::State& s) {
  run_astra(s, "network/Ring_4096.yml", "system/ring_1d.json", NetworkModelKind::Flow);
}
void bm_aware_switch_4096(benchmark::State& s) {
  run_astra(s, "network/Switch_4096.yml", "system/ring_1d.json", NetworkModelKind::Aware);
}
void bm_flow_switch_4096(benchmark::State& s) {
  run_astra(s, "network/Switch_4096.yml", "system/ring_1d.json", NetworkModelKind::Flow);
}
void bm_aware_3d_4096(benchmark::State& s) {
  run_astra(s, "network/RingxFCxSwitch_16x16x16.yml", "system/ring_3d.json", NetworkModelKind::Aware);
}
void bm_flow_3d_4096(benchmark::State& s) {
  run_astra(s, "network/RingxFCxSwitch_16x16x16.yml", "system/ring_3d.json", NetworkModelKind::Flow);
}

void run_schedule(benchmark::State& state, const Topology& topology, CollectiveKind kind, AlgorithmKind algorithm,
                  NetworkModelKind model) {
  CollectiveRunOptions options;
  options.plan.algorithms = {AlgorithmChoice{algorithm, 0}};
  options.model = model;
  options.evaluation = Evaluation::Schedule;
  CollectiveRunResult result;
  for (auto _ : state) {
    result = run_collective(topology, Collective{kind, Bytes::mib(64), topology.npu_count()}, options);
    benchmark::DoNotOptimize(result.time);
  }
  state.counters["transfers"] = static_cast<double>(result.transfers);
  state.counters["events"] = static_cast<double>(result.events);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(result.events), benchmark::Counter::kIsIterationInvariantRate);
}

const LinkParams kLink{Bandwidth::gb_per_s(50), Time::ns(500)};

void bm_flow_mesh_32x32_all_reduce(benchmark::State& s) {
  run_schedule(s, mesh2d(32, 32, kLink, kLink), CollectiveKind::AllReduce, AlgorithmKind::Ring, NetworkModelKind::Flow);
}
void bm_aware_mesh_32x32_all_reduce(benchmark::State& s) {
  run_schedule(s, mesh2d(32, 32, kLink, kLink), CollectiveKind::AllReduce, AlgorithmKind::Ring,
               NetworkModelKind::Aware);
}
void bm_flow_switch_256_all_to_all(benchmark::State& s) {
  run_schedule(s, switch_star(256, kLink), CollectiveKind::AllToAll, AlgorithmKind::Direct, NetworkModelKind::Flow);
}

BENCHMARK(bm_aware_ring_4096)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flow_ring_4096)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_aware_switch_4096)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flow_switch_4096)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_aware_3d_4096)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flow_3d_4096)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flow_mesh_32x32_all_reduce)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_aware_mesh_32x32_all_reduce)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flow_switch_256_all_to_all)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
