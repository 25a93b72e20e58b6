// Benchmark of `chorus import pytorch` (src/chorus/pytorch/): a synthetic PyTorch 1.13-schema execution trace
// (DDP-like: linear layers with tensor arguments, and every 16 layers an async all_reduce of a bucket that a
// later op reads) is written to a temporary file, then read, recovered and turned into Chakra nodes.
// Floors (issue 18): >= 200,000 trace nodes/s; a 1 GB trace in < 10 s and < 2 GB of memory. The 1 GB case runs
// when CHORUS_BENCH_PYTORCH_GB=1 is set (it writes 1 GB under /tmp):
//
//   build/pytorch_import_bench --benchmark_filter=ImportPytorch
//   CHORUS_BENCH_PYTORCH_GB=1 build/pytorch_import_bench --benchmark_filter=ImportPytorch/1024
//   CHORUS_BENCH_PYTORCH_GB=1 CHORUS_BENCH_PYTORCH_TRACE=/tmp/pt1g.json build/pytorch_import_bench
//       --benchmark_filter=ImportPytorch/1024   # keeps the trace: /usr/bin/time -v build/chorus import pytorch ...
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/pytorch/recover.hpp"

namespace chorus {
namespace {

std::string tensor(uint64_t id, uint64_t storage, uint64_t numel) {
  return fmt::format("[{},{},0,{},4,\"cpu\"]", id, storage, numel);
}

// One node in the 1.13 layout, with the fields PyTorch writes (so the reader skips what it does not use).
std::string node(const std::string& name, uint64_t id, uint64_t parent, const std::string& inputs,
                 const std::string& outputs) {
  return fmt::format(
      ",\n{{\"name\": \"{}\", \"id\": {}, \"rf_id\": {}, \"parent\": {}, \"fw_parent\": 0, \"seq_id\": -1, "
      "\"scope\": 0, \"tid\": 1, \"fw_tid\": 0, \"op_schema\": \"{}(Tensor self, Tensor other) -> Tensor\", "
      "\"inputs\": [{}], \"input_shapes\": [[64,64],[64,64]], \"input_types\": [\"Tensor(float)\",\"Tensor(float)\"], "
      "\"outputs\": [{}], \"output_shapes\": [[64,64]], \"output_types\": [\"Tensor(float)\"]}}",
      name, id, id, parent, name, inputs, outputs);
}

// Writes about `megabytes` MB of trace; returns the number of nodes. Per layer: aten::linear holding aten::t
// and aten::addmm; every 16 layers a c10d::allreduce_ of a 256 KiB bucket holding its gloo:all_reduce, and an
// aten::add_ that reads the bucket (the wait).
size_t write_trace(const std::string& path, size_t megabytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fputs("{\"schema\": \"1.0.1\", \"pid\": 1, \"time\": \"\", \"start_ts\": 0, \"nodes\": [\n", f);
  std::fputs("{\"name\": \"[pytorch|profiler|execution_graph|process]\", \"id\": 1, \"parent\": 1, \"inputs\": []}", f);
  std::fputs(node("[pytorch|profiler|execution_graph|thread]", 2, 1, "", "").c_str(), f);
  uint64_t id = 3;
  size_t nodes = 2;
  const size_t limit = megabytes * 1000 * 1000;
  for (uint64_t layer = 0; static_cast<size_t>(std::ftell(f)) < limit; ++layer) {
    const uint64_t linear = id++, t = id++, addmm = id++, x = id++, w = id++, y = id++;
    std::string text =
        node("aten::linear", linear, 2, tensor(x, x, 4096) + "," + tensor(w, w, 4096), tensor(y, y, 4096));
    text += node("aten::t", t, linear, tensor(w, w, 4096), tensor(w + 1000000000, w, 4096));
    text += node("aten::addmm", addmm, linear, tensor(x, x, 4096) + "," + tensor(w, w, 4096), tensor(y, y, 4096));
    nodes += 3;
    if (layer % 16 == 15) {
      const uint64_t ar = id++, gloo = id++, add = id++, bucket = 2000000000 + layer;
      const std::string b = tensor(bucket, bucket, 65536);
      text += node("c10d::allreduce_", ar, 2, "[" + b + "]", "[" + b + "]");
      text += node("gloo:all_reduce", gloo, ar, b, "");
      text += node("aten::add_", add, 2, b + "," + tensor(y, y, 4096), b);
      nodes += 3;
    }
    std::fputs(text.c_str(), f);
  }
  std::fputs("\n], \"finish_ts\": 1}\n", f);
  std::fclose(f);
  return nodes;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void BM_ImportPytorch(benchmark::State& state) {
  const auto megabytes = static_cast<size_t>(state.range(0));
  if (megabytes >= 1000 && std::getenv("CHORUS_BENCH_PYTORCH_GB") == nullptr) {
    state.SkipWithError("set CHORUS_BENCH_PYTORCH_GB=1 to run the 1 GB case");
    return;
  }
  // CHORUS_BENCH_PYTORCH_TRACE=FILE writes the trace there and keeps it (for timing `chorus import pytorch`).
  const char* keep = std::getenv("CHORUS_BENCH_PYTORCH_TRACE");
  const std::string path =
      keep != nullptr
          ? std::string(keep)
          : (std::filesystem::temp_directory_path() / fmt::format("chorus_pt_bench_{}.json", ::getpid())).string();
  const size_t nodes = write_trace(path, megabytes);
  size_t chakra_nodes = 0;
  for (auto _ : state) {
    const pytorch::ExecutionTrace t = pytorch::read_execution_trace(path, nullptr);
    const pytorch::RankImport r = pytorch::recover_rank(t, 0, 2, nullptr);
    chakra_nodes = r.trace.nodes.size();
    benchmark::DoNotOptimize(chakra_nodes);
  }
  const auto bytes = std::filesystem::file_size(path);
  if (keep == nullptr)
    std::filesystem::remove(path);
  state.counters["trace_nodes"] = static_cast<double>(nodes);
  state.counters["chakra_nodes"] = static_cast<double>(chakra_nodes);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["nodes_per_s"] = benchmark::Counter(
      static_cast<double>(nodes) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_ImportPytorch)->Arg(50)->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
