// Benchmark of size sweeps (sweep/collective_sweep.hpp; issue #15 floor: a 23-point sweep, 8 B to 32 GiB by x2, on a
// 1024-NPU topology in at most 2 s including the bounds). The bound's max-flows run once per sweep and rescale to
// every size, so the sweep costs one bound plus one simulation per size. Topology: the 32x32 torus at 50 GiB/s and
// 0.5 us, ring All-Reduce (the default algorithm), unaware model, as `chorus collective --topology torus2d:32x32`.
#include <benchmark/benchmark.h>

#include "chorus/sweep/collective_sweep.hpp"
#include "chorus/sweep/size_range.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

void run_sweep(benchmark::State& state, const Topology& topology, const std::string& sizes) {
  SweepRequest request;
  request.kind = CollectiveKind::AllReduce;
  request.sizes = parse_size_range(sizes, "sizes");
  request.choose_splits = true;
  SizeSweep sweep;
  for (auto _ : state) {
    sweep = run_size_sweep(topology, request);
    benchmark::DoNotOptimize(sweep.points.back().result.time);
  }
  state.counters["points"] = static_cast<double>(sweep.points.size());
  state.counters["bound_s"] = sweep.bound_wall_s;
  state.counters["ratio_at_last_size"] = sweep.points.back().ratio().value_or(0);
}

Topology torus() {
  const LinkParams link{Bandwidth::gib_per_s(50), Time::ns(500)};
  return torus2d(32, 32, link, link);
}

// 23 points: 8 B to 32 MiB (2^3 .. 2^25); 33 points: 8 B to 32 GiB (2^3 .. 2^35).
void BM_Torus32x32Sweep23(benchmark::State& state) {
  run_sweep(state, torus(), "8B:32MiB:x2");
}
void BM_Torus32x32Sweep8BTo32GiB(benchmark::State& state) {
  run_sweep(state, torus(), "8B:32GiB:x2");
}

BENCHMARK(BM_Torus32x32Sweep23)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Torus32x32Sweep8BTo32GiB)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
