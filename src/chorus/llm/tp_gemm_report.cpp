// The tp_gemm_overlap report of `chorus llm run` (see tp_gemm_report.hpp).
#include "chorus/llm/tp_gemm_report.hpp"

#include <fmt/format.h>

namespace chorus::llm {
namespace {

double us(double seconds) {
  return seconds * 1e6;
}

const char* verdict(const Stats& with, const Stats& without) {
  if (with.total_time < without.total_time)
    return "wins";
  if (with.total_time > without.total_time)
    return "loses";
  return "changes nothing";
}

}  // namespace

Execution without_tp_gemm_overlap(Execution exe) {
  exe.tp_gemm_overlap = TpGemmOverlap::kNone;
  return exe;
}

std::string tp_gemm_reason(const DecomposedGemm& g) {
  if (g.decomposed()) {
    const double hidden = g.compute + g.collective - g.time;
    return fmt::format("hides {:.0f} % of the collective", g.collective > 0 ? 100 * hidden / g.collective : 0.0);
  }
  const double plain = g.compute + g.collective;
  const double steps = static_cast<double>(g.steps);
  const double step_gemms = steps * g.step_compute;
  const double comm_path = g.step_compute + (steps - 1) * g.step_comm;
  if (step_gemms >= plain)
    return fmt::format("small shards: {} step GEMMs take {:.1f} us, the whole GEMM {:.1f} us", g.steps, us(step_gemms),
                       us(g.compute));
  if (comm_path >= plain)
    return fmt::format("latency-bound steps: {} steps of {:.1f} us take longer than GEMM + collective", g.steps - 1,
                       us(g.step_comm));
  return fmt::format("small shards ({:.1f} us of step GEMMs vs {:.1f} us) and per-step latency together",
                     us(step_gemms), us(g.compute));
}

std::string tp_gemm_table(const Stats& with, const Stats& without, const Execution& exe) {
  std::string out;
  auto it = std::back_inserter(out);
  const TpGemmDetail& d = with.block.tp_gemm;
  const double hidden = without.tp_comm_exposed_time - with.tp_comm_exposed_time;
  fmt::format_to(it, "TP GEMM overlap '{}' {} against 'none': iteration {:.4f} s -> {:.4f} s ({:+.2f} %)\n",
                 to_string(exe.tp_gemm_overlap), verdict(with, without), without.total_time, with.total_time,
                 without.total_time > 0 ? 100 * (with.total_time / without.total_time - 1) : 0.0);
  fmt::format_to(
      it, "  exposed TP comm {:.4f} s -> {:.4f} s per iteration (hidden {:.4f} s); TP link {:.4f} s -> {:.4f} s\n",
      without.tp_comm_exposed_time, with.tp_comm_exposed_time, hidden, without.tp_comm_link_time,
      with.tp_comm_link_time);
  if (d.extra_link > 0)
    fmt::format_to(it, "  attention K/V gathered over the grid's rows: {:.1f} us per block and microbatch, exposed\n",
                   us(d.extra_link));
  fmt::format_to(it, "  per GEMM of one block and microbatch (us){}:\n",
                 exe.tp_comm == TpCommType::kP2pRsAg
                     ? " (p2p_rs_ag: only a pipeline chunk's last block gathers and scatters; this is that block)"
                     : "");
  fmt::format_to(it, "  {:<54} {:>9} {:>9} {:>9} {:>9} {:>5} {:>8} {:>8}  {}\n", "GEMM", "alone", "collect.",
                 "pipeline", "chosen", "steps", "step c", "step t", "decomposed?");
  for (size_t i = 0; i < d.n; ++i) {
    const DecomposedGemm& g = d.gemms[i];
    fmt::format_to(it, "  {:<54} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>5} {:>8.2f} {:>8.2f}  {}: {}\n",
                   tp_gemm_label(d.label[i], exe.tp_gemm_overlap), us(g.compute), us(g.collective), us(g.pipelined),
                   us(g.time), g.steps, us(g.step_compute), us(g.step_comm), g.decomposed() ? "yes" : "no",
                   tp_gemm_reason(g));
  }
  return out;
}

nlohmann::json tp_gemm_json(const Stats& with, const Stats& without, const Execution& exe) {
  const TpGemmDetail& d = with.block.tp_gemm;
  nlohmann::json gemms = nlohmann::json::array();
  for (size_t i = 0; i < d.n; ++i) {
    const DecomposedGemm& g = d.gemms[i];
    gemms.push_back({{"gemm", tp_gemm_label(d.label[i], exe.tp_gemm_overlap)},
                     {"compute_s", g.compute},
                     {"collective_s", g.collective},
                     {"pipelined_s", g.pipelined},
                     {"time_s", g.time},
                     {"steps", g.steps},
                     {"step_compute_s", g.step_compute},
                     {"step_comm_s", g.step_comm},
                     {"decomposed", g.decomposed()},
                     {"reason", tp_gemm_reason(g)}});
  }
  return {{"mode", to_string(exe.tp_gemm_overlap)},
          {"verdict", verdict(with, without)},
          {"total_time_without", without.total_time},
          {"tp_comm_exposed_time_without", without.tp_comm_exposed_time},
          {"tp_comm_exposed_hidden", without.tp_comm_exposed_time - with.tp_comm_exposed_time},
          {"kv_gather_link_time", d.extra_link},
          {"gemms", gemms}};
}

}  // namespace chorus::llm
