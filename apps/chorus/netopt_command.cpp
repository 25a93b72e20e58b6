// `chorus netopt`: the network optimizer. The per-dimension bandwidth that minimises a workload's step time,
// time x cost, or cost under a time target, on LIBRA's input files (docs/netopt.md).
//
//   chorus netopt --network 4d.yml --cost cost.yml --workload gpt3.txt --comm comm.yml --budget total-bw=500GB/s
//   chorus netopt ... --budget dollars=2.5e6 --objective time --cross-check --json
//   chorus netopt --cost cost.yml --workload gpt3.txt --budget total-bw=500GB/s --sweep shapes.yml --csv out.csv
#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/netopt/budget_text.hpp"
#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/cross_check.hpp"
#include "chorus/netopt/request.hpp"
#include "chorus/netopt/sweep.hpp"
#include "chorus/report/pareto_report.hpp"
#include "commands.hpp"
#include "terminal_progress.hpp"

namespace chorus::cli {

namespace {

using namespace chorus::netopt;

struct NetoptOptions {
  NetoptRequest request;  // one network; with --sweep, the options the sweep shares
  std::string sweep, csv;
  std::string report;  // with --sweep: the Pareto front as HTML (report/pareto_report.hpp)
  size_t top = 10;
  SweepLimits limits;
  bool json = false;
};

std::string list(const std::vector<double>& v, const char* format) {
  std::string s;
  for (double x : v)
    s += (s.empty() ? "" : ", ") + fmt::format(fmt::runtime(format), x);
  return "[" + s + "]";
}

void run_single(const NetoptOptions& o) {
  const NetoptRequest& q = o.request;
  if (q.network.empty() || q.comm.empty())
    throw Error("netopt", "--network", "--network and --comm are required without --sweep");
  const NetoptOutcome outcome = run_netopt(q);
  if (o.json) {
    std::cout << netopt_record(q, outcome).dump() << "\n";
    return;
  }
  const NetworkShape& network = outcome.network;
  const TrainingStep& step = outcome.step;
  const std::vector<double>& costs = outcome.costs;
  const OptimizationResult& r = outcome.result;
  const Design& equal = outcome.equal;
  const std::optional<CrossCheck>& optimized_sim = outcome.optimized_sim;
  const std::optional<CrossCheck>& equal_sim = outcome.equal_sim;
  fmt::print("network      {} ({} NPUs), objective {}\n", shape_name(network), network.npu_count(), q.objective);
  fmt::print("bandwidth    {} GB/s per NPU\n", list(r.design.bandwidth_gbps, "{:.4f}"));
  fmt::print("step time    {:.4f} ms (compute {:.4f} ms + exposed communication {:.4f} ms)\n", r.design.time_ms,
             step.compute_ms(), r.design.communication_ms);
  fmt::print("cost         ${:.2f} (coefficients {} $/(GB/s))\n", r.design.cost, list(costs, "{:.2f}"));
  fmt::print("equal split  {} GB/s: {:.4f} ms, ${:.2f}; speedup {:.4f}x\n", list(equal.bandwidth_gbps, "{:.4f}"),
             equal.time_ms, equal.cost, equal.time_ms / r.design.time_ms);
  fmt::print("solver       {:.6f} s, {} Newton steps, duality gap {:.3g}\n", r.solve_s, r.newton_steps,
             r.certificate.duality_gap);
  if (parse_objective(q.objective) == Objective::TimeTimesCost) {
    fmt::print("time x cost  {:.6g} ms*$, proven lower bound {:.6g}{}\n", r.objective, r.objective_lower_bound,
               r.search_converged ? "" : " (search stopped at its evaluation limit)");
  }
  if (optimized_sim) {
    fmt::print("\ncross-check (chorus collective simulation, {} chunks per collective)\n", q.splits);
    fmt::print("  {:<12} {:>12} {:>14}\n", "design", "model ms", "simulated ms");
    fmt::print("  {:<12} {:>12.4f} {:>14.4f}\n", "optimized", optimized_sim->model_ms, optimized_sim->simulated_ms);
    if (equal_sim)
      fmt::print("  {:<12} {:>12.4f} {:>14.4f}\n", "equal split", equal_sim->model_ms, equal_sim->simulated_ms);
  }
}

void run_sweep_command(const NetoptOptions& o) {
  const NetoptRequest& q = o.request;
  const SweepSpec spec = load_sweep_spec(o.sweep, o.limits);
  if (!q.constraints.empty())
    throw Error("--constraint", q.constraints.front(), "is dimension-specific; not allowed with --sweep");
  if (!q.comm.empty())
    throw Error("--comm", q.comm, "a sweep derives the groups from tensor_parallel in the shapes file; drop --comm");
  const size_t max_dims = *std::max_element(spec.dimension_counts.begin(), spec.dimension_counts.end());
  for (const std::string* flag : {&q.min_bw, &q.max_bw, &q.latency}) {
    if (split_list(*flag).size() > 1)
      throw Error("netopt", *flag, "per-dimension lists are not allowed with --sweep; give one value");
  }
  const ModelOptions options = model_options(q, q.latency.empty() ? max_dims : 1);
  const Budget budget = make_budget(q, 1);  // single-valued bounds; run_sweep spreads them over each shape
  const auto started = std::chrono::steady_clock::now();
  const std::unique_ptr<Progress> progress = terminal_progress(o.json);
  const SweepResult result = run_sweep(spec, load_workload(q.workload), load_cost_model(q.cost), options,
                                       parse_objective(q.objective), budget, progress.get());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!o.csv.empty()) {
    std::ostringstream text;
    write_csv(text, result);
    write_output_file(o.csv, Argument{"csv"}, text.str());  // gzip when the name ends in .gz
  }
  if (!o.report.empty()) {
    write_output_file(o.report, Argument{"report"},
                      pareto_report_html(result, fmt::format("chorus netopt: {} network shapes", result.shapes)));
  }
  if (o.json) {
    nlohmann::json j = {
        {"shapes", result.shapes}, {"ranked", result.rows.size()}, {"skipped", result.skipped}, {"wall_s", wall_s}};
    if (!result.rows.empty()) {
      j["best"] = design_json(result.rows.front().design);
      j["best"]["shape"] = shape_name(result.rows.front().network);
      j["best"]["objective_value"] = result.rows.front().objective;
    }
    std::cout << j.dump() << "\n";
    return;
  }
  fmt::print("{} shapes, {} ranked, {} skipped, {:.3f} s\n", result.shapes, result.rows.size(), result.skipped, wall_s);
  for (size_t i = 0; i < std::min(o.top, result.rows.size()); ++i) {
    const SweepRow& row = result.rows[i];
    fmt::print("{:>4}  {:<48} {} GB/s  {:.4f} ms  ${:.0f}\n", i + 1, shape_name(row.network),
               list(row.design.bandwidth_gbps, "{:.2f}"), row.design.time_ms, row.design.cost);
  }
}

void run(const NetoptOptions& o) {
  if (o.sweep.empty()) {
    if (!o.report.empty())
      throw Error("netopt", "--report",
                  "applies only with --sweep (it charts the time-cost Pareto front of the shapes)");
    run_single(o);
  } else {
    run_sweep_command(o);
  }
}

}  // namespace

