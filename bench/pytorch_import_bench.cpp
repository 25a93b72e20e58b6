// Benchmark of `chorus import pytorch` (src/chorus/pytorch/): a synthetic PyTorch 1.13-schema execution trace
// (DDP-like: linear layers with tensor arguments, and every 16 layers an async all_reduce of a bucket that a
// later op reads) is written to a temporary file, then read, recovered and turned into Chakra nodes.
// Floors (issue 18): >= 200,000 trace nodes/s; a 1 GB trace in < 10 s and < 2 GB of memory. The 1 GB case runs
// when CHORUS_BENCH_PYTORCH_GB=1 is set (it writes 1 GB under /tmp):
//
//   build/pytorch_import_bench --benchmark_filter=ImportPytorch
//   CHORUS_BENCH_PYTORCH_GB=1 build/pytorch_import_bench --benchmark_filter=ImportPytorch/1024
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

// Writes about `megabytes` MB of trace; returns the number of nodes.
size_t write_trace(const std::string& path, size_t megabytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fputs("{\"schema\": \"1.0.1\", \"pid\": 1, \"time\": \"\", \"start_ts\": 0, \"nodes\": [\n", f);
  std::fputs(
      R"({"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []})",
      f);
  uint64_t id = 3;
  size_t nodes = 2;
  const size_t limit = megabytes * 1000 * 1000;
  for (uint64_t layer = 0; static_cast<size_t>(std::ftell(f)) < limit; ++layer) {
    const uint64_t linear = id++, t = id++, addmm = id++;
    const uint64_t x = id++, w = id++, y = id++;
    std::fputs(fmt::format(R"(,
{{"name": "aten::t", "id": {}, "rf_id": {}, "parent": {}, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::t(Tensor(a) self) -> Tensor(a)", "inputs": [[{},{},0,4096,4,"cpu"]], "input_shapes": [[64,64]], "input_types": ["Tensor(float)"], "outputs": [[{},{},0,4096,4,"cpu"]], "output_shapes": [[64,64]], "output_types": ["Tensor(float)"]
  }
},
{{"name": "aten::addmm", "id": {}, "rf_id": {}, "parent": {}, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", "inputs": [[{},{},0,64,4,"cpu"],[{},{},0,4096,4,"cpu"],[{},{},0,4096,4,"cpu"],1,1], "input_shapes": [[64],[64,64],[64,64],[],[]], "input_types": ["Tensor(float)","Tensor(float)","Tensor(float)","Int","Int"], "outputs": [[{},{},0,4096,4,"cpu"]], "output_shapes": [[64,64]], "output_types": ["Tensor(float)"]}},
{{"name": "aten::linear", "id": {}, "rf_id": {}, "parent": 2, "fw_parent": 0, "seq_id": {}, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", "inputs": [[{},{},0,4096,4,"cpu"],[{},{},0,4096,4,"cpu"],"<None>"], "input_shapes": [[64,64],[64,64],[]], "input_types": ["Tensor(float)","Tensor(float)","None"], "outputs": [[{},{},0,4096,4,"cpu"]], "output_shapes": [[64,64]], "output_types": ["Tensor(float)"]}})",
                           t, t, linear, w, w, w, w, addmm, addmm, linear, x, x, x, x, w, w, y, y, linear, linear,
                           layer, x, x, w, w, y, y)
                   .c_str(),
               f);
nodes += 3;
if (layer % 16 == 15) {
  const uint64_t ar = id++, gloo = id++, read = id++;
      std::fputs(fmt::format(R"(,
{{"name": "gloo:all_reduce", "id": {}, "rf_id": {}, "parent": {}, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [[{},{},0,65536,4,"cpu"]], "input_shapes": [[65536]], "input_types": ["Tensor(float)"], "outputs": [], "output_shapes": [], "output_types": []
}
},
{{"name": "c10d::allreduce_", "id": {}, "rf_id": {}, "parent": 2, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) -> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)", "inputs": [[[{},{},0,65536,4,"cpu"]],"<Object>","<Object>",-1], "input_shapes": [[[65536]],[],[],[]], "input_types": ["GenericList[Tensor(float)]","Object","Object","Int"], "outputs": [[[{},{},0,65536,4,"cpu"]],"<Object>"], "output_shapes": [[[65536]],[]], "output_types": ["GenericList[Tensor(float)]","Object"]}},
{{"name": "aten::add_", "id": {}, "rf_id": {}, "parent": 2, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [[{},{},0,65536,4,"cpu"],1], "input_shapes": [[65536],[]], "input_types": ["Tensor(float)","Int"], "outputs": [[{},{},0,65536,4,"cpu"]], "output_shapes": [[65536]], "output_types": ["Tensor(float)"]}})",
                             gloo, gloo, ar, x, 1000000000 + layer, ar, ar, x, 1000000000 + layer, x,
                             1000000000 + layer, read, read, x, 1000000000 + layer, x, 1000000000 + layer)
                     .c_str(),
                 f);
nodes += 3;
}
}
std::fputs(R"(,
{"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 0, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []}
], "finish_ts": 1}
)",
           f);
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
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("chorus_pt_bench_{}.json", ::getpid())).string();
  const size_t nodes = write_trace(path, megabytes);
  size_t chakra_nodes = 0;
  for (auto _ : state) {
    const pytorch::ExecutionTrace t = pytorch::read_execution_trace(path, nullptr);
    const pytorch::RankImport r = pytorch::recover_rank(t, 0, 2, nullptr);
    chakra_nodes = r.trace.nodes.size();
    benchmark::DoNotOptimize(chakra_nodes);
  }
  const auto bytes = std::filesystem::file_size(path);
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
