// `chorus codesign`: parallelism, per-dimension network and collective algorithm chosen in one search under a
// budget (docs/codesign.md).
//
//   chorus codesign --model examples/llm/llama3-70b.json --gpus 1024 --max-batch 1024 --machine dgx-h100
//       --network examples/codesign/rail_2tier.yml --cost examples/codesign/cost.yml --budget dollars=60e6
//       --objective time --top 10 [--json] [--report codesign.html]
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/codesign/compare_netopt.hpp"
#include "chorus/codesign/design_text.hpp"
#include "chorus/codesign/dimension_tables.hpp"
#include "chorus/codesign/refine_bandwidth.hpp"
#include "chorus/codesign/solver.hpp"
#include "chorus/codesign/verify_sim.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/llm/distributed.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/netopt/budget_text.hpp"
#include "commands.hpp"

namespace chorus::cli {

namespace {

struct CodesignOptions {
  std::string model, machine = "dgx-h100", network, cost, objective = "time", time_target, datatype = "bfloat16";
  std::vector<std::string> budgets;
  int64_t gpus = 0, max_batch = 0;
  int top = 10, threads = 0;
  bool json = false, context_par = false, fsdp = false, refine_bandwidth = false, compare_netopt = false;
  std::string report, exec, verify;
};

// --verify sim: the top designs simulated, printed (or added to the JSON) beside the planner's times.
std::vector<codesign::SimCheck> verify(const CodesignOptions& o, const llm::Application& app,
                                       const llm::System& machine, const codesign::NetworkTemplate& t,
                                       const codesign::CodesignResult& r) {
  if (o.verify.empty())
    return {};
  return codesign::verify_designs(app, machine, t, r, r.top.size(), std::filesystem::path(o.model).stem().string(),
                                  codesign::nccl_machine_for(o.machine));
}

void print_checks(const std::vector<codesign::SimCheck>& checks) {
  if (checks.empty())
    return;
  fmt::print("--verify sim (llm run --engine sim on each design's network):\n{:>3} {:>10} {:>10} {:>9}  {}\n", "#",
             "planner s", "sim s", "sim/plan", "collectives");
  for (size_t i = 0; i < checks.size(); ++i) {
    const codesign::SimCheck& c = checks[i];
    if (!c.skipped.empty()) {
      fmt::print("{:>3} {:>10.4f}  not simulated: {}\n", i + 1, c.planner_s, c.skipped);
    } else {
      fmt::print("{:>3} {:>10.4f} {:>10.4f} {:>9.3f}  {}{}\n", i + 1, c.planner_s, c.sim_s, c.sim_s / c.planner_s,
                 c.collectives, c.note.empty() ? "" : ": " + c.note);
    }
  }
}

// --refine-bandwidth: each top design's continuous bandwidths (refine_bandwidth.hpp).
std::vector<codesign::RefinedBandwidth> refine(const CodesignOptions& o, const llm::Application& app,
                                               const llm::System& machine, const codesign::NetworkTemplate& t,
                                               const codesign::CostFile& prices, const codesign::CodesignSpec& spec,
                                               const codesign::CodesignResult& r) {
  std::vector<codesign::RefinedBandwidth> out;
  if (!o.refine_bandwidth)
    return out;
  for (const codesign::Design& d : r.top)
    out.push_back(codesign::refine_bandwidth(app, machine, t, prices, r.tables.get(), spec, d));
  return out;
}

std::string refined_text(const codesign::NetworkTemplate& t, const codesign::RefinedBandwidth& r) {
  std::string s = "refined:";
  for (size_t i = 0; i < r.bandwidth_gbps.size(); ++i)
    s += fmt::format("{} {} {:.1f}GB/s", i == 0 ? "" : " |", t.dimensions[i].name, r.bandwidth_gbps[i]);
  return s + fmt::format(" -> {:.4f} s, ${:.3f}M", r.time_s, r.cost / 1e6);
}

nlohmann::json refined_json(const codesign::RefinedBandwidth& r) {
  return {{"bandwidth_GBps", r.bandwidth_gbps},
          {"time_s", r.time_s},
          {"cost", r.cost},
          {"objective", r.objective},
          {"evaluations", r.evaluations}};
}

// --compare-netopt: netopt's bandwidths for the default parallelism, timed by the planner, admitted to the top list
// when they beat the grid (compare_netopt.hpp).
std::optional<codesign::NetoptComparison> compare(const CodesignOptions& o, const llm::Application& app,
                                                  const llm::System& machine, const codesign::NetworkTemplate& t,
                                                  const codesign::CostFile& prices, const codesign::CodesignSpec& spec,
                                                  codesign::CodesignResult& r) {
  if (!o.compare_netopt)
    return std::nullopt;
  codesign::NetoptComparison c = codesign::compare_netopt(app, machine, t, prices, spec, r);
  codesign::admit_netopt_design(r, c, spec);
  return c;
}

std::string bandwidths_text(const codesign::NetworkTemplate& t, const std::vector<double>& gbps) {
  std::string s;
  for (size_t i = 0; i < gbps.size(); ++i)
    s += fmt::format("{}{} {:.1f}", i == 0 ? "" : " | ", t.dimensions[i].name, gbps[i]);
  return s + " GB/s";
}

void print_comparison(const codesign::NetworkTemplate& t, const llm::System& machine,
                      const codesign::NetoptComparison& c, const codesign::CodesignResult& r) {
  const codesign::Design& d = c.design;
  fmt::print("netopt (default parallelism {}, bandwidths {}; netopt's model {:.4f} s): ",
             codesign::execution_text(c.execution), bandwidths_text(t, c.netopt_gbps), c.netopt_model_s);
  if (d.stats.outcome != llm::Outcome::kOk) {
    fmt::print("{} at {}\n", llm::describe_outcome(d.stats, machine), codesign::network_text(t, d.network));
    return;
  }
  fmt::print("planner {:.4f} s, ${:.3f}M at {}{}; joint optimum {:.4f} s", d.time_s, d.cost / 1e6,
             codesign::network_text(t, d.network), c.within_budget ? "" : " (over the budget)", r.top.front().time_s);
  if (c.top_rank)
    fmt::print(" (netopt's design, listed #{})\n", *c.top_rank + 1);
  else
    fmt::print(" ({:.1f} % faster)\n", 100 * (d.time_s - r.top.front().time_s) / d.time_s);
}

nlohmann::json comparison_json(const codesign::NetworkTemplate& t, const llm::System& machine,
                               const codesign::NetoptComparison& c, const codesign::CodesignResult& r) {
  std::vector<double> used;
  for (const codesign::DimensionSetting& s : c.design.network.dims)
    used.push_back(s.bandwidth_gbps);
  const nlohmann::json design = codesign::design_json(t, machine, c.design, r.tables.get());
  return {{"bandwidth_gbps", used},
          {"netopt_bandwidth_gbps", c.netopt_gbps},
          {"netopt_model_time_s", c.netopt_model_s},
          {"time_s", c.design.time_s},
          {"cost", c.design.cost},
          {"within_budget", c.within_budget},
          {"top_rank", c.top_rank ? nlohmann::json(*c.top_rank + 1) : nlohmann::json(nullptr)},
          {"execution", design["execution"]},
          {"network", design["network"]}};
}

void run(const CodesignOptions& o) {
  if (!o.verify.empty() && o.verify != "sim")
    throw Error("--verify", "", fmt::format("is '{}'; expected sim", o.verify));
  if (o.gpus <= 0)
    throw Error("--gpus", "", "must be > 0");
  if (o.max_batch <= 0)
    throw Error("--max-batch", "", "must be > 0");
  if (o.top <= 0 || o.top > 100000)
    throw Error("--top", "", fmt::format("is {}; must be 1 to 100000", o.top));
  codesign::CodesignSpec spec;
  spec.objective = codesign::parse_objective(o.objective);
  if (!o.time_target.empty()) {
    if (spec.objective != codesign::Objective::kCost)
      throw Error("--time-target", "", "applies only with --objective cost");
    spec.time_target_s = parse_time(o.time_target, Argument{"time_target"}).seconds();
    if (!(spec.time_target_s > 0))
      throw Error("--time-target", "", "must be > 0");
  }
  netopt::Budget budget;
  for (const std::string& b : o.budgets)
    netopt::apply_budget(b, budget);
  if (budget.dollars)
    spec.budget_dollars = *budget.dollars;
  if (budget.total_bandwidth_gbps)
    spec.budget_total_gbps = *budget.total_bandwidth_gbps;
  const llm::Application app = llm::read_application(o.model);
  const llm::System machine = llm::resolve_system(o.machine);
  spec.datatype = machine.datatype_index(o.datatype);
  if (spec.datatype < 0)
    throw Error(o.machine, "matrix", fmt::format("has no datatype '{}' (--datatype)", o.datatype));
  const codesign::NetworkTemplate t = codesign::load_network_template(o.network);
  const codesign::CostFile prices = codesign::load_cost_file(o.cost, t);
  spec.gpus = o.gpus;
  spec.batch = o.max_batch;
  spec.top_n = o.top;
  spec.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  spec.dims.context_par = o.context_par;
  spec.dims.fsdp = o.fsdp;
  spec.nccl_machine = codesign::nccl_machine_for(o.machine);
  if (!o.exec.empty()) {
    // Checked against the default network's system: its tier indices must be the template's dimensions (the
    // algorithms do not matter here, so every dimension is read as ring).
    codesign::NetworkPoint plain = codesign::default_network(t, prices, o.gpus);
    for (codesign::DimensionSetting& d : plain.dims)
      d.algorithm = codesign::Algorithm::kRing;
    spec.execution = llm::read_execution(o.exec, app, codesign::network_system(machine, t, plain));
  }
  llm::ProcessGroup group;  // under mpirun: each network's planner search split over the ranks
  if (group.size() > 1 && !spec.execution) {
    spec.rank = group.rank();
    spec.ranks = group.size();
    spec.merge = [&group, &spec](const llm::SearchResult& local, const llm::IterationModel& model) {
      return group.merge(local, model, spec.top_n);
    };
  }
  if (o.compare_netopt && spec.objective != codesign::Objective::kTime)
    throw Error("--compare-netopt", "",
                fmt::format("compares netopt's time objective; --objective is {} (use time)", o.objective));
  codesign::CodesignResult r = codesign::run_codesign(app, machine, t, prices, spec);
  group.barrier();
  if (group.rank() != 0)
    return;
  if (spec.objective == codesign::Objective::kCost && r.top.empty()) {
    throw Error("--time-target", "",
                fmt::format("is {:.6g} s; no design within the budget is that fast (fastest: {:.6g} s)",
                            spec.time_target_s, r.fastest_s));
  }
  const std::optional<codesign::NetoptComparison> netopt = compare(o, app, machine, t, prices, spec, r);
  const std::vector<codesign::SimCheck> checks = verify(o, app, machine, t, r);
  const std::vector<codesign::RefinedBandwidth> refined = refine(o, app, machine, t, prices, spec, r);
  if (!o.report.empty()) {
    std::vector<double> simulated;
    for (const codesign::SimCheck& c : checks)
      simulated.push_back(c.sim_s);
    write_output_file(
        o.report, Argument{"report"},
        codesign::report_html(t, r, fmt::format("chorus codesign: {} on {} GPUs", o.model, o.gpus), simulated));
  }
  if (o.json) {
    nlohmann::json j = codesign::result_json(t, machine, r, spec.objective);
    for (size_t i = 0; i < checks.size(); ++i) {
      nlohmann::json& d = j["top"][i];
      d["sim_time_s"] = checks[i].skipped.empty() ? nlohmann::json(checks[i].sim_s) : nlohmann::json(nullptr);
      d["sim_collectives"] = checks[i].collectives;
      if (!checks[i].note.empty())
        d["sim_note"] = checks[i].note;
      if (!checks[i].skipped.empty())
        d["sim_skipped"] = checks[i].skipped;
    }
    if (!checks.empty())
      j["best"]["sim_time_s"] = j["top"][0]["sim_time_s"];
    for (size_t i = 0; i < refined.size(); ++i)
      j["top"][i]["refined"] = refined_json(refined[i]);
    if (!refined.empty())
      j["best"]["refined"] = j["top"][0]["refined"];
    if (netopt)
      j["netopt"] = comparison_json(t, machine, *netopt, r);
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print(
      "{} (parallelism, network) pairs decided in {:.2f} s on {} thread(s) x {} rank(s), {} pruned; {} networks, {} "
      "over the budget, {} searched\n",
      r.evaluated, r.seconds, spec.threads, group.size(), r.pruned, r.networks, r.over_budget, r.searched);
  if (r.top.empty()) {
    fmt::print("no design fits in memory on any network within the budget\n");
    return;
  }
  fmt::print("{:>3} {:>9} {:>10} {:>10}  {}\n", "#", "time s", "cost $M", "tok/s/$", "parallelism / network");
  for (size_t i = 0; i < r.top.size(); ++i) {
    const codesign::Design& d = r.top[i];
    fmt::print("{:>3} {:>9.4f} {:>10.3f} {:>10.5f}  {}\n{:>36}{}\n", i + 1, d.time_s, d.cost / 1e6,
               d.tokens_per_s_per_dollar, codesign::execution_text(d.execution), "",
               codesign::network_text(t, d.network));
    if (i < refined.size())
      fmt::print("{:>36}{}\n", "", refined_text(t, refined[i]));
    if (netopt && netopt->top_rank == i)
      fmt::print("{:>36}{}\n", "", "(--compare-netopt: netopt's bandwidths for the default parallelism)");
  }
  fmt::print("pareto front (cost $M, time s):");
  for (const codesign::ParetoPoint& p : r.pareto)
    fmt::print(" ({:.3f}, {:.4f})", p.cost / 1e6, p.time_s);
  fmt::print("\n");
  if (netopt)
    print_comparison(t, machine, *netopt, r);
  print_checks(checks);
}

}  // namespace

void register_codesign_command(CLI::App& app) {
  auto o = std::make_shared<CodesignOptions>();
  CLI::App* cmd = app.add_subcommand(
      "codesign", "choose parallelism, network bandwidths and collective algorithms together under a budget");
  cmd->add_option("--model", o->model, "application JSON (llm's model files)")->required();
  cmd->add_option("--gpus", o->gpus, "number of GPUs")->required();
  cmd->add_option("--max-batch", o->max_batch,
                  "global batch in sequences; every design trains exactly this many (DP x CP divides it)")
      ->required();
  cmd->add_option("--machine", o->machine,
                  "GPU system preset or system JSON (its tiers give latency and efficiency); nccl dimensions need a "
                  "preset of chorus machines")
      ->capture_default_str();
  cmd->add_option("--network", o->network, "network template YAML (docs/codesign.md)")->required();
  cmd->add_option("--cost", o->cost, "price list YAML (docs/codesign.md)")->required();
  cmd->add_option("--budget", o->budgets, "dollars=<number> and/or total-bw=<bandwidth per GPU>; repeatable");
  cmd->add_option("--objective", o->objective, "time | cost (needs --time-target) | time-x-cost | tokens-per-dollar")
      ->capture_default_str();
  cmd->add_option("--time-target", o->time_target, "iteration time to meet with --objective cost, e.g. 20s");
  cmd->add_option("--top", o->top, "designs to list")->capture_default_str();
  cmd->add_option("--threads", o->threads, "worker threads (default: all cores)");
  cmd->add_option("--datatype", o->datatype, "datatype of the machine to train in")->capture_default_str();
  cmd->add_flag("--context-par", o->context_par, "also search context parallelism");
  cmd->add_flag("--fsdp", o->fsdp, "also search ZeRO-2 and ZeRO-3");
  cmd->add_option("--exec", o->exec,
                  "only this parallelism (Calculon execution JSON): the best network for it, as netopt for a fixed "
                  "workload");
  cmd->add_option("--verify", o->verify,
                  "sim: simulate each of the top designs end to end (llm run --engine sim) beside the planner; NCCL's "
                  "model passed through for a network of two nccl dimensions");
  cmd->add_flag("--refine-bandwidth", o->refine_bandwidth,
                "for each top design, the continuous per-dimension bandwidths (within the template's range and the "
                "budget) that improve its objective, never worse than the grid's");
  cmd->add_flag("--compare-netopt", o->compare_netopt,
                "time the default parallelism at netopt's bandwidths for it (netopt's convex program on the planner's "
                "iteration) and list that design when it beats the grid; --objective time only");
  cmd->add_option("--report", o->report, "write the cost-time Pareto front and the top designs as HTML");
  cmd->add_flag("--json", o->json, "print best, top, pareto, evaluated, pruned as JSON");
  cmd->callback([o] { run(*o); });
}

}  // namespace chorus::cli
