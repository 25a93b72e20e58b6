// The C++ side of the Python call-overhead measurement (docs/performance.md, "Python module"): one tiny collective
// through run_collective_request, the function chorus.collective() calls, with the same inputs as the Python timing
// `chorus.collective(topo, "all_reduce", "1KiB")` on ring:8 at 50 GB/s and 1 us.
#include <benchmark/benchmark.h>

#include "chorus/sim/collective_request.hpp"
#include "chorus/topology/load.hpp"

namespace chorus {
namespace {

void bm_tiny_ring8_all_reduce_request(benchmark::State& state) {
  TopologyRequest request;
  request.spec = "ring:8";
  request.bandwidths = {Bandwidth::gb_per_s(50)};
  request.latencies = {Time::us(1)};
  const Topology topology = load_topology(request);
  CollectiveRequest q;
  q.kind = CollectiveKind::AllReduce;
  q.size = Bytes::kib(1);
  for (auto _ : state) {
    CollectiveOutcome outcome = run_collective_request(topology, q);
    benchmark::DoNotOptimize(outcome.summary.time);
  }
}
BENCHMARK(bm_tiny_ring8_all_reduce_request)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
