// Planning of hierarchical collectives and their expansion into a Schedule (see hierarchical.hpp).
#include "chorus/collective/hierarchical.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

namespace {

std::vector<LogicalDimension> logical_dimensions(const Topology& topology, const CollectivePlanConfig& config,
                                                 CollectiveKind kind) {
  std::vector<LogicalDimension> dims;
  const bool rooted = kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce;
  if (config.flatten || rooted || !topology.is_dimensional()) {
    dims.push_back({topology.npu_count(), 1, topology.is_dimensional() && topology.dimensions().size() == 1 ? 0 : -1});
    return dims;
  }
  uint32_t stride = 1;
  for (size_t d = 0; d < topology.dimensions().size(); ++d) {
    const uint32_t size = topology.dimensions()[d].size;
    dims.push_back({size, stride, static_cast<int32_t>(d)});
    stride *= size;
  }
  return dims;
}

std::vector<AlgorithmChoice> algorithms_per_dimension(const CollectivePlanConfig& config, size_t dims) {
  if (config.algorithms.empty())
    throw Error(config.source, config.algorithm_field, "no collective algorithm given");
  if (config.algorithms.size() == 1 && config.repeat_single_algorithm) {
    return std::vector<AlgorithmChoice>(dims, config.algorithms.front());
  }
  if (config.algorithms.size() > dims) {
    throw Error(config.source, config.algorithm_field,
                fmt::format("{} algorithms given for a network of {} dimensions", config.algorithms.size(), dims));
  }
  return config.algorithms;
}

Bytes chunk_size(const Collective& c, uint32_t npus, const CollectivePlanConfig& config) {
  if (config.splits == 0)
    throw Error(config.source, "splits", "must be >= 1");
  // Internally every phase uses ASTRA-sim's convention: an All-Gather's data is each NPU's contribution.
  const Bytes per_npu = c.kind == CollectiveKind::AllGather ? c.size / npus : c.size;
  Bytes chunk = per_npu / config.splits;
  if (config.overheads.astra.min_chunk_bytes && c.kind != CollectiveKind::AllGather && chunk.count() < npus)
    chunk = Bytes(npus);
  return chunk;
}

void add_phase(CollectivePlan& plan, uint32_t dim, CollectiveKind kind, AlgorithmChoice algorithm, Bytes& data) {
  const uint32_t p = plan.dims[dim].size;
  plan.phases.push_back({dim, PhaseSpec{kind, algorithm, p, data}});
  if (kind == CollectiveKind::ReduceScatter)
    data = data / p;
  if (kind == CollectiveKind::AllGather)
    data = data * p;
}

}  // namespace

CollectivePlan plan_collective(const Topology& topology, const Collective& collective,
                               const CollectivePlanConfig& config) {
  CollectivePlan plan;
  plan.collective = collective;
  plan.npus = topology.npu_count();
  plan.dims = logical_dimensions(topology, config, collective.kind);
  plan.chunks = config.splits;
  plan.chunk_bytes = chunk_size(collective, plan.npus, config);
  // More active chunks than chunks changes nothing; clamping keeps the per-window state small.
  plan.active_chunks = std::clamp(config.active_chunks, 1u, std::max(1u, config.splits));
  plan.overheads = config.overheads;
  const std::vector<AlgorithmChoice> algorithms = algorithms_per_dimension(config, plan.dims.size());
  std::vector<uint32_t> used;  // dimensions that take part, ascending
  for (uint32_t d = 0; d < algorithms.size(); ++d) {
    if (plan.dims[d].size > 1)
      used.push_back(d);
  }
  Bytes data = plan.chunk_bytes;
  const CollectiveKind kind = collective.kind;
  switch (kind) {
    case CollectiveKind::AllReduce:
      if (config.composition == Composition::Baseline) {
        for (uint32_t d : used)
          add_phase(plan, d, kind, algorithms[d], data);
      } else if (!used.empty()) {
        for (size_t i = 0; i + 1 < used.size(); ++i)
          add_phase(plan, used[i], CollectiveKind::ReduceScatter, algorithms[used[i]], data);
        add_phase(plan, used.back(), kind, algorithms[used.back()], data);
        for (size_t i = used.size() - 1; i-- > 0;)
          add_phase(plan, used[i], CollectiveKind::AllGather, algorithms[used[i]], data);
      }
      break;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
      for (uint32_t d : used)
        add_phase(plan, d, kind, algorithms[d], data);
      break;
    case CollectiveKind::AllGather:
      for (size_t i = used.size(); i-- > 0;)
        add_phase(plan, used[i], kind, algorithms[used[i]], data);
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      // Rooted at NPU 0, over one logical dimension of all NPUs (see logical_dimensions()).
      if (!used.empty())
        add_phase(plan, used.front(), kind, algorithms[used.front()], data);
      break;
  }
  // Validate every phase's algorithm once, on member 0, so that errors surface before any work, naming where
  // the algorithm was chosen.
  for (const PlannedPhase& phase : plan.phases) {
    try {
      (void)member_program(phase.spec, plan.overheads, 0);
    } catch (const Error& e) {
      throw Error(config.source, config.algorithm_field, e.message());
    }
  }
  return plan;
}

