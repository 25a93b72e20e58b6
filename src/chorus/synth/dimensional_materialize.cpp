// Materialization of a dimension-wise collective (see dimensional.hpp, materialize_dimensional): the line
// schedules replicated on every line, each op carrying a bundle of unit chunks, stages joined by data-level
// dependencies.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/synth/dimensional.hpp"

namespace chorus {

namespace {

constexpr uint64_t kMaxMaterializedTransfers = uint64_t{1} << 22;
constexpr uint64_t kMaxUnitDeliveries = uint64_t{1} << 28;

// Where one phase's line chunks lie in unit space.
struct PhaseLayout {
  uint32_t stride = 1;                   // NPU id distance between neighbours of the phase's dimension
  std::vector<uint32_t> varying;         // dimensions a rank's block spans, fastest first
  std::vector<uint64_t> varying_weight;  // their unit-id weights (see unit_weights)
  uint64_t rank_weight = 0;              // the phase dimension's unit-id weight
  uint32_t part = 0;
  uint64_t block = 1;  // pieces in a rank's block
};

uint32_t stride_of(const Topology& t, uint32_t dim) {
  uint32_t stride = 1;
  for (uint32_t k = 0; k < dim; ++k)
    stride *= t.dimensions()[k].size;
  return stride;
}

// (unit, op) pairs of one NPU, sorted by unit: the ops of earlier stages that delivered a unit (or a partial of it).
using Deliveries = std::vector<std::pair<uint32_t, uint32_t>>;

class Materializer {
 public:
  Materializer(const Topology& t, const DimensionalSynthResult& d, DimensionalComposition composition)
      : t_(t), d_(d), barriers_(composition == DimensionalComposition::Barriers) {}

  SynthResult run() {
    if (d_.transfers > kMaxMaterializedTransfers)
      throw Error("synth", "topology",
                  fmt::format("{} transfers are too many to materialize (at most 2^22)", d_.transfers));
    plan_units();
    r_.kind = d_.kind;
    r_.size = d_.size;
    for (uint32_t m = 0; m < t_.npu_count(); ++m)
      r_.members.push_back(m);
    r_.chunks_per_npu = static_cast<uint32_t>(units_per_npu_);
    r_.chunk_count = static_cast<uint32_t>(units_per_npu_ * t_.npu_count());
    r_.chunk_bytes = unit_bytes_;
    r_.synthesis_s = d_.synthesis_s;
    r_.bundle_start.push_back(0);
    last_on_link_.assign(t_.link_count(), UINT32_MAX);
    gathered_.resize(t_.node_count());
    partials_.resize(t_.node_count());
    for (uint32_t stage = 0; stage < d_.stage_times.size(); ++stage)
      run_stage(stage);
    r_.time = time_as_soon_as_possible();
    return std::move(r_);
  }

 private:
  // Each part's dimension order (its first n phases' dimensions), every phase's layout, the unit count L per
  // piece and the unit bytes; refuses more unit deliveries than kMaxUnitDeliveries.
  void plan_units() {
    uint32_t parts = 0;
    for (const DimensionalPhase& p : d_.phases)
      parts = std::max(parts, p.part + 1);
    const uint32_t n = parts;  // one part per dimension of size > 1
    std::vector<std::vector<uint32_t>> order(parts, std::vector<uint32_t>(n));
    for (const DimensionalPhase& p : d_.phases) {
      if (p.stage < n)
        order[p.part][p.stage] = p.dimension;
    }
    uint64_t units = 1;
    for (const DimensionalPhase& p : d_.phases) {
      const std::vector<uint32_t>& o = order[p.part];
      const uint32_t pos = static_cast<uint32_t>(std::find(o.begin(), o.end(), p.dimension) - o.begin());
      PhaseLayout layout;
      layout.stride = stride_of(t_, p.dimension);
      // All-Gather: a rank holds what the earlier stages gathered (dimensions before it); Reduce-Scatter and the
      // All-Reduce phases: a rank owns the pieces that later stages split further (dimensions after it).
      // All-Reduce enumerates the later dimensions last-fastest, so a slice is a run of consecutive unit ids.
      if (d_.kind == CollectiveKind::AllGather)
        layout.varying.assign(o.begin(), o.begin() + pos);
      else if (d_.kind == CollectiveKind::ReduceScatter)
        layout.varying.assign(o.begin() + pos + 1, o.end());
      else
        layout.varying.assign(o.rbegin(), o.rend() - pos - 1);
      for (uint32_t v : layout.varying)
        layout.block *= t_.dimensions()[v].size;
      layout.part = p.part;
      const uint64_t k = std::max<uint32_t>(1, p.chunks_per_npu);
      units = std::lcm(units, k / std::gcd(k, layout.block));
      if (units * parts * t_.npu_count() > UINT32_MAX)
        throw Error("synth", "chunks",
                    fmt::format("{} units per piece x {} parts x {} NPUs do not fit 32-bit unit ids", units, parts,
                                t_.npu_count()));
      layouts_.push_back(std::move(layout));
    }
    units_per_piece_ = units;
    units_per_npu_ = units * parts;
    unit_weights(order);
    for (uint32_t i = 0; i < d_.phases.size(); ++i) {
      PhaseLayout& layout = layouts_[i];
      layout.rank_weight = weight_[layout.part][d_.phases[i].dimension];
      for (uint32_t v : layout.varying)
        layout.varying_weight.push_back(weight_[layout.part][v]);
    }
    uint64_t deliveries = 0;
    for (uint32_t i = 0; i < d_.phases.size(); ++i) {
      const DimensionalPhase& p = d_.phases[i];
      deliveries += p.lines * p.line_transfers * (layouts_[i].block * units / std::max<uint32_t>(1, p.chunks_per_npu));
    }
    if (deliveries > kMaxUnitDeliveries)
      throw Error("synth", "topology",
                  fmt::format("{} unit deliveries ({} units per piece) are too many to materialize (at most 2^28)",
                              deliveries, units));
    const int64_t part_size = std::max<int64_t>(1, (d_.size.count() + parts - 1) / parts);
    const int64_t piece = std::max<int64_t>(1, (part_size + t_.npu_count() - 1) / t_.npu_count());
    unit_bytes_ = Bytes((piece + static_cast<int64_t>(units) - 1) / static_cast<int64_t>(units));
  }

