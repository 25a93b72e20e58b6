// Benchmark of the HLO reader and cost analysis (src/chorus/hlo/): the 1 MB MLPerf DLRM module (target <= 0.5 s)
// and a ~100 MB module made by replicating its computations 100 times under new names (target <= 20 s, 2 GiB).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/parser.hpp"

namespace chorus {
namespace {

std::string dlrm_text() {
  std::ifstream in(std::string(CHORUS_SOURCE_DIR) + "/tests/data/hlo/dlrm_tpuv3_after_optimizations.hlo.txt");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// The module's computations `copies` times: copy k renames every %name to %name.rk and only copy 0 keeps ENTRY.
std::string replicated(const std::string& text, int copies) {
  const size_t body = text.find('\n') + 1;
  std::string out = text.substr(0, body);
  out.reserve(text.size() * static_cast<size_t>(copies) + 1024);
  for (int k = 0; k < copies; ++k) {
    const std::string suffix = ".r" + std::to_string(k);
    for (size_t i = body; i < text.size(); ++i) {
      if (k > 0 && text.compare(i, 6, "ENTRY ") == 0 && (i == 0 || text[i - 1] == '\n')) {
        i += 5;
        continue;
      }
      out.push_back(text[i]);
      if (text[i] == '%') {
        size_t j = i + 1;
        while (j < text.size() && name_char(text[j]))
          out.push_back(text[j++]);
        out += suffix;
        i = j - 1;
      }
    }
  }
  return out;
}

void analyze_text(benchmark::State& state, const std::string& text) {
  const hlo::System system = hlo::system_by_name("tpuv3");
  double critical_path = 0;
  for (auto _ : state) {
    const hlo::Module m = hlo::parse_module(text, "bench.hlo");
    const hlo::Analysis a = hlo::analyze(m, system, {.npus = 64, .iterations = 1});
    critical_path = a.computations.back().critical_path_s;
    benchmark::DoNotOptimize(critical_path);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
  state.counters["max_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void BM_HloDlrm(benchmark::State& state) {
  analyze_text(state, dlrm_text());
}
BENCHMARK(BM_HloDlrm)->Unit(benchmark::kMillisecond);

void BM_HloReplicated100MB(benchmark::State& state) {
  analyze_text(state, replicated(dlrm_text(), 100));
}
BENCHMARK(BM_HloReplicated100MB)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace chorus

BENCHMARK_MAIN();