std::string algorithm_label(const CollectivePlan& plan) {
  std::vector<uint32_t> seen;
  std::string label;
  for (const PlannedPhase& phase : plan.phases) {
    if (std::find(seen.begin(), seen.end(), phase.dim) != seen.end())
      continue;
    seen.push_back(phase.dim);
    if (!label.empty())
      label += ",";
    label += to_string(phase.spec.algorithm.kind);
    // A windowed Direct is labelled as the user wrote it (directN).
    if (phase.spec.algorithm.kind == AlgorithmKind::Direct && phase.spec.algorithm.window > 0)
      label += std::to_string(phase.spec.algorithm.window);
  }
  return label.empty() ? "none" : label;
}

uint64_t count_transfers(const CollectivePlan& plan) {
  uint64_t per_chunk = 0;
  for (const PlannedPhase& phase : plan.phases) {
    uint64_t sends = 0;
    if (is_rotation_symmetric(phase.spec)) {
      sends = member_program(phase.spec, plan.overheads, 0).sends.size() * uint64_t{plan.npus};
    } else {
      for (uint32_t m = 0; m < phase.spec.group_size; ++m) {
        const MemberProgram program = member_program(phase.spec, plan.overheads, m);
        sends +=
            std::count_if(program.sends.begin(), program.sends.end(), [m](const ProgramSend& s) { return s.to != m; });
      }
      sends *= plan.npus / phase.spec.group_size;
    }
    per_chunk += sends;
  }
  return per_chunk * plan.chunks;
}

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Expands one phase of one chunk for one group. `entry[m]` lists the ops member m must wait for before its
// first send; on return `final_ops[m]` is the op that marks member m done.
class GroupExpander {
 public:
  GroupExpander(Schedule& schedule, const CollectivePlan& plan, const PlannedPhase& phase, uint32_t base,
                uint32_t chunk)
      : schedule_(schedule), plan_(plan), phase_(phase), base_(base), chunk_(chunk) {}

  void expand(const std::vector<std::vector<OpId>>& entry, std::vector<OpId>& final_ops) {
    const uint32_t p = phase_.spec.group_size;
    std::vector<MemberProgram> programs(p);
    std::vector<std::vector<uint32_t>> op_of(p);
    for (uint32_t m = 0; m < p; ++m) {
      programs[m] = member_program(phase_.spec, plan_.overheads, m, chunk_);
      op_of[m].assign(programs[m].sends.size(), kNone);
    }
    // Kahn-style sweeps: a member's next send is added once everything it waits for exists.
    std::vector<size_t> cursor(p, 0);
    size_t remaining = 0;
    for (const auto& prog : programs)
      remaining += prog.sends.size();
    std::vector<OpId> deps;
    while (remaining > 0) {
      bool progressed = false;
      for (uint32_t m = 0; m < p; ++m) {
        while (cursor[m] < programs[m].sends.size()) {
          const ProgramSend& send = programs[m].sends[cursor[m]];
          if (!collect_deps(send.after, op_of, entry[m], deps))
            break;
          if (send.to != m) {
            op_of[m][cursor[m]] =
                schedule_.add_transfer(npu(m), npu(send.to), send.bytes, send.pre_delay, deps, chunk_).value;
          }
          ++cursor[m];
          --remaining;
          progressed = true;
        }
      }
      CHORUS_ASSERT(progressed, "cyclic member programs in {} phase", to_string(phase_.spec.algorithm.kind));
    }
    for (uint32_t m = 0; m < p; ++m)
      final_ops[m] = finish(m, programs[m], op_of, entry[m]);
  }

