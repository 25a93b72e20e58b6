// Dimension-wise collective synthesis (see dimensional.hpp): one flat line synthesis per (dimension, collective,
// size), composed in rotated stages.
#include "chorus/synth/dimensional.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The dimensions that have links (size > 1), in order.
std::vector<uint32_t> active_dimensions(const Topology& topology) {
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < topology.dimensions().size(); ++d) {
    if (topology.dimensions()[d].size > 1)
      dims.push_back(d);
  }
  return dims;
}

// One phase of one part: a collective on a line of `dimension`, of `size` bytes (NCCL convention).
struct PhaseSpec {
  uint32_t dimension = 0;
  CollectiveKind kind = CollectiveKind::AllGather;
  Bytes size;
};

// The phases of one part, in stage order: `part_size` bytes (NCCL convention of the whole collective) on the
// dimension order `order`.
std::vector<PhaseSpec> part_phases(const Topology& topology, CollectiveKind kind, Bytes part_size,
                                   const std::vector<uint32_t>& order) {
  std::vector<PhaseSpec> phases;
  auto p = [&](uint32_t d) { return int64_t{topology.dimensions()[d].size}; };
  const size_t n = order.size();
  if (kind == CollectiveKind::ReduceScatter) {
    int64_t data = part_size.count();  // input of the next Reduce-Scatter
    for (uint32_t d : order) {
      phases.push_back({d, kind, Bytes(data)});
      data = std::max<int64_t>(1, ceil_div(data, p(d)));
    }
    return phases;
  }
  if (kind == CollectiveKind::AllGather) {
    // Each NPU contributes part_size / N; every All-Gather multiplies what it holds by the line's size.
    int64_t held = std::max<int64_t>(1, ceil_div(part_size.count(), topology.npu_count()));
    for (uint32_t d : order) {
      held *= p(d);
      phases.push_back({d, kind, Bytes(held)});
    }
    return phases;
  }
  int64_t data = part_size.count();
  std::vector<int64_t> entering(n);
  for (size_t s = 0; s + 1 < n; ++s) {
    entering[s] = data;
    phases.push_back({order[s], CollectiveKind::ReduceScatter, Bytes(data)});
    data = std::max<int64_t>(1, ceil_div(data, p(order[s])));
  }
  phases.push_back({order[n - 1], CollectiveKind::AllReduce, Bytes(data)});
  for (size_t s = n - 1; s-- > 0;)
    phases.push_back({order[s], CollectiveKind::AllGather, Bytes(entering[s])});
  return phases;
}

// Line syntheses, each made once: the same (dimension parameters, collective, size) recurs across parts.
class LineCache {
 public:
  LineCache(const Topology& topology, const SynthOptions& options) : topology_(topology), options_(options) {}

  // The index of the line synthesis for `spec` in results().
  uint32_t get(const PhaseSpec& spec) {
    const Dimension& dim = topology_.dimensions()[spec.dimension];
    for (uint32_t i = 0; i < keys_.size(); ++i) {
      const Key& e = keys_[i];
      if (e.dim.kind == dim.kind && e.dim.size == dim.size &&
          e.dim.bandwidth.bytes_per_second() == dim.bandwidth.bytes_per_second() && e.dim.latency == dim.latency &&
          e.kind == spec.kind && e.size == spec.size)
        return i;
    }
    SynthOptions o = options_;
    o.kind = spec.kind;
    o.size = spec.size;
    o.graph = {};
    const Topology line = dimension_line(topology_, spec.dimension);
    keys_.push_back({dim, spec.kind, spec.size});
    results_.push_back(synthesize(line, o));
    return static_cast<uint32_t>(results_.size() - 1);
  }
  std::vector<SynthResult>& results() { return results_; }

 private:
  struct Key {
    Dimension dim;
    CollectiveKind kind;
    Bytes size;
  };
  const Topology& topology_;
  const SynthOptions& options_;
  std::vector<Key> keys_;
  std::vector<SynthResult> results_;
};

bool is_gather_family(CollectiveKind kind) {
  return kind == CollectiveKind::AllGather || kind == CollectiveKind::ReduceScatter ||
         kind == CollectiveKind::AllReduce;
}

// Hops between the two farthest NPUs of one line.
uint32_t line_hop_diameter(const Dimension& dim) {
  switch (dim.kind) {
    case BlockKind::Ring:
      return dim.size / 2;
    case BlockKind::UniRing:
    case BlockKind::Mesh:
      return dim.size - 1;
    case BlockKind::FullyConnected:
      return 1;
    case BlockKind::Switch:
      return 2;
  }
  return 0;
}

}  // namespace

