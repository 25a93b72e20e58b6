// Benchmark of collective synthesis (synth/synthesize.hpp): All-Gather of 1 GiB on every 1024-NPU TACOS input
// (tacos-inputs/, floor: at most 0.5 s of CPU each, issue #17; TACOS v1.3.0 takes 21 s to 2,072 s,
// tacos-results-table.csv), with --chunks auto; All-Reduce on a 32x32 2D mesh; All-to-All of 64 MiB on a 32x32 torus
// (floor: 10 s); dimension-wise All-Reduce (synth/dimensional.hpp) on a 32x32 and a 200x200 2D mesh (floor: the
// 40,000-NPU one in at most 10 minutes and 8 GiB). Counters: the synthesized time and its ratio to the cut bound is
// left to scripts/synth-quality.sh; here time_us, transfers and chunks_per_npu. The All-to-All bound's exact LP
// (synth/concurrent_flow_lp.hpp) on the 8x8 mesh and torus (at the default --exact-bound-limit), and on a 6-cube and
// a 4x4x4 torus (above it).
#include <algorithm>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "chorus/synth/all_to_all_bound.hpp"
#include "chorus/synth/concurrent_flow_lp.hpp"
#include "chorus/synth/dimensional.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/edge_list.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

void run_on(benchmark::State& state, const Topology& topology, CollectiveKind kind) {
  SynthOptions options;
  options.kind = kind;
  options.size = Bytes::gib(1);
  SynthResult result;
  for (auto _ : state) {
    result = synthesize(topology, options);
    benchmark::DoNotOptimize(result.time);
  }
  state.counters["time_us"] = result.time.microseconds();
  state.counters["transfers"] = static_cast<double>(result.schedule.transfer_count());
  state.counters["chunks_per_npu"] = result.chunks_per_npu;
}

void tacos_input(benchmark::State& state, const std::string& label) {
  const std::string path = std::string(CHORUS_REFERENCE_DIR) + "/tacos-inputs/" + label + ".txt";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("reference input missing");
    return;
  }
  run_on(state, load_edge_list(path), CollectiveKind::AllGather);
}

#define CHORUS_TACOS_BENCH(label)                           \
  void BM_SynthAllGather_##label(benchmark::State& state) { \
    tacos_input(state, #label);                             \
  }                                                         \
  BENCHMARK(BM_SynthAllGather_##label)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(1)

CHORUS_TACOS_BENCH(ring_1024);
CHORUS_TACOS_BENCH(uniring_1024);
CHORUS_TACOS_BENCH(mesh2d_32x32);
CHORUS_TACOS_BENCH(torus2d_32x32);
CHORUS_TACOS_BENCH(torus3d_16x8x8);
CHORUS_TACOS_BENCH(hypercube_d10);
CHORUS_TACOS_BENCH(hetmesh2d_32x32);
CHORUS_TACOS_BENCH(asymtorus2d_32x32);
CHORUS_TACOS_BENCH(dgxlike_128x8);

void BM_SynthAllReduceMesh32x32(benchmark::State& state) {
  const LinkParams link{Bandwidth::gib_per_s(50), Time::ns(500)};
  run_on(state, mesh2d(32, 32, link, link), CollectiveKind::AllReduce);
}
BENCHMARK(BM_SynthAllReduceMesh32x32)->Unit(benchmark::kMillisecond)->Iterations(1);

// All-to-All of 64 MiB on a 32x32 torus (floor, issue #17: a 1024-NPU All-to-All in at most 10 s): 16.8 M hops.
void BM_SynthAllToAllTorus32x32(benchmark::State& state) {
  const LinkParams link{Bandwidth::gib_per_s(50), Time::ns(500)};
  const Topology topology = torus2d(32, 32, link, link);
  SynthOptions options;
  options.kind = CollectiveKind::AllToAll;
  options.size = Bytes::mib(64);
  SynthResult result;
  for (auto _ : state) {
    result = synthesize(topology, options);
    benchmark::DoNotOptimize(result.time);
  }
  state.counters["time_us"] = result.time.microseconds();
  state.counters["transfers"] = static_cast<double>(result.schedule.transfer_count());
}
BENCHMARK(BM_SynthAllToAllTorus32x32)->Unit(benchmark::kMillisecond)->Iterations(1);

void run_dimensional(benchmark::State& state, uint32_t side) {
  const LinkParams link{Bandwidth::gib_per_s(50), Time::ns(500)};
  const Topology topology = mesh2d(side, side, link, link);
  SynthOptions options;
  options.kind = CollectiveKind::AllReduce;
  options.size = Bytes::gib(1);
  DimensionalSynthResult result;
  for (auto _ : state) {
    result = synthesize_dimensional(topology, options);
    benchmark::DoNotOptimize(result.time);
  }
  state.counters["time_us"] = result.time.microseconds();
  state.counters["transfers"] = static_cast<double>(result.transfers);
}

void BM_SynthDimensionalAllReduceMesh32x32(benchmark::State& state) {
  run_dimensional(state, 32);
}
BENCHMARK(BM_SynthDimensionalAllReduceMesh32x32)->Unit(benchmark::kMillisecond);

void BM_SynthDimensionalAllReduceMesh200x200(benchmark::State& state) {
  run_dimensional(state, 200);
}
BENCHMARK(BM_SynthDimensionalAllReduceMesh200x200)->Unit(benchmark::kMillisecond);

void run_flow_lp(benchmark::State& state, const Topology& topology) {
  const SynthGraph graph = make_synth_graph(topology, {});
  const std::vector<int64_t> demand = uniform_demand(graph.member_count(), Bytes::mib(64));
  double busiest = 0;
  for (auto _ : state) {
    const auto lp = solve_concurrent_flow_lp(graph, demand, uint64_t{1} << 20);
    busiest = lp ? *std::max_element(lp->load.begin(), lp->load.end()) : 0;
    benchmark::DoNotOptimize(busiest);
  }
  state.counters["variables"] = static_cast<double>(concurrent_flow_lp_variables(graph, demand));
  state.counters["busiest_link_MiB"] = busiest / (1 << 20);
}

const LinkParams kFlowLink{Bandwidth::gib_per_s(50), Time::ns(500)};

void BM_ConcurrentFlowLpMesh8x8(benchmark::State& state) {
  run_flow_lp(state, mesh2d(8, 8, kFlowLink, kFlowLink));
}
BENCHMARK(BM_ConcurrentFlowLpMesh8x8)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ConcurrentFlowLpTorus8x8(benchmark::State& state) {
  run_flow_lp(state, torus2d(8, 8, kFlowLink, kFlowLink));
}
BENCHMARK(BM_ConcurrentFlowLpTorus8x8)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ConcurrentFlowLpHypercube6(benchmark::State& state) {
  run_flow_lp(state, hypercube(6, std::vector<LinkParams>(6, kFlowLink)));
}
BENCHMARK(BM_ConcurrentFlowLpHypercube6)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ConcurrentFlowLpTorus4x4x4(benchmark::State& state) {
  run_flow_lp(state, torus3d(4, 4, 4, kFlowLink, kFlowLink, kFlowLink));
}
BENCHMARK(BM_ConcurrentFlowLpTorus4x4x4)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
