// Benchmarks of the workload layer:
// - WorkloadReadTrace: reading one Chakra .et file of 1,048,576 nodes (COMP and COMM nodes with dependencies and
//   attributes, as a real rank file carries), plain and gzipped; nodes/s is the floor's metric (>= 1M/s);
// - WorkloadRuntime: a 256-NPU data-parallel step (per NPU: 64 layers of compute, each followed by a
//   dependent All-Reduce on its group of 8, plus a ring of sends/receives), loaded and run; events/s;
// - WorkloadGpt3: the issue #4 floor, a generated GPT-3 175B iteration on 1,024 NPUs (DP 8, TP 8, PP 16, 1F1B,
//   16 microbatches) on examples/networks/rail_3d_1024.yml with examples/systems/llm_a100.json, loaded and run
//   under `unaware` (arg 0), `flow` (arg 1) and `flow` with --contention (arg 2); the traces are generated once,
//   outside the timing.
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/chakra/trace.hpp"
#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/astra_network.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using chakra::CommType;
using chakra::NodeType;
using chakra::TraceNode;

fs::path bench_dir() {
  const fs::path dir = fs::temp_directory_path() / "chorus_workload_bench";
  fs::create_directories(dir);
  return dir;
}

// A rank file shaped like a training step: mostly COMP nodes in chains, a collective every 8 nodes.
chakra::ChakraTrace big_trace(uint64_t nodes) {
  chakra::ChakraTrace t;
  t.version = "0.0.4";
  t.nodes.reserve(nodes);
  for (uint64_t i = 0; i < nodes; ++i) {
    TraceNode n;
    n.id = i;
    n.name = fmt::format("layer{}_op{}", i / 8, i % 8);
    if (i > 0)
      n.data_deps.push_back(i - 1);
    if (i % 8 == 7) {
      n.type = NodeType::CommColl;
      n.comm_type = static_cast<int64_t>(CommType::AllReduce);
      n.comm_size = 1 << 20;
      n.pg_name.assign(1, '1');  // (a string literal here trips a false -Wrestrict in g++ 12)
    } else {
      n.type = NodeType::Comp;
      n.duration_micros = 10 + i % 5;
      n.num_ops = 1'000'000;
      n.tensor_size = 65536;
    }
    t.nodes.push_back(std::move(n));
  }
  return t;
}

