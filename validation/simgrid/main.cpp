// simgrid_crosscheck: runs every scenario in chorus's flow model and in SimGrid (CM02, no correction factors) and
// checks that every flow's completion time agrees within 1%.
//
//   build/simgrid_crosscheck            # table of scenarios, exit status 1 if a flow differs by more than 1%
//   build/simgrid_crosscheck --flows    # also every flow's completion time in both simulators
// SimGrid options are accepted too; --cfg=... overrides the cross-check's own configuration, e.g.
//   build/simgrid_crosscheck --cfg=network/optim:Lazy   # SimGrid 3.32's default update mode: torus3x3 differs
#include <fmt/core.h>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "validation/simgrid/chorus_runner.hpp"
#include "validation/simgrid/scenario.hpp"
#include "validation/simgrid/simgrid_runner.hpp"

namespace {

using chorus::validation::Mode;
using chorus::validation::Scenario;

constexpr double kTolerance = 0.01;

struct Handles {
  size_t equal_share = 0;
  size_t stock_cm02 = 0;
};

double relative_difference(double reference, double value) {
  if (value < 0)
    return std::numeric_limits<double>::infinity();  // the flow never completed
  return std::abs(value - reference) / reference;
}

double max_relative_difference(const std::vector<double>& reference, const std::vector<double>& values) {
  double worst = 0;
  for (size_t i = 0; i < reference.size(); ++i)
    worst = std::max(worst, relative_difference(reference[i], values[i]));
  return worst;
}

void print_flows(const Scenario& s, const std::vector<double>& chorus, const std::vector<double>& equal,
                 const std::vector<double>& stock) {
  for (size_t i = 0; i < s.flows.size(); ++i) {
    const auto& f = s.flows[i];
    fmt::print(
        "    flow {:3} {:2} -> {:2} {:9} B start {:9.3f} us: chorus {:11.4f} us, simgrid {:11.4f} us ({:+.4f}%), "
        "stock CM02 {:11.4f} us\n",
        i, f.src, f.dst, f.bytes, f.start.microseconds(), chorus[i] * 1e6, equal[i] * 1e6,
        100 * (equal[i] - chorus[i]) / chorus[i], stock[i] * 1e6);
  }
}

// Prints one table row per scenario; returns how many scenarios disagree beyond the tolerance.
int compare(const std::vector<Scenario>& scenarios, const std::vector<Handles>& handles,
            const chorus::validation::SimgridBatch& batch, bool show_flows) {
  fmt::print("{:<32} {:>5} {:>14} {:>14} {:>16}  {}\n", "scenario", "flows", "makespan (us)", "max rel. diff",
             "stock CM02 diff", "result");
  int failures = 0;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const std::vector<double> chorus = chorus::validation::run_chorus(scenarios[i]);
    const std::vector<double>& equal = batch.finish(handles[i].equal_share);
    const std::vector<double>& stock = batch.finish(handles[i].stock_cm02);
    const double diff = max_relative_difference(chorus, equal);
    const bool ok = diff <= kTolerance;
    failures += ok ? 0 : 1;
    fmt::print("{:<32} {:>5} {:>14.3f} {:>14.1e} {:>15.2f}%  {}\n", scenarios[i].name, chorus.size(),
               *std::max_element(chorus.begin(), chorus.end()) * 1e6, diff,
               100 * max_relative_difference(chorus, stock), ok ? "ok" : "DIFFERS");
    if (show_flows || !ok)
      print_flows(scenarios[i], chorus, equal, stock);
  }
  return failures;
}

bool has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0)
      return true;
  return false;
}

}  // namespace

// --cfg=... options from the command line, applied after configure_simgrid() so that they can override it.
std::vector<std::string> user_config(int argc, char** argv) {
  std::vector<std::string> config;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--cfg=", 6) == 0)
      config.emplace_back(argv[i] + 6);
  return config;
}

int main(int argc, char** argv) {
  xbt_log_control_set("root.thresh:warning");  // before the Engine, so that --log=... on the command line wins
  const std::vector<std::string> overrides = user_config(argc, argv);
  simgrid::s4u::Engine engine(&argc, argv);
  chorus::validation::configure_simgrid(engine);
  for (const std::string& option : overrides)
    engine.set_config(option);

  const std::vector<Scenario> scenarios = chorus::validation::make_scenarios();
  chorus::validation::SimgridBatch batch(engine);
  std::vector<Handles> handles;
  for (const Scenario& s : scenarios)
    handles.push_back({batch.add(s, Mode::kEqualShare), batch.add(s, Mode::kStockCm02)});
  batch.run();

  const int failures = compare(scenarios, handles, batch, has_flag(argc, argv, "--flows"));
  fmt::print("\n{} scenarios, {} within {}% of SimGrid in every flow\n", scenarios.size(),
             scenarios.size() - static_cast<size_t>(failures), 100 * kTolerance);
  return failures == 0 ? 0 : 1;
}
