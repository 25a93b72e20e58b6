// Benchmarks of whole-collective simulation through the library:
// - ASTRA-sim-compatible 1 MiB ring All-Reduce on the 4096-NPU Ring of the reference inputs (network YAML +
//   system JSON), the case ASTRA-sim itself is measured on;
// - a native 65,536-NPU ring All-Reduce (generator ring(), 50 GB/s, 500 ns, 4 splits);
// - the schedule path (build_schedule + run_unaware) for a 256-NPU ring All-Reduce, reporting transfers/s.
//
// The reference inputs are found through $CHORUS_REFERENCE_DIR, else tests/data/reference
// (<repo>/tests/data/reference).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/collective/hierarchical.hpp"
#include "chorus/network/message_cost.hpp"
#include "chorus/network/unaware.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/astra_network.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

std::string reference_dir() {
  if (const char* env = std::getenv("CHORUS_REFERENCE_DIR"); env != nullptr && *env != '\0')
    return env;
  return CHORUS_REFERENCE_DIR;
}

std::string astra_input(const std::string& relative) {
  return reference_dir() + "/astra-sim-inputs/" + relative;
}

Topology native_ring(uint32_t npus) {
  return ring(npus, LinkParams{Bandwidth::gb_per_s(50), Time::ns(500)});
}

CollectiveRunOptions native_options(uint32_t splits, Evaluation evaluation) {
  CollectiveRunOptions options;
  options.plan.splits = splits;
  options.evaluation = evaluation;
  return options;
}

void report_time(benchmark::State& state, const CollectiveRunResult& result) {
  state.counters["simulated_ns"] = static_cast<double>(result.time.picoseconds()) / 1e3;
  state.counters["transfers"] = static_cast<double>(result.transfers);
}

// ASTRA-sim compatibility mode, inputs loaded once (the loading itself is part of the CLI benchmark).
void bm_astra_ring_4096_all_reduce(benchmark::State& state) {
  const Topology topology = load_astra_network(astra_input("network/Ring_4096.yml"));
  const AstraSystemConfig system = load_astra_system(astra_input("system/ring_1d.json"));
  CollectiveRunOptions options;
  options.plan = system.plan_config(CollectiveKind::AllReduce);
  const Collective collective{CollectiveKind::AllReduce, Bytes::mib(1), topology.npu_count()};
  CollectiveRunResult result;
  for (auto _ : state) {
    result = run_collective(topology, collective, options);
    benchmark::DoNotOptimize(result.time);
  }
  report_time(state, result);
}
BENCHMARK(bm_astra_ring_4096_all_reduce)->Unit(benchmark::kMicrosecond);

void bm_native_ring_65536_all_reduce(benchmark::State& state) {
  const Topology topology = native_ring(65536);
  const Collective collective{CollectiveKind::AllReduce, Bytes::mib(1), topology.npu_count()};
  const CollectiveRunOptions options = native_options(4, Evaluation::Auto);
  CollectiveRunResult result;
  for (auto _ : state) {
    result = run_collective(topology, collective, options);
    benchmark::DoNotOptimize(result.time);
  }
  report_time(state, result);
}
BENCHMARK(bm_native_ring_65536_all_reduce)->Unit(benchmark::kMicrosecond);

// The general path: materialise every transfer of the plan, then run the congestion-unaware model over it.
void bm_schedule_ring_256_all_reduce(benchmark::State& state) {
  const Topology topology = native_ring(256);
  const Collective collective{CollectiveKind::AllReduce, Bytes::mib(1), topology.npu_count()};
  const CollectiveRunOptions options = native_options(4, Evaluation::Schedule);
  const CollectivePlan plan = plan_collective(topology, collective, options.plan);
  const RoutedCost cost(topology);
  uint64_t transfers = 0;
  for (auto _ : state) {
    const Schedule schedule = build_schedule(plan);
    const ScheduleTiming timing = run_unaware(schedule, cost);
    benchmark::DoNotOptimize(timing.makespan);
    transfers += schedule.transfer_count();
  }
  state.counters["transfers_per_s"] = benchmark::Counter(static_cast<double>(transfers), benchmark::Counter::kIsRate);
  state.counters["transfers"] = static_cast<double>(count_transfers(plan));
}
BENCHMARK(bm_schedule_ring_256_all_reduce)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
