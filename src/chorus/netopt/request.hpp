// The network optimizer as a user asks for it (the options of `chorus netopt`, as text) and its record, the object
// `chorus netopt --json` prints. The CLI and chorus.netopt.optimize() in Python both come through here.
//
//   NetoptRequest q{.network = "4d.yml", .cost = "cost.yml", .workload = "gpt3.txt", .comm = "comm.yml"};
//   q.budgets = {"total-bw=500GB/s"};
//   nlohmann::json record = netopt_record(q, run_netopt(q));   // record["bandwidth_GBps"], ["time_ms"], ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/netopt/cross_check.hpp"
#include "chorus/netopt/libra_inputs.hpp"
#include "chorus/netopt/optimizer.hpp"

namespace chorus::netopt {

struct NetoptRequest {
  std::string network, cost, workload, comm;  // LIBRA's input files
  std::vector<std::string> budgets;           // total-bw=<bandwidth> | dollars=<number>
  std::vector<std::string> constraints;       // "B2+B3=200"
  std::string objective = "time";             // time | time-x-cost | cost
  std::string time_target;                    // e.g. "720ms"; the cost objective needs it
  std::string min_bw, max_bw, latency;        // one value, or a comma list with one per dimension
  std::string loop = "no-overlap";            // no-overlap | overlap
  bool block_factors = false;
  bool cross_check = false;
  uint32_t splits = 16;  // chunks per collective in the cross-check simulation
};

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> split_list(const std::string& text);
// One value for every dimension, or a comma list with one per dimension; times in ns, bandwidths in GB/s. Throws
// chorus::Error naming Argument{keyword}.
std::vector<double> per_dimension(const std::string& text, size_t dims, const std::string& keyword, bool is_time);
Objective parse_objective(const std::string& text);
ModelOptions model_options(const NetoptRequest& q, size_t dims);
Budget make_budget(const NetoptRequest& q, size_t dims);

struct NetoptOutcome {
  NetworkShape network;
  TrainingStep step;
  std::vector<double> costs;  // $ per GB/s per dimension
  OptimizationResult result;
  Design equal;  // the equal split under the same budget
  std::optional<CrossCheck> optimized_sim, equal_sim;
};

// One network (not a sweep): loads the files, optimises, and cross-checks when asked.
NetoptOutcome run_netopt(const NetoptRequest& q);

nlohmann::json design_json(const Design& d);
nlohmann::json netopt_record(const NetoptRequest& q, const NetoptOutcome& outcome);

}  // namespace chorus::netopt
