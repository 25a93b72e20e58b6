// Text, JSON and HTML forms of co-design results (see design_text.hpp).
#include "chorus/codesign/design_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/llm/report.hpp"
#include "chorus/report/html_page.hpp"
#include "chorus/report/svg_chart.hpp"

namespace chorus::codesign {

std::string execution_text(const llm::Execution& e) {
  std::string s = fmt::format("tp{} pp{} dp{}", e.tensor_par, e.pipeline_par, e.data_par);
  if (e.expert_par > 1)
    s += fmt::format(" ep{}", e.expert_par);
  if (e.context_par > 1)
    s += fmt::format(" cp{}", e.context_par);
  s += fmt::format(" v{} mbs{} {} {}", e.pipeline_interleaving, e.microbatch_size, llm::to_string(e.recompute),
                   llm::to_string(e.tp_comm));
  if (e.fsdp == llm::Fsdp::kZero2 || e.fsdp == llm::Fsdp::kZero3)
    s += fmt::format(" {}", llm::to_string(e.fsdp));
  else if (e.optimizer_sharding)
    s += " zero1";
  if (e.tp_overlap != llm::TpOverlap::kNone)
    s += fmt::format(" ovl={}", llm::to_string(e.tp_overlap));
  if (e.data_par_overlap)
    s += " dp-ovl";
  if (e.weight_offload || e.activations_offload || e.optimizer_offload)
    s += fmt::format(" off={:d}{:d}{:d}", e.weight_offload, e.activations_offload, e.optimizer_offload);
  s += fmt::format(" nets={}{}{}", e.tensor_par_net, e.pipeline_par_net, e.data_par_net);
  return s;
}

std::string network_text(const NetworkTemplate& t, const NetworkPoint& p) {
  std::string s;
  for (size_t i = 0; i < p.dims.size(); ++i) {
    const DimensionSetting& d = p.dims[i];
    s += fmt::format("{}{} {:g}GB/s x{}", i ? " | " : "", t.dimensions[i].name, d.bandwidth_gbps, d.size);
    if (d.oversubscription != 1)
      s += fmt::format(" {:g}:1", d.oversubscription);
    s += fmt::format(" {}", to_string(d.algorithm));
  }
  return s;
}

nlohmann::json network_json(const NetworkTemplate& t, const NetworkPoint& p) {
  nlohmann::json dims = nlohmann::json::array();
  for (size_t i = 0; i < p.dims.size(); ++i) {
    const DimensionSetting& d = p.dims[i];
    dims.push_back({{"name", t.dimensions[i].name},
                    {"bandwidth_GBps", d.bandwidth_gbps},
                    {"size", d.size},
                    {"oversubscription", d.oversubscription},
                    {"algorithm", to_string(d.algorithm)}});
  }
  return {{"dimensions", dims}, {"cost", p.cost}};
}

nlohmann::json design_json(const NetworkTemplate& t, const llm::System& machine, const Design& d,
                           const DimensionTables* tables) {
  const llm::System sys = network_system(machine, t, d.network, tables);
  return {{"execution", llm::execution_to_json(d.execution, sys)},
          {"network", network_json(t, d.network)},
          {"time_s", d.time_s},
          {"cost", d.cost},
          {"tokens_per_s_per_dollar", d.tokens_per_s_per_dollar},
          {"sample_rate", d.stats.sample_rate},
          {"objective", d.objective}};
}

nlohmann::json result_json(const NetworkTemplate& t, const llm::System& machine, const CodesignResult& r,
                           Objective objective) {
  nlohmann::json j;
  j["objective"] = to_string(objective);
  j["best"] = r.top.empty() ? nlohmann::json(nullptr) : design_json(t, machine, r.top.front(), r.tables.get());
  j["top"] = nlohmann::json::array();
  for (const Design& d : r.top)
    j["top"].push_back(design_json(t, machine, d, r.tables.get()));
  j["pareto"] = nlohmann::json::array();
  for (const ParetoPoint& p : r.pareto)
    j["pareto"].push_back({{"cost", p.cost}, {"time_s", p.time_s}});
  j["evaluated"] = r.evaluated;
  j["pruned"] = r.pruned;
  j["networks"] = r.networks;
  j["networks_over_budget"] = r.over_budget;
  j["networks_searched"] = r.searched;
  j["cheapest_network_cost"] = r.cheapest_cost;
  j["seconds"] = r.seconds;
  // nccl and synth dimensions: the cost tables built before the search, and the wall time they took (in seconds).
  j["cost_tables"] = r.tables ? r.tables->size() : 0;
  j["cost_tables_seconds"] = r.tables ? r.tables->seconds() : 0.0;
  return j;
}

std::string report_html(const NetworkTemplate& t, const CodesignResult& r, const std::string& title,
                        const std::vector<double>& simulated) {
  HtmlPage page(title);
  page.heading("Cost-time Pareto front");
  page.paragraph(fmt::format(
      "Each point is a network of the template within the budget that trains faster than every cheaper one, at its "
      "best parallelism. {} networks of {} searched, {} over the budget; {} (parallelism, network) pairs decided, {} "
      "pruned by a bound.",
      r.searched, r.networks, r.over_budget, r.evaluated, r.pruned));
  LineChart chart;
  chart.title = "iteration time against cost";
  chart.x_label = "cost ($M)";
  chart.y_label = "iteration time (s)";
  chart.log_x = false;
  chart.log_y = false;
  Series front;
  front.name = "Pareto front";
  front.color = "#1f77b4";
  for (const ParetoPoint& p : r.pareto)
    front.points.push_back({p.cost / 1e6, p.time_s});
  chart.series.push_back(front);
  Series top;
  top.name = "top designs";
  top.color = "#d62728";
  top.line = false;
  for (const Design& d : r.top)
    top.points.push_back({d.cost / 1e6, d.time_s});
  chart.series.push_back(top);
  if (!simulated.empty()) {
    Series sim;
    sim.name = "top designs, simulated (--verify sim)";
    sim.color = "#2ca02c";
    sim.line = false;
    for (size_t i = 0; i < std::min(simulated.size(), r.top.size()); ++i) {
      if (simulated[i] > 0)
        sim.points.push_back({r.top[i].cost / 1e6, simulated[i]});
    }
    chart.series.push_back(sim);
  }
  page.raw(render_line_chart(chart));
  std::vector<std::vector<std::string>> rows{{"cost $", "iteration s"}};
  for (const ParetoPoint& p : r.pareto)
    rows.push_back({fmt::format("{:.0f}", p.cost), fmt::format("{:.4f}", p.time_s)});
  page.table(rows);
  page.heading("Top designs");
  std::vector<std::vector<std::string>> designs{{"#", "time s", "cost $", "tokens/s/$", "parallelism", "network"}};
  if (!simulated.empty())
    designs[0].insert(designs[0].begin() + 2, "simulated s");
  for (size_t i = 0; i < r.top.size(); ++i) {
    const Design& d = r.top[i];
    designs.push_back({std::to_string(i + 1), fmt::format("{:.4f}", d.time_s), fmt::format("{:.0f}", d.cost),
                       fmt::format("{:.4g}", d.tokens_per_s_per_dollar), execution_text(d.execution),
                       network_text(t, d.network)});
    if (!simulated.empty()) {
      const double s = i < simulated.size() ? simulated[i] : 0.0;
      designs.back().insert(designs.back().begin() + 2, s > 0 ? fmt::format("{:.4f}", s) : "-");
    }
  }
  page.table(designs);
  return page.str();
}

}  // namespace chorus::codesign
