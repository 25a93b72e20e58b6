// NPU 0's part of a symmetric collective, simulated over link classes (see symmetric_contention.hpp).
#include "chorus/network/symmetric_contention.hpp"

#include <optional>

#include "chorus/core/assert.hpp"
#include "chorus/network/aware_model.hpp"
#include "chorus/network/flow_model.hpp"
#include "chorus/network/resource_routes.hpp"

namespace chorus {

namespace {

bool symmetric_under_contention(AlgorithmKind algorithm, BlockKind block) {
  switch (algorithm) {
    case AlgorithmKind::Ring:
    case AlgorithmKind::Direct:
      return block != BlockKind::Mesh;
    case AlgorithmKind::HalvingDoubling:
      return block == BlockKind::FullyConnected || block == BlockKind::Switch;
    case AlgorithmKind::DoubleBinaryTree:
    case AlgorithmKind::TwoTree:
      return false;
  }
  return false;
}

// Link classes of every dimension, numbered consecutively: Ring: forward, backward; UniRing: forward;
// FullyConnected: one per offset 1..p-1; Switch: up, down; each class is a resource.
class ClassRoutes final : public ResourceRoutes {
 public:
  explicit ClassRoutes(const Topology& topology) : topology_(topology) {
    for (const Dimension& dim : topology.dimensions()) {
      first_.push_back(static_cast<uint32_t>(bandwidth_.size()));
      uint32_t classes = 0;
      switch (dim.kind) {
        case BlockKind::Ring:
          classes = 2;
          break;
        case BlockKind::UniRing:
          classes = 1;
          break;
        case BlockKind::FullyConnected:
          classes = dim.size;
          break;  // offsets 1..p-1 (slot 0 unused)
        case BlockKind::Switch:
          classes = 2;
          break;
        case BlockKind::Mesh:
          classes = 0;
          break;
      }
      for (uint32_t c = 0; c < classes; ++c) {
        bandwidth_.push_back(dim.bandwidth);
        latency_.push_back(dim.latency);
      }
    }
    begin_.push_back(0);
  }

  uint32_t resource_count() const override { return static_cast<uint32_t>(bandwidth_.size()); }
  Bandwidth bandwidth(uint32_t r) const override { return bandwidth_[r]; }
  Time latency(uint32_t r) const override { return latency_[r]; }
  std::span<const uint32_t> route(OpId op) const override {
    return {classes_.data() + begin_[op.value], begin_[op.value + 1] - begin_[op.value]};
  }

  // Records the route of the next op of the schedule: a message from member 0 to member `to` of dimension `dim`
  // (empty for a local op). Must be called once per op, in op order.
  void add_route(int32_t dim, uint32_t to) {
    if (dim >= 0) {
      const Dimension& d = topology_.dimensions()[static_cast<size_t>(dim)];
      const uint32_t base = first_[static_cast<size_t>(dim)];
      switch (d.kind) {
        case BlockKind::Ring: {
          // Forward on ties, as RouteTable's dimension-order routing does.
          const bool forward = to <= d.size - to;
          const uint32_t hops = forward ? to : d.size - to;
          classes_.insert(classes_.end(), hops, base + (forward ? 0 : 1));
          break;
        }
        case BlockKind::UniRing:
          classes_.insert(classes_.end(), to, base);
          break;
        case BlockKind::FullyConnected:
          classes_.push_back(base + to);
          break;
        case BlockKind::Switch:
          classes_.push_back(base);
          classes_.push_back(base + 1);
          break;
        case BlockKind::Mesh:
          CHORUS_ASSERT(false, "mesh dimensions are not symmetric");
          break;
      }
    }
    begin_.push_back(static_cast<uint32_t>(classes_.size()));
  }

 private:
  const Topology& topology_;

 public:
  // The class of a physical link of the topology, or nullopt for links of Mesh dimensions.
  std::optional<uint32_t> class_of(LinkId link) const {
    const NodeId src = topology_.link_src(link), dst = topology_.link_dst(link);
    if (topology_.is_npu(src) && topology_.is_npu(dst)) {
      for (size_t d = 0; d < topology_.dimensions().size(); ++d) {
        const uint32_t a = topology_.coordinate(src, d), b = topology_.coordinate(dst, d);
        if (a == b)
          continue;
        const Dimension& dim = topology_.dimensions()[d];
        const uint32_t offset = (b + dim.size - a) % dim.size;
        switch (dim.kind) {
          case BlockKind::Ring:
            return first_[d] + (offset == 1 ? 0 : 1);
          case BlockKind::UniRing:
            return first_[d];
          case BlockKind::FullyConnected:
            return first_[d] + offset;
          default:
            return std::nullopt;
        }
      }
      return std::nullopt;
    }
    const bool up = topology_.is_npu(src);
    const std::optional<size_t> d = switch_dimension(up ? dst : src);
    if (!d)
      return std::nullopt;
    return first_[*d] + (up ? 0 : 1);
  }