void register_netopt_command(CLI::App& app) {
  auto o = std::make_shared<NetoptOptions>();
  CLI::App* cmd = app.add_subcommand("netopt", "optimise the per-dimension bandwidth of a network for a workload");
  cmd->add_option("--network", o->request.network, "LIBRA network YAML (Topology, NpusCount, CostDimension)");
  cmd->add_option("--cost", o->request.cost, "LIBRA cost model YAML ($ per GB/s per element)")->required();
  cmd->add_option("--workload", o->request.workload, "ASTRA-sim 1.0 workload text (LIBRA's workloads)")->required();
  cmd->add_option("--comm", o->request.comm, "LIBRA communicator YAML (group size per dimension and phase)");
  cmd->add_option("--budget", o->request.budgets, "total-bw=<bandwidth> (sum of B_d) or dollars=<number>; repeatable");
  cmd->add_option("--constraint", o->request.constraints,
                  "linear constraint on B<d> in GB/s, e.g. \"B2+B3=200\"; repeatable");
  cmd->add_option("--objective", o->request.objective, "time (default) | time-x-cost | cost (needs --time-target)");
  cmd->add_option("--time-target", o->request.time_target, "step time to meet with --objective cost, e.g. 720ms");
  cmd->add_option("--min-bw", o->request.min_bw, "lower bound per dimension, e.g. 10GB/s or 10GB/s,5GB/s,...");
  cmd->add_option("--max-bw", o->request.max_bw, "upper bound per dimension");
  cmd->add_option("--latency", o->request.latency,
                  "per-dimension link latency, e.g. 500ns or a list (default 0, as LIBRA)");
  cmd->add_flag("--block-factors", o->request.block_factors,
                "time each dimension as chorus simulates its building block");
  cmd->add_option("--loop", o->request.loop, "training loop: no-overlap (default, LIBRA) | overlap");
  cmd->add_flag("--cross-check", o->request.cross_check, "simulate the optimized and equal-split designs");
  cmd->add_option("--splits", o->request.splits, "chunks per collective in the cross-check simulation (default 16)");
  cmd->add_option("--sweep", o->sweep, "shapes YAML: optimise and rank many network shapes");
  cmd->add_option("--csv", o->csv, "with --sweep: write every ranked shape to this CSV file (.gz: compressed)");
  cmd->add_option("--report", o->report, "with --sweep: write the time-cost Pareto front as an HTML file");
  cmd->add_option("--top", o->top, "with --sweep: shapes to print (default 10)");
  cmd->add_option("--sweep-max-dims", o->limits.max_dimensions, "with --sweep: most dimensions a shape may have (8)");
  cmd->add_option("--sweep-max-npus", o->limits.max_npus, "with --sweep: most NPUs the shapes file may ask for (2^24)")
      ->check(CLI::Range(uint64_t{2}, uint64_t{4294967295}));
  cmd->add_option("--sweep-max-shapes", o->limits.max_shapes, "with --sweep: most shapes to enumerate (100000)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] { run(*o); });
}

}  // namespace chorus::cli
