// Calibration of a system against measured runs (see calibration.hpp).
#include "chorus/llm/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/golden_section.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/llm/iteration.hpp"

namespace chorus::llm {
namespace {

// The measured step time from the published metric.
double step_time(const std::string& file, const std::string& where, const std::string& metric, double value,
                 const Application& app, const Execution& exe, const System& sys) {
  if (!(value > 0) || !std::isfinite(value))
    throw Error(file, where + ": value", fmt::format("is {}; must be > 0", value));
  const double gpus = static_cast<double>(exe.num_procs);
  const double tokens = static_cast<double>(exe.batch_size * app.seq_size);
  const double model_flops = tokens * model_flops_per_token(app, true);
  // A step faster than the model's FLOPs at the system's peak (100 % MFU) was not measured on this system; as
  // mfu_pct > 100 is refused, so are the other metrics' equivalents.
  const auto at_most_peak = [&](double step_s) {
    const double peak = sys.matrix.at(static_cast<size_t>(exe.datatype)).flops_per_second;
    const double fastest = model_flops / (peak * gpus);
    if (step_s < fastest)
      throw Error(file, where + ": value",
                  fmt::format("{} {:g} gives a step of {:g} s, faster than the system's peak ({:g} s at 100 % MFU)",
                              metric, value, step_s, fastest));
    return step_s;
  };
  if (metric == "step_s")
    return at_most_peak(value);
  if (metric == "tokens_per_s_per_gpu")
    return at_most_peak(tokens / (value * gpus));
  if (metric == "tflops_per_gpu")
    return at_most_peak(model_flops / (value * 1e12 * gpus));
  if (metric == "mfu_pct") {
    if (value > 100)
      throw Error(file, where + ": value", fmt::format("MFU {} % exceeds 100 %", value));
    const double peak = sys.matrix.at(static_cast<size_t>(exe.datatype)).flops_per_second;
    return model_flops / (value / 100 * peak * gpus);
  }
  throw Error(file, where + ": metric",
              fmt::format("is '{}'; must be step_s, tokens_per_s_per_gpu, tflops_per_gpu or mfu_pct", metric));
}

EfficiencyCurve scaled(const EfficiencyCurve& c, double k) {
  auto steps = c.steps();
  for (auto& [threshold, eff] : steps)
    eff = std::min(1.0, eff * k);
  return EfficiencyCurve(std::move(steps));
}

// Parameters in log space, in a fixed order: matrix, vector, memory, networks...
std::vector<double> to_vector(const CalibrationParams& p) {
  std::vector<double> x = {std::log(p.matrix), std::log(p.vector), std::log(p.memory)};
  for (double n : p.network)
    x.push_back(std::log(n));
  return x;
}

CalibrationParams from_vector(const std::vector<double>& x) {
  CalibrationParams p;
  p.matrix = std::exp(x[0]);
  p.vector = std::exp(x[1]);
  p.memory = std::exp(x[2]);
  for (size_t i = 3; i < x.size(); ++i)
    p.network.push_back(std::exp(x[i]));
  return p;
}

double predict(const System& sys, const MeasuredRun& run) {
  return IterationModel(run.app, sys).evaluate(run.exe).total_time;
}

constexpr double kPull = 1e-3;  // weight of sum(log-multiplier^2) against the mean squared log error
constexpr double kRange = 1.0;  // log-multipliers searched in [-1, 1] (x 0.37 .. x 2.7)

double objective(const System& base, const std::vector<const MeasuredRun*>& runs, const std::vector<double>& x) {
  const System sys = apply_calibration(base, from_vector(x));
  double sum = 0;
  for (const MeasuredRun* r : runs) {
    const double e = std::log(predict(sys, *r) / r->measured_s);
    sum += e * e;
  }
  double pull = 0;
  for (double v : x)
    pull += v * v;
  return sum / static_cast<double>(runs.size()) + kPull * pull;
}

// Cyclic coordinate descent, each coordinate by golden-section search on [-kRange, kRange].
CalibrationParams fit(const System& base, const std::vector<const MeasuredRun*>& runs) {
  CalibrationParams start;
  start.network.assign(base.networks.size(), 1.0);
  std::vector<double> x = to_vector(start);
  for (int sweep = 0; sweep < 6; ++sweep) {
    for (size_t i = 0; i < x.size(); ++i) {
      double lo = -kRange;
      double hi = kRange;
      auto f = [&](double v) {
        std::vector<double> y = x;
        y[i] = v;
        return objective(base, runs, y);
      };
      const double best = golden_section_minimum(f, lo, hi, 40);
      if (f(best) < f(x[i]))
        x[i] = best;
    }
  }
  return from_vector(x);
}

}  // namespace

std::vector<MeasuredRun> read_measured_runs(const std::string& csv_path, const System& sys) {
  std::ifstream in(csv_path);
  if (!in)
    throw Error(csv_path, "", "cannot open");
  const std::filesystem::path dir = std::filesystem::path(csv_path).parent_path();
  std::vector<MeasuredRun> runs;
  std::string line;
  int number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    const auto cells = split_commas(line);
    const std::string where = fmt::format("line {}", number);
    if (!header) {
      if (line != "source,name,model,exec,metric,value")
        throw Error(csv_path, where, "header must be source,name,model,exec,metric,value");
      header = true;
      continue;
    }
    if (cells.size() != 6)
      throw Error(csv_path, where, fmt::format("has {} columns; expected 6", cells.size()));
    MeasuredRun run;
    run.source = cells[0];
    run.name = cells[1];
    run.app = read_application((dir / cells[2]).string());
    run.exe = read_execution((dir / cells[3]).string(), run.app, sys);
    double value = 0;
    try {
      size_t used = 0;
      value = std::stod(cells[5], &used);
      if (used != cells[5].size())
        throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw Error(csv_path, where + ": value", fmt::format("'{}' is not a number", cells[5]));
    }
    run.measured_s = step_time(csv_path, where, cells[4], value, run.app, run.exe, sys);
    runs.push_back(std::move(run));
  }
  if (runs.empty())
    throw Error(csv_path, "", "has no measured run");
  return runs;
}