 private:
  NodeId npu(uint32_t member) const { return NodeId{base_ + member * plan_.dims[phase_.dim].stride}; }

  bool collect_deps(const std::vector<Arrival>& after, const std::vector<std::vector<uint32_t>>& op_of,
                    const std::vector<OpId>& entry, std::vector<OpId>& deps) const {
    deps.clear();
    for (const Arrival& a : after) {
      const uint32_t op = op_of[a.from][a.send_index];
      if (op == kNone)
        return false;
      deps.push_back(OpId{op});
    }
    // Every send also waits for its member's phase entry; for sends that wait on an arrival this is implied
    // through the chain, but stating it keeps the DAG valid for any algorithm.
    deps.insert(deps.end(), entry.begin(), entry.end());
    return true;
  }

  OpId finish(uint32_t m, const MemberProgram& program, const std::vector<std::vector<uint32_t>>& op_of,
              const std::vector<OpId>& entry) {
    std::vector<OpId> steps;
    for (const FinishStep& step : program.finish) {
      const OpId arrival{op_of[step.after.from][step.after.send_index]};
      if (program.finish.size() == 1)
        return schedule_.add_local(npu(m), step.delay, std::span(&arrival, 1), chunk_);
      steps.push_back(schedule_.add_local(npu(m), step.delay, std::span(&arrival, 1), chunk_));
    }
    if (steps.empty()) {
      for (size_t s = 0; s < program.sends.size(); ++s) {
        if (op_of[m][s] != kNone)
          steps.push_back(OpId{op_of[m][s]});
      }
      steps.insert(steps.end(), entry.begin(), entry.end());
    }
    return schedule_.add_local(npu(m), Time::zero(), steps, chunk_);
  }

  Schedule& schedule_;
  const CollectivePlan& plan_;
  const PlannedPhase& phase_;
  uint32_t base_;
  uint32_t chunk_;
};

}  // namespace

Schedule build_schedule(const CollectivePlan& plan) {
  Schedule schedule;
  const uint64_t transfers = count_transfers(plan);
  schedule.reserve(transfers + uint64_t{plan.npus} * plan.phases.size() * plan.chunks, transfers * 2);
  const size_t phases = plan.phases.size();
  const uint32_t window = plan.active_chunks;
  // done[c % window][j][npu]: the op that ends phase j of chunk c on that NPU (for the queue window), and
  // previous[npu]: the op that ends the previous phase of the current chunk.
  std::vector<std::vector<std::vector<OpId>>> done(window, std::vector<std::vector<OpId>>(phases));
  for (uint32_t c = 0; c < plan.chunks; ++c) {
    std::vector<OpId> previous;
    for (size_t j = 0; j < phases; ++j) {
      const PlannedPhase& phase = plan.phases[j];
      const LogicalDimension& dim = plan.dims[phase.dim];
      std::vector<OpId> ends(plan.npus);
      const uint32_t block = dim.size * dim.stride;
      for (uint32_t outer = 0; outer < plan.npus; outer += block) {
        for (uint32_t inner = 0; inner < dim.stride; ++inner) {
          const uint32_t base = outer + inner;
          std::vector<std::vector<OpId>> entry(dim.size);
          for (uint32_t m = 0; m < dim.size; ++m) {
            const uint32_t npu = base + m * dim.stride;
            if (!previous.empty())
              entry[m].push_back(previous[npu]);
            if (c >= window)
              entry[m].push_back(done[c % window][j][npu]);
          }
          std::vector<OpId> final_ops(dim.size);
          GroupExpander(schedule, plan, phase, base, c).expand(entry, final_ops);
          for (uint32_t m = 0; m < dim.size; ++m)
            ends[base + m * dim.stride] = final_ops[m];
        }
      }
      done[c % window][j] = ends;
      previous = std::move(ends);
    }
  }
  return schedule;
}

}  // namespace chorus