void WorkloadReadTrace(benchmark::State& state) {
  const bool gzip = state.range(0) != 0;
  const std::string path = (bench_dir() / (gzip ? "big_gz.0.et" : "big.0.et")).string();
  constexpr uint64_t nodes = uint64_t{1} << 20;
  if (!fs::exists(path))
    chakra::write_chakra_trace(path, big_trace(nodes), gzip);
  for (auto _ : state) {
    const chakra::ChakraTrace t = chakra::read_chakra_trace(path);
    benchmark::DoNotOptimize(t.nodes.data());
  }
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(fs::file_size(path)) / 1e6;
}
BENCHMARK(WorkloadReadTrace)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same file through load_workload's path: nodes streamed into the compact runtime graph.
void WorkloadLoadRank(benchmark::State& state) {
  const std::string dir = (bench_dir() / "load").string();
  fs::create_directories(dir);
  constexpr uint64_t nodes = uint64_t{1} << 20;
  const std::string path = dir + "/big.0.et";
  if (!fs::exists(path))
    chakra::write_chakra_trace(path, big_trace(nodes), false);
  const std::string groups = dir + "/groups.json";
  std::FILE* f = std::fopen(groups.c_str(), "w");
  std::fputs("{\"1\": [0]}", f);
  std::fclose(f);
  for (auto _ : state) {
    const Workload w = load_workload(dir + "/big", groups);
    benchmark::DoNotOptimize(w.npus.data());
  }
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes * state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(WorkloadLoadRank)->Unit(benchmark::kMillisecond);

std::string write_dp_workload(uint32_t npus, uint32_t layers) {
  const fs::path dir = bench_dir() / fmt::format("dp{}", npus);
  fs::create_directories(dir);
  std::string groups = "{";
  for (uint32_t g = 0; g < npus / 8; ++g) {
    groups.append(fmt::format("{}\"{}\": [{}, {}, {}, {}, {}, {}, {}, {}]", g == 0 ? "" : ", ", g + 1, 8 * g, 8 * g + 1,
                              8 * g + 2, 8 * g + 3, 8 * g + 4, 8 * g + 5, 8 * g + 6, 8 * g + 7));
  }
  std::FILE* f = std::fopen((dir / "groups.json").string().c_str(), "w");
  groups.push_back('}');
  std::fputs(groups.c_str(), f);
  std::fclose(f);
  for (uint32_t r = 0; r < npus; ++r) {
    chakra::ChakraTrace t;
    uint64_t id = 0;
    for (uint32_t l = 0; l < layers; ++l) {
      TraceNode c;
      c.id = id++;
      c.type = NodeType::Comp;
      c.duration_micros = 100;
      if (id > 1)
        c.data_deps.push_back(id - 2);
      TraceNode a;
      a.id = id++;
      a.type = NodeType::CommColl;
      a.comm_type = static_cast<int64_t>(CommType::AllReduce);
      a.comm_size = 16 << 20;
      a.pg_name = std::to_string(r / 8 + 1);
      a.data_deps.push_back(c.id);
      t.nodes.push_back(std::move(c));
      t.nodes.push_back(std::move(a));
    }
    TraceNode s;
    s.id = id++;
    s.type = NodeType::CommSend;
    s.comm_dst = (r + 1) % npus;
    s.comm_size = 1 << 20;
    s.data_deps.push_back(id - 2);
    TraceNode v;
    v.id = id++;
    v.type = NodeType::CommRecv;
    v.comm_src = (r + npus - 1) % npus;
    v.comm_size = 1 << 20;
    t.nodes.push_back(std::move(s));
    t.nodes.push_back(std::move(v));
    chakra::write_chakra_trace((dir / fmt::format("dp.{}.et", r)).string(), t, false);
  }
  return (dir / "dp").string();
}

void WorkloadRuntime(benchmark::State& state) {
  const auto npus = static_cast<uint32_t>(state.range(0));
  const std::string prefix = write_dp_workload(npus, 64);
  const Topology topology = switch_star(npus, LinkParams{Bandwidth::gb_per_s(50), Time::ns(500)});
  RuntimeOptions options;
  options.record_timeline = false;
  uint64_t events = 0;
  for (auto _ : state) {
    const Workload w = load_workload(prefix, prefix.substr(0, prefix.size() - 2) + "groups.json");
    const RunReport r = run_workload(w, topology, options);
    events += r.events;
    benchmark::DoNotOptimize(r.finish);
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(WorkloadRuntime)->Arg(256)->Unit(benchmark::kMillisecond);

void WorkloadGpt3(benchmark::State& state) {
  const NetworkModelKind model = state.range(0) == 0 ? NetworkModelKind::Unaware : NetworkModelKind::Flow;
  const bool contention = state.range(0) == 2;
  LlmTrainingSpec spec;
  spec.model = *llm::model_preset("gpt3-175b");
  spec.dp = 8;
  spec.tp = 8;
  spec.pp = 16;
  spec.microbatches = 16;
  const std::string dir = (bench_dir() / "gpt3_1024").string();
  const std::string prefix = write_llm_training(dir, spec, false);
  const std::string examples = std::string(CHORUS_SOURCE_DIR) + "/examples";
  const Topology topology = load_astra_network(examples + "/networks/rail_3d_1024.yml");
  const AstraSystemConfig system = load_astra_system(examples + "/systems/llm_a100.json");
  RuntimeOptions options;
  options.model = model;
  options.system = &system;
  options.record_timeline = false;
  options.contention = contention;
  uint64_t events = 0;
  uint64_t nodes = 0;
  for (auto _ : state) {
    const Workload w = load_workload(prefix, dir + "/comm_groups.json");
    const RunReport r = run_workload(w, topology, options);
    events += r.events;
    nodes = w.node_count();
    state.counters["finish_ms"] = r.finish.seconds() * 1e3;
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(WorkloadGpt3)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
