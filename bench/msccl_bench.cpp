// Benchmark of the MSCCL XML reader (msccl/): a ring All-Gather on 64 GPUs with 256 chunks each, 1,048,576 steps
// (131 MB of XML), generated in memory in msccl-tools' layout. Floor (issue 15): read in under 2 s. Measured:
// parsing into compact arrays (pugixml DOM, then copied), the whole load (read + match + order + semantic check)
// from a file, and building the Schedule.
#include <cstdio>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "chorus/msccl/read_msccl.hpp"
#include "chorus/msccl/schedule.hpp"

namespace chorus {
namespace {

constexpr uint32_t kGpus = 64, kChunks = 256;  // 64 x 64 x 256 = 1,048,576 steps

// GPU g forwards every chunk around the ring g -> g+1 in one thread block: its own chunks (s), the chunks of the
// n-2 GPUs before it (rcs) and those of GPU g+1 (r), in place in the output buffer.
std::string ring_all_gather_xml() {
  std::string xml = fmt::format(
      "<algo name=\"ring_ag\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"{}\" ngpus=\"{}\" "
      "coll=\"allgather\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">\n",
      kGpus * kChunks, kGpus);
  for (uint32_t g = 0; g < kGpus; ++g) {
    xml +=
        fmt::format("  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"0\">\n", g, kChunks, kGpus * kChunks);
    xml +=
        fmt::format("    <tb id=\"0\" send=\"{}\" recv=\"{}\" chan=\"0\">\n", (g + 1) % kGpus, (g + kGpus - 1) % kGpus);
    uint32_t s = 0;
    for (uint32_t t = 0; t < kGpus; ++t) {
      const uint32_t origin = (g + kGpus - t) % kGpus;
      const char* type = t == 0 ? "s" : t + 1 == kGpus ? "r" : "rcs";
      for (uint32_t j = 0; j < kChunks; ++j, ++s) {
        const uint32_t off = origin * kChunks + j;
        xml += fmt::format(
            "      <step s=\"{}\" type=\"{}\" srcbuf=\"o\" srcoff=\"{}\" dstbuf=\"o\" dstoff=\"{}\" cnt=\"1\" "
            "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n",
            s, type, off, off);
      }
    }
    xml += "    </tb>\n  </gpu>\n";
  }
  xml += "</algo>\n";
  return xml;
}

const std::string& xml() {
  static const std::string text = ring_all_gather_xml();
  return text;
}

void BM_MscclParse(benchmark::State& state) {
  for (auto _ : state) {
    const MscclProgram p = parse_msccl_xml(xml(), "ring_ag.xml");
    benchmark::DoNotOptimize(p.steps.data());
  }
  state.counters["steps"] = static_cast<double>(uint64_t{kGpus} * kGpus * kChunks);
  state.counters["xml_MB"] = static_cast<double>(xml().size()) / 1e6;
}

// The whole of what `chorus collective --algorithm msccl:FILE` does before simulating: read the file, parse,
// pair sends with receives, order, check what it computes.
void BM_MscclLoadFile(benchmark::State& state) {
  const std::string path = "/tmp/chorus_msccl_bench_ring_ag.xml";
  std::ofstream(path, std::ios::binary) << xml();
  uint64_t transfers = 0;
  for (auto _ : state) {
    const MscclAlgorithm a = load_msccl_algorithm(path);
    transfers = a.dag.transfers;
    benchmark::DoNotOptimize(a.checked);
  }
  std::remove(path.c_str());
  state.counters["transfers"] = static_cast<double>(transfers);
}

void BM_MscclSchedule(benchmark::State& state) {
  const MscclAlgorithm a = make_msccl_algorithm(parse_msccl_xml(xml(), "ring_ag.xml"));
  for (auto _ : state) {
    const Schedule s = msccl_schedule(a, Bytes::gib(1));
    benchmark::DoNotOptimize(s.size());
  }
}

BENCHMARK(BM_MscclParse)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_MscclLoadFile)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_MscclSchedule)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
