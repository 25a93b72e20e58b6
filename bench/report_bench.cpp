// Benchmark of the HTML run report (report/sim_report.hpp; issue #15 floor: the report of the GPT-3 1,024-NPU run
// under 5 MB and written in under 1 s). The run is stood in for by a report of the same shape: 1,024 NPUs,
// 49,280 collectives in the three classes of the GPT-3 run (DP 8 x TP 8 x PP 16 on rail_3d_1024, see README), and
// link statistics for every link of examples/networks/rail_3d_1024.yml. The report's size depends on these counts,
// not on the times.
#include <benchmark/benchmark.h>

#include "chorus/report/sim_report.hpp"
#include "chorus/topology/load.hpp"

namespace chorus {
namespace {

RunReport gpt3_shaped_report(const Topology& topology) {
  RunReport r;
  r.finish = Time::us(2'325'144);
  for (uint32_t npu = 0; npu < 1024; ++npu) {
    r.npus.push_back(NpuReport{r.finish, Time::us(880'000 + npu), Time::us(400'000), Time::us(1'000'000 - npu * 500),
                               Time::us(45'000), 831, Time::zero()});
  }
  const std::pair<int64_t, uint32_t> classes[] = {{50'331'648, 49'152}, {2'718'148'608, 112}, {2'875'435'008, 16}};
  for (const auto& [bytes, count] : classes) {
    for (uint32_t i = 0; i < count; ++i) {
      CollectiveReport c;
      c.npus = 8;
      c.comm_size = Bytes(bytes);
      c.nccl_size = Bytes(bytes);
      c.algorithm = "ring";
      c.start = Time::us(i);
      c.end = Time::us(i + 100);
      c.lower_bound = Time::us(80);
      r.collectives.push_back(c);
    }
  }
  LinkStats links;
  links.resize(topology.link_count());
  for (uint32_t l = 0; l < topology.link_count(); ++l)
    links.busy[l] = Time::us(10'000 + l);
  r.links = links;
  return r;
}

void BM_Gpt3ShapedSimReport(benchmark::State& state) {
  TopologyRequest request;
  request.network_file = std::string(CHORUS_SOURCE_DIR) + "/examples/networks/rail_3d_1024.yml";
  const Topology topology = load_topology(request);
  const RunReport report = gpt3_shaped_report(topology);
  Workload workload;
  workload.prefix = "traces/gpt3";
  const ReportContext context{workload, report, "flow", topology.name(), 2.0, &topology};
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string html = sim_report_html(context);
    bytes = html.size();
    benchmark::DoNotOptimize(html.data());
  }
  state.counters["html_bytes"] = static_cast<double>(bytes);
}

BENCHMARK(BM_Gpt3ShapedSimReport)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
