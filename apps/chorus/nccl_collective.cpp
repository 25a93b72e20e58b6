// The NCCL path of `chorus collective` (nccl_collective.hpp).
#include "nccl_collective.hpp"

#include <cmath>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/nccl/calibrated_machine.hpp"
#include "chorus/nccl/choice_json.hpp"
#include "chorus/nccl/cost_model.hpp"
#include "chorus/report/sweep_report.hpp"
#include "chorus/sweep/collective_sweep.hpp"
#include "chorus/sweep/nccl_tests_log.hpp"
#include "chorus/sweep/size_range.hpp"
#include "chorus/topology/machine_topology.hpp"

namespace chorus::cli {
namespace {

struct SizeResult {
  Bytes size;
  nccl::Choice choice;
  std::optional<Time> bound;
};

void print_explain(const SizeResult& r) {
  fmt::print("#   candidates for {} ({} B): the library's cost model, fastest first is chosen\n",
             to_string(r.choice.kind), r.size.count());
  fmt::print("#   {:<14} {:<7} {:>8} {:>12} {:>12} {:>14}\n", "algorithm", "proto", "channels", "latency(us)",
             "algbw(GB/s)", "time(us)");
  for (size_t i = 0; i < r.choice.candidates.size(); ++i) {
    const nccl::Candidate& k = r.choice.candidates[i];
    if (k.enabled()) {
      fmt::print("#   {:<14} {:<7} {:>8} {:>12.2f} {:>12.2f} {:>14.2f}{}\n", k.algorithm, k.protocol, k.channels,
                 k.latency_us, k.bandwidth_GBps, k.time_us, i == r.choice.chosen ? "   <- chosen" : "");
    } else {
      fmt::print("#   {:<14} {:<7} {:>8}   off: {}\n", k.algorithm, k.protocol, "-", k.disabled);
    }
  }
}

void print_table(const nccl::CommSystem& s, const nccl::CalibratedMachine& m, const std::vector<SizeResult>& results,
                 const NcclTestsLog* measured, bool explain) {
  fmt::print("# chorus collective: {} on {} x {} node{} ({} ranks), {} cost model, {}\n",
             to_string(results[0].choice.kind), s.machine, s.nodes, s.nodes == 1 ? "" : "s", s.ranks,
             s.constants->library, m.calibration.empty() ? "uncalibrated preset" : "calibrated by " + m.calibration);
  fmt::print("# {}\n", s.constants->source);
  fmt::print("#{:>11} {:>13} {:>9} {:>7} {:>7} {:>10} {:>8} {:>8}  {:<9} {:<7} {:>3} {:>11}{}\n", "size", "count",
             "type", "redop", "root", "time", "algbw", "busbw", "algorithm", "proto", "ch", "bound",
             measured ? "   measured  error" : "");
  fmt::print("#{:>11} {:>13} {:>9} {:>7} {:>7} {:>10} {:>8} {:>8}  {:<9} {:<7} {:>3} {:>11}{}\n", "(B)", "(elements)",
             "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "", "", "(us)", measured ? "    (GB/s)" : "");
  for (const SizeResult& r : results) {
    const nccl::Candidate& best = r.choice.best();
    std::string measured_text;
    if (measured) {
      const NcclTestsRow* row = measured->find(r.size);
      if (row && row->out_of_place.busbw_GBps > 0) {
        const double busbw = r.choice.busbw_GBps(s.ranks);
        measured_text = fmt::format("  {:>8.2f} {:>+6.1f}%", row->out_of_place.busbw_GBps,
                                    100 * (busbw - row->out_of_place.busbw_GBps) / row->out_of_place.busbw_GBps);
      }
    }
    fmt::print("{:>12} {:>13} {:>9} {:>7} {:>7} {:>10.2f} {:>8.2f} {:>8.2f}  {:<9} {:<7} {:>3} {:>11}{}\n",
               r.size.count(), nccl_count(r.choice.kind, r.size, s.ranks), "float", nccl_redop(r.choice.kind),
               nccl_root(r.choice.kind), r.choice.time_us, r.choice.algbw_GBps(), r.choice.busbw_GBps(s.ranks),
               best.algorithm, best.protocol, best.channels,
               r.bound ? fmt::format("{:.2f}", r.bound->picoseconds() / 1e6) : std::string("-"), measured_text);
    if (explain)
      print_explain(r);
  }
  // Only in-switch reduction may beat the bound on the machine's links; anything else below it is a model defect.
  bool nvls_below = false;
  bool other_below = false;
  for (const SizeResult& r : results) {
    if (!r.bound || r.choice.time_us * 1e6 >= static_cast<double>(r.bound->picoseconds()))
      continue;
    (r.choice.best().algorithm.starts_with("NVLS") ? nvls_below : other_below) = true;
  }
  if (nvls_below) {
    fmt::print(
        "# below the bound: NVLS/NVLSTree reduce inside the NVSwitch (NVLink SHARP); the bound assumes no "
        "reduction in the network\n");
  }
  if (other_below)
    fmt::print(stderr, "warning: a size is faster than its physical lower bound without in-network reduction\n");
}

void refuse_without_machine(const TopologyOptions& options) {
  if (options.machine.empty())
    throw Error("", "--algorithm", "nccl runs on a machine: give --machine NAME|FILE.json|FILE.xml [--nodes N]");
}

// The library's choice at every size, with the bound on the machine's links (documented bandwidths, no in-network
// reduction) computed at one size and scaled to all.
struct NcclResults {
  nccl::CalibratedMachine machine;
  nccl::CommSystem system;
  std::vector<SizeResult> sizes;
  std::optional<LowerBound> reference;
};

NcclResults nccl_results(const TopologyOptions& options, CollectiveKind kind, const std::vector<Bytes>& sizes) {
  NcclResults out{nccl::resolve_machine(options.machine, "machine"), {}, {}, std::nullopt};
  out.system = nccl::comm_system(*out.machine.machine, options.nodes, out.machine.scales);
  const nccl::CommSystem& s = out.system;
  const Topology topology = machine_topology(*out.machine.machine, options.nodes, {});
  for (const Bytes size : sizes) {
    if (size.count() <= 0)
      throw Error("", Argument{"size"}, "is 0 B; a collective moves at least 1 byte");
    SizeResult r{size, nccl::choose(s, kind, size.count()), std::nullopt};
    if (!std::isfinite(r.choice.time_us))
      throw Error("", "--algorithm", fmt::format("nccl has no algorithm for {} here", to_string(kind)));
    const Collective c{kind, size, s.ranks};
    if (!bound_not_computable(topology, c, {})) {
      if (!out.reference)
        out.reference = lower_bound(topology, c);
      r.bound = lower_bound_at_size(*out.reference, size).bound;
    }
    out.sizes.push_back(std::move(r));
  }
  return out;
}

SizeSweep sweep_of(const NcclResults& n, CollectiveKind kind) {
  SizeSweep sweep;
  sweep.algorithm = fmt::format("nccl ({})", n.system.constants->library);
  for (const SizeResult& r : n.sizes) {
    SweepPoint p;
    p.collective = Collective{kind, r.size, n.system.ranks};
    p.result.time = Time::ps(static_cast<int64_t>(std::llround(r.choice.time_us * 1e6)));
    if (n.reference)
      p.bound = lower_bound_at_size(*n.reference, r.size);
    sweep.points.push_back(std::move(p));
  }
  return sweep;
}

// The sweep as the size-sweep report draws it: busbw and time per size, the bound, the measured curve.
void write_report(const NcclCollectiveArgs& a, const NcclResults& n, const NcclTestsLog* measured) {
  const nccl::CommSystem& s = n.system;
  const std::string title = fmt::format("{} on {} x {} node{}, {} cost model", to_string(a.kind), s.machine, s.nodes,
                                        s.nodes == 1 ? "" : "s", s.constants->library);
  write_output_file(a.sweep.report, "--report", sweep_report_html(sweep_of(n, a.kind), title, measured));
}

}  // namespace

NcclSweep nccl_size_sweep(const TopologyOptions& options, CollectiveKind kind, const std::vector<Bytes>& sizes) {
  refuse_without_machine(options);
  const NcclResults n = nccl_results(options, kind, sizes);
  NcclSweep out{sweep_of(n, kind), {}};
  for (const SizeResult& r : n.sizes) {
    const nccl::Candidate& best = r.choice.best();
    out.choices.push_back(fmt::format("{}/{}/{}", best.algorithm, best.protocol, best.channels));
  }
  return out;
}

void run_nccl_collective(const NcclCollectiveArgs& a) {
  refuse_without_machine(a.topology);
  const NcclResults n = nccl_results(a.topology, a.kind, parse_size_range(a.size, Argument{"size"}));
  const nccl::CalibratedMachine& m = n.machine;
  const nccl::CommSystem& s = n.system;
  const std::vector<SizeResult>& results = n.sizes;
  std::optional<NcclTestsLog> measured;
  if (!a.sweep.compare.empty())
    measured = read_nccl_tests_log(a.sweep.compare);
  if (!a.sweep.report.empty())
    write_report(a, n, measured ? &*measured : nullptr);
  if (a.json || a.sweep.jsonl) {
    if (a.json && results.size() > 1)
      throw Error("", "--json", "prints one object; a sweep prints one per size with --jsonl");
    for (const SizeResult& r : results)
      std::cout << nccl::choice_json(s, r.choice, r.bound, a.explain).dump() << "\n";
    return;
  }
  if (a.sweep.csv) {
    std::cout << "size,time_ns,algbw_GBps,busbw_GBps,nccl_algorithm,nccl_protocol,channels,bound_ns\n";
    for (const SizeResult& r : results) {
      std::cout << fmt::format("{},{},{},{},{},{},{},{}\n", r.size.count(), r.choice.time_us * 1e3,
                               r.choice.algbw_GBps(), r.choice.busbw_GBps(s.ranks), r.choice.best().algorithm,
                               r.choice.best().protocol, r.choice.best().channels,
                               r.bound ? std::to_string(r.bound->nanoseconds()) : std::string());
    }
    return;
  }
  print_table(s, m, results, measured ? &*measured : nullptr, a.explain);
}

}  // namespace chorus::cli
