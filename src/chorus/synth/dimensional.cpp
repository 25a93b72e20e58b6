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

  const SynthResult& get(const PhaseSpec& spec) {
    const Dimension& dim = topology_.dimensions()[spec.dimension];
    for (const Entry& e : entries_) {
      if (e.dim.kind == dim.kind && e.dim.size == dim.size &&
          e.dim.bandwidth.bytes_per_second() == dim.bandwidth.bytes_per_second() && e.dim.latency == dim.latency &&
          e.kind == spec.kind && e.size == spec.size)
        return e.result;
    }
    SynthOptions o = options_;
    o.kind = spec.kind;
    o.size = spec.size;
    o.graph = {};
    const Topology line = dimension_line(topology_, spec.dimension);
    entries_.push_back({dim, spec.kind, spec.size, synthesize(line, o)});
    return entries_.back().result;
  }
  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }

 private:
  struct Entry {
    Dimension dim;
    CollectiveKind kind;
    Bytes size;
    SynthResult result;
  };
  const Topology& topology_;
  const SynthOptions& options_;
  std::vector<Entry> entries_;
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
      const SynthResult& line = cache.get(spec);
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
                          line.chunks_per_npu};
      r.stage_times[stage] = std::max(r.stage_times[stage], line.time);
      r.transfers += ph.line_transfers * ph.lines;
      r.phases.push_back(ph);
    }
  }
  r.time = Time::zero();
  for (Time t : r.stage_times)
    r.time = r.time + t;
  r.line_syntheses = cache.size();
  r.synthesis_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

namespace {

// Appends one line schedule, translated to the line starting at `base`, after `barrier` (none: the first stage).
// Appends one line's schedule translated to the line starting at `base`: each op also waits for the stage
// barriers of the NPUs it involves (none in the first stage), and is listed under those NPUs in `own`. The op's
// timing is its duration for now (materialize_dimensional times the whole schedule afterwards).
void append_line(const SynthResult& line, uint32_t base, uint32_t stride, const std::vector<OpId>& barrier,
                 const std::map<std::pair<uint32_t, uint32_t>, uint32_t>& link_of, SynthResult& r,
                 std::vector<std::vector<OpId>>& own) {
  const Schedule& s = line.schedule;
  std::vector<OpId> op_of(s.size());
  std::vector<OpId> deps;
  auto npu = [&](NodeId v) { return NodeId{base + v.value * stride}; };
  for (uint32_t i = 0; i < s.size(); ++i) {
    const OpId op{i};
    const NodeId src = npu(s.src(op)), dst = npu(s.dst(op));
    deps.clear();
    for (OpId d : s.deps(op))
      deps.push_back(op_of[d.value]);
    if (!barrier.empty()) {
      deps.push_back(barrier[src.value]);
      if (dst != src)
        deps.push_back(barrier[dst.value]);
    }
    const SynthOp& x = line.ops[i];
    if (s.is_transfer(op)) {
      op_of[i] = r.schedule.add_transfer(src, dst, s.bytes(op), Time::zero(), deps, s.chunk(op));
      r.ops.push_back({LinkId{link_of.at({src.value, dst.value})}, Time::zero(), x.finish - x.start, x.reduce});
      own[dst.value].push_back(op_of[i]);
    } else {
      op_of[i] = r.schedule.add_local(src, Time::zero(), deps, s.chunk(op));
      r.ops.push_back({LinkId{0}, Time::zero(), Time::zero(), false});
    }
    own[src.value].push_back(op_of[i]);
  }
}

// Each op as soon as what it waits for is done, for its own duration (held in SynthOp::finish until now): the
// time of the composition without global barriers. Links are never double-booked: within a line the schedule
// orders each link's transfers, and across stages every op waits for its NPUs' barriers.
Time time_as_soon_as_possible(SynthResult& r) {
  Time makespan = Time::zero();
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    Time start = Time::zero();
    for (OpId d : r.schedule.deps(OpId{i}))
      start = std::max(start, r.ops[d.value].finish);
    const Time duration = r.ops[i].finish;
    r.ops[i].start = start;
    r.ops[i].finish = start + duration;
    makespan = std::max(makespan, r.ops[i].finish);
  }
  return makespan;
}

}  // namespace

SynthResult materialize_dimensional(const Topology& topology, const SynthOptions& options) {
  const DimensionalSynthResult d = synthesize_dimensional(topology, options);
  if (d.transfers > (uint64_t{1} << 22))
    throw Error("synth", "topology",
                fmt::format("{} transfers are too many to materialize (at most 2^22)", d.transfers));
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> link_of;
  for (uint32_t l = 0; l < topology.link_count(); ++l)
    link_of[{topology.link_src(LinkId{l}).value, topology.link_dst(LinkId{l}).value}] = l;
  SynthResult r;
  r.kind = d.kind;
  r.size = d.size;
  for (uint32_t m = 0; m < topology.npu_count(); ++m)
    r.members.push_back(m);
  LineCache cache(topology, options);
  // Per-NPU stage barriers (a local step on each NPU after its own part of a stage), not one across all NPUs: an
  // NPU goes on as soon as its own lines of the stage are done, and per-rank traces (Chakra) can express it.
  std::vector<OpId> barrier;
  for (uint32_t stage = 0; stage < d.stage_times.size(); ++stage) {
    std::vector<std::vector<OpId>> own(topology.npu_count());
    for (const DimensionalPhase& p : d.phases) {
      if (p.stage != stage)
        continue;
      const SynthResult& line = cache.get({p.dimension, p.kind, p.size});
      uint32_t stride = 1;
      for (uint32_t k = 0; k < p.dimension; ++k)
        stride *= topology.dimensions()[k].size;
      for (uint32_t base = 0; base < topology.npu_count(); ++base) {
        if (topology.coordinate(NodeId{base}, p.dimension) == 0)
          append_line(line, base, stride, barrier, link_of, r, own);
      }
    }
    barrier.resize(topology.npu_count());
    for (uint32_t v = 0; v < topology.npu_count(); ++v) {
      barrier[v] = r.schedule.add_local(NodeId{v}, Time::zero(), own[v], 0);
      r.ops.push_back({LinkId{0}, Time::zero(), Time::zero(), false});
    }
  }
  r.time = time_as_soon_as_possible(r);
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