System apply_calibration(const System& base, const CalibrationParams& p) {
  System s = base;
  for (auto& u : s.matrix)
    u.efficiency = scaled(u.efficiency, p.matrix);
  for (auto& u : s.vector)
    u.efficiency = scaled(u.efficiency, p.vector);
  s.mem1.efficiency = scaled(s.mem1.efficiency, p.memory);
  for (size_t i = 0; i < s.networks.size() && i < p.network.size(); ++i)
    s.networks[i].efficiency = std::min(1.0, s.networks[i].efficiency * p.network[i]);
  return s;
}

CalibrationResult calibrate(const System& base, const std::vector<MeasuredRun>& runs, bool leave_one_out) {
  std::vector<const MeasuredRun*> all;
  for (const auto& r : runs)
    all.push_back(&r);
  CalibrationResult out;
  out.params = fit(base, all);
  out.calibrated = apply_calibration(base, out.params);
  for (size_t i = 0; i < runs.size(); ++i) {
    RunFit f;
    f.source = runs[i].source;
    f.name = runs[i].name;
    f.measured_s = runs[i].measured_s;
    f.before_s = predict(base, runs[i]);
    f.after_s = predict(out.calibrated, runs[i]);
    std::vector<const MeasuredRun*> others;
    for (size_t j = 0; j < runs.size(); ++j) {
      if (j != i)
        others.push_back(&runs[j]);
    }
    if (!leave_one_out)
      f.left_out_s = std::numeric_limits<double>::quiet_NaN();
    else
      f.left_out_s = others.empty() ? f.before_s : predict(apply_calibration(base, fit(base, others)), runs[i]);
    out.runs.push_back(f);
  }
  const double n = static_cast<double>(out.runs.size());
  for (const RunFit& f : out.runs) {
    out.mean_abs_before += std::abs(1 - f.before_s / f.measured_s) / n;
    out.mean_abs_after += std::abs(1 - f.after_s / f.measured_s) / n;
    out.mean_abs_left_out += std::abs(1 - f.left_out_s / f.measured_s) / n;
  }
  return out;
}

}  // namespace chorus::llm
