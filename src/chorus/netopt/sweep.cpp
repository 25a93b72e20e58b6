// Network-shape sweeps (see sweep.hpp).
#include "chorus/netopt/sweep.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "chorus/core/error.hpp"
#include "chorus/core/progress.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/netopt/cost_model.hpp"

namespace chorus::netopt {

namespace {

uint64_t positive_integer(const YAML::Node& node, const std::string& path, const std::string& field) {
  if (!node.IsScalar())
    throw Error(path, field, "must be a positive integer");
  const std::string& text = node.Scalar();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9 ||
      std::stoull(text) == 0) {
    throw Error(path, field, fmt::format("'{}' is not a positive integer", text));
  }
  return std::stoull(text);
}

// The divisors of n that are >= min_size, ascending: trial division up to sqrt(n), at most 2^16 steps for
// n < 2^32 (scanning every candidate factor up to n instead hung on large highly composite counts).
std::vector<uint64_t> divisors(uint64_t n, uint64_t min_size) {
  std::vector<uint64_t> low, high;
  for (uint64_t f = 1; f * f <= n; ++f) {
    if (n % f != 0)
      continue;
    low.push_back(f);
    if (f * f != n)
      high.push_back(n / f);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  std::vector<uint64_t> out;
  for (uint64_t f : low) {
    if (f >= min_size)
      out.push_back(f);
  }
  return out;
}

// Ordered factorisations of `rest` into `dims` factors from `divs`; throws once there are more than `most`.
class Factoriser {
 public:
  Factoriser(const SweepSpec& spec, size_t dims, size_t most, std::string field)
      : spec_(spec), divs_(divisors(spec.npus, spec.min_size)), dims_(dims), most_(most), field_(std::move(field)) {}

  std::vector<std::vector<uint32_t>> run() {
    std::vector<uint32_t> prefix;
    recurse(spec_.npus, dims_, prefix);
    return std::move(out_);
  }

 private:
  void recurse(uint64_t rest, size_t dims, std::vector<uint32_t>& prefix) {
    if (dims == 1) {
      if (rest < spec_.min_size)
        return;
      if (out_.size() == most_) {
        throw Error(spec_.source, field_,
                    fmt::format("{}-dimensional shapes of {} NPUs are more than {} with the block choices, the "
                                "limit; raise it with --sweep-max-shapes or narrow the file",
                                dims_, spec_.npus, spec_.limits.max_shapes));
      }
      prefix.push_back(static_cast<uint32_t>(rest));
      out_.push_back(prefix);
      prefix.pop_back();
      return;
    }
    for (uint64_t f : divs_) {
      if (f > rest / spec_.min_size)
        break;
      if (rest % f != 0)
        continue;
      prefix.push_back(static_cast<uint32_t>(f));
      recurse(rest / f, dims - 1, prefix);
      prefix.pop_back();
    }
  }

  const SweepSpec& spec_;
  std::vector<uint64_t> divs_;
  size_t dims_, most_;
  std::string field_;
  std::vector<std::vector<uint32_t>> out_;
};

}  // namespace

SweepSpec load_sweep_spec(const std::string& path, const SweepLimits& limits) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw Error(path, "file", "cannot open");
  } catch (const YAML::ParserException& e) {
    throw Error(path, fmt::format("line {}", e.mark.line + 1), fmt::format("yaml syntax error: {}", e.msg));
  }
  if (!root.IsMap())
    throw Error(path, "", "expected a mapping");
  SweepSpec spec;
  spec.source = path;
  spec.limits = limits;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node v = entry.second;
    if (key == "npus") {
      spec.npus = positive_integer(v, path, key);
    } else if (key == "dimensions" && v.IsSequence()) {
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string field = fmt::format("dimensions[{}]", i);
        spec.dimension_counts.push_back(positive_integer(v[i], path, field));
        if (spec.dimension_counts.back() > limits.max_dimensions) {
          throw Error(path, field,
                      fmt::format("is {}; the limit is {} dimensions (raise it with --sweep-max-dims)",
                                  spec.dimension_counts.back(), limits.max_dimensions));
        }
      }
    } else if (key == "blocks" && v.IsSequence()) {
      spec.blocks.clear();
      for (size_t i = 0; i < v.size(); ++i) {
        const auto block = parse_block(v[i].IsScalar() ? v[i].Scalar() : "");
        if (!block)
          throw Error(path, fmt::format("blocks[{}]", i),
                      "unknown building block; expected Ring, FullyConnected or Switch");
        spec.blocks.push_back(*block);
      }
    } else if (key == "min_size") {
      spec.min_size = static_cast<uint32_t>(std::max<uint64_t>(2, positive_integer(v, path, key)));
    } else if (key == "tensor_parallel") {
      spec.tensor_parallel = static_cast<uint32_t>(positive_integer(v, path, key));
    } else if (key == "cost_dimensions" && v.IsSequence()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].IsScalar() || v[i].Scalar().empty())
          throw Error(path, fmt::format("cost_dimensions[{}]", i), "must be a name from the cost model");
        spec.cost_dimensions.push_back(v[i].Scalar());
      }
    } else {
      throw Error(path, key,
                  "unknown key or wrong type; expected npus, dimensions (list), blocks (list), min_size, "
                  "tensor_parallel or cost_dimensions (list)");
    }
  }
  if (spec.npus < 2)
    throw Error(path, "npus", "missing or < 2");
  if (spec.blocks.empty())
    throw Error(path, "blocks", "is empty; give at least one of Ring, FullyConnected, Switch");
  if (spec.npus > limits.max_npus) {
    throw Error(
        path, "npus",
        fmt::format("is {}; the limit is {} NPUs (raise it with --sweep-max-npus)", spec.npus, limits.max_npus));
  }
  if (spec.dimension_counts.empty())
    throw Error(path, "dimensions", "missing; give the dimension counts to try");
  for (size_t d : spec.dimension_counts) {
    if (d > spec.cost_dimensions.size()) {
      throw Error(path, "cost_dimensions",
                  fmt::format("has {} names; {}-dimensional shapes need {}", spec.cost_dimensions.size(), d, d));
    }
  }
  return spec;
}

