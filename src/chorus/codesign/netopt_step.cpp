// The planner's iteration as netopt's training step (see netopt_step.hpp).
#include "chorus/codesign/netopt_step.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace chorus::codesign {

namespace {

// The relative rise of one tier's bandwidth the slopes are read with: small enough to be the local slope of a
// table or an overlap, large enough that rounding stays near 1e-13 of the difference.
constexpr double kRise = 1e-3;

enum Group : size_t { kTp, kPp, kBubble, kDp, kCp, kEp, kFsdp, kOther, kGroups };
constexpr std::array<const char*, kGroups> kNames = {"tp", "pp", "bubble", "dp", "cp", "ep", "fsdp", "other"};

// Each group's seconds in the planner's total (overlapped DP: its link time, streamed beside compute); `other` is
// what the total holds beyond them, so the groups account for every bandwidth dependence.
std::array<double, kGroups> group_seconds(const llm::Stats& st, bool dp_streamed) {
  std::array<double, kGroups> g{};
  g[kTp] = st.tp_comm_exposed_time + st.recomm_exposed_time;
  g[kPp] = st.pp_comm_exposed_time;
  g[kBubble] = st.bubble_time;
  g[kCp] = st.cp_comm_exposed_time;
  g[kEp] = st.ep_comm_exposed_time;
  g[kFsdp] = st.fsdp_gather_exposed_time;
  g[kOther] = st.total_time - g[kTp] - g[kPp] - g[kBubble] - g[kCp] - g[kEp] - g[kFsdp] - st.dp_comm_exposed_time;
  g[kDp] = dp_streamed ? st.dp_comm_link_time : st.dp_comm_exposed_time;
  return g;
}

llm::Stats evaluate(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                    NetworkPoint point, const std::vector<double>& gbps, const DimensionTables* tables,
                    const llm::Execution& exe) {
  for (size_t d = 0; d < gbps.size(); ++d)
    point.dims[d].bandwidth_gbps = gbps[d];
  return llm::IterationModel(app, network_system(machine, t, point, tables)).evaluate(exe);
}

int64_t group_size(Group g, const llm::Execution& exe) {
  switch (g) {
    case kTp:
      return exe.tensor_par;
    case kPp:
      return 2;  // point-to-point
    case kBubble:
      return exe.pipeline_par;
    case kDp:
    case kFsdp:
      return exe.grad_group();
    case kCp:
      return exe.context_par;
    case kEp:
      return exe.expert_par;
    default:
      return 1;
  }
}

// The closest of netopt's collective kinds (descriptive only: the time is the planner's coefficient).
CollectiveKind kind_of(Group g, const llm::Execution& exe) {
  switch (g) {
    case kTp:
      return exe.tp_comm == llm::TpCommType::kAr ? CollectiveKind::AllReduce : CollectiveKind::ReduceScatter;
    case kDp:
      return exe.optimizer_sharding || exe.fsdp != llm::Fsdp::kNone ? CollectiveKind::ReduceScatter
                                                                    : CollectiveKind::AllReduce;
    case kEp:
      return CollectiveKind::AllToAll;
    case kFsdp:
    case kCp:
      return CollectiveKind::AllGather;
    default:
      return CollectiveKind::Broadcast;
  }
}

}  // namespace