  // Unit ids are linear in the piece's coordinates: id(part, w, u) = offset[part] + sum_d coord_d(w) weight[part][d]
  // + u. All-Gather and Reduce-Scatter: w K + part L + u, the MSCCL in-place layout (rank w's slice). All-Reduce has
  // no owner in its buffer: part-major, then the part's dimension order with the last dimension fastest, so every
  // line chunk (a slice of a block of the later dimensions) is consecutive.
  void unit_weights(const std::vector<std::vector<uint32_t>>& order) {
    const uint64_t L = units_per_piece_, K = units_per_npu_;
    weight_.assign(order.size(), std::vector<uint64_t>(t_.dimensions().size(), 0));
    offset_.assign(order.size(), 0);
    for (uint32_t part = 0; part < order.size(); ++part) {
      if (d_.kind != CollectiveKind::AllReduce) {
        offset_[part] = part * L;
        for (uint32_t dim = 0; dim < t_.dimensions().size(); ++dim)
          weight_[part][dim] = stride_of(t_, dim) * K;
        continue;
      }
      offset_[part] = uint64_t{part} * t_.npu_count() * L;
      uint64_t w = L;
      for (auto it = order[part].rbegin(); it != order[part].rend(); ++it) {
        weight_[part][*it] = w;
        w *= t_.dimensions()[*it].size;
      }
    }
  }

