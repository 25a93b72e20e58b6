// Benchmark of the measured critical path (src/chorus/pytorch/kineto_path.hpp) that `chorus import pytorch
// --kineto` walks per rank: a synthetic GPU timeline of steps (an operator holding a launch call, its kernel on one
// stream, an NCCL kernel every 8 steps, a synchronisation every 64), walked alone, and the whole Kineto join
// (parse, match, walk) of the same timeline written as a chrome trace. The walk should cost little beside the parse
// and grow linearly with the events (docs/performance.md):
//
//   build/kineto_path_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/pytorch/kineto.hpp"
#include "chorus/pytorch/kineto_path.hpp"

namespace chorus::pytorch {
namespace {

// One step's events, in us: the operator [t, t+10] holds its launch [t+2, t+8]; its kernel runs 12 us on the stream
// once both the launch returned and the previous kernel ended. Calls `emit(cat, name, lane, ts, dur, correlation)`.
template <class Emit>
void steps(size_t count, Emit&& emit) {
  double cpu = 0, gpu = 0;
  for (size_t i = 0; i < count; ++i) {
    const auto c = static_cast<int64_t>(i + 1);
    emit("cpu_op", "aten::mm", 0, cpu, 10.0, -1);
    emit("cuda_runtime", "cudaLaunchKernel", 0, cpu + 2, 6.0, c);
    gpu = std::max(gpu, cpu + 9);
    emit("kernel", i % 8 == 7 ? "ncclDevKernel_AllReduce" : "sm90_gemm", 1, gpu, 12.0, c);
    gpu += 12;
    cpu += 10;
    if (i % 64 == 63) {
      emit("cuda_runtime", "cudaDeviceSynchronize", 0, cpu, gpu - cpu + 1, -1);
      cpu = gpu + 1;
    }
  }
}

void BM_KinetoWalk(benchmark::State& state) {
  TimelineBuilder b;
  const uint32_t lanes[2] = {b.lane("cpu"), b.lane("gpu")};
  steps(static_cast<size_t>(state.range(0)),
        [&](std::string_view cat, const char* name, int lane, double ts, double dur, int64_t correlation) {
          const EventKind kind = cat == "kernel"         ? EventKind::Gpu
                                 : cat == "cuda_runtime" ? EventKind::Runtime
                                                         : EventKind::Cpu;
          const std::string n = name;
          const auto start = static_cast<int64_t>(ts * 1000);
          b.add({start, start + static_cast<int64_t>(dur * 1000), lanes[lane], b.name(n), kind, n.rfind("nccl", 0) == 0,
                 n == "cudaDeviceSynchronize"},
                correlation >= 0 ? std::optional<int64_t>(correlation) : std::nullopt);
        });
  const KinetoTimeline t = b.finish();
  for (auto _ : state) {
    const MeasuredRank m = walk_measured_path(t);
    benchmark::DoNotOptimize(m.span);
  }
  state.counters["events"] = static_cast<double>(t.events.size());
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(t.events.size()) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KinetoWalk)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_KinetoJoin(benchmark::State& state) {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("chorus_kineto_bench_{}.json", ::getpid())).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fputs("{\"traceEvents\": [\n", f);
  bool first = true;
  size_t events = 0;
  steps(static_cast<size_t>(state.range(0)),
        [&](std::string_view cat, const char* name, int lane, double ts, double dur, int64_t correlation) {
          std::fputs(first ? "" : ",\n", f);
          first = false;
          ++events;
          std::fputs(fmt::format(R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, )"
                                 R"("dur": {:.3f}, "args": {{"correlation": {}, "External id": {}}}}})",
                                 cat, name, lane == 0 ? 100 : 0, lane == 0 ? 1 : 7, ts, dur, correlation, correlation)
                         .c_str(),
                     f);
        });
  std::fputs("\n]}\n", f);
  std::fclose(f);
  ExecutionTrace et;  // no nodes: the join matches nothing, so this times the parse and the walk
  for (auto _ : state) {
    const KinetoTimes k = join_kineto(path, et);
    benchmark::DoNotOptimize(k.measured.span);
  }
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KinetoJoin)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chorus::pytorch

BENCHMARK_MAIN();