bool dimensional_synthesis_applies(const Topology& topology, const SynthOptions& options) {
  return is_gather_family(options.kind) && options.graph.group.empty() && options.graph.failed_links.empty() &&
         options.graph.failed_npus.empty() && active_dimensions(topology).size() >= 2;
}

bool dimensional_synthesis_needed(const Topology& topology, const SynthOptions& options) {
  const uint64_t n = topology.npu_count();
  return dimensional_synthesis_applies(topology, options) &&
         n * n * std::max<uint32_t>(1, options.chunks_per_npu) > (uint64_t{1} << 30);
}

Topology dimension_line(const Topology& topology, uint32_t dimension) {
  const Dimension& dim = topology.dimensions().at(dimension);
  return compose({dim}, fmt::format("{}/dim{}", topology.name(), dimension));
}

DimensionalSynthResult synthesize_dimensional(const Topology& topology, const SynthOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (!dimensional_synthesis_applies(topology, options)) {
    throw Error("synth", "topology",
                "dimension-wise synthesis needs All-Gather, Reduce-Scatter or All-Reduce on a topology with at least "
                "two dimensions (mesh, torus, dims:...), every NPU taking part and no failures");
  }
  if (options.size.count() <= 0)
    throw Error("synth", Argument{"size"}, fmt::format("is {} bytes; must be > 0", options.size.count()));
  const std::vector<uint32_t> dims = active_dimensions(topology);
  const uint32_t parts = static_cast<uint32_t>(dims.size());
  const Bytes part_size(std::max<int64_t>(1, ceil_div(options.size.count(), parts)));
  DimensionalSynthResult r;
  r.kind = options.kind;
  r.size = options.size;
  r.npus = topology.npu_count();
  LineCache cache(topology, options);
  for (uint32_t part = 0; part < parts; ++part) {
    std::vector<uint32_t> order(parts);
    for (uint32_t s = 0; s < parts; ++s)
      order[s] = dims[(part + s) % parts];
    const std::vector<PhaseSpec> phases = part_phases(topology, options.kind, part_size, order);
    r.stage_times.resize(phases.size(), Time::zero());
    for (uint32_t stage = 0; stage < phases.size(); ++stage) {
      const PhaseSpec& spec = phases[stage];
      const uint32_t index = cache.get(spec);
      const SynthResult& line = cache.results()[index];
      const uint32_t p = topology.dimensions()[spec.dimension].size;
      DimensionalPhase ph{stage,
                          part,
                          spec.dimension,
                          spec.kind,
                          spec.size,
                          p,
                          topology.npu_count() / p,
                          line.time,
                          line.schedule.transfer_count(),
                          line.chunks_per_npu,
                          index};
      r.stage_times[stage] = std::max(r.stage_times[stage], line.time);
      r.transfers += ph.line_transfers * ph.lines;
      r.phases.push_back(ph);
    }
  }
  r.time = Time::zero();
  for (Time t : r.stage_times)
    r.time = r.time + t;
  r.line_syntheses = static_cast<uint32_t>(cache.results().size());
  r.lines = std::move(cache.results());
  r.synthesis_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

Time dimensional_lower_bound(const Topology& topology, CollectiveKind kind, Bytes size) {
  const uint32_t n = topology.npu_count();
  if (n < 2)
    return Time::zero();
  double min_in = 0, min_out = 0;
  bool first = true;
  for (uint32_t v = 0; v < n; ++v) {
    double in = 0, out = 0;
    for (LinkId l : topology.in_links(NodeId{v}))
      in += topology.link_bandwidth(l).bytes_per_second();
    for (LinkId l : topology.out_links(NodeId{v}))
      out += topology.link_bandwidth(l).bytes_per_second();
    min_in = first ? in : std::min(min_in, in);
    min_out = first ? out : std::min(min_out, out);
    first = false;
  }
  int64_t alpha_ps = 0;
  for (const Dimension& d : topology.dimensions()) {
    if (d.size > 1)
      alpha_ps += int64_t{line_hop_diameter(d)} * d.latency.picoseconds();
  }
  const double share = static_cast<double>(size.count()) / n * (n - 1);  // bytes that must cross the cut
  auto cut = [&](double bandwidth) {
    if (bandwidth <= 0)
      return alpha_ps;
    // Truncated after a relative margin for the floating-point error: rounds down.
    return std::max<int64_t>(alpha_ps, static_cast<int64_t>(share / bandwidth * 1e12 * (1 - 1e-12)));
  };
  switch (kind) {
    case CollectiveKind::AllGather:
      return Time::ps(cut(min_in));
    case CollectiveKind::ReduceScatter:
      return Time::ps(cut(min_out));
    case CollectiveKind::AllReduce:
      return Time::ps(cut(min_in) + cut(min_out));
    default:
      return Time::zero();
  }
}

}  // namespace chorus