  // The units of line chunk c of `phase`, relative to the line whose other coordinates are 0, sorted.
  std::vector<uint32_t> unit_pattern(uint32_t phase, uint32_t c) const {
    const DimensionalPhase& p = d_.phases[phase];
    const PhaseLayout& layout = layouts_[phase];
    const uint64_t L = units_per_piece_;
    const uint32_t rank = c % p.line_npus, j = c / p.line_npus;
    const uint64_t per = layout.block * L / std::max<uint32_t>(1, p.chunks_per_npu);
    std::vector<uint32_t> out;
    out.reserve(per);
    for (uint64_t q = j * per; q < (j + 1) * per; ++q) {
      uint64_t piece = q / L, id = offset_[p.part] + rank * layout.rank_weight + q % L;
      for (size_t m = 0; m < layout.varying.size(); ++m) {
        const uint32_t size = t_.dimensions()[layout.varying[m]].size;
        id += (piece % size) * layout.varying_weight[m];
        piece /= size;
      }
      out.push_back(static_cast<uint32_t>(id));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void run_stage(uint32_t stage) {
    std::vector<Deliveries> new_gathered(t_.node_count()), new_partials(t_.node_count());
    std::vector<std::vector<OpId>> own(barriers_ ? t_.npu_count() : 0);
    for (uint32_t i = 0; i < d_.phases.size(); ++i) {
      const DimensionalPhase& p = d_.phases[i];
      if (p.stage != stage)
        continue;
      const SynthResult& line = d_.lines[p.line];
      std::vector<std::vector<uint32_t>> pattern(line.schedule.size());
      for (uint32_t op = 0; op < line.schedule.size(); ++op)
        pattern[op] = unit_pattern(i, line.schedule.chunk(OpId{op}));
      for (uint32_t base = 0; base < t_.npu_count(); ++base) {
        if (t_.coordinate(NodeId{base}, p.dimension) != 0)
          continue;
        // The line's fixed coordinates (outside its block) shift the pattern.
        uint64_t shift = 0;
        for (uint32_t dim = 0; dim < t_.dimensions().size(); ++dim) {
          const auto& v = layouts_[i].varying;
          if (std::find(v.begin(), v.end(), dim) == v.end())
            shift += t_.coordinate(NodeId{base}, dim) * weight_[p.part][dim];
        }
        const LinePlacement at{base, layouts_[i].stride, p.line_npus, line_switch(base, layouts_[i].stride, p)};
        append_line(line, pattern, at, static_cast<uint32_t>(shift), new_gathered, new_partials, own);
      }
    }
    for (uint32_t v = 0; v < t_.node_count(); ++v) {
      merge(gathered_[v], new_gathered[v]);
      merge(partials_[v], new_partials[v]);
    }
    if (!barriers_)
      return;
    barrier_.resize(t_.npu_count());
    for (uint32_t v = 0; v < t_.npu_count(); ++v) {
      barrier_[v] = r_.schedule.add_local(NodeId{v}, Time::zero(), own[v], 0);
      r_.ops.push_back({.link = LinkId{0}, .reduce = false, .start = Time::zero(), .finish = Time::zero()});
      r_.bundle_start.push_back(r_.bundle_units.size());
    }
  }

  static void merge(Deliveries& into, Deliveries& add) {
    std::sort(add.begin(), add.end());
    const size_t mid = into.size();
    into.insert(into.end(), add.begin(), add.end());
    std::inplace_merge(into.begin(), into.begin() + static_cast<std::ptrdiff_t>(mid), into.end());
    add = {};
  }

  // The ops of earlier stages in `at` that delivered any of `units` there.
  static void delivered(const Deliveries& at, std::span<const uint32_t> units, std::vector<OpId>& deps) {
    for (uint32_t x : units) {
      auto it = std::lower_bound(at.begin(), at.end(), std::make_pair(x, uint32_t{0}));
      for (; it != at.end() && it->first == x; ++it)
        deps.push_back(OpId{it->second});
    }
  }

  // Where one line of a phase lies in the topology: line NPU v is base + v stride; the line topology's switch
  // (a switch dimension: node line_npus of dimension_line()) is that line's own switch.
  struct LinePlacement {
    uint32_t base = 0, stride = 1, line_npus = 0, hub = UINT32_MAX;
    uint32_t node(NodeId v) const { return v.value < line_npus ? base + v.value * stride : hub; }
  };

  // The switch of phase p's line through `base` (UINT32_MAX unless the dimension is a switch): the one switch
  // linked to both base and its neighbour base + stride on the line.
  uint32_t line_switch(uint32_t base, uint32_t stride, const DimensionalPhase& p) const {
    if (t_.dimensions()[p.dimension].kind != BlockKind::Switch)
      return UINT32_MAX;
    for (LinkId l : t_.out_links(NodeId{base})) {
      const NodeId hub = t_.link_dst(l);
      if (t_.is_npu(hub))
        continue;
      for (LinkId m : t_.out_links(hub)) {
        if (t_.link_dst(m).value == base + stride)
          return hub.value;
      }
    }
    throw Error("synth", "topology",
                fmt::format("NPU {} has no switch of dimension {} (the topology is not the composition its dimensions "
                            "describe)",
                            base, p.dimension));
  }

  // One line's ops translated to the line at `at`, their units shifted to the line's pieces, with the dependencies
  // materialize_dimensional() describes. A switch keeps nothing from one stage to the next: an op leaving it waits
  // only for the line's own dependencies (the hops that brought its units in).
  void append_line(const SynthResult& line, const std::vector<std::vector<uint32_t>>& pattern, const LinePlacement& at,
                   uint32_t shift, std::vector<Deliveries>& new_gathered, std::vector<Deliveries>& new_partials,
                   std::vector<std::vector<OpId>>& own) {
    const Schedule& s = line.schedule;
    std::vector<OpId> op_of(s.size()), deps;
    auto npu = [&](NodeId v) { return at.node(v); };
    for (uint32_t i = 0; i < s.size(); ++i) {
      const OpId op{i};
      const uint32_t src = npu(s.src(op)), dst = npu(s.dst(op));
      const SynthOp& x = line.ops[i];
      const bool transfer = s.is_transfer(op);
      const size_t first = r_.bundle_units.size();
      for (uint32_t u : pattern[i])
        r_.bundle_units.push_back(u + shift);
      const std::span<const uint32_t> units(r_.bundle_units.data() + first, pattern[i].size());
      deps.clear();
      for (OpId d : s.deps(op))
        deps.push_back(op_of[d.value]);
      // A reduction (a partial sent on, or the final sum) needs every partial its sender received so far; a gather
      // the delivery of each unit it forwards.
      if (t_.is_npu(NodeId{src}))
        delivered(transfer && !x.reduce ? gathered_[src] : partials_[src], units, deps);
      if (barriers_ && !barrier_.empty()) {
        for (uint32_t v : {src, dst}) {
          if (t_.is_npu(NodeId{v}))
            deps.push_back(barrier_[v]);
        }
      }
      uint32_t link = 0;
      if (transfer) {
        link = link_between(src, dst);
        if (last_on_link_[link] != UINT32_MAX)
          deps.push_back(OpId{last_on_link_[link]});
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      const uint32_t first_unit = units.empty() ? 0 : units.front();
      if (transfer) {
        op_of[i] = r_.schedule.add_transfer(NodeId{src}, NodeId{dst}, s.bytes(op), Time::zero(), deps, first_unit);
        last_on_link_[link] = op_of[i].value;
      } else {
        op_of[i] = r_.schedule.add_local(NodeId{src}, Time::zero(), deps, first_unit);
      }
      // The duration for now; time_as_soon_as_possible() places it.
      r_.ops.push_back({.link = LinkId{link},
                        .reduce = x.reduce,
                        .start = Time::zero(),
                        .finish = transfer ? x.finish - x.start : Time::zero()});
      r_.bundle_start.push_back(r_.bundle_units.size());
      Deliveries& into = transfer && x.reduce ? new_partials[dst] : new_gathered[dst];
      if (t_.is_npu(NodeId{dst})) {
        for (uint32_t u : units)
          into.push_back({u, op_of[i].value});
      }
      if (barriers_) {
        if (t_.is_npu(NodeId{src}))
          own[src].push_back(op_of[i]);
        if (dst != src && t_.is_npu(NodeId{dst}))
          own[dst].push_back(op_of[i]);
      }
    }
  }

  // The link src -> dst (a line's link exists in every copy of the line): a scan of src's few out-links.
  uint32_t link_between(uint32_t src, uint32_t dst) const {
    for (LinkId l : t_.out_links(NodeId{src})) {
      if (t_.link_dst(l).value == dst)
        return l.value;
    }
    CHORUS_ASSERT(false, "materialize_dimensional: no link {} -> {}", src, dst);
    return 0;
  }

  // Each op as soon as its dependencies end, for its own duration (held in SynthOp::finish until now).
  Time time_as_soon_as_possible() {
    Time makespan = Time::zero();
    for (uint32_t i = 0; i < r_.schedule.size(); ++i) {
      Time start = Time::zero();
      for (OpId d : r_.schedule.deps(OpId{i}))
        start = std::max(start, r_.ops[d.value].finish);
      const Time duration = r_.ops[i].finish;
      r_.ops[i].start = start;
      r_.ops[i].finish = start + duration;
      makespan = std::max(makespan, r_.ops[i].finish);
    }
    return makespan;
  }

  const Topology& t_;
  const DimensionalSynthResult& d_;
  bool barriers_;
  std::vector<PhaseLayout> layouts_;  // per phase of d_
  uint64_t units_per_piece_ = 1, units_per_npu_ = 1;
  std::vector<std::vector<uint64_t>> weight_;  // unit-id weight per part and dimension (unit_weights)
  std::vector<uint64_t> offset_;               // unit-id offset per part
  Bytes unit_bytes_;
  std::vector<uint32_t> last_on_link_;
  std::vector<Deliveries> gathered_, partials_;  // per NPU, earlier stages only
  std::vector<OpId> barrier_;
  SynthResult r_;
};

}  // namespace

SynthResult materialize_dimensional(const Topology& topology, const DimensionalSynthResult& synthesized,
                                    DimensionalComposition composition) {
  return Materializer(topology, synthesized, composition).run();
}

SynthResult materialize_dimensional(const Topology& topology, const SynthOptions& options,
                                    DimensionalComposition composition) {
  return materialize_dimensional(topology, synthesize_dimensional(topology, options), composition);
}

}  // namespace chorus