std::vector<NetworkShape> enumerate_shapes(const SweepSpec& spec) {
  std::vector<NetworkShape> shapes;
  for (size_t i = 0; i < spec.dimension_counts.size(); ++i) {
    const size_t dims = spec.dimension_counts[i];
    const std::string field = fmt::format("dimensions[{}]", i);
    // Block choices first (blocks^dims, checked as it grows), then only as many factorisations as the
    // shapes left under the limit allow.
    size_t combos = 1;
    for (size_t d = 0; d < dims && combos <= spec.limits.max_shapes; ++d)
      combos *= spec.blocks.size();
    const size_t left = spec.limits.max_shapes - std::min(spec.limits.max_shapes, shapes.size());
    if (combos > left) {
      throw Error(spec.source, field,
                  fmt::format("{}-dimensional shapes with {} block choices each are more than {} shapes, the limit; "
                              "raise it with --sweep-max-shapes or narrow the file",
                              dims, spec.blocks.size(), spec.limits.max_shapes));
    }
    const std::vector<std::vector<uint32_t>> sizes = Factoriser(spec, dims, left / combos, field).run();
    const std::vector<std::string> names(spec.cost_dimensions.end() - static_cast<std::ptrdiff_t>(dims),
                                         spec.cost_dimensions.end());
    for (const auto& s : sizes) {
      for (size_t c = 0; c < combos; ++c) {
        NetworkShape shape{{}, s, names};
        for (size_t d = 0, rest = c; d < dims; ++d, rest /= spec.blocks.size())
          shape.blocks.push_back(spec.blocks[rest % spec.blocks.size()]);
        shapes.push_back(std::move(shape));
      }
    }
  }
  return shapes;
}

