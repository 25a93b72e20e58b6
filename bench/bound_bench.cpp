// Benchmark of the collective lower bounds (lower_bound.hpp; cut bound of Zhao & Krishnamurthy, arXiv:2305.18461
// §1.1, by Dinkelbach iteration on max-flow): a 1024-NPU 32x32 2D torus, exact (one sink per NPU, target <= 5 s)
// and the one-sink path that is exact on NPU-transitive graphs; and the one-sink path on 65,536-NPU rings and
// 256x256 tori (targets 3 s and 10 s for All-Reduce), where Dinic's ~N/2 phases per max-flow used to take minutes.
#include <benchmark/benchmark.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/topology/generators.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {
namespace {

// 32x32 torus, 50 GiB/s and 0.5 us per direction, NPU id = x + 32 y (as tacos-inputs/torus2d_32x32.txt).
Topology torus_32x32() {
  constexpr uint32_t kSide = 32;
  const Bandwidth bandwidth = Bandwidth::gib_per_s(50);
  const Time latency = Time::ns(500);
  TopologyBuilder b("torus2d:32x32", kSide * kSide);
  for (uint32_t y = 0; y < kSide; ++y) {
    for (uint32_t x = 0; x < kSide; ++x) {
      const NodeId here{x + kSide * y};
      b.add_duplex(here, NodeId{(x + 1) % kSide + kSide * y}, bandwidth, latency);
      b.add_duplex(here, NodeId{x + kSide * ((y + 1) % kSide)}, bandwidth, latency);
    }
  }
  b.set_dimensions({{BlockKind::Ring, kSide, bandwidth, latency}, {BlockKind::Ring, kSide, bandwidth, latency}});
  return std::move(b).seal();
}

void run_on(benchmark::State& state, const Topology& topology, CollectiveKind kind, BoundMethod method) {
  BoundOptions options;
  options.method = method;
  options.information_bound = false;
  LowerBound result;
  for (auto _ : state) {
    result = lower_bound(topology, Collective{kind, Bytes::gib(1), topology.npu_count()}, options);
    benchmark::DoNotOptimize(result.bound);
  }
  state.counters["bound_us"] = result.bound.microseconds();
  state.counters["max_flows"] = result.max_flows;
}

void run(benchmark::State& state, CollectiveKind kind, BoundMethod method) {
  run_on(state, torus_32x32(), kind, method);
}

// 50 GB/s and 0.5 us per direction, as `chorus bound --topology ring:65536 --bandwidth 50GB/s --latency 500ns`.
const LinkParams kLargeLink{Bandwidth::gb_per_s(50), Time::ns(500)};

void BM_Torus32x32AllGatherAllSinks(benchmark::State& state) {
  run(state, CollectiveKind::AllGather, BoundMethod::AllSinks);
}
void BM_Torus32x32AllGatherOneSink(benchmark::State& state) {
  run(state, CollectiveKind::AllGather, BoundMethod::OneSink);
}
void BM_Torus32x32AllReduceAllSinks(benchmark::State& state) {
  run(state, CollectiveKind::AllReduce, BoundMethod::AllSinks);
}
void BM_Torus32x32AllReduceOneSink(benchmark::State& state) {
  run(state, CollectiveKind::AllReduce, BoundMethod::OneSink);
}

void BM_Ring65536AllReduceOneSink(benchmark::State& state) {
  run_on(state, ring(65536, kLargeLink), CollectiveKind::AllReduce, BoundMethod::OneSink);
}
void BM_Torus256x256AllReduceOneSink(benchmark::State& state) {
  run_on(state, torus2d(256, 256, kLargeLink, kLargeLink), CollectiveKind::AllReduce, BoundMethod::OneSink);
}

// examples/networks/ring_fc_switch_16x16x16.yml: 4,096 NPUs and 512 switches (issue #16's bound floor), by symmetry
// (36 + 18 orbits) and, once, by max-flows from every sink.
Topology ring_fc_switch_16x16x16() {
  return compose({{BlockKind::Ring, 16, Bandwidth::gib_per_s(300), Time::ns(150)},
                  {BlockKind::FullyConnected, 16, Bandwidth::gib_per_s(150), Time::ns(400)},
                  {BlockKind::Switch, 16, Bandwidth::gib_per_s(25), Time::ns(1200)}});
}
void BM_RingFcSwitch4096AllReduceSymmetric(benchmark::State& state) {
  run_on(state, ring_fc_switch_16x16x16(), CollectiveKind::AllReduce, BoundMethod::Symmetric);
}
void BM_RingFcSwitch4096AllReduceAllSinks(benchmark::State& state) {
  run_on(state, ring_fc_switch_16x16x16(), CollectiveKind::AllReduce, BoundMethod::AllSinks);
}
// 262,144 NPUs, past kMaxBoundNpus: bounded only through symmetry (4 NPU and 4 switch orbits).
void BM_Switch512x512AllReduceSymmetric(benchmark::State& state) {
  run_on(state,
         compose({{BlockKind::Switch, 512, Bandwidth::gib_per_s(50), Time::ns(500)},
                  {BlockKind::Switch, 512, Bandwidth::gib_per_s(25), Time::ns(500)}}),
         CollectiveKind::AllReduce, BoundMethod::Symmetric);
}

BENCHMARK(BM_RingFcSwitch4096AllReduceSymmetric)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RingFcSwitch4096AllReduceAllSinks)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Switch512x512AllReduceSymmetric)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Torus32x32AllGatherAllSinks)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Torus32x32AllGatherOneSink)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Torus32x32AllReduceAllSinks)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Torus32x32AllReduceOneSink)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Ring65536AllReduceOneSink)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Torus256x256AllReduceOneSink)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
