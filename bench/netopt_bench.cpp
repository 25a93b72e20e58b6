// Benchmarks of the network optimizer (docs/performance.md, "Network optimizer"). Floors from issue #7: one
// optimization <= 50 ms; a sweep of 10,000 shapes <= 1 minute.
//
//   build/netopt_bench
#include <benchmark/benchmark.h>

#include <filesystem>

#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/sweep.hpp"

namespace chorus::netopt {
namespace {

const std::filesystem::path kLibra = std::filesystem::path(CHORUS_REFERENCE_DIR) / "libra-inputs";

struct DefaultCase {
  NetworkShape network = load_libra_network(kLibra / "network" / "4d_network.yml");
  TrainingStep step = build_training_step(network, load_workload(kLibra / "workload" / "GPT_3.txt"),
                                          load_communicator(kLibra / "communicator" / "GPT_3_4d.yml", network), {});
  std::vector<double> costs =
      cost_coefficients(network, load_cost_model(kLibra / "cost_model" / "4d_cost_model.yml"), "cost");
};

Budget total(double gbps) {
  Budget b;
  b.total_bandwidth_gbps = gbps;
  return b;
}

void NetoptTime4D(benchmark::State& state) {
  const DefaultCase c;
  for (auto _ : state)
    benchmark::DoNotOptimize(optimize(c.step, c.costs, Objective::Time, total(500)));
}
BENCHMARK(NetoptTime4D)->Unit(benchmark::kMillisecond);

void NetoptTimeTimesCost4D(benchmark::State& state) {
  const DefaultCase c;
  for (auto _ : state)
    benchmark::DoNotOptimize(optimize(c.step, c.costs, Objective::TimeTimesCost, total(500)));
}
BENCHMARK(NetoptTimeTimesCost4D)->Unit(benchmark::kMillisecond);

void NetoptCostUnderTarget4D(benchmark::State& state) {
  const DefaultCase c;
  Budget b;
  b.dollars = 5e7;
  b.time_target_ms = 730;
  for (auto _ : state)
    benchmark::DoNotOptimize(optimize(c.step, c.costs, Objective::Cost, b));
}
BENCHMARK(NetoptCostUnderTarget4D)->Unit(benchmark::kMillisecond);

// Every 4-dimensional network of 4,096 NPUs from Ring/FullyConnected/Switch: 165 factorisations x 81 block
// choices = 13,365 shapes, each optimised for GPT-3 (TP 16) under sum B = 500 GB/s. Arg 1 adds block
// factors and 500 ns latency.
void NetoptSweep4096(benchmark::State& state) {
  SweepSpec spec;
  spec.npus = 4096;
  spec.dimension_counts = {4};
  spec.tensor_parallel = 16;
  spec.cost_dimensions = {"InterChiplet", "InterPackage", "InterNode", "InterPod"};
  CostModel costs;
  for (const auto& name : spec.cost_dimensions)
    costs[name] = CostEntry{4, 13, 20};
  const Workload workload = load_workload(kLibra / "workload" / "GPT_3.txt");
  ModelOptions options;
  options.block_factors = state.range(0) != 0;
  if (options.block_factors)
    options.latency_ns = {500};
  size_t shapes = 0;
  for (auto _ : state)
    shapes = run_sweep(spec, workload, costs, options, Objective::Time, total(500)).rows.size();
  state.counters["shapes"] = static_cast<double>(shapes);
}
BENCHMARK(NetoptSweep4096)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace chorus::netopt

BENCHMARK_MAIN();