std::optional<Communicator> tensor_data_parallel(const NetworkShape& network, uint32_t tensor_parallel) {
  Communicator comm;
  uint64_t rest = tensor_parallel;
  for (uint32_t n : network.sizes) {
    const uint32_t tp = static_cast<uint32_t>(std::gcd<uint64_t>(n, rest));
    rest /= tp;
    comm.groups[0].push_back(tp);
    comm.groups[1].push_back(tp);
    comm.groups[2].push_back(n / tp);
  }
  if (rest != 1)
    return std::nullopt;
  return comm;
}

std::string shape_name(const NetworkShape& network) {
  std::string name;
  for (size_t d = 0; d < network.dimension_count(); ++d) {
    name += fmt::format("{}{}{}", d ? "_" : "", to_string(network.blocks[d]), network.sizes[d]);
  }
  return name;
}

SweepResult run_sweep(const SweepSpec& spec, const Workload& workload, const CostModel& cost_model,
                      const ModelOptions& options, Objective objective, const Budget& budget, Progress* progress) {
  SweepResult result;
  const std::vector<NetworkShape> shapes = enumerate_shapes(spec);
  result.shapes = shapes.size();
  ProgressScope started(progress, "netopt: shapes started", static_cast<int64_t>(shapes.size()));
  for (const NetworkShape& shape : shapes) {
    started.advance();
    const auto comm = tensor_data_parallel(shape, spec.tensor_parallel);
    if (!comm) {
      ++result.skipped;
      continue;
    }
    ModelOptions shape_options = options;
    if (!options.latency_ns.empty())
      shape_options.latency_ns.assign(shape.dimension_count(), options.latency_ns.front());
    const TrainingStep step = build_training_step(shape, workload, *comm, shape_options);
    Budget shape_budget = budget;
    for (auto* bounds : {&shape_budget.min_gbps, &shape_budget.max_gbps}) {
      if (bounds->size() == 1)
        bounds->assign(shape.dimension_count(), bounds->front());
    }
    try {
      const std::vector<double> costs = cost_coefficients(shape, cost_model, "cost model");
      const OptimizationResult r = optimize(step, costs, objective, shape_budget);
      result.rows.push_back(
          {shape, r.design, equal_split(step, costs, shape_budget, shape.dimension_count()), r.objective, r.solve_s});
    } catch (const Error&) {
      ++result.skipped;  // unpriced (no Switch cost for its level) or the budget is infeasible for it
    }
  }
  std::stable_sort(result.rows.begin(), result.rows.end(), [](const SweepRow& a, const SweepRow& b) {
    // LIBRA's bytes-only model ties across building blocks; the cheaper network ranks first.
    return a.objective != b.objective ? a.objective < b.objective : a.design.cost < b.design.cost;
  });
  return result;
}

void write_csv(std::ostream& out, const SweepResult& result) {
  out << "rank,shape,blocks,sizes,bandwidth_GBps,time_ms,comm_ms,cost,objective,equal_time_ms,equal_cost,"
         "speedup_vs_equal,solve_s\n";
  for (size_t i = 0; i < result.rows.size(); ++i) {
    const SweepRow& r = result.rows[i];
    std::string blocks, sizes, bandwidth;
    for (size_t d = 0; d < r.network.dimension_count(); ++d) {
      const char* sep = d ? ";" : "";
      blocks += fmt::format("{}{}", sep, to_string(r.network.blocks[d]));
      sizes += fmt::format("{}{}", sep, r.network.sizes[d]);
      bandwidth += fmt::format("{}{:.4f}", sep, r.design.bandwidth_gbps[d]);
    }
    out << fmt::format("{},{},{},{},{},{:.6f},{:.6f},{:.2f},{:.8g},{:.6f},{:.2f},{:.6f},{:.6f}\n", i + 1,
                       csv_field(shape_name(r.network)), csv_field(blocks), csv_field(sizes), csv_field(bandwidth),
                       r.design.time_ms, r.design.communication_ms, r.design.cost, r.objective, r.equal.time_ms,
                       r.equal.cost, r.equal.time_ms / r.design.time_ms, r.solve_s);
  }
}

}  // namespace chorus::netopt