PlannerStep planner_step(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                         const NetworkPoint& point, const DimensionTables* tables, const llm::Execution& exe) {
  PlannerStep out;
  const size_t dims = point.dims.size();
  for (const DimensionSetting& d : point.dims)
    out.reference_gbps.push_back(d.bandwidth_gbps);
  const llm::System sys = network_system(machine, t, point, tables);
  const llm::Stats ref = llm::IterationModel(app, sys).evaluate(exe);
  out.reference_time_s = ref.total_time;
  // DP overlap keeps its structure (a stream beside backward compute); everything else is exposed time, blocking.
  const bool streamed = exe.data_par_overlap && ref.dp_comm_link_time > 0;
  const std::array<double, kGroups> at_ref = group_seconds(ref, streamed);

  // coefficient[g][d]: seconds x GB/s of group g on dimension d (its time there is coefficient / B_d).
  std::vector<std::array<double, kGroups>> coefficient(dims);
  for (size_t d = 0; d < dims; ++d) {
    std::vector<double> raised = out.reference_gbps;
    raised[d] *= 1 + kRise;
    const std::array<double, kGroups> up =
        group_seconds(evaluate(app, machine, t, point, raised, tables, exe), streamed);
    const double inverse_step = 1 / out.reference_gbps[d] - 1 / raised[d];
    for (size_t g = 0; g < kGroups; ++g) {
      const double k = (at_ref[g] - up[g]) / inverse_step;
      // Below rounding (a class this tier does not carry), or a class that more bandwidth would slow: none.
      coefficient[d][g] = k > 1e-9 * std::max(at_ref[g], 1e-12) * out.reference_gbps[d] ? k : 0.0;
    }
  }

  netopt::TrainingStep& step = out.step;
  step.loop = streamed ? netopt::TrainingLoop::Overlap : netopt::TrainingLoop::NoOverlap;
  double blocking_ms = 0;
  auto add = [&](size_t g, size_t d, double latency_ms, bool stream) {
    netopt::CollectiveTerms c;
    c.kind = kind_of(static_cast<Group>(g), exe);
    c.groups.assign(dims, 1);
    c.groups[d] = static_cast<uint32_t>(group_size(static_cast<Group>(g), exe));
    c.dims.assign(dims, {});
    c.dims[d] = {latency_ms, coefficient[d][g] * 1e3};
    // Calculon's time is bytes x factor / (B / o x efficiency): the wire bytes are the coefficient times
    // efficiency / o.
    c.bytes = coefficient[d][g] * 1e9 * sys.networks[d].efficiency / point.dims[d].oversubscription;
    out.labels.push_back({kNames[g], d, c.bytes, stream});
    step.collectives.push_back(std::move(c));
    return step.collectives.size() - 1;
  };
  for (size_t g = 0; g < kGroups; ++g) {
    if (g == kDp && streamed)
      continue;
    for (size_t d = 0; d < dims; ++d) {
      if (coefficient[d][g] > 0) {
        step.items.push_back({netopt::LoopItem::Kind::Blocking, 0, add(g, d, 0, false)});
        blocking_ms += coefficient[d][g] * 1e3 / out.reference_gbps[d];
      }
    }
  }
  const double total_ms = ref.total_time * 1e3;
  if (!streamed) {
    step.items.push_back({netopt::LoopItem::Kind::Compute, std::max(0.0, total_ms - blocking_ms), 0});
    return out;
  }
  // Overlapped DP: compute, then the reductions on the stream beside a window of backward compute. The window is
  // the part of the link time the planner hides at the reference (link - exposed), so the step's time there is the
  // planner's; the link time's constant (latencies) rides on the first streamed collective.
  const double link_ms = at_ref[kDp] * 1e3;
  const double exposed_ms = ref.dp_comm_exposed_time * 1e3;
  double variable_ms = 0;
  for (size_t d = 0; d < dims; ++d)
    variable_ms += coefficient[d][kDp] * 1e3 / out.reference_gbps[d];
  const double compute_ms = std::max(0.0, total_ms - blocking_ms - exposed_ms);
  const double window_ms = std::min(compute_ms, std::max(0.0, link_ms - exposed_ms));
  step.items.push_back({netopt::LoopItem::Kind::Compute, compute_ms - window_ms, 0});
  double latency_ms = std::max(0.0, link_ms - variable_ms);
  for (size_t d = 0; d < dims; ++d) {
    if (coefficient[d][kDp] > 0) {
      step.items.push_back({netopt::LoopItem::Kind::Stream, 0, add(kDp, d, latency_ms, true)});
      latency_ms = 0;
    }
  }
  step.items.push_back({netopt::LoopItem::Kind::Compute, window_ms, 0});
  return out;
}

}  // namespace chorus::codesign