 private:
  // The dimension a switch serves: the coordinate in which the NPUs hanging off it differ.
  std::optional<size_t> switch_dimension(NodeId sw) const {
    std::optional<NodeId> first;
    for (LinkId l : topology_.out_links(sw)) {
      const NodeId npu = topology_.link_dst(l);
      if (!topology_.is_npu(npu))
        continue;
      if (!first) {
        first = npu;
        continue;
      }
      for (size_t d = 0; d < topology_.dimensions().size(); ++d) {
        if (topology_.coordinate(*first, d) != topology_.coordinate(npu, d))
          return d;
      }
    }
    return std::nullopt;
  }

  std::vector<uint32_t> first_;
  std::vector<Bandwidth> bandwidth_;
  std::vector<Time> latency_;
  std::vector<uint32_t> classes_;
  std::vector<uint32_t> begin_;
};

// NPU 0's ops for every chunk and phase. An arrival "member f's send k" is replaced by NPU 0's own send k,
// which by symmetry ends at the same time.
class RepresentativeBuilder {
 public:
  RepresentativeBuilder(const CollectivePlan& plan, ClassRoutes& routes) : plan_(plan), routes_(routes) {}

  Schedule build() {
    const size_t phases = plan_.phases.size();
    const uint32_t window = plan_.active_chunks;
    std::vector<std::vector<OpId>> done(window, std::vector<OpId>(phases));
    for (uint32_t c = 0; c < plan_.chunks; ++c) {
      std::vector<OpId> entry;
      for (size_t j = 0; j < phases; ++j) {
        if (c >= window)
          entry.push_back(done[c % window][j]);
        const OpId end = add_phase(plan_.phases[j], c, entry);
        done[c % window][j] = end;
        entry.assign(1, end);
      }
    }
    return std::move(schedule_);
  }

 private:
  OpId add_phase(const PlannedPhase& phase, uint32_t chunk, const std::vector<OpId>& entry) {
    const LogicalDimension& dim = plan_.dims[phase.dim];
    const MemberProgram program = member_program(phase.spec, plan_.overheads, 0);
    std::vector<OpId> sent(program.sends.size());
    std::vector<OpId> deps;
    for (size_t s = 0; s < program.sends.size(); ++s) {
      const ProgramSend& send = program.sends[s];
      deps.assign(entry.begin(), entry.end());
      for (const Arrival& a : send.after) {
        CHORUS_ASSERT(a.send_index < s, "send {} waits for a later send {}", s, a.send_index);
        deps.push_back(sent[a.send_index]);
      }
      sent[s] =
          schedule_.add_transfer(NodeId{0}, NodeId{send.to * dim.stride}, send.bytes, send.pre_delay, deps, chunk);
      routes_.add_route(dim.network_dimension, send.to);
    }
    std::vector<OpId> steps;
    for (const FinishStep& step : program.finish) {
      steps.push_back(schedule_.add_local(NodeId{0}, step.delay, std::span(&sent[step.after.send_index], 1), chunk));
      routes_.add_route(-1, 0);
    }
    if (steps.size() == 1)
      return steps.front();
    if (steps.empty())
      steps = entry;
    const OpId end = schedule_.add_local(NodeId{0}, Time::zero(), steps, chunk);
    routes_.add_route(-1, 0);
    return end;
  }

  const CollectivePlan& plan_;
  ClassRoutes& routes_;
  Schedule schedule_;
};

}  // namespace

bool can_simulate_contention_symmetrically(const CollectivePlan& plan, const Topology& topology) {
  if (!topology.is_dimensional())
    return false;
  for (const PlannedPhase& phase : plan.phases) {
    const int32_t d = plan.dims[phase.dim].network_dimension;
    if (d < 0 || !is_rotation_symmetric(phase.spec))
      return false;
    if (!symmetric_under_contention(phase.spec.algorithm.kind, topology.dimensions()[static_cast<size_t>(d)].kind)) {
      return false;
    }
  }
  return true;
}

SymmetricContentionResult simulate_symmetric_contention(const CollectivePlan& plan, const Topology& topology,
                                                        ContentionDiscipline discipline, AstraCompat astra) {
  CHORUS_ASSERT(can_simulate_contention_symmetrically(plan, topology), "plan is not symmetric on '{}'",
                topology.name());
  ClassRoutes routes(topology);
  const Schedule schedule = RepresentativeBuilder(plan, routes).build();
  SymmetricContentionResult result;
  result.representative_transfers = schedule.transfer_count();
  LinkStats class_stats;
  if (discipline == ContentionDiscipline::MaxMinFair) {
    FlowRunResult r = run_flow(schedule, routes);
    result.makespan = r.makespan;
    result.events = r.events;
    class_stats = std::move(r.links);
  } else {
    AwareRunResult r = run_aware(schedule, routes, astra);
    result.makespan = r.makespan;
    result.events = r.events;
    class_stats = std::move(r.links);
  }
  result.links.resize(topology.link_count());
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const std::optional<uint32_t> c = routes.class_of(LinkId{l});
    if (!c)
      continue;
    result.links.bytes[l] = class_stats.bytes[*c];
    result.links.busy[l] = class_stats.busy[*c];
    result.links.peak_flows[l] = class_stats.peak_flows[*c];
  }
  return result;
}

}  // namespace chorus
