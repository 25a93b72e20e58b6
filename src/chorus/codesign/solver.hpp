// The co-design search: the best (parallelism, network) pairs of a template under a budget. Networks are taken
// cheapest first; for each, the planner's search (llm/search.hpp) runs with a bar below which nothing can matter (the
// rate a design needs to enter the top list or the cost-time Pareto front), so its lower bounds prune whole groups
// of parallelisms. Exact: the top list is the one a brute-force enumeration of every pair gives.
//
//   CodesignSpec spec{.gpus = 1024, .batch = 1024, .top_n = 10, .objective = Objective::kTime, .budget_dollars = 6e7};
//   CodesignResult r = run_codesign(app, machine, network_template, prices, spec);
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chorus/codesign/dimension_tables.hpp"
#include "chorus/codesign/network_space.hpp"
#include "chorus/llm/search.hpp"

namespace chorus::codesign {

// time: shortest iteration; cost: cheapest meeting time_target_s; time-x-cost: smallest time x cost;
// tokens-per-dollar: most tokens per second per dollar. With the batch fixed, tokens/s per $ is batch x seq / (time
// x cost), so the last two rank designs alike.
enum class Objective : uint8_t { kTime, kCost, kTimeXCost, kTokensPerDollar };
Objective parse_objective(const std::string& text);  // Error naming Argument{"objective"}
const char* to_string(Objective o);

struct CodesignSpec {
  int64_t gpus = 1;
  int64_t batch = 1;  // every design trains exactly this many sequences per iteration (DP x CP divides it)
  int datatype = 0;
  int top_n = 10;
  int threads = 1;
  Objective objective = Objective::kTime;
  double time_target_s = 0;  // with kCost
  double budget_dollars = std::numeric_limits<double>::infinity();
  double budget_total_gbps = std::numeric_limits<double>::infinity();  // sum over dimensions, per GPU
  llm::SearchDims dims;
  // The machine preset NCCL's model runs on for `nccl` dimensions (dimension_tables.hpp); nullptr: none.
  const machine::Machine* nccl_machine = nullptr;
  bool prune = true;  // off: every network and every parallelism fully evaluated (the brute force, for tests)
  // Given: only this parallelism, on every network (the network search alone, as netopt for a fixed workload).
  // Its num_procs and batch_size must be gpus and batch.
  std::optional<llm::Execution> execution;
  // Under mpirun: this process's share of each network's planner search, and the merge of the shares (every rank
  // calls it once per network, in the same order; llm::ProcessGroup::merge). Empty: one process.
  int rank = 0;
  int ranks = 1;
  std::function<llm::SearchResult(const llm::SearchResult&, const llm::IterationModel&)> merge;
};

struct Design {
  NetworkPoint network;
  llm::Execution execution;
  llm::Stats stats;
  double time_s = 0;  // one iteration
  double cost = 0;    // dollars
  double tokens_per_s_per_dollar = 0;
  double objective = 0;  // the ranked value: time_s, cost, or time_s x cost
};

struct ParetoPoint {
  double cost = 0;
  double time_s = 0;
};

struct CodesignResult {
  std::vector<Design> top;          // best first
  std::vector<ParetoPoint> pareto;  // cheapest first: no network within the budget is as cheap and as fast
  int64_t evaluated = 0;            // (parallelism, network) pairs decided: timed, rejected, or pruned
  int64_t pruned = 0;               // of those, skipped by a bound
  uint64_t networks = 0;            // networks of the template whose domains nest
  uint64_t over_budget = 0;         // of those, above the budget
  uint64_t searched = 0;            // networks the planner searched
  double cheapest_cost = 0;         // the cheapest network of the template
  double fastest_s = 0;             // the shortest iteration found within the budget (infinity: none fits)
  double seconds = 0;
  // The nccl and synth cost tables of the networks searched (network_system needs them to rebuild a design's system).
  std::shared_ptr<const DimensionTables> tables;
};

// The planner search a codesign run makes on one network: the run's parallelism dimensions, GPUs, batch (exactly),
// datatype and threads, keeping the best `top_n`.
llm::SearchSpec network_search_spec(const CodesignSpec& spec, int top_n);

// Throws Error on --budget when no network of the template fits the budget. Under kCost, an empty top list means
// no design within the budget meets the time target (fastest_s says how close the budget comes).
CodesignResult run_codesign(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                            const CostFile& prices, const CodesignSpec& spec);

}  // namespace chorus::codesign
